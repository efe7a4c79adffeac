package mcp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"time"

	"github.com/mcpkit/mcpkit/internal/jsonenc"
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

// A resultHead is what the stateless era adds to a result it encodes:
// resultType "complete", the cache hint of a cacheable method's complete
// result and the server's identity in _meta, each unless the result sets
// its own (https://modelcontextprotocol.io/specification/2026-07-28/basic#resulttype).
// The encoders write it as they open the result's object. A nil
// *resultHead is the session era's: nothing is added. The zero resultHead
// adds resultType alone: a task's result as the tasks extension keeps it.
type resultHead struct {
	s         *Server
	method    string
	info      []byte // s.serverInfoMember()
	cacheable bool   // isCacheableMethod(method), or an extension's Cacheable
	hinted    bool
	hint      CacheHint
}

// setHead makes h the head of method's results. It fills h in place: a
// resultHead returned by value is copied through memory (docs/design.md).
func (s *Server) setHead(h *resultHead, method string) {
	cacheable := isCacheableMethod(method)
	if c := s.tables.Load().cacheable; !cacheable && len(c) > 0 {
		cacheable = c[method]
	}
	h.s, h.method, h.info, h.cacheable = s, method, s.serverInfoMember(), cacheable
}

// ownMembers is which of the head's members a result sets itself.
type ownMembers struct {
	typ        string // the result's own resultType, when hasType
	hasType    bool
	ttl, scope bool
	meta       bool // an _meta member of its own, written in its place
}

// cacheHint returns the hint configured for the head's method, asked for
// once.
func (h *resultHead) cacheHint() CacheHint {
	if !h.hinted {
		h.hint, h.hinted = h.s.cacheHint(h.method), true
	}
	return h.hint
}

// size is room for what start writes after the '{'.
func (h *resultHead) size() int {
	if h == nil {
		return 0
	}
	n := len(`"resultType":"complete","_meta":{},`) + len(h.info)
	if h.cacheable {
		n += len(`"ttlMs":,"cacheScope":,`) + 20 + jsonenc.StringLen(string(h.cacheHint().Scope))
	}
	return n
}

// open appends '{' and the head's members before _meta that the result
// does not set itself.
func (h *resultHead) open(dst []byte, own ownMembers) []byte {
	dst = append(dst, '{')
	if !own.hasType {
		dst = append(dst, `"resultType":"complete",`...)
	}
	if (!own.hasType || own.typ == resultTypeComplete) && h.cacheable {
		hint := h.cacheHint()
		if !own.ttl {
			dst = append(dst, `"ttlMs":`...)
			dst = strconv.AppendInt(dst, hint.TTL.Milliseconds(), 10)
			dst = append(dst, ',')
		}
		if !own.scope {
			dst = append(dst, `"cacheScope":`...)
			dst = jsonenc.AppendString(dst, string(hint.Scope))
			dst = append(dst, ',')
		}
	}
	return dst
}

// start opens the object of a result that sets none of the head's members
// and has members of its own to follow: '{' and, with a head, its
// members, _meta included, and a comma.
func (h *resultHead) start(dst []byte) []byte {
	if h == nil {
		return append(dst, '{')
	}
	if h.info != nil && !h.cacheable {
		return append(dst, h.s.infoHead...) // the same bytes, encoded once
	}
	dst = h.open(dst, ownMembers{})
	if h.info == nil {
		return dst
	}
	dst = append(append(dst, `"_meta":{`...), h.info...)
	return append(dst, "},"...)
}

// appendMeta appends the _meta member: the server's identity, if the head
// has one and meta names none of its own, then meta's members.
func (h *resultHead) appendMeta(dst []byte, meta Meta) ([]byte, error) {
	dst = append(dst, `"_meta":{`...)
	_, own := meta[metaKeyServerInfo]
	info := h.info != nil && !own
	if info {
		dst = append(dst, h.info...)
	}
	if len(meta) == 0 {
		return append(dst, '}'), nil
	}
	if info {
		dst = append(dst, ',')
	}
	b, err := jsonenc.Marshal(meta)
	return append(dst, b[1:]...), err // meta's members and the closing brace
}

// A headedResult is a result type of this package whose _meta, when it
// has one, is its first member: the head's members are written before
// the rest of it, which encoding/json encodes.
type headedResult interface {
	// headParts returns the result's _meta, the head's members it sets
	// itself, and the result without its _meta.
	headParts() (meta Meta, own ownMembers, rest any)
}

// appendTyped appends r with the head.
func (h *resultHead) appendTyped(dst []byte, r headedResult) ([]byte, error) {
	meta, own, rest := r.headParts()
	b, err := jsonenc.Marshal(rest)
	if err != nil {
		return dst, err
	}
	dst = h.open(dst, own)
	if h.info == nil && len(meta) == 0 {
		// No _meta: the rest's members follow the head's comma.
		if len(b) == len("{}") {
			return append(bytes.TrimSuffix(dst, []byte(",")), '}'), nil
		}
		return append(dst, b[1:]...), nil
	}
	dst, err = h.appendMeta(dst, meta)
	if len(b) == len("{}") {
		return append(dst, '}'), err
	}
	return append(append(dst, ','), b[1:]...), err // the rest's members and the closing brace
}

func (r *ListToolsResult) headParts() (Meta, ownMembers, any) {
	c := *r
	c.Meta = nil
	return r.Meta, ownMembers{}, &c
}

func (r *ListPromptsResult) headParts() (Meta, ownMembers, any) {
	c := *r
	c.Meta = nil
	return r.Meta, ownMembers{}, &c
}

func (r *ListResourcesResult) headParts() (Meta, ownMembers, any) {
	c := *r
	c.Meta = nil
	return r.Meta, ownMembers{}, &c
}

func (r *ListResourceTemplatesResult) headParts() (Meta, ownMembers, any) {
	c := *r
	c.Meta = nil
	return r.Meta, ownMembers{}, &c
}

func (r *CallToolResult) headParts() (Meta, ownMembers, any) {
	type plain CallToolResult
	c := plain(*r)
	c.Meta = nil
	return r.Meta, ownMembers{}, &c
}

func (r *ReadResourceResult) headParts() (Meta, ownMembers, any) {
	c := *r
	c.Meta = nil
	return r.Meta, ownMembers{}, &c
}

func (r *GetPromptResult) headParts() (Meta, ownMembers, any) {
	c := *r
	c.Meta = nil
	return r.Meta, ownMembers{}, &c
}

func (r *CompleteResult) headParts() (Meta, ownMembers, any) {
	c := *r
	c.Meta = nil
	return r.Meta, ownMembers{}, &c
}

func (r *DiscoverResult) headParts() (Meta, ownMembers, any) {
	return nil, ownMembers{}, r
}

// headParts: a detailedTask always has ttlMs, and resultType when it is
// set.
func (r *detailedTask) headParts() (Meta, ownMembers, any) {
	c := *r
	c.Meta = nil
	return r.Meta, ownMembers{typ: r.ResultType, hasType: r.ResultType != "", ttl: true}, &c
}

// A rawMember is one member of a JSON object as its encoding has it: the
// key with its quotes and escapes, and the value.
type rawMember struct {
	key, value []byte
	name       string // the key, unescaped
}

// decodeObject returns the members of the JSON object raw, or false when
// raw is not one.
func decodeObject(raw []byte) ([]rawMember, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var ms []rawMember
	for dec.More() {
		from := dec.InputOffset()
		t, err := dec.Token()
		name, ok := t.(string)
		if err != nil || !ok {
			return nil, false
		}
		key := bytes.TrimLeft(raw[from:dec.InputOffset()], " \t\r\n,")
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		ms = append(ms, rawMember{key: key, value: v, name: name})
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return nil, false
	}
	if len(bytes.TrimLeft(raw[dec.InputOffset():], " \t\r\n")) > 0 {
		return nil, false
	}
	return ms, true
}

// appendRaw appends a result that came encoded (a json.RawMessage, or a
// value of a type this package does not know, which encoding/json
// encoded) with the head: the result is decoded into its members, which
// follow the head's. A value that is not a JSON object is appended as it
// is.
func (h *resultHead) appendRaw(dst, raw []byte) []byte {
	ms, ok := decodeObject(raw)
	if !ok {
		return append(dst, raw...)
	}
	var own ownMembers
	var meta []rawMember // the members of an _meta object, merged
	metaObject := false
	for _, m := range ms {
		switch m.name {
		case "resultType":
			own.hasType = true
			if err := json.Unmarshal(m.value, &own.typ); err != nil {
				own.typ = ""
			}
		case "ttlMs":
			own.ttl = true
		case "cacheScope":
			own.scope = true
		case "_meta":
			own.meta = true
			meta, metaObject = decodeObject(m.value)
		}
	}
	dst = h.open(dst, own)
	if !own.meta {
		dst = append(append(dst, `"_meta":{`...), h.info...)
		dst = append(dst, '}')
		if len(ms) > 0 {
			dst = append(dst, ',')
		}
	}
	for i, m := range ms {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(append(dst, m.key...), ':')
		if m.name != "_meta" || !metaObject {
			dst = append(dst, m.value...)
			continue
		}
		dst = append(dst, '{')
		if !hasMember(meta, metaKeyServerInfo) {
			dst = append(dst, h.info...)
			if len(meta) > 0 {
				dst = append(dst, ',')
			}
		}
		for j, mm := range meta {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = append(append(append(dst, mm.key...), ':'), mm.value...)
		}
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

func hasMember(ms []rawMember, name string) bool {
	for _, m := range ms {
		if m.name == name {
			return true
		}
	}
	return false
}

// statelessResponse encodes the result of a stateless-era request, its
// head included, in one pass: by hand for the usual shapes of tools/call,
// resources/read and prompts/get results and for cached list pages, else
// with encoding/json (statelessMarshal).
func (s *Server) statelessResponse(id jsonrpc.ID, method string, result any) *jsonrpc.Response {
	var h resultHead
	s.setHead(&h, method)
	var out []byte
	var err error
	switch r := result.(type) {
	case *CallToolResult:
		if r != nil && r.fastShape() {
			own := r.ownEncoding()
			out, err = r.appendJSON(make([]byte, 0, h.size()+r.jsonSize(own)), own, &h) // content.go
		}
	case *ReadResourceResult:
		if r != nil {
			out, _ = r.appendFast(&s.texts, &h) // resource_encode.go
		}
	case *GetPromptResult:
		if r != nil {
			out, _ = r.appendFast(&h) // prompt_encode.go
		}
	case cachedList:
		if page := r.cachedPage(); page != nil {
			out = page.forStateless(&h) // list.go
		}
	}
	if out == nil && err == nil {
		return s.statelessMarshal(id, &h, result)
	}
	if err != nil {
		s.logger.Error("mcp: encoding result", "err", err)
		return jsonrpc.NewErrorResponse(id, errInternal())
	}
	return jsonrpc.NewCompactResult(id, out)
}

// statelessMarshal is statelessResponse for the results encoding/json
// encodes.
func (s *Server) statelessMarshal(id jsonrpc.ID, h *resultHead, result any) (resp *jsonrpc.Response) {
	defer func() {
		if recovered(recover(), s.logger, "result encoding", "") { // recover.go
			resp = jsonrpc.NewErrorResponse(id, errInternal())
		}
	}()
	var out []byte
	var err error
	typed, isTyped := result.(headedResult)
	switch {
	case result == nil:
		out, _ = h.appendMeta(h.open(nil, ownMembers{}), nil)
		out = append(out, '}')
	case isTyped && reflect.ValueOf(typed).IsNil():
		out = []byte("null")
	case isTyped:
		out, err = h.appendTyped(nil, typed)
	default:
		raw, ok := result.(json.RawMessage)
		if !ok {
			raw, err = jsonenc.Marshal(result)
		} else {
			// Not known to be compact: the transport's encoder checks it.
			return &jsonrpc.Response{ID: id, Result: h.appendRaw(nil, raw)}
		}
		if err == nil {
			out = h.appendRaw(make([]byte, 0, len(raw)+h.size()+32), raw)
		}
	}
	if err != nil {
		s.logger.Error("mcp: encoding result", "err", err)
		return jsonrpc.NewErrorResponse(id, errInternal())
	}
	return jsonrpc.NewCompactResult(id, out)
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
// encoded once, within s.infoHead: what start writes for a head with
// that identity and no cache hint.
func (s *Server) serverInfoMember() []byte {
	s.infoOnce.Do(func() {
		b, _ := jsonenc.Marshal(s.impl)
		s.infoHead = append([]byte(infoHeadPrefix+`"`+metaKeyServerInfo+`":`), b...)
		s.infoHead = append(s.infoHead, "},"...)
	})
	end := len(s.infoHead) - len("},")
	return s.infoHead[len(infoHeadPrefix):end:end]
}

// infoHeadPrefix is what start writes before the server's identity when
// the head has no cache hint.
const infoHeadPrefix = `{"resultType":"complete","_meta":{`
