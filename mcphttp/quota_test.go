package mcphttp

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

const (
	principalRefused = `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Too Many Requests: session limit per principal reached","data":{"quota":"MaxSessionsPerPrincipal","max":%d}}}`
	addressRefused   = `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Too Many Requests: session limit per client address reached","data":{"quota":"MaxSessionsPerAddress","max":1}}}`
)

// wantRefused checks a 429 with Retry-After retry, no session and body.
func wantRefused(t *testing.T, what string, r *reply, retry, body string) {
	t.Helper()
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") != retry || r.header.Get("Mcp-Session-Id") != "" || strings.TrimSpace(r.body) != body {
		t.Fatalf("%s: %d, Retry-After %q, Mcp-Session-Id %q, %s\nwant 429, %s, none, %s", what, r.status, r.header.Get("Retry-After"), r.header.Get("Mcp-Session-Id"), r.body, retry, body)
	}
}

// One user cannot take every session: past MaxSessionsPerPrincipal alice
// gets 429 with Retry-After (when one of her sessions may expire) and
// bob still gets a session; a session's end, by DELETE or idle expiry,
// frees its place under alice's quota.
func TestSessionQuotaPerPrincipal(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f, _ := authFixture(t, &Options{MaxSessions: 5, MaxSessionsPerPrincipal: 2, IdleTimeout: 10 * time.Minute, ReapInterval: -1, JSONResponse: true})
	defer f.done()
	a1 := f.initAs("alice")
	f.clock.advance(time.Minute)
	a2 := f.initAs("alice")
	f.clock.advance(8*time.Minute + 30*time.Second)
	// a1 may expire in 30 s: that is when alice may try again.
	wantRefused(t, "alice's third initialize", f.as("alice", http.MethodPost, "", nil, initBody), "30", fmt.Sprintf(principalRefused, 2))
	b1 := f.initAs("bob")
	if n := f.h.SessionCount(); n != 3 {
		t.Fatalf("%d sessions, want 3", n)
	}
	if r := f.as("alice", http.MethodDelete, a2, nil, ""); r.status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	a3 := f.initAs("alice")
	wantRefused(t, "alice past her quota again", f.as("alice", http.MethodPost, "", nil, initBody), "30", fmt.Sprintf(principalRefused, 2))
	// a1 idles out: the next initialize reclaims it, with no reaper.
	f.clock.advance(31 * time.Second)
	a4 := f.initAs("alice")
	if r := f.as("alice", http.MethodPost, a1, nil, pingBody); r.status != http.StatusNotFound {
		t.Fatalf("the reclaimed session answered %d", r.status)
	}
	for _, sid := range []string{a3, a4} {
		if r := f.as("alice", http.MethodPost, sid, nil, pingBody); r.status != http.StatusOK {
			t.Fatalf("alice's session %s answered %d", sid, r.status)
		}
	}
	if r := f.as("bob", http.MethodPost, b1, nil, pingBody); r.status != http.StatusOK {
		t.Fatalf("bob's session answered %d", r.status)
	}
}

// The case: with MaxSessions 5 and the default quota, alice can
// no longer take all five sessions; bob gets one after her.
func TestSessionQuotaDefault(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f, _ := authFixture(t, &Options{MaxSessions: 5, ReapInterval: -1, JSONResponse: true})
	defer f.done()
	f.initAs("alice")
	// Busy sessions never expire; an idle one may in 30 minutes, and
	// Retry-After says at most a minute.
	wantRefused(t, "alice's second initialize", f.as("alice", http.MethodPost, "", nil, initBody), "60", fmt.Sprintf(principalRefused, 1))
	f.initAs("bob")
	if got := (Options{MaxSessions: 10_000}).resolve().MaxSessionsPerPrincipal; got != 100 {
		t.Errorf("the default quota with 10,000 sessions is %d, want 100", got)
	}
	if got := (Options{MaxSessions: -1, MaxSessionsPerPrincipal: -1}).resolve().MaxSessionsPerPrincipal; got != -1 {
		t.Errorf("a negative quota resolved to %d", got)
	}
}

// serveFrom serves an initialize from the TCP peer remote, with an
// X-Forwarded-For header when xff is not "".
func serveFrom(h http.Handler, remote, xff string) *reply {
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(initBody))
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = remote
	if xff != "" {
		req.Header.Set("X-Forwarded-For", xff)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return &reply{status: w.Code, header: w.Header(), body: w.Body.String()}
}

// MaxSessionsPerAddress counts anonymous sessions by the TCP peer, and by
// X-Forwarded-For only when the peer is a trusted proxy: a client that
// writes the header itself changes nothing.
func TestSessionQuotaPerAddress(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := NewHandler(echoServer(), &Options{
		MaxSessionsPerAddress: 1, JSONResponse: true, ReapInterval: -1,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")},
	})
	defer h.Close()
	ok := func(what string, r *reply) {
		t.Helper()
		if r.status != http.StatusOK || r.header.Get("Mcp-Session-Id") == "" {
			t.Fatalf("%s: %d %s", what, r.status, r.body)
		}
	}
	ok("first from 192.0.2.1", serveFrom(h, "192.0.2.1:1000", ""))
	wantRefused(t, "second from 192.0.2.1", serveFrom(h, "192.0.2.1:1001", ""), "60", addressRefused)
	// Spoofing: an untrusted peer's X-Forwarded-For is ignored.
	wantRefused(t, "192.0.2.1 claiming to forward 198.51.100.7", serveFrom(h, "192.0.2.1:1002", "198.51.100.7"), "60", addressRefused)
	ok("first from 192.0.2.2", serveFrom(h, "192.0.2.2:1000", ""))
	// Through a trusted proxy, the right-most untrusted address counts.
	ok("198.51.100.7 through 10.0.0.1", serveFrom(h, "10.0.0.1:1000", "198.51.100.7"))
	wantRefused(t, "198.51.100.7 through 10.0.0.2", serveFrom(h, "10.0.0.2:1000", "198.51.100.7"), "60", addressRefused)
	wantRefused(t, "198.51.100.7 forging an address on its left", serveFrom(h, "10.0.0.2:1000", "203.0.113.9, 198.51.100.7"), "60", addressRefused)
	ok("198.51.100.8 through two trusted proxies", serveFrom(h, "10.0.0.1:1000", "198.51.100.8, 10.9.9.9"))
	// IPv6 counts by /64.
	ok("first from 2001:db8::1", serveFrom(h, "[2001:db8::1]:1000", ""))
	wantRefused(t, "2001:db8::2 of the same /64", serveFrom(h, "[2001:db8::2]:1000", ""), "60", addressRefused)
	ok("2001:db8:0:1::1 of another /64", serveFrom(h, "[2001:db8:0:1::1]:1000", ""))
	if n := h.SessionCount(); n != 6 {
		t.Fatalf("%d sessions, want 6", n)
	}
}

// An authenticated session counts against its principal's quota, not its
// address's.
func TestSessionQuotaAddressSparesPrincipals(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f, _ := authFixture(t, &Options{MaxSessionsPerAddress: 1, JSONResponse: true, ReapInterval: -1})
	defer f.done()
	f.initAs("alice")
	f.initAs("bob")
	f.initAs("alice")
}
