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
