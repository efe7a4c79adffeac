package mcphttp

import (
	"context"
	"net/http"
	"strconv"
	"time"
)

// This file serves Options.JSONReplyWithin: a reply stream that may start
// deferred, answered in JSON when its response comes first and in time
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server;
// docs/design.md, "Quick replies in JSON").

// openDeferred attaches w to carry a deferred stream: no header is
// written until the stream starts or ends. primes tells whether the
// stream, once started, opens with a priming event (2025-11-25 and
// later); marker is the request marker stored with it (nil for none).
func (st *stream) openDeferred(w http.ResponseWriter, r *http.Request, primes bool, marker []byte) *attachment {
	att := newAttachment(w, r)
	att.pending = true
	st.mu.Lock()
	st.att = att
	st.deferred = true
	st.primes = primes
	st.marker = marker
	st.mu.Unlock()
	return att
}

// startLocked starts a stream with an EventStore: it stores the priming
// event and, for a shared session's request, the request marker
// (shared_lease.go) after it, in one round trip when the store is an
// EventBatchAppender, and starts the lease's heartbeat. It returns the
// priming event's frame, nil when there is none or the store failed.
// st.mu is held.
func (st *stream) startLocked(ctx context.Context) []byte {
	st.deferred = false
	if !st.primes || st.store == nil {
		return nil
	}
	st.seq++
	id := eventID(st.num, st.seq)
	evs := []StoredEvent{{ID: id}}
	lease := st.marker != nil && st.seq == 1 && !st.done
	if lease {
		st.seq++
		evs = append(evs, StoredEvent{ID: eventID(st.num, st.seq), Data: st.marker})
	}
	err := st.appendBatchLocked(ctx, evs)
	if lease {
		st.heartbeatLocked(ctx)
	}
	if err != nil {
		st.h.logger.Error("mcphttp: event store append failed", "session", st.session, "err", err)
		return nil
	}
	return appendEvent(nil, id, nil, true, st.h.opts.RetryInterval)
}

// startDeferred starts a deferred stream that still has its connection:
// the SSE headers and the priming event are sent and flushed at once.
// It does nothing to a stream that is not deferred.
func (st *stream) startDeferred(ctx context.Context) {
	st.mu.Lock()
	deferred := st.deferred
	st.mu.Unlock()
	if !deferred {
		return
	}
	st.wmu.Lock()
	defer st.wmu.Unlock()
	st.mu.Lock()
	att := st.att
	if !st.deferred || att == nil {
		st.mu.Unlock()
		return
	}
	prime := st.startLocked(ctx)
	st.mu.Unlock()
	st.writePrime(att, prime)
}

// awaitReply serves the HTTP request carrying deferred stream st for up
// to window. It returns true once the window has passed and the stream
// has started (the caller pumps it then), false once the request is
// answered: the reply went out (a JSON body, or the stream ended), the
// client went away or the session ended (an empty SSE stream then).
func (h *Handler) awaitReply(ctx context.Context, r *http.Request, st *stream, att *attachment, sessionDone <-chan struct{}, window time.Duration) bool {
	t := time.NewTimer(window)
	defer t.Stop()
	select {
	case <-att.gone:
	case <-r.Context().Done():
		st.dropClient(att)
	case <-sessionDone:
		st.detach(att)
	case <-t.C:
		st.startDeferred(ctx)
		return true
	}
	st.release(att)
	return false
}

// writeJSONBody answers a deferred stream's request with its response,
// data, as one application/json body, flushed with flush set. The caller
// holds wmu.
func (st *stream) writeJSONBody(att *attachment, data []byte, flush bool) {
	st.armDeadline(att)
	att.pending = false
	hdr := att.w.Header()
	hdr["Content-Type"] = hdrJSON
	hdr["Content-Length"] = []string{strconv.Itoa(len(data))}
	att.w.WriteHeader(http.StatusOK)
	_, err := att.w.Write(data)
	att.flushed = true
	if err == nil && flush {
		_ = att.rc.Flush()
	}
}
