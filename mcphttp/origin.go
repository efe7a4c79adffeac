package mcphttp

import (
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// This file guards against DNS rebinding: a web page whose host name an
// attacker re-points at 127.0.0.1 must not reach a local server. The spec
// requires validating Origin
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning);
// checking Host as well stops a rebound page even when the browser sends
// no Origin.

// checkOrigin returns the 403 error for a request whose Host or Origin is
// not allowed, or nil.
func (h *Handler) checkOrigin(r *http.Request) *jsonrpc.Error {
	if h.opts.DisableDNSRebindingProtection {
		return nil
	}
	origins, hasOrigin := r.Header["Origin"]
	if !hasOrigin && len(h.opts.AllowedHosts) == 0 && isLocalHostPort(r.Host) {
		// The usual local request. With no hosts listed, a loopback
		// name is allowed whichever interface the request arrived on,
		// so the connection's address need not be looked up.
		return nil
	}
	loopback := arrivedOnLoopback(r)
	if r.Host != "" && !h.hostAllowed(r.Host, loopback) {
		return errForbidden("Host", r.Host)
	}
	if !hasOrigin {
		return nil
	}
	if len(origins) != 1 || !h.originAllowed(origins[0], r, loopback) {
		return errForbidden("Origin", strings.Join(origins, ", "))
	}
	return nil
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

// splitHost splits "host[:port]" (with IPv6 in brackets) into a lower-case
// host name without brackets and the port, "" when absent.
func splitHost(hostport string) (host, port string) {
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		return strings.ToLower(h), p
	}
	return strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")), ""
}

// isLoopbackName reports whether host (no port, no brackets) names the
// loopback interface.
func isLoopbackName(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (h *Handler) hostAllowed(hostport string, loopback bool) bool {
	if loopback && len(h.opts.AllowedHosts) == 0 && isLocalHostPort(hostport) {
		return true // the usual local Host, decided without parsing
	}
	name, port := splitHost(hostport)
	for _, a := range h.opts.AllowedHosts {
		an, ap := splitHost(a)
		if an == name && (ap == "" || ap == port) {
			return true
		}
	}
	if loopback {
		return isLoopbackName(name)
	}
	return len(h.opts.AllowedHosts) == 0
}

// isLocalHostPort reports whether hostport is 127.0.0.1 or localhost with
// a port, as local clients send it: a quick test that needs no parsing.
func isLocalHostPort(hostport string) bool {
	name, port, ok := strings.Cut(hostport, ":")
	return ok && (name == "127.0.0.1" || name == "localhost") && !strings.Contains(port, ":")
}

// defaultPort returns the port a scheme implies.
func defaultPort(scheme string) string {
	if scheme == "https" {
		return "443"
	}
	return "80"
}

// parseOrigin reads a serialized origin, scheme://host[:port], and returns
// its scheme, host name and effective port; ok is false for "null", opaque
// or malformed origins.
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

func (h *Handler) originAllowed(origin string, r *http.Request, loopback bool) bool {
	scheme, host, port, ok := parseOrigin(origin)
	if !ok {
		return false
	}
	for _, a := range h.opts.AllowedOrigins {
		as, ah, ap, ok := parseOrigin(a)
		if ok && as == scheme && ah == host && ap == port {
			return true
		}
	}
	if loopback && isLoopbackName(host) {
		return true
	}
	// Same origin as the request: the Host names the same host and port.
	// A Host without a port (a proxy may strip it) matches an origin on its
	// scheme's default port.
	rh, rp := splitHost(r.Host)
	if rh == "" || rh != host {
		return false
	}
	if rp == "" {
		return port == defaultPort(scheme)
	}
	return rp == port
}
