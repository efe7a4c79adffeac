package mcphttp

import (
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// serveGET opens the session's standalone SSE stream, which carries the
// messages the server sends outside any request
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server),
// or, with Last-Event-ID and an EventStore, resumes a broken stream
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery).
func (h *Handler) serveGET(w http.ResponseWriter, r *http.Request) {
	if e := checkVersion(r.Header); e != nil {
		h.refuse(w, r, http.StatusBadRequest, jsonrpc.ID{}, e)
		return
	}
	if !accepts(r.Header, mediaSSE) {
		h.refuse(w, r, http.StatusNotAcceptable, jsonrpc.ID{}, errNotAcceptGET)
		return
	}
	sid := headerValue(r.Header, headerSessionID)
	if sid == "" {
		h.refuse(w, r, http.StatusBadRequest, jsonrpc.ID{}, errSessionRequired)
		return
	}
	e := h.acquireShared(w, r, sid) // shared.go
	if e == nil {
		return
	}
	defer h.reg.release(e)
	if h.sharedStreams(e) {
		h.serveSharedGET(w, r, e) // shared_streams.go
		return
	}
	// Without a store no event carried an id, so a Last-Event-ID cannot be
	// ours: the request is an ordinary GET.
	if last := headerValue(r.Header, headerLastEventID); last != "" && h.opts.EventStore != nil {
		h.resume(w, r, e, last)
		return
	}
	st := h.standalone(e)
	att := st.open(r.Context(), w, r, e.ss.ProtocolVersion(), true, true)
	if att == nil {
		h.refuse(w, r, http.StatusConflict, jsonrpc.ID{}, errSecondGET)
		return
	}
	h.pump(r, st, att, e.ss.Done())
}

// standalone returns session e's GET stream, creating it (and making it
// the session's writer for messages outside any request) on first use.
// While no connection carries it, its messages are kept for resumption
// when there is an EventStore, and otherwise refused.
func (h *Handler) standalone(e *entry) *stream {
	st, created := h.reg.standalone(e, func() *stream {
		st := &stream{h: h, session: e.id, num: 0, store: h.opts.EventStore, requests: true, standalone: true}
		if e.shared {
			// Other replicas append to the same stream: ids from a
			// random base stay unique (shared_streams.go).
			st.seq = rand.Uint64() >> 2
		}
		return st
	})
	if created {
		e.host().SetStandalone(e.ss, st)
	}
	return st
}

// resume serves a GET with Last-Event-ID: the missed events of the stream
// the id names, then, if that stream is still running, the rest of it.
func (h *Handler) resume(w http.ResponseWriter, r *http.Request, e *entry, last string) {
	num, ok := parseEventID(last)
	if !ok {
		h.refuse(w, r, http.StatusBadRequest, jsonrpc.ID{}, errBadEventID)
		return
	}
	var st *stream
	if num == 0 {
		st = h.standalone(e)
	} else {
		st = h.reg.liveStream(e, num)
	}
	if st == nil {
		// The stream has ended: its events are all in the store.
		sent, err := h.replay(r.Context(), h.opts.EventStore, e.id, strconv.FormatUint(num, 10), last, w, r)
		if err != nil && !sent {
			h.logger.Debug("mcphttp: replay failed", "session", e.id, "last_event_id", last, "err", err)
			h.refuse(w, r, http.StatusBadRequest, jsonrpc.ID{}, errUnknownEvent(last))
		}
		return
	}
	att, err := st.resume(r.Context(), w, r, last, num == 0)
	switch {
	case errors.Is(err, errSecondGETStream):
		h.refuse(w, r, http.StatusConflict, jsonrpc.ID{}, errSecondGET)
		return
	case err != nil:
		h.logger.Debug("mcphttp: replay failed", "session", e.id, "last_event_id", last, "err", err)
		h.refuse(w, r, http.StatusBadRequest, jsonrpc.ID{}, errUnknownEvent(last))
		return
	case att == nil:
		return
	}
	h.pump(r, st, att, e.ss.Done())
}
