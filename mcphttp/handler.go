package mcphttp

import (
	"context"
	"crypto/rand"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpkit/mcpkit/internal/httpguard"
	"github.com/mcpkit/mcpkit/internal/sessquota"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// Handler serves an mcp.Server over Streamable HTTP at the path it is
// mounted on: POST for client messages, GET for the session's standalone
// SSE stream and for resuming streams, DELETE to end a session
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http);
// on the same endpoint it serves 2026-07-28 requests, which need no session
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http).
// It keeps the live sessions in a registry bounded by [Options] and records
// each in the server's SessionStore. With a shared SessionStore, an
// [EventStore] and an mcp.ServerOptions.Bus, any replica serves any session
// (docs/scaling.md; what holds across replicas: docs/design.md).
//
// A Handler is safe for concurrent use. Close or Shutdown it to end its
// sessions and stop its reaper goroutine.
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
	// params caches the Mcp-Param headers tools declare (stateless_headers.go).
	params paramCache
	// stateless holds the 2026-07-28 requests in flight (stateless.go).
	stateless statelessInflight
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

// detached calls the onDetach test hook, if set.
func (h *Handler) detached() {
	if h.onDetach != nil {
		h.onDetach()
	}
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
		server.Host()
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
		h.refuse(w, r, http.StatusMethodNotAllowed, jsonrpc.ID{}, httpguard.MethodNotAllowed(allow))
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
		h.refuse(w, r, http.StatusServiceUnavailable, jsonrpc.ID{}, httpguard.ErrClosed)
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
// and waits for the requests being served to finish. Later requests are
// refused with 503. Close is idempotent.
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
		h.refuse(w, r, http.StatusNotFound, jsonrpc.ID{}, httpguard.ErrSessionNotFound)
		return
	}
	h.closeEntry(e)
	w.WriteHeader(http.StatusNoContent)
}

// acquireRequest is registry.acquireRequest for a request being served: a
// session it finds expired is closed, and a request id already in flight
// is refused with 409 (ok false). e is nil when no live session matches.
func (h *Handler) acquireRequest(w http.ResponseWriter, r *http.Request, sid, owner string, id jsonrpc.ID) (e *entry, ok bool) {
	e, evicted, dup := h.reg.acquireRequest(sid, owner, id)
	if evicted != nil {
		h.closeEntry(evicted)
	}
	if dup {
		h.refuse(w, r, http.StatusConflict, id, errDuplicateID(id))
		return nil, false
	}
	return e, true
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
func responseFor(resp *jsonrpc.Response, err error) *jsonrpc.Response {
	if err != nil {
		return nil
	}
	return resp
}
