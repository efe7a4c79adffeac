package httpguard

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// The checks accept local clients and same-origin pages, and refuse a
// rebound Host or a foreign Origin.
func TestCheck(t *testing.T) {
	loopback := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	public := &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 8080}
	cases := []struct {
		name          string
		guard         Guard
		local         net.Addr
		host, origin  string
		header, value string
	}{
		{"local client", Guard{}, loopback, "127.0.0.1:8080", "", "", ""},
		{"localhost page", Guard{}, loopback, "localhost:8080", "http://localhost:3000", "", ""},
		{"rebound host", Guard{}, loopback, "evil.example:8080", "", "Host", "evil.example:8080"},
		{"foreign origin", Guard{}, loopback, "127.0.0.1:8080", "http://evil.example", "Origin", "http://evil.example"},
		{"null origin", Guard{}, loopback, "127.0.0.1:8080", "null", "Origin", "null"},
		{"allowed origin", Guard{AllowedOrigins: []string{"https://app.example"}}, loopback, "127.0.0.1:8080", "https://app.example:443", "", ""},
		{"public, any host", Guard{}, public, "api.example", "", "", ""},
		{"public, same origin", Guard{}, public, "api.example", "http://api.example", "", ""},
		{"public, other origin", Guard{}, public, "api.example", "http://evil.example", "Origin", "http://evil.example"},
		{"public, listed host", Guard{AllowedHosts: []string{"api.example"}}, public, "API.example:443", "", "", ""},
		{"public, unlisted host", Guard{AllowedHosts: []string{"api.example"}}, public, "other.example", "", "Host", "other.example"},
	}
	for _, c := range cases {
		r := httptest.NewRequest(http.MethodGet, "http://"+c.host+"/sse", nil)
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, c.local))
		if c.origin != "" {
			r.Header.Set("Origin", c.origin)
		}
		header, value := c.guard.Check(r)
		if header != c.header || value != c.value {
			t.Errorf("%s: Check = %q %q, want %q %q", c.name, header, value, c.header, c.value)
		}
	}
}

// The shortcut for local Host values answers as the full check does (a
// guard with an unrelated allowed host takes no shortcut).
func TestHostAllowedShortcut(t *testing.T) {
	fast := &Guard{}
	full := &Guard{AllowedHosts: []string{"unrelated.example:1"}}
	for _, host := range []string{
		"127.0.0.1:8080", "127.0.0.1:", "127.0.0.1", "localhost:1", "localhost", "LOCALHOST:1",
		"127.0.0.1:x:y", "localhost:1:2", "127.0.0.2:80", "[::1]:80", "example.com:80", "127.0.0.1.example:80",
	} {
		if got, want := fast.hostAllowed(host, true), full.hostAllowed(host, true); got != want {
			t.Errorf("hostAllowed(%q) = %v, the full check says %v", host, got, want)
		}
	}
}

// Check's shortcut for a local Host without Origin, which skips looking up
// the connection's address, answers as the full check does on a loopback
// and on another interface.
func TestCheckLocalHostShortcut(t *testing.T) {
	g := &Guard{}
	for _, local := range []net.IP{net.IPv4(127, 0, 0, 1), net.IPv4(10, 0, 0, 1)} {
		ctx := context.WithValue(context.Background(), http.LocalAddrContextKey, &net.TCPAddr{IP: local, Port: 80})
		for _, host := range []string{
			"127.0.0.1:8080", "127.0.0.1:", "127.0.0.1", "localhost:1", "localhost", "LOCALHOST:1",
			"127.0.0.1:x:y", "localhost:1:2", "127.0.0.2:80", "[::1]:80", "example.com:80",
		} {
			r := httptest.NewRequestWithContext(ctx, http.MethodPost, "http://x/mcp", nil)
			r.Host = host
			header, _ := g.Check(r)
			got := header == ""
			want := g.hostAllowed(host, local.IsLoopback())
			if got != want {
				t.Errorf("arriving on %v, Host %q: allowed %v, the full check says %v", local, host, got, want)
			}
		}
	}
}
