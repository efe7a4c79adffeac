package skills

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/internal/jsonenc"
	"go.yaml.in/yaml/v3"
)

// splitFrontmatter returns the YAML between a SKILL.md's opening "---"
// line and its closing one. head is the file's first bytes (at most the
// frontmatter limit); complete says whether head is the whole file.
func splitFrontmatter(head []byte, complete bool, limit int) ([]byte, error) {
	b := bytes.TrimPrefix(head, []byte("\uFEFF"))
	line, rest, ok := bytes.Cut(b, []byte("\n"))
	if !ok || string(bytes.TrimRight(line, "\r")) != "---" {
		return nil, errors.New("SKILL.md does not begin with a --- line opening its YAML frontmatter")
	}
	for off := 0; ; {
		i := bytes.IndexByte(rest[off:], '\n')
		if i < 0 && !complete {
			break // the line may go on past what was read
		}
		line := rest[off:]
		if i >= 0 {
			line = rest[off : off+i]
		}
		if string(bytes.TrimRight(line, " \t\r")) == "---" {
			return rest[:off], nil
		}
		if i < 0 {
			break
		}
		off += i + 1
	}
	if !complete {
		return nil, fmt.Errorf("SKILL.md's frontmatter has no closing --- line within its first %d bytes", limit)
	}
	return nil, errors.New("SKILL.md's frontmatter has no closing --- line")
}

// frontmatterJSON parses the YAML frontmatter src and renders it as a
// JSON object, its keys in the order written. Aliases are expanded, at
// most maxNodes nodes in all, so that an alias bomb is refused; merge
// keys, non-scalar keys, repeated keys and values JSON cannot hold
// (.nan, .inf) are refused. Errors give SKILL.md's line numbers: the
// frontmatter starts on its second line.
func frontmatterJSON(src []byte, maxNodes int) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("frontmatter: %w", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("frontmatter: not a YAML mapping")
	}
	c := &yamlConv{budget: maxNodes, max: maxNodes}
	return c.append(nil, doc.Content[0], 0)
}

type yamlConv struct{ budget, max int }

// maxDepth bounds the nesting of frontmatter values.
const maxDepth = 64

func (c *yamlConv) append(dst []byte, n *yaml.Node, depth int) ([]byte, error) {
	if c.budget--; c.budget < 0 {
		return nil, fmt.Errorf("frontmatter: more than %d YAML nodes once aliases are expanded", c.max)
	}
	if depth > maxDepth {
		return nil, fmt.Errorf("frontmatter: nested deeper than %d levels", maxDepth)
	}
	switch n.Kind {
	case yaml.AliasNode:
		return c.append(dst, n.Alias, depth+1)
	case yaml.MappingNode:
		dst = append(dst, '{')
		seen := make(map[string]bool, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			for k.Kind == yaml.AliasNode {
				k = k.Alias
			}
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("frontmatter: line %d: a key is not a scalar", n.Content[i].Line+1)
			}
			if k.Tag == "!!merge" {
				return nil, fmt.Errorf("frontmatter: line %d: merge keys (<<) are not supported", k.Line+1)
			}
			if seen[k.Value] {
				return nil, fmt.Errorf("frontmatter: line %d: key %q is repeated", k.Line+1, k.Value)
			}
			seen[k.Value] = true
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonenc.AppendString(dst, k.Value)
			dst = append(dst, ':')
			var err error
			if dst, err = c.append(dst, n.Content[i+1], depth+1); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	case yaml.SequenceNode:
		dst = append(dst, '[')
		for i, e := range n.Content {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = c.append(dst, e, depth+1); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case yaml.ScalarNode:
		return appendScalar(dst, n)
	}
	return nil, fmt.Errorf("frontmatter: line %d: unexpected YAML node", n.Line+1)
}

// appendScalar renders a scalar by its resolved tag: null, booleans and
// numbers as JSON's, everything else (strings, timestamps, binary,
// custom tags) as the string written.
func appendScalar(dst []byte, n *yaml.Node) ([]byte, error) {
	switch n.ShortTag() {
	case "!!null":
		return append(dst, "null"...), nil
	case "!!bool", "!!int", "!!float":
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, fmt.Errorf("frontmatter: line %d: %w", n.Line+1, err)
		}
		switch v := v.(type) {
		case bool:
			return strconv.AppendBool(dst, v), nil
		case int:
			return strconv.AppendInt(dst, int64(v), 10), nil
		case int64:
			return strconv.AppendInt(dst, v, 10), nil
		case uint64:
			return strconv.AppendUint(dst, v, 10), nil
		case float64:
			b, err := jsonenc.Marshal(v)
			if err != nil {
				return nil, fmt.Errorf("frontmatter: line %d: %s is not a JSON number", n.Line+1, n.Value)
			}
			return append(dst, b...), nil
		}
		return nil, fmt.Errorf("frontmatter: line %d: %s is not a JSON value", n.Line+1, n.Value)
	}
	if !utf8.ValidString(n.Value) {
		return nil, fmt.Errorf("frontmatter: line %d: a string is not UTF-8", n.Line+1)
	}
	return jsonenc.AppendString(dst, n.Value), nil
}
