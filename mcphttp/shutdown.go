package mcphttp

import (
	"context"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// errShuttingDown answers the requests still running when a Shutdown's
// context ends: their handlers are cancelled, and the client learns that
// its request was not completed rather than waiting for a response that
// cannot come.
var errShuttingDown = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error: the server is shutting down; the request was cancelled"}

// Shutdown shuts the handler down gracefully, as http.Server.Shutdown does:
// later requests get 503, GET and subscriptions/listen streams end, and
// requests in flight may finish until ctx is done; then each still running
// is cancelled and answered -32603, every session ends, and ctx's error is
// returned. Call it before (or with) http.Server.Shutdown.
func (h *Handler) Shutdown(ctx context.Context) error {
	h.beginShutdown()
	done := make(chan struct{})
	go func() {
		h.reg.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		_ = h.Close()
		return nil
	case <-ctx.Done():
	}
	h.forced.Store(true)
	for _, r := range h.reg.inflightStreams() {
		r.st.abortWith(r.id, errShuttingDown)
	}
	for _, r := range h.stateless.streams() {
		r.st.abortWith(r.id, errShuttingDown)
	}
	h.closeSessions()
	return ctx.Err()
}

// beginShutdown refuses new work and ends the streams that would never end
// by themselves. It is idempotent.
func (h *Handler) beginShutdown() {
	h.shutdownOnce.Do(func() {
		h.reg.stopTaking()
		close(h.shutdown)
		h.stateless.endListens()
	})
}

// closeSessions ends every session and stops the reaper: what Close does,
// without waiting for the requests being served.
func (h *Handler) closeSessions() {
	entries := h.reg.shutdown()
	h.cancel()
	for _, e := range entries {
		h.closeEntry(e)
	}
}

// abortWith ends a reply stream whose request id is still running with
// an error response for it, flushed at once, and lets go of its
// connection; what the handler sends later goes nowhere.
func (st *stream) abortWith(id jsonrpc.ID, e *jsonrpc.Error) {
	st.end(context.Background(), jsonrpc.NewErrorResponse(id, e), true)
}

// inflightReply is a request in flight and the stream that carries its
// reply.
type inflightReply struct {
	id jsonrpc.ID
	st *stream
}

// streams lists the reply streams of the 2026-07-28 requests in
// flight; endListens ends their listen streams.
func (m *statelessInflight) streams() []inflightReply {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []inflightReply
	for mr := range m.cancels {
		if mr.st != nil {
			out = append(out, inflightReply{mr.id, mr.st})
		}
	}
	return out
}

// endListens cancels the subscriptions/listen requests in flight: each
// ends with its graceful result.
func (m *statelessInflight) endListens() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for mr, cancel := range m.cancels {
		if mr.listen {
			cancel()
		}
	}
}

// inflightStreams lists the reply streams of the session-era requests in
// flight.
func (g *registry) inflightStreams() []inflightReply {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []inflightReply
	for _, e := range g.entries {
		for id, st := range e.inflight {
			if st != nil {
				out = append(out, inflightReply{id, st})
			}
		}
	}
	return out
}

// stopTaking refuses every later request (enter reports false), without
// closing the sessions yet.
func (g *registry) stopTaking() {
	g.mu.Lock()
	g.draining = true
	g.mu.Unlock()
}
