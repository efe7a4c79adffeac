package mcphttp

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/mcpkit/mcpkit/internal/broadcast"
	"github.com/mcpkit/mcpkit/internal/sse"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// The SSE streams of shared sessions, served from the EventStore
// (docs/design.md, "Streamable HTTP across replicas").

// DefaultEventPollInterval is the Options.EventPollInterval used when it
// is zero.
const DefaultEventPollInterval = time.Second

// An EventWatcher is an EventStore that wakes a replica when any replica
// appends an event of a session; Handlers poll a store without it
// (Options.EventPollInterval). The channel receives a value soon after each
// Append (values may coalesce) and is closed once ctx ends; a watcher that
// can miss a wake-up must poll itself.
type EventWatcher interface {
	Watch(ctx context.Context, sessionID string) (<-chan struct{}, error)
}

// streamEndMarker is the data of the event that records, in a shared
// session's store, that a POST stream has ended. It is not JSON, so it is
// never mistaken for a message; it is never sent to a client.
var streamEndMarker = []byte("end")

// sharedStreams reports whether session e's streams are served from the
// EventStore (shared session and an EventStore).
func (h *Handler) sharedStreams(e *entry) bool {
	return e.shared && h.opts.EventStore != nil
}

// sharedStreamNum numbers a POST stream of a shared session: random, so
// that two replicas never number two streams of a session alike. Never 0
// (the GET stream).
func sharedStreamNum() uint64 {
	return rand.Uint64()>>1 | 1
}

// shareStandalone gives shared session e its GET stream, without a
// connection, so that messages outside any request are stored for the
// replica that serves the client's GET.
func (h *Handler) shareStandalone(e *entry) {
	if h.sharedStreams(e) {
		h.standalone(e)
	}
}

// appendEndLocked stores the end marker of a shared session's POST
// stream. st.mu is held.
func (st *stream) appendEndLocked(ctx context.Context) {
	st.seq++
	id := eventID(st.num, st.seq)
	if err := st.store.Append(ctx, st.session, st.streamID(), id, streamEndMarker); err != nil {
		st.h.logger.Error("mcphttp: event store append failed", "session", st.session, "err", err)
	}
}

// appendStored stores an event of stream st: once per broadcast key
// (broadcast.Key of ctx) for the GET stream of a session
// when the EventStore is an EventOnceAppender, for every replica holding
// the session delivers the same broadcast. appended is false when the
// key was stored already. st.mu is held.
func (st *stream) appendStored(ctx context.Context, id string, data []byte) (appended bool, err error) {
	if st.num == 0 {
		if key := broadcast.Key(ctx); key != "" {
			if once, ok := st.store.(EventOnceAppender); ok {
				return once.AppendOnce(ctx, st.session, st.streamID(), id, key, data)
			}
		}
	}
	return true, st.store.Append(ctx, st.session, st.streamID(), id, data)
}

// storeUnavailable reports whether err means the EventStore could not
// answer (503 then, never 404).
func storeUnavailable(err error) bool {
	return errors.Is(err, mcp.ErrStoreUnavailable)
}

// refuseEventStore answers a GET whose EventStore call failed with err.
func (h *Handler) refuseEventStore(w http.ResponseWriter, r *http.Request, e *entry, last string, err error) {
	switch {
	case errors.Is(err, ErrEventNotFound):
		h.refuse(w, r, http.StatusBadRequest, jsonrpc.ID{}, errUnknownEvent(last))
	case storeUnavailable(err):
		h.logger.Warn("mcphttp: event store unavailable", "session", e.id, "err", err)
		w.Header().Set("Retry-After", strconv.Itoa(storeRetryAfter))
		h.refuse(w, r, http.StatusServiceUnavailable, jsonrpc.ID{}, errStoreUnavailable)
	case r.Context().Err() != nil:
		// The client went away while the store answered (a GET cut
		// while it waited for events): no one to tell.
		h.logger.Debug("mcphttp: event store call ended with its request", "session", e.id, "err", err)
	default:
		h.logger.Error("mcphttp: event store failed", "session", e.id, "err", err)
		h.refuse(w, r, http.StatusInternalServerError, jsonrpc.ID{}, errInternal)
	}
}

// serveSharedGET serves a GET of a shared session from the EventStore:
// with Last-Event-ID, the stream that id names from there on; otherwise
// the GET stream from now on, after a priming event.
func (h *Handler) serveSharedGET(w http.ResponseWriter, r *http.Request, e *entry) {
	store := h.opts.EventStore
	last := headerValue(r.Header, headerLastEventID)
	num := uint64(0)
	if last != "" {
		var ok bool
		if num, ok = parseEventID(last); !ok {
			h.refuse(w, r, http.StatusBadRequest, jsonrpc.ID{}, errBadEventID)
			return
		}
		if num != 0 {
			if st := h.reg.liveStream(e, num); st != nil {
				// Running here: served as on one replica.
				h.resume(w, r, e, last)
				return
			}
		}
	}
	// One GET stream at a time: across replicas when the EventStore
	// keeps a lease (shared_getlease.go). A fresh GET takes the lease
	// first; one resuming the GET stream takes it over once its
	// Last-Event-ID proved good.
	leased := num == 0 && h.leasesStreams()
	var hold *streamLeaseHold
	takeLease := func(takeover bool) bool {
		var ok bool
		var err error
		if hold, ok, err = h.leaseGET(r.Context(), e, takeover); err != nil {
			h.refuseEventStore(w, r, e, last, err)
			return false
		} else if !ok {
			h.refuse(w, r, http.StatusConflict, jsonrpc.ID{}, errSecondGET)
			return false
		}
		return true
	}
	defer func() {
		if hold != nil {
			hold.release(r.Context())
		}
	}()
	if leased && last == "" && !takeLease(false) {
		return
	}
	if num == 0 && !leased {
		// Without a lease, one GET stream at a time on this replica.
		h.reg.mu.Lock()
		busy := e.tailing
		e.tailing = true
		h.reg.mu.Unlock()
		if busy {
			h.refuse(w, r, http.StatusConflict, jsonrpc.ID{}, errSecondGET)
			return
		}
		defer func() {
			h.reg.mu.Lock()
			e.tailing = false
			h.reg.mu.Unlock()
		}()
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	var wake <-chan struct{}
	if wt, ok := store.(EventWatcher); ok {
		ch, err := wt.Watch(ctx, e.id)
		if err != nil {
			h.refuseEventStore(w, r, e, last, err)
			return
		}
		wake = ch
	}
	streamID := strconv.FormatUint(num, 10)
	var prime []byte
	if last == "" {
		// The priming event anchors the tail (and, from 2025-11-25,
		// gives the client an id to resume from).
		st := h.standalone(e)
		st.mu.Lock()
		st.seq++
		last = eventID(0, st.seq)
		st.mu.Unlock()
		if err := store.Append(ctx, e.id, streamID, last, nil); err != nil {
			h.refuseEventStore(w, r, e, last, err)
			return
		}
		if e.ss.ProtocolVersion() >= mcp.Version20251125 {
			prime = appendEvent(nil, last, nil, true, h.opts.RetryInterval)
		}
	}
	frames, last, ended, err := h.tailOnce(ctx, store, e.id, streamID, last, prime)
	if err != nil {
		h.refuseEventStore(w, r, e, last, err)
		return
	}
	if leased && hold == nil && !takeLease(true) {
		return
	}
	rc := http.NewResponseController(w)
	if h.writeFrames(w, r, rc, frames, true) != nil || ended {
		return
	}
	var poll, tick <-chan time.Time
	if wake == nil {
		t := time.NewTicker(h.pollInterval())
		defer t.Stop()
		poll = t.C
	}
	if h.opts.KeepAlive > 0 {
		t := time.NewTicker(h.opts.KeepAlive)
		defer t.Stop()
		tick = t.C
	}
	var renew <-chan time.Time
	if hold != nil {
		t := time.NewTicker(renewInterval(hold.ttl))
		defer t.Stop()
		renew = t.C
	}
	// A POST stream whose request runs elsewhere: its lease (shared_lease.go).
	var lease <-chan time.Time
	var leaseTimer *time.Timer
	if d := h.streamLease(); num != 0 && d > 0 {
		leaseTimer = time.NewTimer(d)
		defer leaseTimer.Stop()
		lease = leaseTimer.C
	}
	quiet := false
	for {
		prev := last
		select {
		case <-r.Context().Done():
			return
		case <-e.ss.Done():
			return
		case <-h.shutdown:
			return
		case <-tick:
			if quiet {
				if h.writeFrames(w, r, rc, sse.KeepAlive, false) != nil {
					return
				}
			}
			quiet = true
			// The session may have ended on another replica; an open
			// stream also keeps it from idling out in the store.
			if _, err := h.touch(ctx, e.host().Store, e.owner, e.id); errors.Is(err, mcp.ErrSessionNotFound) {
				return
			}
			continue
		case _, ok := <-wake:
			if !ok {
				return
			}
		case <-poll:
		case <-renew:
			if !hold.renew(ctx) {
				// Taken over by a GET resuming the stream, or lapsed:
				// another connection carries the stream now.
				return
			}
			continue
		case <-lease:
			// No event, not even a heartbeat, for a whole lease: the
			// replica running the request is gone.
			lease = nil
			if err := h.loseStream(ctx, store, e.id, num); err != nil {
				h.logger.Warn("mcphttp: storing the error of a lost request failed", "session", e.id, "stream", num, "err", err)
				return
			}
		}
		frames, last, ended, err = h.tailOnce(ctx, store, e.id, streamID, last, nil)
		if lease != nil && last != prev {
			leaseTimer.Reset(h.streamLease())
		}
		if err != nil {
			// Trimmed past what this connection sent, or the store
			// cannot answer: the client resumes from its last id.
			h.logger.Debug("mcphttp: tailing the event store failed", "session", e.id, "last_event_id", last, "err", err)
			return
		}
		if len(frames) > 0 {
			quiet = false
			if h.writeFrames(w, r, rc, frames, false) != nil {
				return
			}
		}
		if ended {
			return
		}
	}
}

// pollInterval is Options.EventPollInterval with its default.
func (h *Handler) pollInterval() time.Duration {
	if d := h.opts.EventPollInterval; d > 0 {
		return d
	}
	return DefaultEventPollInterval
}

// tailOnce reads the events of a stream stored after last and returns
// their frames (after dst), the id of the last one read, and whether the
// stream's end marker was among them.
func (h *Handler) tailOnce(ctx context.Context, store EventStore, session, streamID, last string, dst []byte) (frames []byte, newLast string, ended bool, err error) {
	frames, newLast = dst, last
	err = store.Replay(ctx, session, streamID, last, func(id string, data []byte) error {
		if ended {
			return nil
		}
		newLast = id
		switch {
		case bytes.Equal(data, streamEndMarker):
			ended = true
		case len(data) > 0 && !isMarker(data):
			frames = appendEvent(frames, id, data, false, 0)
		}
		return nil
	})
	if err != nil {
		return nil, last, false, err
	}
	return frames, newLast, ended, nil
}

// isMarker reports whether stored data is a marker (an end, a heartbeat,
// a request id) rather than a message: a JSON-RPC message or batch starts
// with '{' or '['. Markers are never sent to a client.
func isMarker(data []byte) bool { return len(data) > 0 && data[0] != '{' && data[0] != '[' }
