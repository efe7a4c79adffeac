package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// toolArgument is one argument of a tool as `tools list` shows it: a
// property of the tool's inputSchema
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool).
type toolArgument struct {
	name        string
	typ         string
	required    bool
	description string
}

// schemaProperty is what toolArguments reads of a property's schema.
type schemaProperty struct {
	Type        json.RawMessage   `json:"type"`
	Description string            `json:"description"`
	Ref         string            `json:"$ref"`
	Enum        []json.RawMessage `json:"enum"`
	Const       json.RawMessage   `json:"const"`
	Items       *schemaProperty   `json:"items"`
	AnyOf       []*schemaProperty `json:"anyOf"`
	OneOf       []*schemaProperty `json:"oneOf"`
}

// toolArguments returns the arguments an inputSchema describes, in the
// order of its properties. A schema it cannot read has none: the list
// shows what it can, and --json shows the schema as sent.
func toolArguments(inputSchema json.RawMessage) []toolArgument {
	var schema struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if json.Unmarshal(inputSchema, &schema) != nil || len(schema.Properties) == 0 {
		return nil
	}
	names := objectKeys(schema.Properties)
	var props map[string]*schemaProperty
	if json.Unmarshal(schema.Properties, &props) != nil {
		return nil
	}
	args := make([]toolArgument, 0, len(names))
	for _, name := range names {
		p := props[name]
		if p == nil {
			p = &schemaProperty{}
		}
		args = append(args, toolArgument{
			name:        name,
			typ:         p.typeName(),
			required:    slices.Contains(schema.Required, name),
			description: firstLine(p.Description),
		})
	}
	return args
}

// typeName names a property's type for people: its JSON Schema type (or
// types, joined with |), "array of T", the name of a $ref, or "any".
func (p *schemaProperty) typeName() string {
	if p == nil {
		return "any"
	}
	var one string
	var many []string
	switch {
	case json.Unmarshal(p.Type, &one) == nil && one != "":
		if one == "array" && p.Items != nil {
			if item := p.Items.typeName(); item != "any" {
				return "array of " + item
			}
		}
		return one
	case json.Unmarshal(p.Type, &many) == nil && len(many) > 0:
		return strings.Join(many, "|")
	case p.Ref != "":
		return p.Ref[strings.LastIndexByte(p.Ref, '/')+1:]
	case len(p.Const) > 0:
		return "const " + string(p.Const)
	case len(p.Enum) > 0:
		return "enum"
	}
	alts := p.AnyOf
	if len(alts) == 0 {
		alts = p.OneOf
	}
	if len(alts) > 0 {
		types := make([]string, len(alts))
		for i, a := range alts {
			types[i] = a.typeName()
		}
		return strings.Join(types, "|")
	}
	return "any"
}

// objectKeys returns the member names of the JSON object data, in the
// order they appear.
func objectKeys(data json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return keys
		}
		key, _ := tok.(string)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return keys
		}
		if !slices.Contains(keys, key) {
			keys = append(keys, key)
		}
	}
	return keys
}
