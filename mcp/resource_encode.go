package mcp

import (
	"encoding/base64"
	"strconv"
	"sync"

	"github.com/mcpkit/mcpkit/internal/jsonenc"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// A resource may be megabytes of text or base64 (written straight from
// ResourceContents.BlobData's bytes when it is set), which encoding/json would
// copy four times over (the contents' MarshalJSON, its re-compaction, the
// result's buffer and the copy Marshal returns), and the stateless era's
// stamp once more. A resources/read result of the usual shape (no _meta
// anywhere) is therefore encoded by hand, into one buffer of the exact
// size, with the stamp written first where one is due; a long text is
// escaped once, into a pooled buffer, and copied in (see bigText). The bytes are those
// json.Marshal (and stampResult) write
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#reading-resources).

// fastShape reports whether the hand-written encoder takes the result:
// anything else is left to encoding/json.
func (r *ReadResourceResult) fastShape() bool {
	if len(r.Meta) > 0 || r.Contents == nil {
		return false
	}
	for _, c := range r.Contents {
		if c == nil || len(c.Meta) > 0 {
			return false
		}
	}
	return true
}

// bigText is the length from which the text (or base64 string) of a
// result's only content is escaped once, into a pooled buffer, and then
// copied into the result's buffer, rather than read twice (jsonenc.StringLen
// to size the buffer, then AppendString): the escaping is most of a large
// read's CPU.
const bigText = 16 << 10

// textPool holds the buffers preEncode escapes into (*[]byte), as
// encoding/json pools its encoder's buffers.
var textPool sync.Pool

// preEncode escapes the long text of a fastShape result's only content
// (encodeText, through the server's cache c when it is not nil) and
// returns it (empty when there is none), to be handed to fastSize and
// appendMembers and then released.
func (r *ReadResourceResult) preEncode(c *textCache) encodedText {
	if len(r.Contents) != 1 {
		return encodedText{}
	}
	rc := r.Contents[0]
	s := rc.Text
	if rc.BlobData != nil {
		return encodedText{}
	} else if rc.Blob != "" {
		s = rc.Blob
	}
	if len(s) < bigText {
		return encodedText{}
	}
	return encodeText(s, c)
}

// maxPooledText is the largest buffer releaseText keeps: a rare huge
// read should not pin its buffer in the pool for every later one.
const maxPooledText = 4 << 20

// releaseText returns an encodeText buffer to the pool, unless it is larger
// than maxPooledText.
func releaseText(p *[]byte) {
	if p != nil && cap(*p) <= maxPooledText {
		textPool.Put(p)
	}
}

// fastSize returns the length of a fastShape result's JSON; pre is what
// preEncode returned for it.
func (r *ReadResourceResult) fastSize(pre []byte) int {
	size := len(`{"contents":[]}`)
	for i, c := range r.Contents {
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
		case pre != nil:
			size += len(pre)
		case c.Blob != "":
			size += jsonenc.StringLen(c.Blob)
		default:
			size += jsonenc.StringLen(c.Text)
		}
	}
	return size
}

// appendMembers appends the result's JSON without its opening '{'; only
// for a fastShape result, with what preEncode returned for it.
func (r *ReadResourceResult) appendMembers(b []byte, pre []byte) []byte {
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
			b = jsonenc.AppendBase64(b, c.BlobData)
			b = append(b, '"')
		case pre != nil && c.Blob != "":
			b = append(append(b, `,"blob":`...), pre...)
		case pre != nil:
			b = append(append(b, `,"text":`...), pre...)
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
// encoding/json; c is the server's text cache (nil for none).
func (r *ReadResourceResult) appendFast(c *textCache) (raw []byte, ok bool) {
	if !r.fastShape() {
		return nil, false
	}
	pre := r.preEncode(c)
	defer pre.release()
	return r.appendMembers(append(make([]byte, 0, r.fastSize(pre.b)), '{'), pre.b), true
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
	if !r.fastShape() {
		return nil
	}
	pre := r.preEncode(&s.texts)
	defer pre.release()
	size := r.fastSize(pre.b)
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
	return jsonrpc.NewCompactResult(id, r.appendMembers(out, pre.b))
}
