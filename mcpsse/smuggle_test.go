package mcpsse

import (
	"context"
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// A POST framed by both Content-Length and Transfer-Encoding: chunked is
// answered with Connection: close and the connection closed, so that a
// message smuggled behind it is never delivered (RFC 9112 section 6.1).
func TestChunkedAndContentLengthCloses(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := newTestServer(t, NewHandler(echoServer(nil, nil), &Options{MessagePath: "/messages"}))
	defer srv.close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	st, endpoint := handshake(t, ctx, srv)
	addr := srv.Listener.Addr().String()
	path := strings.TrimPrefix(endpoint, srv.URL)
	raw := func(extra, body string) string {
		return "POST " + path + " HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n" + extra +
			"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	}
	call := `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{"text":"smuggled"}}}`
	// The last request asks for the connection's end, so that the read
	// below ends even when the smuggled one is served.
	smuggled := raw("", call) + raw("Connection: close\r\n", call)
	ping := `{"jsonrpc":"2.0","id":5,"method":"ping"}`
	chunked := fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(ping), ping)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "POST "+path+" HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\n"+
		"Content-Length: "+strconv.Itoa(len(chunked)+len(smuggled))+"\r\nTransfer-Encoding: chunked\r\n\r\n"+chunked+smuggled); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(time.Minute)) // a safety net
	wire, err := io.ReadAll(conn)
	if err != nil {
		t.Errorf("the connection was not closed: %v", err)
	}
	got := regexp.MustCompile(`Date: [^\r]*\r\n`).ReplaceAllString(string(wire), "Date: *\r\n")
	if want := "HTTP/1.1 202 Accepted\r\nConnection: close\r\nDate: *\r\nContent-Length: 0\r\n\r\n"; got != want {
		t.Errorf("the connection carried\n%q\nwant\n%q", got, want)
	}
	// The stream carries the ping's reply, then that of a later ping:
	// the tools/call never ran.
	if name, data, _ := st.next(); name != "message" || data != `{"jsonrpc":"2.0","id":5,"result":{}}` {
		t.Fatalf("first reply %q %s", name, data)
	}
	if code, _ := post(t, endpoint, `{"jsonrpc":"2.0","id":7,"method":"ping"}`); code != 202 {
		t.Fatalf("ping: %d", code)
	}
	if name, data, _ := st.next(); name != "message" || data != `{"jsonrpc":"2.0","id":7,"result":{}}` {
		t.Fatalf("next reply %q %s, want the ping's (id 7)", name, data)
	}
}
