// Package httpguard holds the DNS-rebinding checks (Host and Origin) that
// every HTTP transport of mcpkit applies, and the refusals they answer
// alike, so that the 2024-11-05 HTTP+SSE transport enforces exactly the
// rules of Streamable HTTP
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning).
package httpguard

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Guard decides whether a request's Host and Origin are allowed. The zero
// value accepts a request on a loopback address only with a loopback Host
// and, if it has an Origin, a loopback or same-origin one; a request on
// another address with any Host and a same-origin Origin.
type Guard struct {
	// AllowedHosts lists Host values accepted besides the defaults: with a
	// port they match exactly, without one any port. Once set, a request
	// on a non-loopback address must name one of them.
	AllowedHosts []string
	// AllowedOrigins lists "scheme://host[:port]" origins accepted besides
	// the defaults.
	AllowedOrigins []string
}

// Check returns "" when r may be served, or the header ("Host" or
// "Origin") that is not allowed and its value.
func (g *Guard) Check(r *http.Request) (header, value string) {
	origins, hasOrigin := r.Header["Origin"]
	if !hasOrigin && len(g.AllowedHosts) == 0 && isLocalHostPort(r.Host) {
		return "", ""
	}
	loopback := arrivedOnLoopback(r)
	if r.Host != "" && !g.hostAllowed(r.Host, loopback) {
		return "Host", r.Host
	}
	if !hasOrigin {
		return "", ""
	}
	if len(origins) != 1 || !g.originAllowed(origins[0], r, loopback) {
		return "Origin", strings.Join(origins, ", ")
	}
	return "", ""
}

// arrivedOnLoopback reports whether the connection's local address is a
// loopback address.
func arrivedOnLoopback(r *http.Request) bool {
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	if tcp, ok := addr.(*net.TCPAddr); ok {
		return tcp.IP.IsLoopback()
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// splitHost splits "host[:port]" into a lower-case host without brackets
// and the port, "" when absent.
func splitHost(hostport string) (host, port string) {
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		return strings.ToLower(h), p
	}
	return strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")), ""
}

func isLoopbackName(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// isLocalHostPort reports whether hostport is 127.0.0.1 or localhost with
// a port, as local clients send it.
func isLocalHostPort(hostport string) bool {
	name, port, ok := strings.Cut(hostport, ":")
	return ok && (name == "127.0.0.1" || name == "localhost") && !strings.Contains(port, ":")
}

func (g *Guard) hostAllowed(hostport string, loopback bool) bool {
	name, port := splitHost(hostport)
	for _, a := range g.AllowedHosts {
		an, ap := splitHost(a)
		if an == name && (ap == "" || ap == port) {
			return true
		}
	}
	if loopback {
		return isLoopbackName(name)
	}
	return len(g.AllowedHosts) == 0
}

func defaultPort(scheme string) string {
	if scheme == "https" {
		return "443"
	}
	return "80"
}

// parseOrigin reads a serialized origin; ok is false for "null", opaque or
// malformed origins.
func parseOrigin(origin string) (scheme, host, port string, ok bool) {
	u, err := url.Parse(origin)
	if err != nil || u.Opaque != "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || (u.Path != "" && u.Path != "/") {
		return "", "", "", false
	}
	scheme = strings.ToLower(u.Scheme)
	if (scheme != "http" && scheme != "https") || u.Host == "" {
		return "", "", "", false
	}
	host, port = splitHost(u.Host)
	if host == "" {
		return "", "", "", false
	}
	if port == "" {
		port = defaultPort(scheme)
	}
	return scheme, host, port, true
}

func (g *Guard) originAllowed(origin string, r *http.Request, loopback bool) bool {
	scheme, host, port, ok := parseOrigin(origin)
	if !ok {
		return false
	}
	for _, a := range g.AllowedOrigins {
		as, ah, ap, ok := parseOrigin(a)
		if ok && as == scheme && ah == host && ap == port {
			return true
		}
	}
	if loopback && isLoopbackName(host) {
		return true
	}
	rh, rp := splitHost(r.Host)
	if rh == "" || rh != host {
		return false
	}
	if rp == "" {
		return port == defaultPort(scheme)
	}
	return rp == port
}
