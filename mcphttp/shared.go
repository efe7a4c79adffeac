package mcphttp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/mcpkit/mcpkit/internal/httpguard"
	"github.com/mcpkit/mcpkit/internal/sessquota"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// This file lets several Handlers (replicas) serve the same session-era
// sessions through a shared SessionStore: the state lives in the store,
// execution stays local
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management;
// docs/design.md, "Streamable HTTP across replicas").

// storeRetryAfter is the Retry-After, in seconds, of a request refused
// because the session store could not answer: long enough not to hammer
// a store that is coming back, short enough for a brief outage.
const storeRetryAfter = 1

// errStoreUnavailable answers a request that needs the session store
// while it cannot answer.
var errStoreUnavailable = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Service unavailable: the session store cannot be reached; retry later"}

// errStorePanicked is what a panic in a SessionStore or EventStore method
// becomes.
var errStorePanicked = errors.New("mcphttp: a store panicked")

// sharedStore returns the SessionStore of the server r is served by, if
// that store is shared; nil otherwise (no call to a user callback in the
// common case of one server).
func (h *Handler) sharedStore(r *http.Request) (*mcp.Server, mcp.SessionStore) {
	srv := h.server
	if h.getServer != nil {
		srv, _, _ = h.serverFor(r) // perrequest.go
	}
	if srv == nil {
		return nil, nil
	}
	if st := srv.Host().Store; st != nil && st.Shared() {
		return srv, st
	}
	return nil, nil
}

// storeCall runs f, a call into a store (what names it, as
// "SessionStore.Touch"), turning a panic into an error (logged with its
// stack).
func (h *Handler) storeCall(what string, f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			h.logger.Error("mcphttp: "+what+" panicked", "panic", p, "stack", string(debug.Stack()))
			err = fmt.Errorf("%w: %s: %v", errStorePanicked, what, p)
		}
	}()
	return f()
}

// refuseStore answers a request whose session store call failed with err:
// 404 for a session the store does not have (for this user), 503 with
// Retry-After for a full or unreachable store, 500 for anything else.
func (h *Handler) refuseStore(w http.ResponseWriter, r *http.Request, id jsonrpc.ID, err error) {
	switch {
	case errors.Is(err, mcp.ErrSessionNotFound):
		h.refuse(w, r, http.StatusNotFound, id, httpguard.ErrSessionNotFound)
	case errors.Is(err, mcp.ErrOwnerSessionLimit):
		// The store's quota of the principal, for the cluster (only an
		// initialize creates).
		retry := storeRetryAfter
		if ra, ok := errors.AsType[interface {
			error
			RetryAfter() time.Duration
		}](err); ok {
			retry = sessquota.RetrySeconds(ra.RetryAfter())
		}
		w.Header().Set("Retry-After", strconv.Itoa(retry))
		h.refuse(w, r, http.StatusTooManyRequests, id, sessquota.Refusal(sessquota.Principal, storeQuota(err, h.quotas.PerPrincipal)))
	case errors.Is(err, mcp.ErrSessionLimit):
		w.Header().Set("Retry-After", strconv.Itoa(storeRetryAfter))
		h.refuse(w, r, http.StatusServiceUnavailable, id, errStoreLimit(err))
	case errors.Is(err, mcp.ErrStoreUnavailable):
		h.logger.Warn("mcphttp: session store unavailable", "err", err)
		w.Header().Set("Retry-After", strconv.Itoa(storeRetryAfter))
		h.refuse(w, r, http.StatusServiceUnavailable, id, errStoreUnavailable)
	case r.Context().Err() != nil:
		// The client went away while the store answered: no one to tell,
		// and nothing wrong with the store.
		h.logger.Debug("mcphttp: session store call ended with its request", "err", err)
	default:
		h.logger.Error("mcphttp: session store failed", "err", err)
		h.refuse(w, r, http.StatusInternalServerError, id, errInternal)
	}
}

// storeQuota is the per-owner quota a store's refusal names (an error
// with a method Quota() int), or def.
func storeQuota(err error, def int) int {
	if q, ok := errors.AsType[interface {
		error
		Quota() int
	}](err); ok {
		return q.Quota()
	}
	return def
}

// errStoreLimit is the 503 of an initialize the store's cap refused.
func errStoreLimit(err error) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Service unavailable: maximum concurrent sessions reached: " + err.Error()}
}

// touch is store.Touch with panics recovered.
func (h *Handler) touch(ctx context.Context, store mcp.SessionStore, owner, sid string) (st *mcp.SessionState, err error) {
	err = h.storeCall("SessionStore.Touch", func() error {
		st, err = store.Touch(ctx, owner, sid)
		return err
	})
	return st, err
}

// adopt, for a request naming session sid that this Handler does not
// hold, loads the session from a shared store and registers a live
// session rebuilt from it. It reports false after answering the request
// (404 when there is no shared store or the store has no such session
// for this user, 503 when it cannot answer).
func (h *Handler) adopt(w http.ResponseWriter, r *http.Request, sid, owner string, id jsonrpc.ID) bool {
	srv, store := h.sharedStore(r)
	if store == nil {
		h.refuse(w, r, http.StatusNotFound, id, httpguard.ErrSessionNotFound)
		return false
	}
	st, err := h.touch(r.Context(), store, owner, sid)
	if err != nil {
		h.refuseStore(w, r, id, err)
		return false
	}
	return h.rebuild(w, r, srv, st, sid, owner, id)
}

// rebuild registers a live session sid of owner on srv, rebuilt from its
// stored state st. It reports false after answering the request (503
// when the Handler has closed).
func (h *Handler) rebuild(w http.ResponseWriter, r *http.Request, srv *mcp.Server, st *mcp.SessionState, sid, owner string, id jsonrpc.ID) bool {
	if h.getServer != nil {
		h.routeServer(srv) // shared_routing.go
	}
	ss := srv.Host().NewSession(mcp.SessionOptions{ID: sid, Owner: owner, TransportStores: true, Restore: st})
	added, closed := h.reg.adopt(sid, ss, owner)
	if !added {
		// Another request rebuilt it first (its copy serves), or the
		// Handler closed meanwhile.
		_ = ss.Close()
		if closed {
			h.refuse(w, r, http.StatusServiceUnavailable, id, httpguard.ErrClosed)
			return false
		}
	}
	return true
}

// sharedStateless is, for a stateless-era request rid that names session
// sid (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility),
// what adopt and touchShared are for the session era: e is the live
// session acquired for rid, or nil when this Handler does not hold it.
// With a shared store, a session held here is checked against the store
// and brought up to date, and one not held here is rebuilt from it, so
// that the request is served on the session whichever replica it lands
// on. It returns the session to serve the request on, acquired for rid,
// or nil to serve it on no session (no shared store, or no such session
// for this user in it: the era needs none); ok is false after answering
// the request (503 with Retry-After when the store cannot answer, 409
// for a request id already in flight).
func (h *Handler) sharedStateless(w http.ResponseWriter, r *http.Request, e *entry, sid, owner string, rid jsonrpc.ID) (_ *entry, ok bool) {
	if e != nil {
		if !e.shared {
			return e, true
		}
		st, err := h.touch(r.Context(), e.host().Store, e.owner, e.id)
		switch {
		case err == nil:
			e.host().SyncState(e.ss, st)
			return e, true
		case errors.Is(err, mcp.ErrSessionNotFound):
			h.reg.finishRequest(e, rid)
			h.dropShared(e)
			return nil, true
		default:
			h.reg.finishRequest(e, rid)
			h.refuseStore(w, r, rid, err)
			return nil, false
		}
	}
	srv, store := h.sharedStore(r)
	if store == nil {
		return nil, true
	}
	st, err := h.touch(r.Context(), store, owner, sid)
	switch {
	case errors.Is(err, mcp.ErrSessionNotFound):
		return nil, true
	case err != nil:
		h.refuseStore(w, r, rid, err)
		return nil, false
	}
	if !h.rebuild(w, r, srv, st, sid, owner, rid) {
		return nil, false
	}
	if e, ok = h.acquireRequest(w, r, sid, owner, rid); !ok {
		return nil, false
	}
	if e != nil {
		h.shareStandalone(e) // shared_streams.go
	}
	return e, true
}

// touchShared checks live session e, acquired, against its shared store,
// and brings its state up to date with what other replicas changed. On
// failure it answers the request and, when the store no longer has the
// session, drops the local copy once the caller's hold ends: gone reports
// that, for the caller to call h.dropShared(e) after its release.
func (h *Handler) touchShared(w http.ResponseWriter, r *http.Request, e *entry, id jsonrpc.ID) (ok, gone bool) {
	st, err := h.touch(r.Context(), e.host().Store, e.owner, e.id)
	if err != nil {
		h.refuseStore(w, r, id, err)
		return false, errors.Is(err, mcp.ErrSessionNotFound)
	}
	e.host().SyncState(e.ss, st)
	return true, false
}

// dropShared forgets the local copy of a shared session that the store no
// longer has (deleted or expired on any replica).
func (h *Handler) dropShared(e *entry) {
	if h.reg.drop(e) {
		h.closeEntry(e)
	}
	// Gone from the store, the session has ended for good: so have the
	// tasks it owned.
	e.host().EndSession(context.Background(), e.id)
}

// acquireShared is h.acquire for a request that is not a JSON-RPC
// request (a notification, a response, a batch, a GET): it returns the
// live session sid of r's user, busy until h.reg.release, checked against
// or rebuilt from a shared store; nil after answering the request.
func (h *Handler) acquireShared(w http.ResponseWriter, r *http.Request, sid string) *entry {
	_, owner := h.authOf(r)
	e, evicted := h.reg.acquire(sid, owner)
	if evicted != nil {
		h.closeEntry(evicted)
	}
	if e == nil {
		if !h.adopt(w, r, sid, owner, jsonrpc.ID{}) {
			return nil
		}
		if e, evicted = h.reg.acquire(sid, owner); evicted != nil {
			h.closeEntry(evicted)
		}
		if e == nil {
			h.refuse(w, r, http.StatusNotFound, jsonrpc.ID{}, httpguard.ErrSessionNotFound)
			return nil
		}
		h.shareStandalone(e) // shared_streams.go
		return e
	}
	if e.shared {
		if ok, gone := h.touchShared(w, r, e, jsonrpc.ID{}); !ok {
			h.reg.release(e)
			if gone {
				h.dropShared(e)
			}
			return nil
		}
	}
	return e
}

// deleteShared serves a DELETE when the session store is shared: the
// store deletes the session first, which ends it on every replica (their
// next request of it is 404), then the local copy goes. It reports false
// when the store is not shared, for the caller to serve the DELETE alone.
func (h *Handler) deleteShared(w http.ResponseWriter, r *http.Request, sid, owner string) bool {
	var store mcp.SessionStore
	srv := h.reg.serverOf(sid, owner)
	if srv != nil { // held here: its server's store
		if store = srv.Host().Store; !store.Shared() {
			return false
		}
	} else if srv, store = h.sharedStore(r); store == nil {
		return false
	}
	err := h.storeCall("SessionStore.Delete", func() error { return store.Delete(r.Context(), owner, sid) })
	if err != nil && !errors.Is(err, mcp.ErrSessionNotFound) {
		h.refuseStore(w, r, jsonrpc.ID{}, err)
		return true
	}
	e, evicted := h.reg.remove(sid, owner)
	for _, x := range []*entry{e, evicted} {
		if x != nil {
			h.endEntry(x)
		}
	}
	if err != nil {
		h.refuse(w, r, http.StatusNotFound, jsonrpc.ID{}, httpguard.ErrSessionNotFound)
		return true
	}
	// The session's end is final: the tasks it owned go, on every replica
	// (bounded by TaskOptions.SessionEndTimeout).
	srv.Host().EndSession(r.Context(), sid)
	w.WriteHeader(http.StatusNoContent)
	return true
}

// createInStore records a session whose initialize succeeded in its
// server's SessionStore, before the response names it: the store's cap
// (shared by every replica when the store is) and its availability
// decide whether the session exists. On failure it answers the request.
func (h *Handler) createInStore(w http.ResponseWriter, r *http.Request, ss *mcp.ServerSession, id jsonrpc.ID) bool {
	st := ss.State()
	store := ss.Server().Host().Store
	err := h.storeCall("SessionStore.Create", func() error { return store.Create(r.Context(), &st) })
	if err != nil {
		h.refuseStore(w, r, id, err)
		return false
	}
	return true
}

// deleteFromStore deletes a session from its store, where this Handler
// alone decides its end: a session that is not shared, or one whose
// registration failed after Create.
func (h *Handler) deleteFromStore(e *entry) {
	store := e.host().Store
	err := h.storeCall("SessionStore.Delete", func() error { return store.Delete(context.Background(), e.owner, e.id) })
	if err != nil && !errors.Is(err, mcp.ErrSessionNotFound) {
		h.logger.Error("mcphttp: session store delete failed", "session", e.id, "err", err)
	}
}
