package rrproxy

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// Requests go to the backends in turn, the path kept, and an SSE reply is
// passed on event by event, before the backend has finished it.
func TestRoundRobinAndFlush(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	release := make(chan struct{})
	var urls []*url.URL
	for i := range 3 {
		name := string(rune('a' + i))
		b := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("sse") != "" {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, "data: first\n\n")
				w.(http.Flusher).Flush()
				<-release
				io.WriteString(w, "data: second\n\n")
				return
			}
			io.WriteString(w, name+" "+r.URL.Path)
		}))
		defer b.Close()
		u, err := url.Parse(b.URL)
		if err != nil {
			t.Fatal(err)
		}
		urls = append(urls, u)
	}
	rp := New(urls, 4)
	defer rp.Transport.(*http.Transport).CloseIdleConnections()
	p := httptest.NewServer(rp)
	defer p.Close()
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	var got []string
	for range 6 {
		resp, err := client.Get(p.URL + "/mcp")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
		got = append(got, string(body))
	}
	if want := "a /mcp,b /mcp,c /mcp,a /mcp,b /mcp,c /mcp"; strings.Join(got, ",") != want {
		t.Fatalf("bodies %q, want %q", strings.Join(got, ","), want)
	}

	resp, err := client.Get(p.URL + "/mcp?sse=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	// The first event arrives while the backend still holds the reply.
	if line, err := br.ReadString('\n'); err != nil || line != "data: first\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	close(release)
	rest, err := io.ReadAll(br)
	if err != nil || string(rest) != "\ndata: second\n\n" {
		t.Fatalf("rest %q, %v", rest, err)
	}
}
