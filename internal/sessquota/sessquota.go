// Package sessquota holds the session quotas that every HTTP transport of
// mcpkit applies, so that the 2024-11-05 HTTP+SSE transport (mcpsse)
// enforces exactly the rules of Streamable HTTP (mcphttp): at most so many
// sessions per authenticated principal, and optionally per client address
// for anonymous sessions, answered 429 with Retry-After
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management;
// RFC 6585 section 4).
package sessquota

import (
	"math"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// Kind says which quota a session counts against.
type Kind uint8

const (
	// None: the session counts against no quota (anonymous, no address
	// quota).
	None Kind = iota
	// Principal: the quota of an authenticated principal.
	Principal
	// Address: the quota of an anonymous client address.
	Address
)

// DefaultPerPrincipal returns the per-principal session quota that goes
// with a global cap of maxSessions (<= 0: none): a quarter of it, between
// 1 and 100, so that at least four principals can hold sessions at once
// and no legitimate user, who opens one session per client, is refused.
// Without a global cap it is 100. docs/limits.md gives the reasoning.
func DefaultPerPrincipal(maxSessions int) int {
	if maxSessions <= 0 {
		return 100
	}
	return min(max(maxSessions/4, 1), 100)
}

// Limits are the quotas of one transport, resolved: <= 0 means none.
type Limits struct {
	PerPrincipal   int
	PerAddress     int
	TrustedProxies []netip.Prefix
}

// Key returns the quota a new session of r counts against: principal's
// ("p:" + principal) when the request is authenticated, its client
// address's ("a:" + address) when it is not and there is an address
// quota, none otherwise. max is that quota.
func (l *Limits) Key(r *http.Request, principal string) (key string, max int, kind Kind) {
	if principal != "" {
		if l.PerPrincipal <= 0 {
			return "", 0, None
		}
		return "p:" + principal, l.PerPrincipal, Principal
	}
	if l.PerAddress <= 0 {
		return "", 0, None
	}
	a, ok := ClientAddr(r, l.TrustedProxies)
	if !ok {
		return "", 0, None
	}
	return "a:" + addrKey(a), l.PerAddress, Address
}

// addrKey is the quota key of a client address: an IPv4 address as is, an
// IPv6 address by its /64, the block one host or one customer is usually
// given (RFC 6177), so that a client cannot take a new quota with each of
// its 2^64 addresses.
func addrKey(a netip.Addr) string {
	if a.Is4() {
		return a.String()
	}
	p, err := a.Prefix(64)
	if err != nil {
		return a.String()
	}
	return p.String()
}

// ClientAddr returns the address of r's client: the TCP peer
// (r.RemoteAddr), unless the peer is one of trusted, in which case
// X-Forwarded-For is read from the right, past the trusted proxies that
// appended to it, and the first address not among trusted is the client's
// (the right-most untrusted one: everything to its left was written by
// the client and may be forged). An entry that is not an address stops
// the walk at the hop to its right. ok is false when RemoteAddr holds no
// address (a handler not served by net/http's server).
func ClientAddr(r *http.Request, trusted []netip.Prefix) (addr netip.Addr, ok bool) {
	peer, ok := parseAddr(r.RemoteAddr)
	if !ok {
		return netip.Addr{}, false
	}
	if !isTrusted(peer, trusted) {
		return peer, true
	}
	client := peer
	values := r.Header.Values("X-Forwarded-For")
	for i := len(values) - 1; i >= 0; i-- {
		hops := strings.Split(values[i], ",")
		for j := len(hops) - 1; j >= 0; j-- {
			a, ok := parseAddr(strings.TrimSpace(hops[j]))
			if !ok {
				return client, true
			}
			client = a
			if !isTrusted(a, trusted) {
				return a, true
			}
		}
	}
	return client, true
}

// parseAddr reads "ip", "ip:port" or "[ipv6]:port"; IPv4-mapped IPv6
// addresses become IPv4 and zones are dropped.
func parseAddr(s string) (netip.Addr, bool) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone(""), true
	}
	if host, _, err := net.SplitHostPort(s); err == nil {
		s = host
	}
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap().WithZone(""), true
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Table counts the sessions of each quota key: reservations (sessions
// being created) and the members they became, so that a transport can
// look at one key's sessions (to reclaim idle-expired ones) without a
// scan of all. It is not safe for concurrent use: the transport's lock
// guards it. The zero value is empty and ready.
type Table[M comparable] struct {
	keys map[string]*slot[M]
}

type slot[M comparable] struct {
	n       int // reservations and members
	members map[M]struct{}
}

// Count returns the sessions key holds, reservations included.
func (t *Table[M]) Count(key string) int {
	if s := t.keys[key]; s != nil {
		return s.n
	}
	return 0
}

// Reserve counts one more session of key, not yet a member.
func (t *Table[M]) Reserve(key string) {
	if t.keys == nil {
		t.keys = make(map[string]*slot[M])
	}
	s := t.keys[key]
	if s == nil {
		s = &slot[M]{}
		t.keys[key] = s
	}
	s.n++
}

// Unreserve gives back a reservation of key that did not become a member.
func (t *Table[M]) Unreserve(key string) {
	s := t.keys[key]
	if s == nil {
		return
	}
	if s.n--; s.n <= 0 && len(s.members) == 0 {
		delete(t.keys, key)
	}
}

// Commit turns a reservation of key into member m.
func (t *Table[M]) Commit(key string, m M) {
	s := t.keys[key]
	if s == nil {
		t.Reserve(key)
		s = t.keys[key]
	}
	if s.members == nil {
		s.members = make(map[M]struct{})
	}
	s.members[m] = struct{}{}
}

// Remove forgets member m of key, and the session it counted.
func (t *Table[M]) Remove(key string, m M) {
	s := t.keys[key]
	if s == nil {
		return
	}
	if _, ok := s.members[m]; !ok {
		return
	}
	delete(s.members, m)
	if s.n--; s.n <= 0 {
		delete(t.keys, key)
	}
}

// Members returns key's members (not its reservations); the caller must
// not change the map.
func (t *Table[M]) Members(key string) map[M]struct{} {
	if s := t.keys[key]; s != nil {
		return s.members
	}
	return nil
}

// Reset empties the table.
func (t *Table[M]) Reset() { t.keys = nil }

// RetrySeconds turns the time until a session may expire into a
// Retry-After value between 1 and 60 seconds: a client should not wait
// half an hour when sessions may also end by DELETE.
func RetrySeconds(d time.Duration) int {
	return min(max(int(math.Ceil(d.Seconds())), 1), 60)
}

// Refusal returns the JSON-RPC error that answers, with HTTP 429 and
// Retry-After, a session refused at a quota of kind whose limit is max:
// -32000 (the code of refusals at the HTTP level) with a message naming
// the quota and data {"quota": "<Options field>", "max": max}.
func Refusal(kind Kind, max int) *jsonrpc.Error {
	what, field := "per principal", "MaxSessionsPerPrincipal"
	if kind == Address {
		what, field = "per client address", "MaxSessionsPerAddress"
	}
	return jsonrpc.NewError(jsonrpc.CodeServerError,
		"Too Many Requests: session limit "+what+" reached",
		struct {
			Quota string `json:"quota"`
			Max   int    `json:"max"`
		}{field, max})
}
