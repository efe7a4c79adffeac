package mcphttp

import (
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// smuggle sends on a new connection to addr a POST of first whose framing
// carries both a Content-Length (counting the smuggled request) and
// Transfer-Encoding: chunked, followed by a second POST of second, and
// returns all the connection carries until it is closed, its Date headers
// replaced by "Date: *". A last request asks the server to close the
// connection after answering it, so that the read ends when the smuggled
// request is served too.
func smuggle(t *testing.T, addr, path string, headers, first, second string) string {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	post := func(extra, body string) string {
		return "POST " + path + " HTTP/1.1\r\nHost: " + addr + "\r\n" + headers + extra +
			"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	}
	smuggled := post("", second) + post("Connection: close\r\n", second)
	chunked := fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(first), first)
	req := "POST " + path + " HTTP/1.1\r\nHost: " + addr + "\r\n" + headers +
		"Content-Length: " + strconv.Itoa(len(chunked)+len(smuggled)) + "\r\n" +
		"Transfer-Encoding: chunked\r\n\r\n" + chunked + smuggled
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	// A safety net: the server closes the connection either way.
	conn.SetReadDeadline(time.Now().Add(time.Minute))
	got, err := io.ReadAll(conn)
	if err != nil {
		t.Errorf("the connection was not closed: %v", err)
	}
	return dateHeader.ReplaceAllString(string(got), "Date: *\r\n")
}

var dateHeader = regexp.MustCompile(`Date: [^\r]*\r\n`)

// A request framed by both Content-Length and Transfer-Encoding: chunked
// is answered with Connection: close and the connection closed, so that a
// request smuggled behind it is never served (RFC 9112 section 6.1).
func TestChunkedAndContentLengthCloses(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	const (
		headers = "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\nMcp-Protocol-Version: 2025-11-25\r\n"
		ping    = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		call    = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"smuggled"}}}`
	)
	for _, c := range []struct {
		name string
		opts Options
		path string
		want string // the first reply, all the connection carries
	}{
		{name: "json reply", opts: Options{Stateless: true, JSONResponse: true}, path: "/mcp",
			want: "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: application/json\r\nDate: *\r\nContent-Length: 36\r\n\r\n" +
				`{"jsonrpc":"2.0","id":1,"result":{}}`},
		{name: "sse reply", opts: Options{Stateless: true}, path: "/mcp",
			want: "HTTP/1.1 200 OK\r\nCache-Control: no-cache\r\nConnection: close\r\nContent-Type: text/event-stream\r\nX-Accel-Buffering: no\r\nDate: *\r\nContent-Length: 59\r\n\r\n" +
				"event: message\ndata: " + `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n\n"},
		{name: "refused: no session", opts: Options{}, path: "/mcp",
			want: "HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 107\r\nContent-Type: application/json\r\nDate: *\r\n\r\n" +
				`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Bad Request: Mcp-Session-Id header is required"}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := newTestServer(t)
			h := NewHandler(s, &c.opts)
			defer h.Close()
			srv := newLoopbackServer(t, h)
			defer srv.Close()
			got := smuggle(t, srv.Listener.Addr().String(), c.path, headers, ping, call)
			// The ping's reply, and nothing else: the tools/call is never read.
			if got != c.want {
				t.Errorf("the connection carried\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}
