package mcp

// A line over the stdio server's MaxMessageBytes is discarded, but its
// top-level id is found while it is: a request is answered at its id, a
// response fails the server's call it answers, and what has no id found
// is answered at id null, as before.

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"go.uber.org/goleak"
)

func TestStdioOversizedRequestAnsweredAtItsID(t *testing.T) {
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, before) })
	const limit = 64 << 10
	s := lcNewServer(nil)
	lcAddEcho(t, s)
	c := lcConnectStdio(t, s, limit)
	c.handshake("2025-11-25", lcInitResultTools(0, "2025-11-25"))

	big := strings.Repeat(`abc\"de{[\\`, 2*limit/11)
	for _, tc := range []struct{ name, line, wantID string }{
		{"id first", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + big + `"}}}`, "7"},
		{"id last, escaped, ids nested", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","_meta":{"id":99},"arguments":{"id":[1],"text":"` + big + `"}},"id":"k\"\\\u00e9\/"}`, `"k\"\\é/"`},
		{"negative id, spaces", " {\"method\" : \"tools/call\" , \"params\" : {\"arguments\":{\"text\":\"" + big + "\"}} ,\"jsonrpc\":\"2.0\", \"id\" : -12 } \r", "-12"},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + big + `"}}`, "null"},
		{"id only nested", `{"jsonrpc":"2.0","method":"tools/call","params":{"id":5,"text":"` + big + `"}}`, "null"},
		{"two ids", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"text":"` + big + `"},"id":2}`, "null"},
		{"id not an integer", `{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"text":"` + big + `"}}`, "null"},
		{"id an object", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/call","params":{"text":"` + big + `"}}`, "null"},
		{"escaped member name", `{"jsonrpc":"2.0","\u0069d":1,"method":"tools/call","params":{"text":"` + big + `"}}`, "null"},
		{"id over 256 bytes", `{"jsonrpc":"2.0","id":"` + strings.Repeat("i", 255) + `","method":"tools/call","params":{"text":"` + big + `"}}`, "null"},
		{"not an object", `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"text":"` + big + `"}}]`, "null"},
		{"not JSON", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"text":"` + big + `"}`, "null"},
		{"brackets mismatched", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"text":["` + big + `"}]}`, "null"},
	} {
		c.send(tc.line)
		if got, want := c.recv(), lcTooLargeAt(tc.wantID, limit); got != want {
			t.Errorf("%s: server sent\n\t%.300s\nwant\n\t%s", tc.name, got, want)
		}
	}
	// An id of 254 bytes and its quotes is kept.
	id := `"` + strings.Repeat("i", 254) + `"`
	c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"text":"` + big + `"}}`)
	c.expect(lcTooLargeAt(id, limit))
	// The session goes on.
	c.run(`
		-> {"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}
		<- {"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"hi"}]}}
	`)
	c.finish()
}

// A response from the client over the limit fails the server's call it
// answers at once.
func TestStdioOversizedResponseFailsServerCall(t *testing.T) {
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, before) })
	const limit = 64 << 10
	s := lcNewServer(nil)
	errc := make(chan error, 1)
	if err := AddTool(s, &Tool{Name: "roots"}, func(ctx context.Context, req *Request, _ struct{}) (string, error) {
		_, err := req.ListRoots(ctx, nil)
		errc <- err
		return "", err
	}); err != nil {
		t.Fatal(err)
	}
	c := lcConnectStdio(t, s, limit)
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}}`)
	c.expect(lcInitResultTools(0, "2025-11-25"))
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"roots","arguments":{}}}`)
	msg, _, err := jsonrpc.Decode([]byte(c.recv()))
	req, ok := msg.(*jsonrpc.Request)
	if err != nil || !ok || req.Method != "roots/list" {
		t.Fatalf("the server sent %v (%v), want a roots/list request", msg, err)
	}
	c.send(`{"jsonrpc":"2.0","result":{"roots":[{"uri":"file:///` + strings.Repeat("r", limit) + `","id":"x"}]},"id":` + req.ID.String() + `}`)
	err = lcWait(t, errc, "the roots/list call to end")
	tooLarge, ok := errors.AsType[*FrameTooLargeError](err)
	if want := "mcp: roots/list: mcp: message exceeds the limit of 65536 bytes"; !ok || err.Error() != want {
		t.Fatalf("ListRoots = %v, want %q wrapping *FrameTooLargeError", err, want)
	}
	if tooLarge.ID != req.ID || tooLarge.Request {
		t.Errorf("FrameTooLargeError = %+v, want ID %s, Request false", *tooLarge, req.ID)
	}
	c.expect(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"mcp: roots/list: mcp: message exceeds the limit of 65536 bytes"}],"isError":true}}`)
	c.run(`
		-> {"jsonrpc":"2.0","id":2,"method":"ping"}
		<- {"jsonrpc":"2.0","id":2,"result":{}}
	`)
	c.finish()
}
