package otel

// This file holds the trace context's trip through params._meta: what a
// sender injects and a receiver extracts, as SEP-414 specifies
// (https://modelcontextprotocol.io/community/seps/414-request-meta), with
// unprefixed keys (traceparent, tracestate, baggage, or whatever the
// configured propagator writes). It reads params with a small scanner of
// its own rather than a full decode: the arguments of a tool call may be
// large, and the middleware needs only a few top-level members.

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"

	"go.opentelemetry.io/otel/trace"
)

var errSyntax = errors.New("otel: params are not a JSON object")

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just past the string that starts at b[i]
// (b[i] == '"'). A quote ends the string when an even number of
// backslashes precede it; bytes.IndexByte finds the candidates, so a long
// value such as a traceparent costs a few instructions, not one loop
// iteration a byte.
func skipString(b []byte, i int) (int, error) {
	start := i + 1
	for j := start; j < len(b); {
		q := bytes.IndexByte(b[j:], '"')
		if q < 0 {
			break
		}
		j += q
		k := j
		for k > start && b[k-1] == '\\' {
			k--
		}
		if (j-k)%2 == 0 {
			return j + 1, nil
		}
		j++
	}
	return len(b), errSyntax
}

// structural marks the bytes that skipValue stops at inside an object or
// array: strings and brackets.
var structural = [256]bool{'"': true, '{': true, '[': true, '}': true, ']': true}

// skipValue returns the index just past the value that starts at b[i].
// It checks only what it needs to find the end: brackets balance outside
// strings. The mcp package has validated the message before middleware
// sees it.
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return i, errSyntax
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				end, err := skipString(b, i)
				if err != nil {
					return end, err
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
			for i++; i < len(b) && !structural[b[i]]; i++ {
			}
		}
		return i, errSyntax
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i, nil
		}
	}
	return i, nil
}

// members calls fn for each member of the object obj, with the raw key
// (without quotes, escapes left as they are) and the raw value, until fn
// returns false. It reports an error for what is not an object.
func members(obj []byte, fn func(key, value []byte) bool) error {
	_, err := object(obj, skipSpace(obj, 0), fn)
	return err
}

// object calls fn for each member of the object that starts at b[i], as
// members does, and returns the index just past the object (where it
// stopped, if fn returned false).
func object(b []byte, i int, fn func(key, value []byte) bool) (end int, err error) {
	i, err = objectStart(b, i)
	for err == nil && i < len(b) && b[i] != '}' {
		var key []byte
		if key, i, err = memberKey(b, i); err != nil {
			break
		}
		var vend int
		if vend, err = skipValue(b, i); err != nil {
			return vend, err
		}
		if !fn(key, b[i:vend]) {
			return vend, nil
		}
		i, err = memberNext(b, vend)
	}
	if err != nil {
		return i, err
	}
	return i + 1, nil
}

// objectStart checks that an object starts at b[i] and returns the index
// of its first member, or of its '}' when it has none.
func objectStart(b []byte, i int) (int, error) {
	if i >= len(b) || b[i] != '{' {
		return i, errSyntax
	}
	i = skipSpace(b, i+1)
	if i >= len(b) {
		return i, errSyntax
	}
	return i, nil
}

// memberKey reads the key of the member that starts at b[i] and returns
// it raw (without quotes) with the index of the member's value.
func memberKey(b []byte, i int) (key []byte, value int, err error) {
	if b[i] != '"' {
		return nil, i, errSyntax
	}
	kend, err := skipString(b, i)
	if err != nil {
		return nil, kend, err
	}
	key = b[i+1 : kend-1]
	i = skipSpace(b, kend)
	if i >= len(b) || b[i] != ':' {
		return nil, i, errSyntax
	}
	return key, skipSpace(b, i+1), nil
}

// memberNext returns, after a member's value ending at b[vend], the index
// of the next member, or of the object's closing '}'.
func memberNext(b []byte, vend int) (int, error) {
	i := skipSpace(b, vend)
	if i < len(b) {
		switch b[i] {
		case ',':
			if i = skipSpace(b, i+1); i < len(b) && b[i] == '"' {
				return i, nil
			}
		case '}':
			return i, nil
		}
	}
	return i, errSyntax
}

// keyIs reports whether the raw key equals name; a key with escapes is
// decoded first.
func keyIs(raw []byte, name string) bool {
	if string(raw) == name {
		return true
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return false
	}
	var s string
	q := make([]byte, 0, len(raw)+2)
	q = append(append(append(q, '"'), raw...), '"')
	return json.Unmarshal(q, &s) == nil && s == name
}

// stringValue returns the Go string of a raw JSON string value, or false
// if it is not a string.
func stringValue(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// paramsInfo is what the middleware reads of a message's params: the
// target of the operation, by method (readMeta reads _meta).
type paramsInfo struct {
	name string // params.name: the tool or prompt (after decode)
	uri  string // params.uri: the resource (after decode)

	rawName, rawURI []byte
}

// decode fills name and uri from their raw values: only an operation
// whose telemetry records pays for the strings.
func (p *paramsInfo) decode() {
	if p.rawName != nil {
		p.name, _ = stringValue(p.rawName)
		p.rawName = nil
	}
	if p.rawURI != nil {
		p.uri, _ = stringValue(p.rawURI)
		p.rawURI = nil
	}
}

// readParams reads the members of params that the method's telemetry
// uses. Params that are absent or not an object read as nothing.
func readParams(params []byte) paramsInfo {
	var p paramsInfo
	if len(params) == 0 {
		return p
	}
	_ = members(params, func(key, value []byte) bool {
		switch {
		case keyIs(key, "name"):
			p.rawName = value
		case keyIs(key, "uri"):
			p.rawURI = value
		}
		return true
	})
	return p
}

// metaInfo is what a receiver reads of params when the operation does
// not record: the raw _meta object, and the raw values of the W3C keys in
// it.
type metaInfo struct {
	raw []byte
	w3c [3][]byte // traceparent, tracestate, baggage (w3cKeys)
	// parsed is set when readMeta has parsed the traceparent already,
	// into scc.
	parsed bool
	scc    trace.SpanContextConfig
}

// readMeta reads params._meta, when it is an object, in one pass that
// reads no further than _meta: the trace context is all an operation that
// does not record needs, and an instrumented client writes _meta first.
func readMeta(params []byte) metaInfo {
	var m metaInfo
	// The form an instrumented client writes without a tracestate or
	// baggage: _meta first, holding a traceparent of the common length
	// alone, which is parsed here. Those 55 bytes parse only when they
	// are hex digits and dashes, with no quote or backslash that would
	// end or escape the string elsewhere; the scan below reads other
	// params.
	const head = `{"_meta":{"traceparent":"`
	if end := len(head) + 55; len(params) > end+1 && string(params[:len(head)]) == head &&
		params[end] == '"' && params[end+1] == '}' {
		if scc, ok := parseTraceparent(params[len(head):end]); ok {
			m.w3c[0] = params[len(head)-1 : end+1]
			m.raw = params[len(`{"_meta":`) : end+2]
			m.parsed, m.scc = true, scc
			return m
		}
	}
	i, err := objectStart(params, skipSpace(params, 0))
	for err == nil && i < len(params) && params[i] != '}' {
		var key []byte
		if key, i, err = memberKey(params, i); err != nil {
			break
		}
		if keyIs(key, "_meta") {
			if i < len(params) && params[i] == '{' {
				end, err := object(params, i, func(k, v []byte) bool {
					if j := w3cIndex(k); j >= 0 {
						m.w3c[j] = v
					}
					return true
				})
				if err != nil {
					return metaInfo{}
				}
				m.raw = params[i:end]
			}
			return m
		}
		var vend int
		if vend, err = skipValue(params, i); err == nil {
			i, err = memberNext(params, vend)
		}
	}
	return metaInfo{}
}

// w3cIndex is the index in w3cKeys of the raw key k, or -1.
func w3cIndex(k []byte) int {
	switch string(k) {
	case "traceparent":
		return 0
	case "tracestate":
		return 1
	case "baggage":
		return 2
	}
	if bytes.IndexByte(k, '\\') >= 0 {
		for j, w := range w3cKeys {
			if keyIs(k, w) {
				return j
			}
		}
	}
	return -1
}

// metaCarrier reads the string members of a raw _meta object for a
// propagator's Extract (propagation.TextMapCarrier). Set does nothing.
// The W3C keys are read in one pass, on the first Get.
type metaCarrier struct {
	raw     []byte
	scanned bool
	w3c     [3][]byte // raw values of traceparent, tracestate, baggage
}

var w3cKeys = [3]string{"traceparent", "tracestate", "baggage"}

func (m *metaCarrier) Get(key string) string {
	for i, k := range w3cKeys {
		if k != key {
			continue
		}
		if !m.scanned {
			m.scanned = true
			_ = members(m.raw, func(k, v []byte) bool {
				if j := w3cIndex(k); j >= 0 {
					m.w3c[j] = v
				}
				return true
			})
		}
		s, _ := stringValue(m.w3c[i])
		return s
	}
	var out string
	if len(m.raw) == 0 {
		return ""
	}
	_ = members(m.raw, func(k, v []byte) bool {
		if keyIs(k, key) {
			out, _ = stringValue(v)
			return false
		}
		return true
	})
	return out
}

func (m *metaCarrier) Set(string, string) {}

func (m *metaCarrier) Keys() []string {
	var keys []string
	if len(m.raw) == 0 {
		return nil
	}
	_ = members(m.raw, func(k, v []byte) bool {
		if s, ok := stringValue(append(append([]byte{'"'}, k...), '"')); ok {
			keys = append(keys, s)
		}
		return true
	})
	return keys
}

// injectCarrier collects what a propagator's Inject writes, in order.
// The W3C propagators write at most three keys: they fit in kv, inside
// the carrier, without more allocation.
type injectCarrier struct {
	n    int          // members in kv
	kv   [3][2]string // the first three keys and values
	more [][2]string  // the members after the third
	// tp is the traceparent when hasTP: its value is then empty, and
	// injectMeta writes tp instead.
	tp    [55]byte
	hasTP bool
}

// len is the number of members.
func (c *injectCarrier) len() int { return c.n + len(c.more) }

// member is the i-th key and value.
func (c *injectCarrier) member(i int) (key, value string) {
	if i < c.n {
		return c.kv[i][0], c.kv[i][1]
	}
	m := c.more[i-c.n]
	return m[0], m[1]
}

// value appends the JSON string of the i-th value to dst.
func (c *injectCarrier) value(dst []byte, i int) []byte {
	k, v := c.member(i)
	if c.hasTP && k == "traceparent" && v == "" {
		dst = append(dst, '"')
		dst = append(dst, c.tp[:]...)
		return append(dst, '"')
	}
	return appendString(dst, v)
}

func (c *injectCarrier) Get(key string) string {
	for i := range c.len() {
		if k, v := c.member(i); k == key {
			return v
		}
	}
	return ""
}

func (c *injectCarrier) Set(key, value string) {
	for i := range c.n {
		if c.kv[i][0] == key {
			c.kv[i][1] = value
			return
		}
	}
	for i := range c.more {
		if c.more[i][0] == key {
			c.more[i][1] = value
			return
		}
	}
	if c.n < len(c.kv) {
		c.kv[c.n] = [2]string{key, value}
		c.n++
		return
	}
	c.more = append(c.more, [2]string{key, value})
}

func (c *injectCarrier) Keys() []string {
	keys := make([]string, c.len())
	for i := range keys {
		keys[i], _ = c.member(i)
	}
	return keys
}

// injectMeta returns params with the carrier's members written into its
// _meta object: first the carrier's, then the members _meta already had
// except those of the same names, then the other members of params.
// Params that are absent or null become {"_meta":{...}}. It returns
// params unchanged when the carrier is empty, and an error when params is
// not an object or its _meta is not one.
func injectMeta(params json.RawMessage, c *injectCarrier) (json.RawMessage, error) {
	if c.len() == 0 {
		return params, nil
	}
	trimmed := bytes.TrimSpace(params)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		trimmed = []byte("{}")
	}
	var meta []byte
	hasMeta, others := false, false
	if err := members(trimmed, func(key, value []byte) bool {
		if !hasMeta && keyIs(key, "_meta") {
			hasMeta, meta = true, value
		} else {
			others = true
		}
		return true
	}); err != nil {
		return params, err
	}
	if hasMeta && (len(meta) == 0 || meta[0] != '{') {
		return params, errors.New("otel: params._meta is not an object")
	}
	size := len(trimmed) + len(`{"_meta":{},`)
	for i := range c.len() {
		k, v := c.member(i)
		size += len(k) + len(v) + 6
	}
	if c.hasTP {
		size += len(c.tp)
	}
	out := make([]byte, 0, size)
	out = append(out, `{"_meta":{`...)
	for i := range c.len() {
		k, _ := c.member(i)
		if i > 0 {
			out = append(out, ',')
		}
		out = appendString(out, k)
		out = append(out, ':')
		out = c.value(out, i)
	}
	if !hasMeta {
		// The common case: the members of params follow as they are.
		if others {
			out = append(out, '}', ',')
			return append(out, trimmed[skipSpace(trimmed, 1):]...), nil
		}
		return append(out, '}', '}'), nil
	}
	_ = members(meta, func(mk, mv []byte) bool {
		for i := range c.len() {
			if k, _ := c.member(i); keyIs(mk, k) {
				return true
			}
		}
		out = append(out, ',', '"')
		out = append(out, mk...)
		out = append(out, '"', ':')
		out = append(out, mv...)
		return true
	})
	out = append(out, '}')
	metaSeen := false
	_ = members(trimmed, func(key, value []byte) bool {
		if !metaSeen && keyIs(key, "_meta") {
			metaSeen = true
			return true
		}
		out = append(out, ',', '"')
		out = append(out, key...)
		out = append(out, '"', ':')
		out = append(out, value...)
		return true
	})
	return append(out, '}'), nil
}

// appendString appends s as a JSON string.
func appendString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			b, _ := json.Marshal(s)
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}
