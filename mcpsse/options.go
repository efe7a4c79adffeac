package mcpsse

import (
	"crypto/rand"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/mcpkit/mcpkit/internal/sessquota"
)

// Options configures a Handler. The zero value is useful and safe: a
// session cap, idle expiry, a body limit, a bounded queue and write
// deadline per stream, keep-alives and DNS-rebinding protection, with the
// same defaults as Streamable HTTP (package mcphttp). Every field says what
// its zero value means.
type Options struct {
	// MessagePath is the path the endpoint event tells clients to POST
	// their messages to, as clients see it (behind http.StripPrefix or a
	// proxy, the full path); the Handler must be reachable there too. If
	// empty, the path of the GET that opened the stream as the Handler
	// sees it, so that one mount point serves both.
	MessagePath string

	// MaxSessions caps the open streams (each one is a session). At the
	// cap, idle-expired sessions are closed first; a GET that still finds
	// no room is answered 503 with Retry-After and the JSON-RPC error
	// -32603 "Service unavailable: maximum concurrent sessions (<n>)
	// reached". If zero, 10,000; if negative, no cap.
	MaxSessions int

	// Principal, when set, names the authenticated principal of a GET
	// that opens a stream ("" for an anonymous one), for
	// MaxSessionsPerPrincipal: this transport has no authorization of
	// its own, so it is for a middleware in front of the Handler that
	// verifies a token (mcp.TokenInfo.OwnerKey is a good name). If nil,
	// every session is anonymous.
	Principal func(r *http.Request) string

	// MaxSessionsPerPrincipal caps the open streams of one principal
	// (see Principal), as mcphttp.Options.MaxSessionsPerPrincipal: at
	// it, the principal's idle-expired sessions are closed first; a GET
	// that still finds no room is answered 429 with Retry-After (when
	// one of them may expire, 1 to 60 seconds) and the JSON-RPC error
	// -32000 "Too Many Requests: session limit per principal reached",
	// data {"quota":"MaxSessionsPerPrincipal","max":<n>} (id null). If
	// zero, a quarter of MaxSessions, at least 1 and at most 100; if
	// negative, no cap.
	MaxSessionsPerPrincipal int

	// MaxSessionsPerAddress caps the open anonymous streams of one
	// client address (the TCP peer, or the right-most address of
	// X-Forwarded-For outside TrustedProxies when the peer is one of
	// them; IPv6 by /64), answered as past MaxSessionsPerPrincipal with
	// "per client address" and "MaxSessionsPerAddress". If zero or
	// negative, no cap.
	MaxSessionsPerAddress int

	// TrustedProxies lists the networks of the reverse proxies whose
	// X-Forwarded-For MaxSessionsPerAddress believes; any other peer's is
	// ignored. If empty, the TCP peer is the client.
	TrustedProxies []netip.Prefix

	// IdleTimeout is how long a session may go without a POST or a message
	// sent on its stream before its stream is closed, which ends it.
	// Keep-alive comments do not count. If zero, 30 minutes; if negative,
	// sessions end only when their stream does.
	IdleTimeout time.Duration

	// ReapInterval is how often the reaper goroutine closes idle-expired
	// sessions (a POST to an expired one also closes it, and is answered
	// 404). If zero, one minute or IdleTimeout, whichever is shorter; if
	// negative, there is no reaper goroutine.
	ReapInterval time.Duration

	// MaxBodyBytes limits a POST body; a larger one is answered 413 with
	// -32000 "Payload Too Large: the body exceeds <n> bytes". If zero,
	// 4 MiB.
	MaxBodyBytes int64

	// BodyReadTimeout bounds the time a POST body may take to arrive. A
	// body still incomplete then is answered 408 with -32000 "Request
	// Timeout: the body was not received within <d>" and its connection
	// closed. If zero, 30 seconds; if negative, no bound.
	BodyReadTimeout time.Duration

	// HandOffTimeout bounds how long a POST waits for its session to take
	// the message (the session reads one message at a time, and runs
	// notification callbacks in order before the next). A message not
	// taken by then is answered 503 with Retry-After and -32000 "Service
	// Unavailable: the session did not take the message within <d>", so a
	// stuck session never holds its client's requests, nor their bodies,
	// without end. If zero, 30 seconds; if negative, no bound.
	HandOffTimeout time.Duration

	// KeepAlive is the interval of the comment lines written on a stream,
	// so that proxies and clients do not drop a quiet one. If zero, 15
	// seconds; if negative, none are written.
	KeepAlive time.Duration

	// WriteTimeout bounds each write to a stream: a client that does not
	// read for that long has its stream, and so its session, closed. It
	// never holds up another session: each stream is written by its own
	// goroutine. If zero, 10 seconds; if negative, no deadline.
	WriteTimeout time.Duration

	// MaxStreamQueueBytes bounds the messages queued on one stream and not
	// yet written to its client. A stream that would pass it is closed,
	// ending its session, since its client is not reading. If zero,
	// 1 MiB; if negative, no bound.
	MaxStreamQueueBytes int

	// AllowedHosts lists Host header values accepted besides the
	// defaults, as mcphttp.Options.AllowedHosts: with a port they match
	// exactly, without one any port. By default a request on a loopback
	// address needs a loopback Host, and a request on another address
	// may carry any Host unless this list is set.
	// See https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning.
	AllowedHosts []string

	// AllowedOrigins lists "scheme://host[:port]" Origin values accepted
	// besides the defaults (same-origin, or loopback on a loopback
	// address), as mcphttp.Options.AllowedOrigins. A request without
	// Origin is accepted; a refused one is answered 403.
	AllowedOrigins []string

	// DisableDNSRebindingProtection turns the Host and Origin checks off,
	// for a handler behind a proxy that does them. If false, they are on.
	DisableDNSRebindingProtection bool

	// SessionID generates session ids, which travel in the endpoint URL
	// and are all a POST needs to reach the session: they must be unique
	// and unguessable, and are query-escaped. If nil, crypto/rand.Text:
	// 26 base32 characters, 130 bits.
	SessionID func() string

	// Logger receives diagnostics: refusals and closed streams at debug
	// level. If nil, nothing is logged.
	Logger *slog.Logger
}

// Defaults of the Options fields: those of package mcphttp.
const (
	DefaultMaxSessions     = 10_000
	DefaultIdleTimeout     = 30 * time.Minute
	DefaultMaxBodyBytes    = 4 << 20
	DefaultBodyReadTimeout = 30 * time.Second
	DefaultHandOffTimeout  = 30 * time.Second
	DefaultKeepAlive       = 15 * time.Second
	DefaultWriteTimeout    = 10 * time.Second
	DefaultStreamQueue     = 1 << 20
	defaultReapInterval    = time.Minute
)

func (o Options) resolve() Options {
	if o.MaxSessions == 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.IdleTimeout == 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.MaxSessionsPerPrincipal == 0 {
		o.MaxSessionsPerPrincipal = sessquota.DefaultPerPrincipal(o.MaxSessions)
	}
	if o.ReapInterval == 0 {
		o.ReapInterval = defaultReapInterval
		if o.IdleTimeout > 0 {
			o.ReapInterval = min(defaultReapInterval, max(o.IdleTimeout, 10*time.Millisecond))
		}
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.BodyReadTimeout == 0 {
		o.BodyReadTimeout = DefaultBodyReadTimeout
	}
	if o.HandOffTimeout == 0 {
		o.HandOffTimeout = DefaultHandOffTimeout
	}
	if o.KeepAlive == 0 {
		o.KeepAlive = DefaultKeepAlive
	}
	if o.WriteTimeout == 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.MaxStreamQueueBytes == 0 {
		o.MaxStreamQueueBytes = DefaultStreamQueue
	}
	if o.SessionID == nil {
		o.SessionID = rand.Text
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}
