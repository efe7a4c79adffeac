package mcphttp

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpkit/mcpkit/internal/bridge"
	"github.com/mcpkit/mcpkit/internal/httpguard"
	"github.com/mcpkit/mcpkit/internal/sessquota"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// Handler serves an mcp.Server over Streamable HTTP at whatever path it is
// mounted on: POST for client messages, GET for the session's standalone
// SSE stream (and for resuming streams), DELETE to end a session
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http),
// and, on the same endpoint, the sessionless 2026-07-28 era
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http),
// whose requests take no room in the registry.
// It owns the session registry, a map in this Handler of the live sessions
// with their open streams and requests in flight; see [Options] for its
// limits. Each session-era session is also recorded in the server's
// SessionStore (mcp.ServerOptions.SessionStore, in memory and not shared
// by default): created there before initialize is answered (a full store
// is 503 with Retry-After), updated as its state changes.
//
// When that store is shared (its Shared reports true, as redisstore's
// does), Handlers on every replica behind a load balancer serve any
// session's POST, GET and DELETE, without sticky routing: a request for
// a session this Handler does not hold loads its state from the store and
// rebuilds a live session from it (version, client info and capabilities,
// lifecycle, log level, subscriptions, owner); every request of a shared
// session touches the store first, so that a session deleted or idled out
// by the store's clock is 404 everywhere and dropped here; DELETE deletes
// it from the store, ending it on every replica; Close and the idle
// reaper drop only this Handler's copy. A store that cannot answer is 503
// with Retry-After and a JSON-RPC error, never 404 and never served from
// local memory.
//
// With a shared store and an [EventStore] that every replica reaches
// (redisstore's, or one MemoryEventStore shared in a process), SSE
// streams cross replicas too, with the EventStore as their source of
// truth: a GET on any replica is fed from the store, so it carries what
// the server sends outside a request (ServerSession.Notify and Log,
// list_changed, resources/updated for a session subscribed through any
// replica) on every replica that holds the session; a POST stream or GET
// stream whose connection broke resumes on any replica with
// Last-Event-ID, with exactly the events missed, in order, each once.
// The store is woken through [EventWatcher] when it implements it, and
// polled every Options.EventPollInterval otherwise. Without an
// EventStore, a GET stream carries only what its own replica sends.
//
// With mcp.ServerOptions.Bus set as well (the same bus on every replica),
// a client's response to a server-to-client request (sampling,
// elicitation, roots) POSTed to any replica reaches the handler waiting on
// the replica that sent the request, and notifications/cancelled POSTed to
// any replica cancels the request where it runs; server-to-client request
// ids are unique across replicas. The bus is at most once: a response it
// loses leaves the waiting request to its own timeout. Without a Bus,
// those must reach the replica that holds the request (sticky routing).
// A server's broadcast (list_changed, ResourceUpdated) called on one
// replica is published on the bus, and every replica delivers it to the
// sessions it holds; with an EventStore that implements
// [EventOnceAppender] (MemoryEventStore and redisstore's do), each
// session's GET stream gets it once, however many replicas hold the
// session. A session that no replica holds at that moment, or whose
// replicas all missed the bus message, misses it.
//
// A replica killed mid-request leaves no client waiting forever: while
// a shared session's request runs, its replica stores a heartbeat in the
// request's POST stream every Options.StreamLease/3, and a replica
// serving that stream resumed (GET with Last-Event-ID) answers the
// request with a JSON-RPC error (-32603) once no event came for a whole
// StreamLease; the session lives on the other replicas.
//
// One GET stream at a time holds across replicas when the EventStore is
// a [StreamLeaser] (MemoryEventStore and redisstore's are): a second GET
// on any replica is 409 as on one, a GET resuming the stream with
// Last-Event-ID takes it over (the replica that served it ends it within
// StreamLease/3), and a replica that died holding it blocks new GETs for
// at most StreamLease. With another EventStore, it holds per replica
// only. A 2026-07-28 request naming a shared session is served on it
// on any replica, rebuilt from the store where it is not held. A client's
// response or cancellation that the Bus cannot publish is 503 with
// Retry-After. A session-owned task outlives its replica's copy of the
// session (closed idle, or by Close) and ends with the session.
//
// Still bound to one replica: running handlers. Without a shared store, a
// request for a session this Handler does not hold is 404 without any
// store call.
//
// A Handler is safe for concurrent use. Close it to end its sessions and
// stop its reaper goroutine.
type Handler struct {
	server *mcp.Server
	// getServer, if set, chooses the server per request instead
	// (perrequest.go).
	getServer func(*http.Request) *mcp.Server
	opts      Options
	// writers writes the streams' queued events (writers.go).
	writers writerPool
	logger  *slog.Logger
	reg     registry
	// quotas are the session quotas of Options.MaxSessionsPerPrincipal
	// and MaxSessionsPerAddress.
	quotas sessquota.Limits
	newID  func() string
	// params caches the Mcp-Param headers tools declare (modern_headers.go).
	params paramCache
	// modern holds the 2026-07-28 requests in flight (modern.go).
	modern modernInflight
	// inline ticks the inline reply streams that are slow to answer.
	inline inlineWatch
	// bodies times the POST bodies being read (Options.BodyReadTimeout).
	bodies bodyWatch

	// closed is cancelled by Close; stateless sessions in flight watch it.
	closed context.Context
	cancel context.CancelFunc

	// shutdown is closed when a Shutdown (or Close) begins: GET streams
	// end. forced is set once a Shutdown's context has ended: requests
	// still running are answered with errShuttingDown.
	shutdown     chan struct{}
	shutdownOnce sync.Once
	forced       atomic.Bool

	// guard holds the DNS-rebinding checks of Options.AllowedHosts and
	// AllowedOrigins.
	guard httpguard.Guard

	// sseOpen counts the SSE responses in progress (Stats).
	sseOpen atomic.Int64

	// replicaID and routes route client messages between replicas
	// (shared_routing.go): one subscription per Bus of the servers whose
	// shared sessions this Handler serves.
	replicaID string
	routeMu   sync.Mutex
	routes    []busRoute

	// onDetach, if set, is called when a client's disconnection lets go of
	// a stream (a test hook).
	onDetach func()
}

// NewHandler returns a Handler serving server. A nil opts is the zero
// Options. NewHandlerFunc chooses the server per request instead.
func NewHandler(server *mcp.Server, opts *Options) *Handler {
	var o Options
	if opts != nil {
		o = *opts
	}
	o = o.resolve()
	h := &Handler{server: server, opts: o, logger: o.Logger, newID: o.SessionID}
	if server != nil {
		mcpPort.Serve(server)
	}
	h.guard = httpguard.Guard{AllowedHosts: o.AllowedHosts, AllowedOrigins: o.AllowedOrigins}
	if h.newID == nil {
		h.newID = rand.Text
	}
	h.reg.max = o.MaxSessions
	h.quotas = sessquota.Limits{PerPrincipal: o.MaxSessionsPerPrincipal, PerAddress: o.MaxSessionsPerAddress, TrustedProxies: o.TrustedProxies}
	h.reg.idle = o.IdleTimeout
	h.reg.interval = o.ReapInterval
	h.reg.closeEntry = h.closeEntry
	h.reg.now = time.Now
	h.inline.delay = headerDelay
	if ka := o.KeepAlive; ka > 0 && ka < headerDelay {
		h.inline.delay = ka
	}
	h.closed, h.cancel = context.WithCancel(context.Background())
	h.shutdown = make(chan struct{})
	h.startRouting() // shared_routing.go
	return h
}

// ServeHTTP implements http.Handler. The reply to an HTTP/1.x request
// with a chunked body closes its connection (RFC 9112 section 6.1; see
// docs/limits.md).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	httpguard.CloseChunked(w, r)
	if e := h.checkOrigin(r); e != nil {
		h.refuse(w, r, http.StatusForbidden, jsonrpc.ID{}, e)
		return
	}
	allow := "GET, POST, DELETE"
	if h.opts.Stateless {
		// Without sessions there is no GET stream to offer and nothing to
		// delete
		// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server).
		allow = "POST"
	}
	switch {
	case r.Method == http.MethodPost:
	case (r.Method == http.MethodGet || r.Method == http.MethodDelete) && !h.opts.Stateless:
	default:
		w.Header().Set("Allow", allow)
		h.refuse(w, r, http.StatusMethodNotAllowed, jsonrpc.ID{}, errMethodNotAllowed(allow))
		return
	}
	if h.opts.Authenticate != nil {
		// Before anything of the request is read or looked up.
		var ok bool
		if r, ok = h.authenticate(w, r); !ok {
			return
		}
	}
	if !h.reg.enter() {
		h.refuse(w, r, http.StatusServiceUnavailable, jsonrpc.ID{}, errClosed)
		return
	}
	defer h.reg.leave()
	defer h.endSSE(w)
	switch r.Method {
	case http.MethodPost:
		h.servePOST(w, r)
	case http.MethodGet:
		h.serveGET(w, r)
	case http.MethodDelete:
		h.serveDELETE(w, r)
	}
}

// Close ends every session (their handlers see their contexts cancelled
// and their streams end), cancels the 2026-07-28 requests in flight (a
// subscriptions/listen stream ends with its result), stops the reaper,
// and waits for the requests being served to finish. Later requests are refused with 503. Close is
// idempotent.
//
// Close waits without limit for handlers to return; [Handler.Shutdown]
// bounds the wait with a context.
func (h *Handler) Close() error {
	h.beginShutdown()
	h.closeSessions()
	h.reg.wg.Wait()
	h.stopRouting()
	return nil
}

// SessionCount reports the number of live sessions, for metrics and tests.
func (h *Handler) SessionCount() int { return h.reg.count() }

// closeEntry ends the local copy of a session that has been removed from
// the registry (idle, evicted, shut down). A session of a shared store
// lives on in the store for the other replicas; any other session ends
// for good, and leaves its store.
func (h *Handler) closeEntry(e *entry) {
	if e.shared {
		_ = e.ss.Close()
		return
	}
	h.deleteFromStore(e) // shared.go
	h.endEntry(e)
}

// endEntry ends a session for good: its live session and its events.
func (h *Handler) endEntry(e *entry) {
	_ = e.ss.Close()
	if h.opts.EventStore != nil {
		if err := h.opts.EventStore.DeleteSession(context.Background(), e.id); err != nil {
			h.logger.Error("mcphttp: event store delete failed", "session", e.id, "err", err)
		}
	}
}

// serveDELETE ends a session at the client's request
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).
func (h *Handler) serveDELETE(w http.ResponseWriter, r *http.Request) {
	if e := checkVersion(r.Header); e != nil {
		h.refuse(w, r, http.StatusBadRequest, jsonrpc.ID{}, e)
		return
	}
	sid := headerValue(r.Header, headerSessionID)
	if sid == "" {
		h.refuse(w, r, http.StatusBadRequest, jsonrpc.ID{}, errSessionRequired)
		return
	}
	_, owner := h.authOf(r)
	if h.deleteShared(w, r, sid, owner) { // shared.go
		return
	}
	e, evicted := h.reg.remove(sid, owner)
	if evicted != nil {
		h.closeEntry(evicted)
	}
	if e == nil {
		h.refuse(w, r, http.StatusNotFound, jsonrpc.ID{}, errSessionNotFound)
		return
	}
	h.closeEntry(e)
	w.WriteHeader(http.StatusNoContent)
}

// newStream returns a POST reply stream of session e, registered for
// resumption when track is set and there is an EventStore.
func (h *Handler) newStream(e *entry, track bool) *stream {
	st := &stream{h: h, session: e.id, store: h.opts.EventStore, requests: true, shared: e.shared}
	if st.store != nil {
		// Only stored events carry the stream's number.
		h.reg.addStream(e, st, track)
	}
	return st
}

// responseFor turns the outcome of HandleRequest into the response to send
// on a stream whose headers are already out: nil when there is none to
// send (a cancelled request, a closed session).
func responseFor(id jsonrpc.ID, resp *jsonrpc.Response, err error) *jsonrpc.Response {
	switch {
	case errors.Is(err, bridge.ErrDuplicateRequestID):
		return jsonrpc.NewErrorResponse(id, errDuplicateID(id))
	case err != nil:
		return nil
	}
	return resp
}
