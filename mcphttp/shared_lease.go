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

// This file keeps a client whose request ran on a replica that died from
// waiting forever
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery).
// While a shared session's request runs, its replica stores, in the
// request's POST stream, a marker naming the request's id right after the
// priming event, then a heartbeat every Options.StreamLease/3. A replica
// that serves the stream resumed (GET with Last-Event-ID) without running
// the request counts the time since the stream's last stored event; past
// StreamLease it stores a JSON-RPC error for the request, and the
// stream's end, then sends them as any other events: the client gets its
// answer, and any other replica resuming the same stream gets the same
// one (stored once, with an EventOnceAppender). A replica that stops
// cleanly ends its streams itself, so this is for one that was killed.

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

// leaseRequest, for the primed POST stream of a shared session, stores
// the request's id and starts the heartbeat; the function it returns
// stops the heartbeat (call it once the request has returned). For any
// other stream it does nothing.
func (st *stream) leaseRequest(ctx context.Context, id jsonrpc.ID) (stop func()) {
	d := st.h.streamLease()
	if !st.shared || st.store == nil || d <= 0 {
		return func() {}
	}
	raw, err := json.Marshal(id)
	if err != nil {
		return func() {}
	}
	st.mu.Lock()
	primed := st.seq == 1 && !st.done
	if primed {
		st.seq++
		if err := st.store.Append(ctx, st.session, st.streamID(), eventID(st.num, st.seq), append(append([]byte(nil), requestMarker...), raw...)); err != nil {
			st.h.logger.Error("mcphttp: event store append failed", "session", st.session, "err", err)
		}
	}
	st.mu.Unlock()
	if !primed {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(max(d/3, time.Millisecond))
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
	return func() {
		close(done)
		<-finished
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
