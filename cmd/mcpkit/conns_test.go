package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// refusedAtOnce dials addr and checks that the server ends the
// connection without a byte: EOF or a reset (which may even come back as
// the dial's error), however the write of a request fares.
func refusedAtOnce(t *testing.T, addr string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if errors.Is(err, syscall.ECONNRESET) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, _ = io.WriteString(c, "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	n, err := c.Read(make([]byte, 1))
	if n != 0 || (!errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET)) {
		t.Fatalf("a connection past the bound read %d bytes, %v; want EOF or a reset", n, err)
	}
}

// The listener holds at most max connections: one more is closed at once,
// and a connection's Close gives its place back.
func TestLimitListener(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	told := make(chan int64, 4)
	ln := newLimitListener(inner, 1, func(n int64) { told <- n })
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	accept := func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}
	go accept()
	c1, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	s1 := <-accepted
	go accept()
	refusedAtOnce(t, ln.Addr().String())
	if n := <-told; n != 1 {
		t.Fatalf("refusals told: %d, want 1", n)
	}
	_ = s1.Close()
	_ = s1.Close() // a second Close gives nothing back twice
	c3, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c3.Close()
	s3 := <-accepted
	if s3 == nil {
		t.Fatal("the connection after a Close was not accepted")
	}
	defer s3.Close()
	if open := ln.(*limitListener).open.Load(); open != 1 {
		t.Fatalf("%d open, want 1", open)
	}
	if newLimitListener(inner, -1, nil) != inner {
		t.Error("a negative bound wraps the listener")
	}
}

// The default bound follows the descriptor limit, less its headroom.
func TestDefaultMaxConns(t *testing.T) {
	for limit, want := range map[uint64]uint64{1024: 128, 256: 64, 100: 64, 1 << 20: 1 << 17} {
		if got := connHeadroom(limit); got != want {
			t.Errorf("connHeadroom(%d) = %d, want %d", limit, got, want)
		}
	}
	limit, ok := fileLimit()
	want := fallbackMaxConns
	if ok && limit <= 1<<30 {
		want = max(int(limit-min(limit, connHeadroom(limit))), 1)
	}
	if got := defaultMaxConns(); got != want {
		t.Errorf("defaultMaxConns() = %d with a limit of %d (%v), want %d", got, limit, ok, want)
	}
}

// serve --max-conns 2 holds two raw connections, serves them, and closes
// a third at once, logging it.
func TestServeMaxConns(t *testing.T) {
	srv := startServeHTTP(t, "--max-conns", "2")
	addr := srv.find(t, `url=http://(127\.0\.0\.1:\d+)/mcp`)
	// Two connections, each served a request and kept alive.
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, "DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("DELETE without a session: %d, want 400", resp.StatusCode)
		}
	}
	refusedAtOnce(t, addr)
	select {
	case line := <-srv.logs.lines:
		if !strings.Contains(line, `msg="mcpkit serve: connection refused: --max-conns reached" max_conns=2 refused=1`) {
			t.Fatalf("log line %q, want the refusal", line)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the refusal was not logged")
	}
	srv.end(t)
}

// --trusted-proxy takes networks and addresses, and refuses the rest.
func TestTrustedProxyFlag(t *testing.T) {
	var l prefixList
	for _, v := range []string{"10.1.2.3/8", "192.0.2.1", "2001:db8::/32"} {
		if err := l.Set(v); err != nil {
			t.Fatalf("Set(%q) = %v", v, err)
		}
	}
	if got := l.String(); got != "10.0.0.0/8,192.0.2.1/32,2001:db8::/32" {
		t.Errorf("parsed %s", got)
	}
	if err := l.Set("proxy.example"); err == nil || err.Error() != `"proxy.example" is neither a network (CIDR) nor an address` {
		t.Errorf("Set(a name) = %v", err)
	}
}

// serve --max-sessions-per-address 1 refuses a client's second session
// with 429 (the quotas themselves are tested in package mcphttp).
func TestServeSessionQuotaFlags(t *testing.T) {
	srv := startServeHTTP(t, "--max-sessions-per-address", "1", "--json-response")
	url := srv.find(t, `url=(http://127\.0\.0\.1:\d+/mcp)`)
	initialize := func() (int, string, string) {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Retry-After"), strings.TrimSpace(string(b))
	}
	if status, _, body := initialize(); status != http.StatusOK {
		t.Fatalf("first initialize: %d %s", status, body)
	}
	const want = `{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"Too Many Requests: session limit per client address reached","data":{"quota":"MaxSessionsPerAddress","max":1}}}`
	if status, retry, body := initialize(); status != http.StatusTooManyRequests || retry != "60" || body != want {
		t.Fatalf("second initialize: %d, Retry-After %q, %s\nwant 429, 60, %s", status, retry, body, want)
	}
	http.DefaultClient.CloseIdleConnections()
	srv.end(t)
}
