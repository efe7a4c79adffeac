package mcp

// The stateless era's request _meta, decoded
// (https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta):
// the usual shapes in place with jsonscan, anything else by encoding/json
// (docs/design.md).

import (
	"encoding/json"
	"hash/maphash"
	"sync/atomic"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// requestMeta is the stateless era's request _meta, decoded, with what
// tools/call reads of params, found in the same pass.
type requestMeta struct {
	version  string
	caps     ClientCapabilities
	info     Implementation
	logLevel LoggingLevel
	// params are the params parsed; call holds their tools/call members
	// (tool.go), whole says nothing follows the object, oneMeta that
	// exactly one member is spelled _meta, and plain that _meta has no
	// progressToken (plainMeta): what decodeCallToolParams would find,
	// without scanning params again.
	params                []byte
	call                  callMembers
	whole, oneMeta, plain bool
	// found says params name a protocol version in their first _meta (an
	// object): the request belongs to the stateless era, even when parse
	// refuses it. probe, set before parse, asks serveStatelessCall to hand a
	// request that does not back to the session era (errNotStateless).
	found, probe bool
	// maxState is ServerOptions.MaxClientStateBytes, set before parse;
	// zero or negative is no bound.
	maxState int
}

// retryMembers are the raw inputResponses and requestState members of
// params, nil when absent (input_state.go).
type retryMembers struct {
	responses, state []byte
}

// parse reads and checks the _meta every stateless-era request must carry,
// in one scan of params (of their first _meta only when noted, the
// request they came with, which may be nil, noted their members), and
// returns the members a multi round-trip retry carries.
func (m *requestMeta) parse(params json.RawMessage, noted *jsonrpc.Request) (retryMembers, *jsonrpc.Error) {
	var retry retryMembers
	if len(params) == 0 || params[0] != '{' {
		return retry, errInvalidParams("params with _meta are required: _meta must carry " + metaKeyProtocolVersion + " and " + metaKeyClientCapabilities)
	}
	var meta, version, caps, info, level []byte
	var metas int
	m.plain = true
	metaMember := func(key, value []byte) {
		// The keys every request sends, spelled as they usually are: no
		// escapes, so no need to look further (and none of them could
		// be a progressToken).
		switch string(key) {
		case metaKeyProtocolVersion:
			version = value
			return
		case metaKeyClientCapabilities:
			caps = value
			return
		case metaKeyClientInfo:
			info = value
			return
		case metaKeyLogLevel:
			level = value
			return
		}
		if m.plain && len(key) >= len("progressToken") {
			m.plain = ignoredKey(key, "progressToken")
		}
		switch {
		case jsonscan.KeyEquals(key, metaKeyProtocolVersion):
			version = value
		case jsonscan.KeyEquals(key, metaKeyClientCapabilities):
			caps = value
		case jsonscan.KeyEquals(key, metaKeyClientInfo):
			info = value
		case jsonscan.KeyEquals(key, metaKeyLogLevel):
			level = value
		}
	}
	member := func(key, value []byte) {
		m.call.add(key, value)
		if string(key) == "_meta" {
			metas++
		}
		switch {
		case jsonscan.KeyEquals(key, "inputResponses"):
			retry.responses = value
		case jsonscan.KeyEquals(key, "requestState"):
			retry.state = value
		}
	}
	var end int
	var err error
	if n, ok := notedMembers(noted); ok {
		// jsonrpc.Decode validated params and noted their members in the
		// same pass: only the first _meta's are left to find.
		for i := range n {
			key, value := noted.ParamsMember(i)
			if meta == nil && isMetaKey(key) {
				meta = value
				if value[0] == '{' {
					jsonscan.Members(value, func(key, value []byte) bool {
						metaMember(key, value)
						return true
					})
				}
			}
			member(key, value)
		}
		end = len(params)
	} else {
		// One pass validates params as jsonscan.ScanObject(params, 0, ...)
		// would, its values one level deep, and reads the first _meta's
		// members as it validates them.
		end, err = jsonscan.WalkObjectAt(params, 0, 0, func(key []byte, i int) (int, error) {
			first := meta == nil && jsonscan.KeyEquals(key, "_meta")
			var end int
			var err error
			if first && i < len(params) && params[i] == '{' {
				end, err = jsonscan.ScanObjectAt(params, i, 1, metaMember)
			} else {
				end, _, err = jsonscan.SkipAt(params, i, 1)
			}
			if err != nil {
				return end, err
			}
			if first {
				meta = params[i:end]
			}
			member(key, params[i:end])
			return end, nil
		})
	}
	if err != nil || len(meta) == 0 || meta[0] != '{' {
		return retry, errInvalidParams("params._meta is required and must carry " + metaKeyProtocolVersion + " and " + metaKeyClientCapabilities)
	}
	m.params, m.whole = params, jsonscan.SkipSpace(params, end) == len(params)
	m.oneMeta = metas == 1
	m.found = version != nil
	if version == nil {
		return retry, errInvalidParams("_meta is missing " + metaKeyProtocolVersion)
	}
	v, ok := versionValue(version)
	if !ok {
		return retry, errInvalidParams("_meta " + metaKeyProtocolVersion + " must be a string")
	}
	m.version = v
	if caps == nil {
		return retry, errInvalidParams("_meta is missing " + metaKeyClientCapabilities)
	}
	if n := len(caps) + len(info); m.maxState > 0 && n > m.maxState {
		// Checked before anything is decoded (limits.go).
		return retry, errClientStateTooLarge("_meta "+metaKeyClientInfo+" and "+metaKeyClientCapabilities, n, m.maxState)
	}
	if caps[0] != '{' || !decodeClientCapabilities(caps, &m.caps) {
		return retry, errInvalidParams("_meta " + metaKeyClientCapabilities + " must be a ClientCapabilities object")
	}
	if info != nil && string(info) != "null" {
		if info[0] != '{' || !decodeImplementation(info, &m.info) {
			return retry, errInvalidParams("_meta " + metaKeyClientInfo + " must be an Implementation object")
		}
	}
	if level != nil && string(level) != "null" {
		l, ok := jsonscan.StringValue(level)
		if !ok || !LoggingLevel(l).IsValid() {
			return retry, errInvalidParams("_meta " + metaKeyLogLevel + " must be one of " + levelList())
		}
		m.logLevel = LoggingLevel(l)
	}
	return retry, nil
}

// notedMembers is req.ParamsMembers(), false for a nil req.
func notedMembers(req *jsonrpc.Request) (int, bool) {
	if req == nil {
		return 0, false
	}
	return req.ParamsMembers()
}

// isMetaKey reports whether the raw member name key is _meta, escapes
// decoded. A name spelled with escapes is longer than the one it decodes
// to: a plain "_meta" needs no look for escapes.
func isMetaKey(key []byte) bool {
	return string(key) == "_meta" || len(key) > len("_meta") && jsonscan.KeyEquals(key, "_meta")
}

// versionValue is jsonscan.StringValue for a protocol version, without
// an allocation for the versions served.
func versionValue(raw []byte) (string, bool) {
	if len(raw) >= 2 && raw[0] == '"' {
		inner := raw[1 : len(raw)-1]
		for _, v := range servedVersions {
			if string(inner) == v {
				return v, true
			}
		}
	}
	return jsonscan.StringValue(raw)
}

// decodeClientCapabilities decodes the object raw (valid JSON in which no
// name repeats, as jsonrpc.Decode lets through) into c, as
// exactjson.Unmarshal into a zero ClientCapabilities would, and reports whether
// it decoded.
func decodeClientCapabilities(raw []byte, c *ClientCapabilities) bool {
	if plainClientCapabilities(raw, c) {
		return true
	}
	*c = ClientCapabilities{}
	return exactjson.Unmarshal(raw, c) == nil
}

// plainClientCapabilities decodes the usual shapes of raw into c, or
// reports false (leaving c partly written) for encoding/json to decide.
func plainClientCapabilities(raw []byte, c *ClientCapabilities) bool {
	var seen uint8
	ok := true
	jsonscan.Members(raw, func(key, value []byte) bool {
		var bit uint8
		switch string(key) {
		case "roots":
			bit = 1
			c.Roots, ok = plainRoots(value)
		case "sampling":
			bit = 2
			var ctx, tools *struct{}
			if ok = plainFlags(value, "context", &ctx, "tools", &tools); ok && value[0] == '{' {
				c.Sampling = &SamplingCapability{Context: ctx, Tools: tools}
			}
		case "elicitation":
			bit = 4
			var form, url *struct{}
			if ok = plainFlags(value, "form", &form, "url", &url); ok && value[0] == '{' {
				c.Elicitation = &ElicitationCapability{Form: form, URL: url}
			}
		default:
			// experimental, tasks, extensions and their case variants
			// are encoding/json's; other names are ignored, as it
			// ignores them.
			ok = ignoredKey(key, "experimental", "roots", "sampling", "elicitation", "tasks", "extensions")
		}
		if seen&bit != 0 {
			ok = false // a repeated member merges into the first
		}
		seen |= bit
		return ok
	})
	return ok
}

// plainRoots decodes a RootsCapability value: null, or an object with at
// most a boolean (or null) listChanged.
func plainRoots(value []byte) (*RootsCapability, bool) {
	switch value[0] {
	case 'n':
		return nil, true
	case '{':
	default:
		return nil, false
	}
	r := &RootsCapability{}
	ok := true
	jsonscan.Members(value, func(key, v []byte) bool {
		if string(key) != "listChanged" {
			ok = ignoredKey(key, "listChanged")
			return ok
		}
		switch v[0] {
		case 't':
			r.ListChanged = true
		case 'f':
			r.ListChanged = false
		case 'n':
		default:
			ok = false
		}
		return ok
	})
	return r, ok
}

// plainFlags decodes a value with two presence members (*struct{}, set by
// any object, left nil by null): null, or an object whose members a and b
// are objects or null.
func plainFlags(value []byte, a string, pa **struct{}, b string, pb **struct{}) bool {
	switch value[0] {
	case 'n':
		return true
	case '{':
	default:
		return false
	}
	ok := true
	jsonscan.Members(value, func(key, v []byte) bool {
		var p **struct{}
		switch string(key) {
		case a:
			p = pa
		case b:
			p = pb
		default:
			ok = ignoredKey(key, a, b)
			return ok
		}
		switch v[0] {
		case '{':
			*p = &struct{}{}
		case 'n':
			*p = nil
		default:
			ok = false
		}
		return ok
	})
	return ok
}

// decodeImplementation decodes the object raw (valid JSON in which no name
// repeats, as jsonrpc.Decode lets through) into impl, as
// exactjson.Unmarshal into a zero Implementation would, and reports whether it
// decoded.
func decodeImplementation(raw []byte, impl *Implementation) bool {
	if clientInfos.get(raw, impl) {
		return true
	}
	if plainImplementation(raw, impl) {
		clientInfos.put(raw, impl)
		return true
	}
	*impl = Implementation{}
	return exactjson.Unmarshal(raw, impl) == nil
}

// clientInfos remembers the plain clientInfo objects decoded lately, by
// their bytes, for every Server (docs/design.md).
var clientInfos = infoCache{seed: maphash.MakeSeed()}

// infoCache is a direct-mapped memo of plain Implementation decodes: a
// slot per hash, the latest decode winning it, so that its size and the
// cost of a miss stay bounded whatever clients send. Its Implementations
// hold only strings (no icons), which copies may share.
type infoCache struct {
	seed  maphash.Seed
	slots [64]atomic.Pointer[infoEntry]
}

type infoEntry struct {
	raw  string
	impl Implementation
}

// maxInfoBytes bounds the objects the memo keeps.
const maxInfoBytes = 256

func (c *infoCache) slot(raw []byte) *atomic.Pointer[infoEntry] {
	return &c.slots[maphash.Bytes(c.seed, raw)%uint64(len(c.slots))]
}

// get sets *impl to the memo of raw, if it has one.
func (c *infoCache) get(raw []byte, impl *Implementation) bool {
	if len(raw) > maxInfoBytes {
		return false
	}
	e := c.slot(raw).Load()
	if e == nil || e.raw != string(raw) {
		return false
	}
	*impl = e.impl
	return true
}

// put remembers impl, a plain decode of raw.
func (c *infoCache) put(raw []byte, impl *Implementation) {
	if len(raw) <= maxInfoBytes && impl.Icons == nil {
		c.slot(raw).Store(&infoEntry{raw: string(raw), impl: *impl})
	}
}

// plainImplementation decodes an Implementation of string (or null)
// members, without icons.
func plainImplementation(raw []byte, impl *Implementation) bool {
	ok := true
	jsonscan.Members(raw, func(key, value []byte) bool {
		var p *string
		switch string(key) {
		case "name":
			p = &impl.Name
		case "title":
			p = &impl.Title
		case "version":
			p = &impl.Version
		case "description":
			p = &impl.Description
		case "websiteUrl":
			p = &impl.WebsiteURL
		default:
			ok = ignoredKey(key, "name", "title", "version", "description", "websiteUrl", "icons")
			return ok
		}
		switch value[0] {
		case '"':
			*p, ok = jsonscan.StringValue(value)
		case 'n':
		default:
			ok = false
		}
		return ok
	})
	return ok
}

// ignoredKey reports whether encoding/json certainly ignores the raw key
// when decoding into a struct whose fields are names: a plain printable
// ASCII key that equals none of them, even ignoring case. (encoding/json
// matches case-insensitively, and folds some non-ASCII letters onto ASCII
// ones; keys with escapes or non-ASCII bytes are left to it.)
func ignoredKey(key []byte, names ...string) bool {
	for _, c := range key {
		if c < 0x20 || c > 0x7e || c == '\\' {
			return false
		}
	}
	for _, n := range names {
		if equalFoldASCII(key, n) {
			return false
		}
	}
	return true
}

// equalFoldASCII reports whether the ASCII key equals name ignoring case.
func equalFoldASCII(key []byte, name string) bool {
	if len(key) != len(name) {
		return false
	}
	for i := range len(key) {
		a, b := key[i], name[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}

// toolCallParams is decodeCallToolParams (tool.go) from what parse found,
// for the params it parsed: false when st has none (st may be nil) or
// the fast path does not apply, and tools/call decodes params itself.
func (st *statelessRequest) toolCallParams(params json.RawMessage, p *CallToolParams) bool {
	if st == nil || st.meta == nil {
		return false
	}
	m := st.meta
	if len(params) == 0 || len(m.params) != len(params) || &m.params[0] != &params[0] || !m.whole || !m.oneMeta {
		return false
	}
	return m.call.decode(p, m.plain)
}
