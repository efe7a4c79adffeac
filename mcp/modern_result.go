package mcp

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/mcpkit/mcpkit/internal/jsonenc"
	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// CacheScope says who may reuse a cacheable result
// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching).
type CacheScope string

const (
	// CachePublic results may be shared across authorization contexts.
	CachePublic CacheScope = "public"
	// CachePrivate results belong to the authorization context that asked.
	CachePrivate CacheScope = "private"
)

// A CacheHint is what a stateless-era result of server/discover, a list
// method or resources/read tells clients about reusing it: ttlMs and
// cacheScope
// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching).
type CacheHint struct {
	// TTL is how long a client may reuse the result. If zero, ttlMs is 0:
	// the result is not reused.
	TTL time.Duration
	// Scope is who may reuse it. If empty, CachePrivate.
	Scope CacheScope
}

// stampResult adds what every stateless-era result carries and a handler
// need not know about: resultType "complete" unless the result names its
// own, ttlMs and cacheScope on cacheable methods' complete results, and the
// server's identity in _meta
// (https://modelcontextprotocol.io/specification/2026-07-28/basic#resulttype).
// Members the result already has are kept as they are; a _meta that is
// not an object is left alone. What is not a JSON object is returned
// unchanged.
func (s *Server) stampResult(method string, raw json.RawMessage) json.RawMessage {
	return s.stampResultHint(method, raw, nil)
}

// stampResultHint is stampResult with the cache hint for method already
// known, or nil when it is to be asked for.
func (s *Server) stampResultHint(method string, raw json.RawMessage, hint *CacheHint) json.RawMessage {
	start := jsonscan.SkipSpace(raw, 0)
	if start >= len(raw) || raw[start] != '{' {
		return raw
	}
	var hasType, hasTTL, hasScope, hasMeta, complete bool
	metaStart := -1
	empty := true
	end, err := jsonscan.ScanObject(raw, start, func(key, value []byte) {
		empty = false
		switch {
		case jsonscan.KeyEquals(key, "resultType"):
			hasType = true
			complete = jsonscan.StringEquals(value, ResultTypeComplete)
		case jsonscan.KeyEquals(key, "ttlMs"):
			hasTTL = true
		case jsonscan.KeyEquals(key, "cacheScope"):
			hasScope = true
		case jsonscan.KeyEquals(key, "_meta"):
			hasMeta = true
			if value[0] == '{' {
				// value is a slice of raw: its offset in raw.
				metaStart = cap(raw) - cap(value)
			}
		}
	})
	if err != nil || jsonscan.SkipSpace(raw, end) != len(raw) {
		return raw
	}
	if !hasType {
		complete = true
	}
	info := s.serverInfoMember()
	out := make([]byte, 0, len(raw)+len(info)+96)
	out = append(out, '{')
	if !hasType {
		out = append(out, `"resultType":"complete",`...)
	}
	if complete && isCacheableMethod(method) {
		if hint == nil {
			h := s.cacheHint(method)
			hint = &h
		}
		if !hasTTL {
			out = append(out, `"ttlMs":`...)
			out = strconv.AppendInt(out, hint.TTL.Milliseconds(), 10)
			out = append(out, ',')
		}
		if !hasScope {
			out = append(out, `"cacheScope":`...)
			out = jsonenc.AppendString(out, string(hint.Scope))
			out = append(out, ',')
		}
	}
	rest := raw[start+1:]
	if !hasMeta {
		out = append(out, `"_meta":{`...)
		out = append(out, info...)
		out = append(out, '}')
		if !empty {
			out = append(out, ',')
		}
		return append(out, rest...)
	}
	// Merge the server's identity into the result's own _meta, unless it
	// names one already or is not an object.
	if metaStart < 0 || hasMetaKey(raw[metaStart:], MetaServerInfo) {
		return append(out, rest...)
	}
	out = append(out, raw[start+1:metaStart+1]...)
	out = append(out, info...)
	if j := jsonscan.SkipSpace(raw, metaStart+1); raw[j] != '}' {
		out = append(out, ',')
	}
	return append(out, raw[metaStart+1:]...)
}

// stampedToolResult is makeResponse followed by stampResult for the usual
// tools/call result (a *CallToolResult without _meta), encoded once, straight after the stamp: the result
// names no resultType, ttlMs or _meta of its own, so the stamp is a prefix.
// It returns nil for every other result.
func (s *Server) stampedToolResult(method string, id jsonrpc.ID, result any) *jsonrpc.Response {
	r, ok := result.(*CallToolResult)
	if !ok || r == nil || len(r.Meta) > 0 || r.Content == nil || isCacheableMethod(method) {
		return nil
	}
	info, own := s.serverInfoMember(), r.ownEncoding()
	out := append(make([]byte, 0, len(stampPrefix)+len(info)+1+r.jsonSize(own)), stampPrefix...)
	out = append(append(out, info...), '}')
	n := len(out)
	out, err := r.appendJSON(out, own)
	if err != nil {
		s.logger.Error("mcp: encoding result", "err", err)
		return jsonrpc.NewErrorResponse(id, errInternal())
	}
	// The stamp opened the object: the result's own '{' (it always has
	// content) becomes the comma after the stamp.
	out[n] = ','
	return jsonrpc.NewCompactResult(id, out)
}

// stampPrefix opens a stamped result that has no members of the stamp's
// own: what stampResult writes before the server's identity.
const stampPrefix = `{"resultType":"complete","_meta":{`

func hasMetaKey(meta []byte, key string) bool {
	found := false
	jsonscan.Members(meta, func(k, _ []byte) bool {
		if jsonscan.KeyEquals(k, key) {
			found = true
			return false
		}
		return true
	})
	return found
}

// cacheHint returns the configured hint for method.
func (s *Server) cacheHint(method string) CacheHint {
	var h CacheHint
	if s.opts.CacheHint != nil {
		// A panicking hook gives the safe default: no reuse.
		s.callback("CacheHint", method, func() { h = s.opts.CacheHint(method) })
	}
	if h.TTL < 0 {
		h.TTL = 0
	}
	if h.Scope == "" {
		h.Scope = CachePrivate
	}
	return h
}

// serverInfoMember is `"io.modelcontextprotocol/serverInfo":{...}`,
// encoded once.
func (s *Server) serverInfoMember() []byte {
	s.infoOnce.Do(func() {
		b, _ := jsonenc.Marshal(s.impl)
		s.infoMember = append([]byte(`"`+MetaServerInfo+`":`), b...)
	})
	return s.infoMember
}
