// Package jsontest holds reference readers that tests of mcpkit's JSON
// scanners and decoders compare them with: slow, plain, and built on
// encoding/json's token reader only.
package jsontest

import (
	"bytes"
	"encoding/json"
)

// RepeatsName reports whether any object in data, one valid JSON value,
// holds two members whose names decode to the same string, as
// encoding/json's token reader decodes them (invalid UTF-8 and lone
// surrogates as U+FFFD). It is false for invalid JSON.
func RepeatsName(data []byte) bool {
	if !json.Valid(data) {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		names  map[string]bool
		object bool
		key    bool // the next string token of an object is a name
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if n := len(stack); n > 0 && stack[n-1].object {
			top := &stack[n-1]
			if s, ok := tok.(string); ok && top.key {
				if top.names[s] {
					return true
				}
				top.names[s] = true
				top.key = false
				continue
			}
			top.key = true // a value: the next token is a name
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{names: map[string]bool{}, object: true, key: true})
		case json.Delim('['):
			stack = append(stack, frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
	}
}
