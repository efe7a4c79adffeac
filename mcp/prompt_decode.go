package mcp

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/internal/jsonscan"
)

// decodeGetPromptParams decodes the usual prompts/get params ("name",
// string "arguments", perhaps "_meta") in one jsonscan pass, exactly as
// encoding/json would (docs/design.md, "Fast decoders"). It reports false,
// leaving p as it was, for anything else, which unmarshalParams then reads.
func decodeGetPromptParams(params json.RawMessage, p *GetPromptParams) bool {
	if len(params) == 0 || params[0] != '{' {
		return false
	}
	// A member twice is left to encoding/json too: it merges two
	// "arguments" objects into one map.
	var c callMembers // tool.go
	end, err := jsonscan.ScanObject(params, 0, c.add)
	if err != nil || c.other || c.twice || jsonscan.SkipSpace(params, end) != len(params) {
		return false
	}
	var q GetPromptParams
	if c.name != nil {
		var ok bool
		if q.Name, ok = jsonscan.StringValue(c.name); !ok {
			return false
		}
	}
	if c.args != nil && !decodePromptArguments(c.args, &q.Arguments) {
		return false
	}
	if c.meta != nil {
		if plainMeta(c.meta) { // tool.go: nothing for encoding/json to take
			q.Meta = new(RequestMeta)
		} else if exactjson.Unmarshal(c.meta, &q.Meta) != nil {
			return false
		}
	}
	*p = q
	return true
}

// decodePromptArguments decodes a valid JSON value into the nil map *m as
// encoding/json decodes it into a map[string]string: null leaves it nil,
// an object of string values makes it (empty for {}; the last of a
// duplicated key wins). It reports false for anything else, left to
// encoding/json.
func decodePromptArguments(v []byte, m *map[string]string) bool {
	if v[0] == 'n' {
		return true
	}
	if v[0] != '{' {
		return false
	}
	*m = make(map[string]string)
	ok := true
	jsonscan.Members(v, func(key, value []byte) bool {
		var k string
		if bytes.IndexByte(key, '\\') < 0 && utf8.Valid(key) {
			k = string(key)
		} else {
			quoted := make([]byte, 0, len(key)+2)
			k, ok = jsonscan.StringValue(append(append(append(quoted, '"'), key...), '"'))
		}
		s, sok := jsonscan.StringValue(value)
		if ok = ok && sok; !ok {
			return false
		}
		(*m)[k] = s
		return true
	})
	return ok
}
