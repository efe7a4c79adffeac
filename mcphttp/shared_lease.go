package mcphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// This file answers, -32603, the request of a shared session whose
// replica died while it ran: the stream's heartbeats stop, and a replica
// serving the stream resumed ends it after Options.StreamLease
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery;
// docs/design.md, "Streamable HTTP across replicas").

// DefaultStreamLease is the Options.StreamLease used when it is zero.
const DefaultStreamLease = 30 * time.Second

// Markers stored in a shared POST stream, besides its end: never sent.
var (
	heartbeatMarker = []byte("hb")
	requestMarker   = []byte("req:") // followed by the request's id, JSON
)

// errRequestLost is the error a client gets for a request whose replica
// died before it answered.
var errRequestLost = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error: the server replica running this request stopped before answering it"}

// streamLease is Options.StreamLease with its default; 0 for none.
func (h *Handler) streamLease() time.Duration {
	switch d := h.opts.StreamLease; {
	case d == 0:
		return DefaultStreamLease
	case d < 0:
		return 0
	default:
		return d
	}
}

// leaseMarker returns the marker naming request id that a shared
// session's POST stream stores right after its priming event (with it,
// in one round trip when the store can: startLocked), or nil when the
// stream has no lease.
func (st *stream) leaseMarker(id jsonrpc.ID) []byte {
	if !st.shared || st.store == nil || st.h.streamLease() <= 0 {
		return nil
	}
	raw, err := json.Marshal(id)
	if err != nil {
		return nil
	}
	return append(append([]byte(nil), requestMarker...), raw...)
}

// renewInterval is how often a lease of length lease is renewed (a
// request's heartbeat, a GET stream's hold): three times a lease, so that
// one late renewal does not lose it; at least every millisecond.
func renewInterval(lease time.Duration) time.Duration {
	return max(lease/3, time.Millisecond)
}

// heartbeatLocked starts the heartbeat of a stream whose request marker
// was stored; stopLease stops it. st.mu is held.
func (st *stream) heartbeatLocked(ctx context.Context) {
	d := st.h.streamLease()
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(renewInterval(d))
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			st.mu.Lock()
			if !st.done {
				st.seq++
				if err := st.store.Append(context.WithoutCancel(ctx), st.session, st.streamID(), eventID(st.num, st.seq), heartbeatMarker); err != nil {
					st.h.logger.Warn("mcphttp: storing a stream heartbeat failed", "session", st.session, "err", err)
				}
			}
			st.mu.Unlock()
		}
	}()
	st.beat = func() {
		close(done)
		<-finished
	}
}

// stopLease stops the stream's heartbeat, if it has one: called once the
// request has returned and its stream has ended.
func (st *stream) stopLease() {
	st.mu.Lock()
	stop := st.beat
	st.beat = nil
	st.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// loseStream stores, for POST stream num of a session whose lease
// lapsed, a JSON-RPC error answering its request, then the stream's end.
func (h *Handler) loseStream(ctx context.Context, store EventStore, session string, num uint64) error {
	streamID := strconv.FormatUint(num, 10)
	id := json.RawMessage("null")
	err := store.Replay(ctx, session, streamID, eventID(num, 1), func(_ string, data []byte) error {
		if rest, ok := bytes.CutPrefix(data, requestMarker); ok && json.Valid(rest) {
			id = append(json.RawMessage(nil), rest...)
		}
		return nil
	})
	if err != nil {
		h.logger.Debug("mcphttp: the id of a lost request is unknown", "session", session, "stream", num, "err", err)
	}
	var rid jsonrpc.ID
	if err := json.Unmarshal(id, &rid); err != nil {
		rid = jsonrpc.ID{}
	}
	data, err := jsonrpc.Encode(jsonrpc.NewErrorResponse(rid, errRequestLost))
	if err != nil {
		return err
	}
	// Ids no replica counts to: the dead one's count is unknown.
	evID := eventID(num, rand.Uint64()>>1|1<<62)
	if once, ok := store.(EventOnceAppender); ok {
		appended, err := once.AppendOnce(ctx, session, streamID, evID, "lost-"+streamID, data)
		if err != nil || !appended {
			return err // another replica answered it
		}
	} else if err := store.Append(ctx, session, streamID, evID, data); err != nil {
		return err
	}
	return store.Append(ctx, session, streamID, eventID(num, rand.Uint64()>>1|1<<62), streamEndMarker)
}
