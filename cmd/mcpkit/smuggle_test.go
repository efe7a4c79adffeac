package main

import (
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// TestServeSmuggledRequest: `serve --http` closes the connection after a
// request framed by both Content-Length and Transfer-Encoding: chunked, on
// any path (here one the mux answers 404), so that an MCP request smuggled
// behind it is never served (RFC 9112 section 6.1).
func TestServeSmuggledRequest(t *testing.T) {
	srv := startServeHTTP(t)
	addr := srv.find(t, `url=http://(127\.0\.0\.1:\d+)/mcp`)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"smuggler","version":"1"}}}`
	mcpPost := func(extra string) string {
		return "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n" + extra +
			"Content-Length: " + strconv.Itoa(len(initialize)) + "\r\n\r\n" + initialize
	}
	// The last request asks for the connection's end, so that the read
	// below ends even when the smuggled one is served.
	smuggled := mcpPost("") + mcpPost("Connection: close\r\n")
	chunked := fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", 2, "{}")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "POST /elsewhere HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\n"+
		"Content-Length: "+strconv.Itoa(len(chunked)+len(smuggled))+"\r\nTransfer-Encoding: chunked\r\n\r\n"+chunked+smuggled); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(time.Minute)) // a safety net
	wire, err := io.ReadAll(conn)
	if err != nil {
		t.Errorf("the connection was not closed: %v", err)
	}
	got := regexp.MustCompile(`Date: [^\r]*\r\n`).ReplaceAllString(string(wire), "Date: *\r\n")
	want := "HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nDate: *\r\nContent-Length: 19\r\n\r\n404 page not found\n"
	if got != want {
		t.Errorf("the connection carried\n%q\nwant\n%q", got, want)
	}
	srv.end(t)
}
