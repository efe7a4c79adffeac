package mcp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/mcpkit/mcpkit/internal/frameid"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// scanFrame runs a frameid.Scanner over data whole.
func scanFrame(data []byte) (jsonrpc.ID, bool) {
	var s frameid.Scanner
	s.Write(data)
	return s.Result()
}

// FuzzStdioOversizedLine checks the stdio transport with a limit of one
// byte (so that every line is discarded) against frameid.Scanner
// (internal/frameid tests the scanner itself).
func FuzzStdioOversizedLine(f *testing.F) {
	for _, frame := range []string{
		`{"jsonrpc":"2.0","id":7,"result":{}}`,
		`{"result":{"id":1,"a":[{"id":2}],"s":"\"id\":3"},"id":-4}`,
		`{"id":"a\"b\\c\u00e9\/","method":"x"}`,
		` { "method" : 1 , "id" : "" } ` + "\r",
		`{"method":"x"}`,
		`{"id":1,"id":1}`,
		`[{"id":1}]`,
	} {
		f.Add([]byte(frame))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		line := bytes.ReplaceAll(data, []byte("\n"), []byte(" "))
		conn := newStreamConnection(bytes.NewReader(append(line, '\n')), io.Discard, 1)
		frame, err := conn.Read(context.Background())
		var tooLarge *FrameTooLargeError
		switch {
		case errors.As(err, &tooLarge):
			id, method := scanFrame(line)
			if tooLarge.Limit != 1 || tooLarge.ID != id || tooLarge.Request != method {
				t.Fatalf("%q: Read = %+v, scanner %s, %v", line, *tooLarge, id, method)
			}
		case err == nil:
			if len(frame) > 1 {
				t.Fatalf("%q: Read = %q over the limit of 1 byte", line, frame)
			}
		case err != io.EOF:
			t.Fatalf("%q: Read error %v", line, err)
		}
	})
}
