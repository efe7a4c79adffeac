package mcpsse

import (
	"crypto/rand"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/mcpkit/mcpkit/internal/sessquota"
)

// Options configures a Handler. The zero value is safe, with the defaults of
// package mcphttp; each bound and its refusal is listed in docs/limits.md.
type Options struct {
	// MessagePath is the path the endpoint event tells clients to POST to,
	// as clients see it; the Handler must be reachable there too. If empty,
	// the path of the GET that opened the stream.
	MessagePath string

	// MaxSessions caps the open streams (a stream is a session);
	// idle-expired ones are closed first, then a GET is answered 503. If
	// zero, 10,000; if negative, no cap.
	MaxSessions int

	// Principal, when set, names the authenticated principal of a GET that
	// opens a stream ("" for anonymous), for MaxSessionsPerPrincipal; it is
	// for a middleware that verifies a token (this transport has no
	// authorization). If nil, every session is anonymous.
	Principal func(r *http.Request) string

	// MaxSessionsPerPrincipal caps the open streams of one principal, as
	// mcphttp.Options.MaxSessionsPerPrincipal (429, id null). If zero, a
	// quarter of MaxSessions, 1 to 100; if negative, no cap.
	MaxSessionsPerPrincipal int

	// MaxSessionsPerAddress caps the open anonymous streams of one client
	// address, as mcphttp.Options.MaxSessionsPerAddress. If zero or
	// negative, no cap.
	MaxSessionsPerAddress int

	// TrustedProxies lists the reverse proxies whose X-Forwarded-For
	// MaxSessionsPerAddress believes. If empty, the TCP peer is the client.
	TrustedProxies []netip.Prefix

	// IdleTimeout is how long a session may go without a POST or a message
	// on its stream (keep-alives do not count) before its stream is closed.
	// If zero, 30 minutes; if negative, sessions end only with their stream.
	IdleTimeout time.Duration

	// ReapInterval is how often idle-expired sessions are closed. If zero,
	// one minute or IdleTimeout, whichever is shorter; if negative, no
	// reaper goroutine (a POST to an expired session still closes it).
	ReapInterval time.Duration

	// MaxBodyBytes limits a POST body (413). If zero, 4 MiB.
	MaxBodyBytes int64

	// BodyReadTimeout bounds the time a POST body may take to arrive (408,
	// connection closed). If zero, 30 seconds; if negative, no bound.
	BodyReadTimeout time.Duration

	// HandOffTimeout bounds how long a POST waits for its session, which
	// reads one message at a time, to take the message (503 with
	// Retry-After). If zero, 30 seconds; if negative, no bound.
	HandOffTimeout time.Duration

	// KeepAlive is the interval of comment lines written on a stream. If
	// zero, 15 seconds; if negative, none.
	KeepAlive time.Duration

	// WriteTimeout bounds each write to a stream; a client that does not
	// read for that long has its stream, and session, closed. If zero, 10
	// seconds; if negative, no deadline.
	WriteTimeout time.Duration

	// MaxStreamQueueBytes bounds the messages queued on one stream and not
	// yet written; a stream that would pass it is closed, ending its
	// session. If zero, 1 MiB; if negative, no bound.
	MaxStreamQueueBytes int

	// AllowedHosts lists Host values accepted besides the defaults, as
	// mcphttp.Options.AllowedHosts
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning).
	AllowedHosts []string

	// AllowedOrigins lists Origin values accepted besides the defaults, as
	// mcphttp.Options.AllowedOrigins; a refused one is answered 403.
	AllowedOrigins []string

	// DisableDNSRebindingProtection turns the Host and Origin checks off,
	// for a handler behind a proxy that does them.
	DisableDNSRebindingProtection bool

	// SessionID generates session ids, which are all a POST needs to reach
	// a session: unique and unguessable (query-escaped in the endpoint URL).
	// If nil, crypto/rand.Text.
	SessionID func() string

	// Logger receives refusals and closed streams at debug level. If nil,
	// nothing is logged.
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
