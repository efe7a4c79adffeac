package mcp

import (
	"encoding/base64"
	"strconv"

	"github.com/mcpkit/mcpkit/internal/jsonenc"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// A resource may be megabytes of text or base64 (written straight from
// ResourceContents.BlobData's bytes when it is set), which encoding/json would
// copy four times over (the contents' MarshalJSON, its re-compaction, the
// result's buffer and the copy Marshal returns), and the stateless era's
// stamp once more. A resources/read result of the usual shape (no _meta
// anywhere) is therefore encoded by hand, into one buffer of the exact
// size, with the stamp written first where one is due. The bytes are those
// json.Marshal (and stampResult) write
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#reading-resources).

// fastSize returns the length of the result's JSON, and false when the
// result has a shape the hand-written encoder leaves to encoding/json.
func (r *ReadResourceResult) fastSize() (int, bool) {
	if len(r.Meta) > 0 || r.Contents == nil {
		return 0, false
	}
	size := len(`{"contents":[]}`)
	for i, c := range r.Contents {
		if c == nil || len(c.Meta) > 0 {
			return 0, false
		}
		if i > 0 {
			size++ // ,
		}
		size += len(`{"uri":,"text":}`) + jsonenc.StringLen(c.URI)
		if c.MIMEType != "" {
			size += len(`,"mimeType":`) + jsonenc.StringLen(c.MIMEType)
		}
		switch {
		case c.BlobData != nil:
			// Base64's alphabet needs no JSON escape.
			size += 2 + base64.StdEncoding.EncodedLen(len(c.BlobData))
		case c.Blob != "":
			size += jsonenc.StringLen(c.Blob)
		default:
			size += jsonenc.StringLen(c.Text)
		}
	}
	return size, true
}

// appendMembers appends the result's JSON without its opening '{'; only
// for a result fastSize accepts.
func (r *ReadResourceResult) appendMembers(b []byte) []byte {
	b = append(b, `"contents":[`...)
	for i, c := range r.Contents {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"uri":`...)
		b = jsonenc.AppendString(b, c.URI)
		if c.MIMEType != "" {
			b = append(b, `,"mimeType":`...)
			b = jsonenc.AppendString(b, c.MIMEType)
		}
		// As ResourceContents.MarshalJSON: BlobData wins, then Blob;
		// text is written even when empty.
		switch {
		case c.BlobData != nil:
			b = append(b, `,"blob":"`...)
			b = base64.StdEncoding.AppendEncode(b, c.BlobData)
			b = append(b, '"')
		case c.Blob != "":
			b = append(b, `,"blob":`...)
			b = jsonenc.AppendString(b, c.Blob)
		default:
			b = append(b, `,"text":`...)
			b = jsonenc.AppendString(b, c.Text)
		}
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// appendFast returns the result's JSON, or false for a shape it leaves to
// encoding/json.
func (r *ReadResourceResult) appendFast() (raw []byte, ok bool) {
	size, ok := r.fastSize()
	if !ok {
		return nil, false
	}
	return r.appendMembers(append(make([]byte, 0, size), '{')), true
}

// stampedReadResult is makeResponse followed by stampResult for a
// resources/read result appendFast encodes: the stamp (resultType, the
// cache hint, the server's identity in _meta) is written first and the
// result straight after it. It returns nil for every other result.
func (s *Server) stampedReadResult(method string, id jsonrpc.ID, result any) *jsonrpc.Response {
	r, ok := result.(*ReadResourceResult)
	if !ok || r == nil || method != "resources/read" {
		return nil
	}
	size, ok := r.fastSize()
	if !ok {
		return nil
	}
	hint := s.cacheHint(method)
	info := s.serverInfoMember()
	out := make([]byte, 0, size+len(info)+96+len(hint.Scope))
	out = append(out, `{"resultType":"complete","ttlMs":`...)
	out = strconv.AppendInt(out, hint.TTL.Milliseconds(), 10)
	out = append(out, `,"cacheScope":`...)
	out = jsonenc.AppendString(out, string(hint.Scope))
	out = append(out, `,"_meta":{`...)
	out = append(out, info...)
	out = append(out, "},"...)
	return jsonrpc.NewCompactResult(id, r.appendMembers(out))
}
