package load

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// TestReplyReaderAsNetHTTP: the load generator's reply reader gives what
// net/http's ReadResponse gives (status, Content-Type, Mcp-Session-Id,
// body, whether the connection ends) for every framing a server may
// use, and fails where it fails.
func TestReplyReaderAsNetHTTP(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB
	var chunkedBig strings.Builder
	for rest, n := big, 1; len(rest) > 0; n = n*3 + 1 {
		k := min(n, len(rest))
		chunkedBig.WriteString(strconv.FormatInt(int64(k), 16) + "\r\n" + rest[:k] + "\r\n")
		rest = rest[k:]
	}
	good := []string{
		"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nMcp-Session-Id: abc\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nTrailer: x\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\ncontent-type:  application/json \r\n\r\nhello",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/event-stream\r\n\r\n" + chunkedBig.String() + "0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: " + strconv.Itoa(len(big)) + "\r\n\r\n" + big,
		"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 204 No Content\r\nMcp-Session-Id: s1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.0 200 OK\r\n\r\nuntil the end",
		"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 3\r\n\r\nabc",
		"HTTP/1.1 200 OK\r\nContent-Type: x\r\n\r\nto the end",
		"HTTP/1.1 500\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 404 Not Found\nContent-Length: 3\n\nabc",
		"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3 \r\nabc\r\n0\r\n\r\n",
	}
	bad := []string{
		"",
		"garbage\r\n\r\n",
		"HTTP/1.1 2x0 OK\r\n\r\n",
		"HTTP/1.1 200OK\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
		"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
		"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
		"HTTP/1.1 200 OK\r\nBad Header\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n",
	}
	var r replyReader
	for _, raw := range good {
		want, err := http.ReadResponse(bufio.NewReader(strings.NewReader(raw)), nil)
		if err != nil {
			t.Fatalf("net/http: %q: %v", raw[:min(len(raw), 80)], err)
		}
		wantBody, err := io.ReadAll(want.Body)
		if err != nil {
			t.Fatalf("net/http body: %q: %v", raw[:min(len(raw), 80)], err)
		}
		// Each response twice on one reader, as on a kept-alive
		// connection (a body to the end of the stream only once).
		n := 2
		if want.Close {
			n = 1
		}
		br := bufio.NewReaderSize(strings.NewReader(strings.Repeat(raw, n)), 16<<10)
		for i := range n {
			got, closeConn, err := r.read(br)
			if err != nil {
				t.Errorf("%q (#%d): %v", raw[:min(len(raw), 80)], i, err)
				continue
			}
			if got.Status != want.StatusCode || got.ContentType != want.Header.Get("Content-Type") ||
				got.SessionID != want.Header.Get("Mcp-Session-Id") || !bytes.Equal(got.Body, wantBody) || closeConn != want.Close {
				t.Errorf("%q (#%d):\n got %d %q %q close %v body %.40q (%d bytes)\nwant %d %q %q close %v body %.40q (%d bytes)",
					raw[:min(len(raw), 80)], i, got.Status, got.ContentType, got.SessionID, closeConn, got.Body, len(got.Body),
					want.StatusCode, want.Header.Get("Content-Type"), want.Header.Get("Mcp-Session-Id"), want.Close, wantBody, len(wantBody))
			}
		}
	}
	for _, raw := range bad {
		if _, _, err := r.read(bufio.NewReader(strings.NewReader(raw))); err == nil {
			t.Errorf("%q: no error", raw)
		}
		if resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(raw)), nil); err == nil {
			if _, err := io.ReadAll(resp.Body); err == nil && !strings.Contains(raw, "3\r\nabcd") && !strings.Contains(raw, "Bad Header") {
				t.Errorf("net/http reads %q: the case is not bad", raw)
			}
		}
	}
	// A header line longer than the reader's buffer, and a body over
	// MaxReplyBody.
	long := "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", 20<<10) + "\r\n\r\n"
	if _, _, err := r.read(bufio.NewReaderSize(strings.NewReader(long), 16<<10)); err == nil || err.Error() != "header line longer than 16384 bytes" {
		t.Errorf("long header line: %v", err)
	}
	huge := "HTTP/1.1 200 OK\r\nContent-Length: " + strconv.Itoa(MaxReplyBody+1) + "\r\n\r\n"
	if _, _, err := r.read(bufio.NewReader(strings.NewReader(huge))); err == nil || err.Error() != "reply body over 67108864 bytes" {
		t.Errorf("huge body: %v", err)
	}
}

// TestHTTPConnRoundTrips: an HTTPConn against a net/http server on
// 127.0.0.1: chunked (flushed) and sized replies, an empty 202, and a
// reply with Connection: close, after which the next request redials.
func TestHTTPConnRoundTrips(t *testing.T) {
	big := bytes.Repeat([]byte("{\"x\":\"ünïcode\"}\n"), 1<<16)
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch string(body) {
		case "sse":
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Mcp-Session-Id", r.Header.Get("Mcp-Session-Id")+"!")
			for i := 0; i < len(big); i += 100_000 {
				w.Write(big[i:min(i+100_000, len(big))])
				w.(http.Flusher).Flush()
			}
		case "json":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(len(big)))
			w.Write(big)
		case "close":
			w.Header().Set("Connection", "close")
			w.Write([]byte("bye"))
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
	srv := httptest.NewUnstartedServer(mux)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	c, err := Dial(ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, step := range []struct {
		body, ct, sid string
		status        int
		want          []byte
	}{
		{"sse", "text/event-stream", "s1!", 200, big},
		{"json", "application/json", "", 200, big},
		{"note", "", "", 202, nil},
		{"close", "text/plain; charset=utf-8", "", 200, []byte("bye")},
		{"sse", "text/event-stream", "s1!", 200, big},
		{"note", "", "", 202, nil},
	} {
		sid := ""
		if step.sid != "" {
			sid = "s1"
		}
		rep, err := c.Post([]byte(step.body), sid, "2025-11-25")
		if err != nil {
			t.Fatalf("%s: %v", step.body, err)
		}
		if rep.Status != step.status || rep.ContentType != step.ct || rep.SessionID != step.sid || !bytes.Equal(rep.Body, step.want) {
			t.Errorf("%s: got %d %q %q %d bytes; want %d %q %q %d bytes", step.body, rep.Status, rep.ContentType, rep.SessionID, len(rep.Body),
				step.status, step.ct, step.sid, len(step.want))
		}
		if (step.body == "close") != (c.c == nil) {
			t.Errorf("%s: connection open %v after it", step.body, c.c != nil)
		}
	}
}

// BenchmarkReplyRead: reading one small SSE reply (8p's size) with
// net/http's ReadResponse into a reused buffer, as the load generator
// did, and with its own reader.
//
//	cd bench && go test -run XXX -bench BenchmarkReplyRead ./internal/load/
func BenchmarkReplyRead(b *testing.B) {
	msg := `{"jsonrpc":"2.0","id":1000,"result":{"messages":[{"role":"user","content":{"type":"text","text":"` + strings.Repeat("x", 300) + `"}}]}}`
	event := "event: message\nid: 1_0\ndata: " + msg + "\n\n"
	raw := "HTTP/1.1 200 OK\r\nCache-Control: no-cache\r\nConnection: keep-alive\r\nContent-Type: text/event-stream\r\n" +
		"Mcp-Session-Id: 0123456789abcdef0123456789abcdef\r\nDate: Thu, 03 Dec 2026 17:00:00 GMT\r\nTransfer-Encoding: chunked\r\n\r\n" +
		strconv.FormatInt(int64(len(event)), 16) + "\r\n" + event + "\r\n0\r\n\r\n"
	src := strings.NewReader(raw)
	br := bufio.NewReaderSize(src, 16<<10)
	b.Run("net-http", func(b *testing.B) {
		var body bytes.Buffer
		for b.Loop() {
			src.Reset(raw)
			br.Reset(src)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				b.Fatal(err)
			}
			body.Reset()
			if _, err := body.ReadFrom(resp.Body); err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
			_, _ = resp.Header.Get("Content-Type"), resp.Header.Get("Mcp-Session-Id")
		}
	})
	b.Run("own", func(b *testing.B) {
		var r replyReader
		for b.Loop() {
			src.Reset(raw)
			br.Reset(src)
			if _, _, err := r.read(br); err != nil {
				b.Fatal(err)
			}
		}
	})
}
