package mcphttp

import (
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/mcpkit/mcpkit/internal/sessquota"
	"github.com/mcpkit/mcpkit/mcp"
)

// Options configures a Handler. The zero value is a useful, safe
// configuration: stateful sessions, SSE replies, a session cap, an idle
// timeout, a body limit and DNS-rebinding protection. Every field says what
// its zero value means.
type Options struct {
	// Stateless serves every POST with a fresh session that is closed once
	// the request is answered: no Mcp-Session-Id is issued, initialize may
	// repeat, GET and DELETE are answered 405, and nothing is kept. Use it
	// for servers that need no server-to-client requests and no
	// notifications outside a request
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management
	// makes sessions optional). Requests of the 2026-07-28 era are served
	// alike in either mode, since they never have a session; an
	// Mcp-Session-Id they carry is then ignored.
	Stateless bool

	// JSONResponse answers each POSTed request with a single
	// application/json body instead of an SSE stream
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server).
	// Notifications a handler sends while it runs are then dropped, and
	// server-to-client requests made from a handler fail, since a JSON body
	// carries only the response. If false, replies are SSE streams. A
	// 2026-07-28 subscriptions/listen is answered with an SSE stream
	// either way: its notifications are all it is for
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#receiving-messages).
	JSONResponse bool

	// JSONReplyWithin lets a session's POSTed request be answered with one
	// application/json body when its response is ready within this time and
	// its handler sent nothing before it; the spec lets the server choose JSON
	// or SSE per request
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server).
	// It applies only with an EventStore and JSONResponse false; otherwise the
	// reply becomes a primed, stored, resumable SSE stream as without it.
	// Requests of the 2026-07-28 era are not affected. If zero or negative,
	// replies are SSE streams from the start; a few milliseconds (5ms, say)
	// answers most quick tools in JSON (docs/design.md says why it pays).
	JSONReplyWithin time.Duration

	// MaxSessions caps the live sessions. At the cap, idle-expired sessions
	// are reclaimed first; an initialize that still finds no room is
	// answered 503 with Retry-After. If zero, 10,000; if negative, no cap.
	MaxSessions int

	// MaxSessionsPerPrincipal caps the live sessions of one authenticated
	// principal (the user Authenticate verified, mcp.TokenInfo.OwnerKey:
	// issuer and subject), so that one user cannot take every session of
	// MaxSessions. At it, the principal's idle-expired sessions are
	// reclaimed first; an initialize that still finds no room is answered
	// 429 with Retry-After (when one of the principal's sessions may next
	// expire, 1 to 60 seconds) and the JSON-RPC error -32000 "Too Many
	// Requests: session limit per principal reached", data
	// {"quota":"MaxSessionsPerPrincipal","max":<n>}, with the request's
	// id (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management;
	// RFC 6585 section 4). A shared SessionStore that holds a quota per
	// owner (redisstore) holds it for the cluster; this one counts the
	// sessions this Handler created. If zero, a quarter of MaxSessions,
	// at least 1 and at most 100 (100 when MaxSessions is negative); if
	// negative, no cap.
	MaxSessionsPerPrincipal int

	// MaxSessionsPerAddress caps the live anonymous sessions (no
	// Authenticate, or one that returned no token) of one client
	// address: the TCP peer, or, when the peer is one of TrustedProxies,
	// the right-most address of X-Forwarded-For that is not; an IPv6
	// address counts by its /64. Past it an initialize is answered as
	// past MaxSessionsPerPrincipal, with "per client address" and
	// "MaxSessionsPerAddress". Many clients behind one NAT, or behind a
	// proxy that is not listed in TrustedProxies, share an address, so
	// it is off by default. If zero or negative, no cap.
	MaxSessionsPerAddress int

	// TrustedProxies lists the networks of the reverse proxies whose
	// X-Forwarded-For MaxSessionsPerAddress believes. The header of any
	// other peer is ignored: a client could write anything there. If
	// empty, the TCP peer is the client.
	TrustedProxies []netip.Prefix

	// IdleTimeout is how long a session may go without a request before it
	// is closed. A session with a request in flight or an open GET stream
	// is never idle. If zero, 30 minutes; if negative, sessions never
	// expire.
	IdleTimeout time.Duration

	// ReapInterval is how often the reaper goroutine closes idle-expired
	// sessions (they are also evicted when touched, and reclaimed at the
	// session cap). If zero, one minute or IdleTimeout, whichever is
	// shorter; if negative, there is no reaper goroutine.
	ReapInterval time.Duration

	// MaxBodyBytes limits a POST body; a larger one is answered 413 without
	// being read past the limit. If zero, 4 MiB.
	MaxBodyBytes int64

	// AllowedHosts lists Host header values accepted in addition to the
	// defaults: an entry with a port ("example.com:8443") matches exactly,
	// one without ("example.com") matches any port. By default a request
	// that arrives on a loopback address is accepted only with a loopback
	// Host (localhost, 127.0.0.1, [::1], any port), and a request on any
	// other address with any Host unless this list is set, in which case
	// only the listed hosts are. Matching ignores case.
	// See https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning.
	AllowedHosts []string

	// AllowedOrigins lists Origin header values accepted in addition to the
	// defaults, as "scheme://host[:port]". A request without Origin (a
	// non-browser client) is always accepted; by default an Origin must be
	// same-origin with the request's Host, or a loopback origin when the
	// request arrives on a loopback address. "null" and malformed origins
	// are refused. Matching ignores case and default ports.
	AllowedOrigins []string

	// DisableDNSRebindingProtection turns the Host and Origin checks off,
	// for a handler behind a proxy that does them. If false, they are on.
	DisableDNSRebindingProtection bool

	// EventStore keeps the events of every SSE stream so that a client can
	// resume a broken stream with GET and Last-Event-ID
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery).
	// With a store, every event carries an id and a 2025-11-25 session's
	// streams open with a priming event. If nil, streams are not resumable
	// and events carry no ids. See [MemoryEventStore].
	EventStore EventStore

	// EventPollInterval is how often a replica looks in the EventStore for
	// new events of a shared session's stream it serves (a GET stream, or
	// a POST stream resumed on a replica that does not run its request),
	// when the EventStore does not implement EventWatcher. An EventWatcher
	// wakes it instead (and polls on its own). Only used when the server's
	// SessionStore is shared. If zero, DefaultEventPollInterval (1s).
	EventPollInterval time.Duration

	// StreamLease bounds how long a replica serving a resumed POST stream
	// of a shared session, whose request runs on another replica, waits
	// without any event of that stream: the running replica stores a
	// heartbeat in the EventStore every StreamLease/3 while the request
	// runs, so a lease that lapses means that replica died mid-request.
	// The resuming replica then stores, and sends, a JSON-RPC error
	// (-32603) for the lost request and ends the stream, so that no
	// client waits forever for it. It is also the lease of a shared
	// session's GET stream when the EventStore is a StreamLeaser: the
	// replica serving the stream renews it every StreamLease/3, so a
	// replica that died holding it blocks a new GET (409) for at most
	// StreamLease after its last renewal. Only used when the server's
	// SessionStore is shared and there is an EventStore. If zero,
	// DefaultStreamLease (30s); if negative, no heartbeat and no lease
	// (one GET stream per session is then enforced per replica only).
	StreamLease time.Duration

	// KeepAlive is the interval of the comment lines written on an SSE
	// stream that is otherwise quiet, so that proxies and clients do not
	// drop it. If zero, 15 seconds; if negative, none are written.
	//
	// A POST's reply stream sends nothing until it has something to send:
	// a handler that answers at once has its headers, response and end
	// sent together in one write. One that has sent nothing after 100 ms
	// (or KeepAlive, if shorter) has the headers sent then, so that the
	// client sees the stream open.
	KeepAlive time.Duration

	// WriteTimeout bounds each write to a client's SSE stream or reply:
	// a client that does not read for that long has its connection
	// closed (a stream with an EventStore can be resumed). It never holds
	// up another client: events are queued per stream and written by the
	// Handler's writer goroutines, of which one not blocked in a write is
	// always there while streams wait. A write gets at least WriteTimeout
	// and at most nine eighths of it: the connection's deadline is moved
	// only once less than WriteTimeout remains, not at every event. Over
	// HTTP/2, where a deadline that passes resets the stream even while
	// nothing is written (RFC 9113 section 6.4), each write's deadline is
	// cleared once the write is done, so that a quiet stream lives on. If
	// zero, 10 seconds; if negative, writes have no deadline.
	WriteTimeout time.Duration

	// MaxStreamQueueBytes bounds the events queued on one SSE stream and
	// not yet written to its client. A stream that would pass it is
	// closed, as its client is not reading; with an EventStore the events
	// are kept, and the client resumes with Last-Event-ID. A list_changed
	// notification already queued stands for any more of its kind. If
	// zero, 1 MiB; if negative, no bound.
	MaxStreamQueueBytes int

	// RetryInterval is the reconnection delay sent in the retry field of
	// priming events (only sent when EventStore is set). If zero, one
	// second.
	RetryInterval time.Duration

	// SessionID generates session ids. Ids must be unique, unguessable and
	// made of visible ASCII (0x21 to 0x7E)
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).
	// If nil, crypto/rand.Text is used: 26 base32 characters, 130 bits.
	SessionID func() string

	// Logger receives the handler's diagnostics: refusals at debug level,
	// failures of the event store or of the id generator at error level.
	// If nil, nothing is logged.
	Logger *slog.Logger

	// Memory bounds against hostile and careless clients (issue 15).

	// BodyReadTimeout bounds the time a POST body may take to arrive,
	// from the moment the handler starts reading it. A body that has not
	// arrived in full by then is answered 408 with the JSON-RPC error
	// -32000 "Request Timeout: the body was not received within <d>" (id
	// null), and its connection is closed. Only a read still in progress
	// when its time is up gets a deadline on the connection (one in the
	// past, through the SetReadDeadline that
	// http.ResponseController.SetReadDeadline uses), so it is independent
	// of http.Server.ReadTimeout and no handler outlives it into a
	// deadline; a ResponseWriter that cannot set one (a middleware's that
	// does not Unwrap to net/http's) leaves the read untimed. If zero, 30
	// seconds; if negative, a body may take any time.
	BodyReadTimeout time.Duration

	// MaxBatchLength caps the messages in one JSON-RPC batch (protocol
	// version 2025-03-26 only,
	// https://modelcontextprotocol.io/specification/2025-03-26/basic/transports#sending-messages-to-the-server).
	// A longer batch is refused as a whole, before any of it is served,
	// with 400 and the JSON-RPC error -32600 "Invalid Request", data
	// "Invalid Request: a JSON-RPC batch may hold at most <n> messages,
	// this one holds <m>". If zero, 256; if negative, no cap (the body
	// limit, MaxBodyBytes, still applies).
	MaxBatchLength int

	// MaxBatchConcurrency caps the requests of one batch served at once:
	// they run on at most this many goroutines, in the batch's order, and
	// the responses of a batch answered with a JSON array keep the
	// requests' order. If zero, 8; if negative, every request of a batch
	// runs at once.
	MaxBatchConcurrency int

	// Authorization: the server as an OAuth 2.1 resource server
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization).
	// Package auth fills these fields (auth.Protect).

	// Authenticate, when set, is called on every POST, GET and DELETE,
	// after the Origin check and before anything else: the body is not
	// read and no session is looked up before it returns. The token info
	// it returns is put on mcp.RequestExtra.Auth of every request served
	// for the HTTP request, and a session belongs to the user
	// (TokenInfo.OwnerKey) who initialized it: a request with another
	// user's token, or none, is answered 404 as for an unknown session,
	// and the session is left as it was. An error that is (or wraps) an
	// AuthRefusal, such as *auth.BearerError, is answered with its
	// HTTPStatus, its WWWAuthenticate value as WWW-Authenticate, and a
	// JSON-RPC error -32000 with its Text (id null); any other error with 401, "WWW-Authenticate: Bearer" and
	// -32000 "Unauthorized". A panic is such an error. Returning nil and
	// no error serves the request unauthenticated. If nil, requests are
	// not authenticated.
	Authenticate func(r *http.Request) (*mcp.TokenInfo, error)

	// RequiredScopes, when set, returns the OAuth scopes a request's token
	// must grant, after Authenticate, once its JSON-RPC message is
	// decoded: name is the tool or prompt name of tools/call and
	// prompts/get, the URI of resources/read, resources/subscribe and
	// resources/unsubscribe, and "" otherwise. A request whose token lacks
	// one is answered 403 with
	// `WWW-Authenticate: Bearer error="insufficient_scope", scope="<the
	// scopes required>"` (or ScopeChallenge's value) and the JSON-RPC error
	// -32000 "Forbidden: <method> requires the scopes <missing>, which the
	// access token does not grant" with the request's id
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#runtime-insufficient-scope-errors).
	// Notifications and responses need no scope. If nil, no scope is
	// required.
	RequiredScopes func(method, name string) []string

	// ScopeChallenge, when set, builds the WWW-Authenticate value of a 403
	// for missing scopes from the scopes the request requires (package
	// auth adds resource_metadata). If nil or if it returns "", the
	// challenge is `Bearer error="insufficient_scope", scope="<scopes>"`.
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
