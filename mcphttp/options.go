package mcphttp

import (
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/mcpkit/mcpkit/internal/sessquota"
	"github.com/mcpkit/mcpkit/mcp"
)

// Options configures a Handler. The zero value is a safe configuration:
// sessions, SSE replies and every bound at its default. Each bound and the
// refusal past it is listed in docs/limits.md.
type Options struct {
	// Stateless serves every POST of the session era with a fresh session
	// closed once the request is answered: no Mcp-Session-Id, initialize
	// may repeat, GET and DELETE are answered 405
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).
	// 2026-07-28 requests are served alike in either mode.
	Stateless bool

	// JSONResponse answers each POSTed request with one application/json
	// body instead of an SSE stream; notifications sent meanwhile are
	// dropped and server-to-client requests fail. A 2026-07-28
	// subscriptions/listen is an SSE stream either way
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server).
	JSONResponse bool

	// JSONReplyWithin answers a session's POSTed request with a JSON body
	// when its response is ready within this time and nothing was sent
	// before it; later, the reply is a resumable SSE stream. It applies only
	// with an EventStore and JSONResponse false, not to 2026-07-28
	// requests. If zero or negative, replies are SSE streams from the start
	// (docs/design.md, "Quick replies in JSON").
	JSONReplyWithin time.Duration

	// MaxSessions caps the live sessions; idle-expired ones are reclaimed
	// first, then an initialize is answered 503. If zero, 10,000; if
	// negative, no cap.
	MaxSessions int

	// MaxSessionsPerPrincipal caps the live sessions of one authenticated
	// principal (mcp.TokenInfo.OwnerKey); past it an initialize is answered
	// 429 (RFC 6585 section 4). A SessionStore with a per-owner quota
	// (redisstore) holds it for the cluster. If zero, a quarter of
	// MaxSessions, 1 to 100; if negative, no cap.
	MaxSessionsPerPrincipal int

	// MaxSessionsPerAddress caps the live anonymous sessions of one client
	// address (the TCP peer, or the right-most X-Forwarded-For address
	// outside TrustedProxies; IPv6 by /64), refused as
	// MaxSessionsPerPrincipal. If zero or negative, no cap.
	MaxSessionsPerAddress int

	// TrustedProxies lists the reverse proxies whose X-Forwarded-For
	// MaxSessionsPerAddress believes. If empty, the TCP peer is the client.
	TrustedProxies []netip.Prefix

	// IdleTimeout is how long a session may go without a request (none in
	// flight, no GET stream) before it is closed. If zero, 30 minutes; if
	// negative, sessions never expire.
	IdleTimeout time.Duration

	// ReapInterval is how often idle-expired sessions are closed. If zero,
	// one minute or IdleTimeout, whichever is shorter; if negative, no
	// reaper goroutine (sessions still expire when touched).
	ReapInterval time.Duration

	// MaxBodyBytes limits a POST body (413 past it). If zero, 4 MiB.
	MaxBodyBytes int64

	// AllowedHosts lists Host values accepted besides the defaults
	// ("example.com:8443" exactly, "example.com" on any port). By default a
	// loopback listener accepts only loopback Hosts, any other listener any
	// Host unless this list is set
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning).
	AllowedHosts []string

	// AllowedOrigins lists Origin values ("scheme://host[:port]") accepted
	// besides the defaults: same-origin with Host, or loopback on a loopback
	// listener. A request without Origin is accepted; "null" is refused.
	AllowedOrigins []string

	// DisableDNSRebindingProtection turns the Host and Origin checks off,
	// for a handler behind a proxy that does them.
	DisableDNSRebindingProtection bool

	// EventStore keeps the events of every SSE stream so that a client can
	// resume it with GET and Last-Event-ID; events then carry ids and a
	// 2025-11-25 session's streams open with a priming event
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery).
	// If nil, streams are not resumable. See [MemoryEventStore].
	EventStore EventStore

	// EventPollInterval is how often a replica polls the EventStore for new
	// events of a shared session's stream it serves, when the store is not
	// an EventWatcher. If zero, DefaultEventPollInterval.
	EventPollInterval time.Duration

	// StreamLease bounds how long a replica serving a resumed POST stream
	// of a shared session waits without an event of the replica running its
	// request before it ends the stream with -32603; it is also the lease
	// of a shared GET stream with a StreamLeaser (docs/design.md,
	// "Streamable HTTP across replicas"). If zero, DefaultStreamLease; if
	// negative, no heartbeat and no lease.
	StreamLease time.Duration

	// KeepAlive is the interval of comment lines written on a quiet SSE
	// stream. If zero, 15 seconds; if negative, none.
	KeepAlive time.Duration

	// WriteTimeout bounds each write to a client's stream or reply; a client
	// that does not read for that long has its connection closed
	// (docs/design.md, "Stream writes"). If zero, 10 seconds; if negative,
	// no deadline.
	WriteTimeout time.Duration

	// MaxStreamQueueBytes bounds the events queued on one SSE stream and
	// not yet written; a stream that would pass it is closed (resumable with
	// an EventStore). If zero, 1 MiB; if negative, no bound.
	MaxStreamQueueBytes int

	// RetryInterval is the retry field of priming events. If zero, one
	// second.
	RetryInterval time.Duration

	// SessionID generates session ids: unique, unguessable, visible ASCII
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).
	// If nil, crypto/rand.Text.
	SessionID func() string

	// Logger receives refusals at debug level and store or id generator
	// failures at error level. If nil, nothing is logged.
	Logger *slog.Logger

	// BodyReadTimeout bounds the time a POST body may take to arrive (408,
	// then the connection is closed; docs/design.md, "Body read
	// deadlines"). If zero, 30 seconds; if negative, none.
	BodyReadTimeout time.Duration

	// MaxBatchLength caps the messages of one 2025-03-26 JSON-RPC batch
	// (400 -32600, none of it served)
	// (https://modelcontextprotocol.io/specification/2025-03-26/basic/transports#sending-messages-to-the-server).
	// If zero, 256; if negative, no cap.
	MaxBatchLength int

	// MaxBatchConcurrency caps the requests of one batch served at once,
	// in order. If zero, 8; if negative, all at once.
	MaxBatchConcurrency int

	// Authenticate, when set, is called on every POST, GET and DELETE
	// before the body is read. Its TokenInfo reaches handlers as
	// mcp.RequestExtra.Auth and owns the sessions it initializes (another
	// user's request gets 404). An AuthRefusal error is answered with its
	// status and challenge, any other error (or panic) with 401
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization).
	// Package auth sets it (auth.Protect). If nil, no authentication.
	Authenticate func(r *http.Request) (*mcp.TokenInfo, error)

	// RequiredScopes, when set, returns the OAuth scopes a request's token
	// must grant; name is the tool or prompt name, or the resource URI, or
	// "". A token lacking one is answered 403 insufficient_scope
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#runtime-insufficient-scope-errors).
	RequiredScopes func(method, name string) []string

	// ScopeChallenge, when set, builds the WWW-Authenticate value of that
	// 403 from the required scopes. If nil or "", the challenge is
	// `Bearer error="insufficient_scope", scope="<scopes>"`.
	ScopeChallenge func(r *http.Request, scopes []string) string
}

// Defaults of the Options fields.
const (
	DefaultMaxSessions   = 10_000
	DefaultIdleTimeout   = 30 * time.Minute
	DefaultMaxBodyBytes  = 4 << 20
	DefaultKeepAlive     = 15 * time.Second
	DefaultRetryInterval = time.Second
	DefaultWriteTimeout  = 10 * time.Second
	DefaultStreamQueue   = 1 << 20
	defaultReapInterval  = time.Minute

	DefaultBodyReadTimeout     = 30 * time.Second
	DefaultMaxBatchLength      = 256
	DefaultMaxBatchConcurrency = 8
)

// resolve returns o with its zero values replaced by the defaults.
// Negative values keep their "disabled" meaning.
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
		o.ReapInterval = min(defaultReapInterval, max(o.IdleTimeout, time.Second))
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
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
	if o.RetryInterval <= 0 {
		o.RetryInterval = DefaultRetryInterval
	}
	if o.BodyReadTimeout == 0 {
		o.BodyReadTimeout = DefaultBodyReadTimeout
	}
	if o.MaxBatchLength == 0 {
		o.MaxBatchLength = DefaultMaxBatchLength
	}
	if o.MaxBatchConcurrency == 0 {
		o.MaxBatchConcurrency = DefaultMaxBatchConcurrency
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}
