package sessquota

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"
)

func TestClientAddr(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}
	for _, c := range []struct {
		remote string
		xff    []string
		want   string
	}{
		{"192.0.2.1:80", nil, "192.0.2.1"},
		{"192.0.2.1:80", []string{"198.51.100.1"}, "192.0.2.1"},                  // untrusted peer: header ignored
		{"10.0.0.1:80", nil, "10.0.0.1"},                                         // a trusted peer with no header is the client
		{"10.0.0.1:80", []string{"198.51.100.1"}, "198.51.100.1"},                // one trusted proxy
		{"10.0.0.1:80", []string{"1.2.3.4, 198.51.100.1"}, "198.51.100.1"},       // forged left part
		{"10.0.0.1:80", []string{"198.51.100.1", "10.2.2.2"}, "198.51.100.1"},    // two header lines, both proxies trusted
		{"10.0.0.1:80", []string{"10.1.1.1, 10.2.2.2"}, "10.1.1.1"},              // every hop trusted: the left-most
		{"10.0.0.1:80", []string{"198.51.100.1, garbage, 10.3.3.3"}, "10.3.3.3"}, // a malformed hop stops the walk
		{"[fd00::1]:80", []string{"[2001:db8::7]:4711"}, "2001:db8::7"},
		{"[::ffff:192.0.2.9]:80", nil, "192.0.2.9"},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = c.remote
		for _, v := range c.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		got, ok := ClientAddr(r, trusted)
		if !ok || got.String() != c.want {
			t.Errorf("ClientAddr(%s, %q) = %v %v, want %s", c.remote, c.xff, got, ok, c.want)
		}
	}
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = "pipe"
	if a, ok := ClientAddr(r, trusted); ok {
		t.Errorf("ClientAddr of RemoteAddr %q = %v, want none", r.RemoteAddr, a)
	}
}

func TestDefaultPerPrincipal(t *testing.T) {
	for max, want := range map[int]int{-1: 100, 0: 100, 1: 1, 5: 1, 8: 2, 20: 5, 400: 100, 10_000: 100} {
		if got := DefaultPerPrincipal(max); got != want {
			t.Errorf("DefaultPerPrincipal(%d) = %d, want %d", max, got, want)
		}
	}
}

func TestTable(t *testing.T) {
	var tb Table[int]
	tb.Reserve("k")
	tb.Reserve("k")
	tb.Commit("k", 1)
	tb.Unreserve("k")
	if n := tb.Count("k"); n != 1 {
		t.Fatalf("count %d, want 1", n)
	}
	tb.Remove("k", 2) // not a member: nothing
	tb.Remove("k", 1)
	if n, m := tb.Count("k"), len(tb.keys); n != 0 || m != 0 {
		t.Fatalf("count %d, keys %d after the last went", n, m)
	}
}

func TestRetrySeconds(t *testing.T) {
	for d, want := range map[time.Duration]int{
		-time.Second: 1, 0: 1, time.Millisecond: 1, 1500 * time.Millisecond: 2,
		time.Minute: 60, time.Hour: 60,
	} {
		if got := RetrySeconds(d); got != want {
			t.Errorf("RetrySeconds(%v) = %d, want %d", d, got, want)
		}
	}
}
