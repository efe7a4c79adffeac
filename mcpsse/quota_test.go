package mcpsse

import (
	"context"
	"io"
	"net/http"
	"testing"

	"go.uber.org/goleak"
)

// get opens a GET stream as user (X-User, read by the test's Principal
// hook; none if ""), with an X-Forwarded-For when xff is not "", and
// returns a refusal's status, Retry-After and body; a stream that opens is
// closed by the server's close.
func get(t *testing.T, srv *testServer, user, xff string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/sse", nil)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		req.Header.Set("X-User", user)
	}
	if xff != "" {
		req.Header.Set("X-Forwarded-For", xff)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode == http.StatusOK {
		srv.mu.Lock()
		srv.streams = append(srv.streams, resp.Body)
		srv.mu.Unlock()
		return resp.StatusCode, "", ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Retry-After"), string(b)
}

// The quotas of package mcphttp hold for HTTP+SSE streams too: past
// MaxSessionsPerPrincipal a GET gets 429 with Retry-After, another
// principal still gets a stream, and a stream's end frees its place.
func TestSessionQuotaPerPrincipal(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := NewHandler(echoServer(nil, nil), &Options{
		MaxSessions: 10, MaxSessionsPerPrincipal: 1, IdleTimeout: -1,
		Principal: func(r *http.Request) string { return r.Header.Get("X-User") },
	})
	ended := make(chan string, 8) // room for every stream, which all end at close
	h.ended = func(id string) { ended <- id }
	srv := newTestServer(t, h)
	defer srv.close()
	ctx, cancel := context.WithCancel(t.Context())
	st := srv.open(t, ctx, "/sse") // anonymous: no quota
	st.next()
	a1, cancelA := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(a1, http.MethodGet, srv.URL+"/sse", nil)
	req.Header.Set("X-User", "alice")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("alice's first stream: %v %v", resp, err)
	}
	defer resp.Body.Close()
	const want = `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Too Many Requests: session limit per principal reached","data":{"quota":"MaxSessionsPerPrincipal","max":1}}}`
	if code, retry, body := get(t, srv, "alice", ""); code != http.StatusTooManyRequests || retry != "60" || body != want {
		t.Fatalf("alice's second stream: %d Retry-After %q %s\nwant 429 60 %s", code, retry, body, want)
	}
	if code, _, body := get(t, srv, "bob", ""); code != http.StatusOK {
		t.Fatalf("bob's stream: %d %s", code, body)
	}
	cancelA()
	<-ended
	if code, _, body := get(t, srv, "alice", ""); code != http.StatusOK {
		t.Fatalf("alice after her stream ended: %d %s", code, body)
	}
	if n := h.SessionCount(); n != 3 {
		t.Fatalf("%d sessions, want 3", n)
	}
	cancel()
}

// MaxSessionsPerAddress counts anonymous streams by the TCP peer; the
// X-Forwarded-For of a peer that is not a trusted proxy is ignored.
func TestSessionQuotaPerAddress(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := NewHandler(echoServer(nil, nil), &Options{MaxSessionsPerAddress: 1, IdleTimeout: -1})
	srv := newTestServer(t, h)
	defer srv.close()
	if code, _, body := get(t, srv, "", ""); code != http.StatusOK {
		t.Fatalf("first stream from 127.0.0.1: %d %s", code, body)
	}
	const want = `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Too Many Requests: session limit per client address reached","data":{"quota":"MaxSessionsPerAddress","max":1}}}`
	if code, retry, body := get(t, srv, "", "198.51.100.7"); code != http.StatusTooManyRequests || retry != "60" || body != want {
		t.Fatalf("127.0.0.1 claiming to forward for 198.51.100.7: %d Retry-After %q %s\nwant 429 60 %s", code, retry, body, want)
	}
}
