package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/internal/jsonenc"
	"github.com/mcpkit/mcpkit/internal/jsonscan"
)

// Content is one block of a tool result, prompt message or sampling
// message: *TextContent, *ImageContent, *AudioContent, *ResourceLink or
// *EmbeddedResource (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-result).
// Each encodes with its "type" member.
type Content interface {
	contentType() string
}

// Annotations tell a client how to use or show an object.
type Annotations struct {
	Audience     []string `json:"audience,omitempty"`
	Priority     *float64 `json:"priority,omitempty"`
	LastModified string   `json:"lastModified,omitempty"`
}

// TextContent is plain text.
type TextContent struct {
	Text        string       `json:"text"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// ImageContent is a base64-encoded image.
type ImageContent struct {
	Data        string       `json:"data"`
	MIMEType    string       `json:"mimeType"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// AudioContent is base64-encoded audio.
type AudioContent struct {
	Data        string       `json:"data"`
	MIMEType    string       `json:"mimeType"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// ResourceLink points at a resource the client may read.
type ResourceLink struct {
	URI         string       `json:"uri"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MIMEType    string       `json:"mimeType,omitempty"`
	Size        *int64       `json:"size,omitempty"`
	Icons       []Icon       `json:"icons,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// EmbeddedResource carries a resource's contents inline.
type EmbeddedResource struct {
	Resource    *ResourceContents `json:"resource"`
	Annotations *Annotations      `json:"annotations,omitempty"`
	Meta        Meta              `json:"_meta,omitempty"`
}

// ResourceContents is the text or the base64 blob of a resource
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#resource-contents).
// Exactly one of Text, Blob and BlobData is meaningful; BlobData wins,
// then Blob.
type ResourceContents struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"`
	// BlobData, if not nil, is a blob's bytes, sent base64-encoded as
	// "blob". A server holding bytes (a file it read) sets it rather than
	// Blob: the encoding is then written once, straight into the
	// response, where Blob would hold a second copy of it per request.
	// It is never set on contents received: those carry Blob.
	BlobData []byte `json:"-"`
	Meta     Meta   `json:"_meta,omitempty"`
}

// MarshalJSON writes "text" for text contents even when empty, and omits it
// for blobs (BlobData written as base64), as the schema's TextResourceContents/BlobResourceContents
// union requires.
func (rc *ResourceContents) MarshalJSON() ([]byte, error) {
	type base struct {
		URI      string `json:"uri"`
		MIMEType string `json:"mimeType,omitempty"`
		Meta     Meta   `json:"_meta,omitempty"`
	}
	if rc.BlobData != nil {
		return jsonenc.Marshal(struct {
			base
			Blob []byte `json:"blob"` // base64, as encoding/json writes []byte
		}{base{rc.URI, rc.MIMEType, rc.Meta}, rc.BlobData})
	}
	if rc.Blob != "" {
		return jsonenc.Marshal(struct {
			base
			Blob string `json:"blob"`
		}{base{rc.URI, rc.MIMEType, rc.Meta}, rc.Blob})
	}
	return jsonenc.Marshal(struct {
		base
		Text string `json:"text"`
	}{base{rc.URI, rc.MIMEType, rc.Meta}, rc.Text})
}

func (*TextContent) contentType() string      { return "text" }
func (*ImageContent) contentType() string     { return "image" }
func (*AudioContent) contentType() string     { return "audio" }
func (*ResourceLink) contentType() string     { return "resource_link" }
func (*EmbeddedResource) contentType() string { return "resource" }

// The MarshalJSON methods add the "type" discriminator.

func (c *TextContent) MarshalJSON() ([]byte, error) {
	if c.Annotations == nil && len(c.Meta) == 0 {
		return c.appendPlain(make([]byte, 0, len(c.Text)+26)), nil
	}
	type plain TextContent
	return jsonenc.Marshal(struct {
		Type string `json:"type"`
		*plain
	}{"text", (*plain)(c)})
}

// appendPlain appends a text content without annotations or _meta, as
// encoding/json would write it.
func (c *TextContent) appendPlain(dst []byte) []byte {
	dst = append(dst, `{"type":"text","text":`...)
	return append(jsonenc.AppendString(dst, c.Text), '}')
}

// MarshalJSON writes the result as encoding/json would, by hand for the
// usual shape (text contents, no _meta, no structuredContent): a tool
// result is encoded on every tools/call.
func (r *CallToolResult) MarshalJSON() ([]byte, error) {
	own := r.ownEncoding()
	return r.appendJSON(make([]byte, 0, r.jsonSize(own)), own, nil)
}

// jsonSize is the capacity to encode r into: exact (at most a few bytes
// over) for a typed result's own encoding (own is r.ownEncoding()), whose
// text's escapes are its quotes and backslashes, else with room for some
// escapes.
func (r *CallToolResult) jsonSize(own bool) int {
	if own {
		e := r.encoded
		return len(`{"content":[{"type":"text","text":""}],"structuredContent":,"isError":true}`) +
			len(e) + strings.Count(e, `"`) + strings.Count(e, `\`) + len(r.StructuredContent)
	}
	size := 64 + len(r.StructuredContent)
	for _, c := range r.Content {
		if t, ok := c.(*TextContent); ok && t != nil {
			size += len(t.Text) + len(t.Text)/8 + 32 // room for some escapes
		}
	}
	return size
}

// appendJSON appends the result's JSON, with the head h (nil for none), to
// dst; see MarshalJSON. own is r.ownEncoding(), which the caller has for
// jsonSize: it compares the structured content with the encoding whole,
// so it is found once.
func (r *CallToolResult) appendJSON(dst []byte, own bool, h *resultHead) ([]byte, error) {
	if !r.fastShape() || (len(r.StructuredContent) > 0 && !own && !verbatimRaw(r.StructuredContent)) {
		if h != nil {
			return h.appendTyped(dst, r)
		}
		type plain CallToolResult
		b, err := jsonenc.Marshal((*plain)(r))
		return append(dst, b...), err
	}
	dst = append(h.start(dst), `"content":[`...)
	if own {
		// The text is JSON outEncoder wrote: only its quotes and
		// backslashes are escaped.
		dst = append(dst, `{"type":"text","text":`...)
		dst = append(jsonenc.AppendEncoded(dst, r.encoded), '}')
	} else {
		for i, c := range r.Content {
			if i > 0 {
				dst = append(dst, ',')
			}
			if t, ok := c.(*TextContent); ok && t != nil && t.Annotations == nil && len(t.Meta) == 0 {
				dst = t.appendPlain(dst)
				continue
			}
			b, err := jsonenc.Marshal(c)
			if err != nil {
				return dst, err
			}
			dst = append(dst, b...)
		}
	}
	dst = append(dst, ']')
	if len(r.StructuredContent) > 0 {
		dst = append(dst, `,"structuredContent":`...)
		dst = append(dst, r.StructuredContent...)
	}
	if r.IsError {
		dst = append(dst, `,"isError":true`...)
	}
	return append(dst, '}'), nil
}

// fastShape reports whether appendJSON may write the result by hand:
// no _meta, and content (else encoding/json writes null).
func (r *CallToolResult) fastShape() bool { return len(r.Meta) == 0 && r.Content != nil }

// ownEncoding reports whether r is a typed tool's result as typedResult
// made it from outEncoder's JSON, unchanged since (middleware may have
// replaced its content or structured content): one text content holding
// that JSON and, if any, structured content equal to it. Such structured
// content needs no verbatimRaw check, and the text only its quotes and
// backslashes escaped.
func (r *CallToolResult) ownEncoding() bool {
	if r.encoded == "" || len(r.Content) != 1 {
		return false
	}
	t, ok := r.Content[0].(*TextContent)
	return ok && t != nil && t.Annotations == nil && len(t.Meta) == 0 && t.Text == r.encoded &&
		(len(r.StructuredContent) == 0 || string(r.StructuredContent) == r.encoded)
}

// verbatimRaw reports whether jsonenc.Marshal would write raw unchanged:
// valid, compact JSON with nothing it escapes (<, >, & and U+2028, U+2029,
// U+FFFD in strings). A typed tool's structured output, which
// jsonenc.Marshal wrote, always is.
func verbatimRaw(raw []byte) bool {
	for i, b := range raw {
		switch b {
		case '<', '>', '&':
			return false
		case 0xE2: // U+2028 and U+2029 are E2 80 A8 and E2 80 A9
			if i+2 < len(raw) && raw[i+1] == 0x80 && (raw[i+2] == 0xA8 || raw[i+2] == 0xA9) {
				return false
			}
		case 0xEF: // U+FFFD is EF BF BD
			if i+2 < len(raw) && raw[i+1] == 0xBF && raw[i+2] == 0xBD {
				return false
			}
		}
	}
	return jsonscan.ValidCompact(raw)
}

func (c *ImageContent) MarshalJSON() ([]byte, error) {
	type plain ImageContent
	return jsonenc.Marshal(struct {
		Type string `json:"type"`
		*plain
	}{"image", (*plain)(c)})
}

func (c *AudioContent) MarshalJSON() ([]byte, error) {
	type plain AudioContent
	return jsonenc.Marshal(struct {
		Type string `json:"type"`
		*plain
	}{"audio", (*plain)(c)})
}

func (c *ResourceLink) MarshalJSON() ([]byte, error) {
	type plain ResourceLink
	return jsonenc.Marshal(struct {
		Type string `json:"type"`
		*plain
	}{"resource_link", (*plain)(c)})
}

func (c *EmbeddedResource) MarshalJSON() ([]byte, error) {
	type plain EmbeddedResource
	return jsonenc.Marshal(struct {
		Type string `json:"type"`
		*plain
	}{"resource", (*plain)(c)})
}

// unmarshalContent decodes one content block by its "type".
func unmarshalContent(data []byte) (Content, error) {
	return unmarshalBlock(data, func(typ string) Content {
		switch typ {
		case "text":
			return new(TextContent)
		case "image":
			return new(ImageContent)
		case "audio":
			return new(AudioContent)
		case "resource_link":
			return new(ResourceLink)
		case "resource":
			return new(EmbeddedResource)
		}
		return nil
	}, "mcp: unknown content type %q")
}

// unmarshalBlock decodes a block whose Go type is chosen by its "type"
// member: newBlock returns a pointer to a fresh value of that type, or nil
// for a type that is not allowed, reported with notAllowed.
func unmarshalBlock[T comparable](data []byte, newBlock func(typ string) T, notAllowed string) (T, error) {
	var zero T
	var probe struct {
		Type string `json:"type"`
	}
	if err := exactjson.Unmarshal(data, &probe); err != nil {
		return zero, err
	}
	c := newBlock(probe.Type)
	if c == zero {
		return zero, fmt.Errorf(notAllowed, probe.Type)
	}
	if err := exactjson.Unmarshal(data, any(c)); err != nil {
		return zero, err
	}
	return c, nil
}

// unmarshalBlocks decodes a list of blocks, each with one; it returns a
// non-nil list, empty for no blocks, and stops at the first bad block.
func unmarshalBlocks[T any](raws []json.RawMessage, one func([]byte) (T, error)) ([]T, error) {
	out := make([]T, 0, len(raws))
	for _, raw := range raws {
		c, err := one(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// UnmarshalJSON decodes a result's content blocks by their types.
func (r *CallToolResult) UnmarshalJSON(data []byte) error {
	type plain CallToolResult
	var w struct {
		Content []json.RawMessage `json:"content"`
		*plain
	}
	w.plain = (*plain)(r)
	if err := exactjson.Unmarshal(data, &w); err != nil {
		return err
	}
	var err error
	r.Content, err = unmarshalBlocks(w.Content, unmarshalContent)
	return err
}
