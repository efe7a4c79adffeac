package mcp

import "github.com/mcpkit/mcpkit/internal/jsonenc"

// appendFast encodes a prompts/get result of the usual shape (no _meta,
// messages of plain text content) by hand, as CallToolResult.MarshalJSON
// does for tools/call: encoding/json would reflect over the result and
// compact each content's MarshalJSON output again. The bytes are those
// json.Marshal writes; ok is false for any other shape, which is left to
// encoding/json
// (https://modelcontextprotocol.io/specification/2025-11-25/server/prompts#getting-a-prompt).
func (r *GetPromptResult) appendFast() (raw []byte, ok bool) {
	if len(r.Meta) > 0 || r.Messages == nil {
		return nil, false
	}
	size := 32 + len(r.Description)
	for _, m := range r.Messages {
		if m == nil {
			return nil, false
		}
		t, ok := m.Content.(*TextContent)
		if !ok || t == nil || t.Annotations != nil || len(t.Meta) > 0 {
			return nil, false
		}
		size += 64 + len(m.Role) + len(t.Text) + len(t.Text)/8 // room for some escapes
	}
	b := make([]byte, 0, size)
	b = append(b, '{')
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
	return append(b, "]}"...), true
}
