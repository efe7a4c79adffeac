package mcp

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/internal/jsonscan"
)

// decodeToolCall decodes r's tools/call params into p: from what the
// stateless era's parse of _meta found on its way (era_stateless_meta.go),
// else with decodeCallToolParams, else with encoding/json, whose answers,
// error texts included, the fast paths match.
func decodeToolCall(r *Request, p *CallToolParams) error {
	st, _ := r.era.(*statelessRequest)
	if st.toolCallParams(r.Params, p) || decodeCallToolParams(r.Params, p) {
		return nil
	}
	q := new(CallToolParams)
	if err := unmarshalParams(r.Params, q); err != nil {
		return err
	}
	*p = *q
	return nil
}

// decodeCallToolParams decodes the usual tools/call params (an object with
// "name", "arguments" and perhaps "_meta", spelled exactly so) in place,
// as encoding/json would, and reports false, leaving p as it was, for
// anything else. A _meta without progressToken may leave p.Meta nil
// (docs/design.md). Arguments alias params.
func decodeCallToolParams(params json.RawMessage, p *CallToolParams) bool {
	if len(params) == 0 || params[0] != '{' {
		return false
	}
	var c callMembers
	end, err := jsonscan.ScanObject(params, 0, func(key, value []byte) { c.add(key, value) })
	if err != nil || jsonscan.SkipSpace(params, end) != len(params) {
		return false
	}
	return c.decode(p, c.meta == nil || plainMeta(c.meta))
}

// callMembers are the members of tools/call params that
// decodeCallToolParams (and decodeGetPromptParams) read, the last of each
// name.
type callMembers struct {
	name, args, meta []byte
	// other is set by a member other than name, arguments and _meta
	// (spelled exactly so); twice by one of those seen twice.
	other, twice bool
}

func (c *callMembers) add(key, value []byte) {
	var dst *[]byte
	switch string(key) {
	case "name":
		dst = &c.name
	case "arguments":
		dst = &c.args
	case "_meta":
		dst = &c.meta
	default:
		c.other = true
		return
	}
	c.twice = c.twice || *dst != nil
	*dst = value
}

// decode is decodeCallToolParams once the members of valid params are
// known; plain says that _meta is absent or plainMeta.
func (c *callMembers) decode(p *CallToolParams, plain bool) bool {
	if c.other || len(c.name) < 2 || c.name[0] != '"' {
		return false
	}
	inner := c.name[1 : len(c.name)-1]
	if bytes.IndexByte(inner, '\\') >= 0 || !utf8.Valid(inner) {
		return false
	}
	var m *RequestMeta
	if !plain {
		var mp *RequestMeta // escapes, so declared only when needed
		if exactjson.Unmarshal(c.meta, &mp) != nil {
			return false
		}
		m = mp
	}
	p.Name = string(inner)
	p.Meta = m
	if c.args != nil {
		p.Arguments = json.RawMessage(c.args)
	}
	return true
}

// plainMeta reports whether the params' _meta (valid JSON) is an object
// that RequestMeta takes nothing from: no member encoding/json would match
// with progressToken. Stateless-era requests carry such a _meta on every
// call, and decoding it would leave only a RequestMeta without a token,
// which is as good as none.
func plainMeta(meta []byte) bool {
	if meta[0] != '{' {
		return false
	}
	plain := true
	jsonscan.Members(meta, func(key, _ []byte) bool {
		plain = ignoredKey(key, "progressToken") // era_stateless_meta.go
		return plain
	})
	return plain
}
