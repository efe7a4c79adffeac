package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// parseArgs checks a verb's --args: JSON, and a JSON object. A syntax
// error is reported where it is (line, column, and the line with a
// caret under the spot), so that it is not mistaken for arguments the
// server refused; those come back from the server, with exit status 1.
func parseArgs(verb, s string) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace([]byte(s))
	var v any
	if err := json.Unmarshal(trimmed, &v); err != nil {
		var syntaxErr *json.SyntaxError
		if !errors.As(err, &syntaxErr) {
			return nil, usagef("%s: --args is not valid JSON: %v", verb, err)
		}
		return nil, usagef("%s: --args is not valid JSON: %s", verb, syntaxPosition(trimmed, syntaxErr))
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, usagef("%s: --args must be a JSON object, such as '{\"name\":\"value\"}', not %s", verb, trimmed)
	}
	return trimmed, nil
}

// syntaxPosition describes where in data err is: "line L, column C:
// MESSAGE", then the line with a caret under the column. Columns count
// bytes from 1.
func syntaxPosition(data []byte, err *json.SyntaxError) string {
	pos := int(err.Offset) // the byte after the one that was wrong
	if pos > 0 && !strings.HasPrefix(err.Error(), "unexpected end of JSON input") {
		pos-- // the wrong byte itself
	}
	pos = min(pos, len(data))
	start := bytes.LastIndexByte(data[:pos], '\n') + 1
	end := len(data)
	if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
		end = pos + i
	}
	line := bytes.Count(data[:start], []byte("\n")) + 1
	// The caret under the spot: the line's tabs kept, so it lines up.
	var caret strings.Builder
	for _, b := range data[start:pos] {
		if b == '\t' {
			caret.WriteByte('\t')
		} else {
			caret.WriteByte(' ')
		}
	}
	return fmt.Sprintf("line %d, column %d: %v\n\t%s\n\t%s^", line, pos-start+1, err, data[start:end], caret.String())
}
