package mcp

import (
	"github.com/mcpkit/mcpkit/internal/jsonenc"
)

// appendFast encodes a prompts/get result of the usual shape (no _meta,
// messages of plain text content) by hand, with the head h (nil for
// none), as json.Marshal would; ok is false for any other shape
// (https://modelcontextprotocol.io/specification/2025-11-25/server/prompts#getting-a-prompt).
func (r *GetPromptResult) appendFast(h *resultHead) (raw []byte, ok bool) {
	size, ok := r.fastSize()
	if !ok {
		return nil, false
	}
	return r.appendFastTo(make([]byte, 0, h.size()+size), h), true
}

// fastSize is room for the result's JSON with some escapes, or false for
// a shape appendFast leaves to encoding/json.
func (r *GetPromptResult) fastSize() (int, bool) {
	if len(r.Meta) > 0 || r.Messages == nil {
		return 0, false
	}
	size := 32 + len(r.Description)
	for _, m := range r.Messages {
		if m == nil {
			return 0, false
		}
		t, ok := m.Content.(*TextContent)
		if !ok || t == nil || t.Annotations != nil || len(t.Meta) > 0 {
			return 0, false
		}
		size += 64 + len(m.Role) + len(t.Text) + len(t.Text)/8 // room for some escapes
	}
	return size, true
}

// appendFastTo appends the JSON of a result whose fastSize is ok, with
// the head h (nil for none), to b.
func (r *GetPromptResult) appendFastTo(b []byte, h *resultHead) []byte {
	b = h.start(b)
	if r.Description != "" {
		b = append(b, `"description":`...)
		b = jsonenc.AppendString(b, r.Description)
		b = append(b, ',')
	}
	b = append(b, `"messages":[`...)
	for i, m := range r.Messages {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"role":`...)
		b = jsonenc.AppendString(b, string(m.Role))
		b = append(b, `,"content":`...)
		b = m.Content.(*TextContent).appendPlain(b)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}
