package mcp

import (
	"encoding/base64"
	"sync"

	"github.com/mcpkit/mcpkit/internal/jsonenc"
)

// A resources/read result of the usual shape (no _meta anywhere) is
// encoded by hand, into one buffer of the exact size; docs/design.md
// ("Result encoding") says why. The bytes are those json.Marshal writes
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

// appendFast returns the result's JSON with the head h (nil for none), or
// false for a shape it leaves to encoding/json; c is the server's text
// cache (nil for none).
func (r *ReadResourceResult) appendFast(c *textCache, h *resultHead) (raw []byte, ok bool) {
	if !r.fastShape() {
		return nil, false
	}
	pre := r.preEncode(c)
	defer pre.release()
	return r.appendMembers(h.start(make([]byte, 0, h.size()+r.fastSize(pre.b))), pre.b), true
}
