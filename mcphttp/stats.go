package mcphttp

import "net/http"

// Stats is a snapshot of what a Handler holds open, for a gauge in a
// metrics system (the OpenTelemetry module of mcpkit reads it): how many
// sessions a deployment carries against Options.MaxSessions, and how many
// SSE streams hold an HTTP connection
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http).
type Stats struct {
	// Sessions is the number of live sessions: initialized and neither
	// deleted, expired nor closed. Always 0 in stateless mode.
	Sessions int
	// Streams is the number of HTTP responses currently streaming as
	// server-sent events: GET streams, POST replies sent as SSE and
	// resumptions, from their headers until their HTTP handler returns.
	Streams int
}

// Stats returns the Handler's current Stats. It is safe for concurrent use
// and cheap enough to call on every metrics collection: it takes the
// session registry's lock for a moment and allocates nothing.
func (h *Handler) Stats() Stats {
	h.reg.mu.Lock()
	n := len(h.reg.entries)
	h.reg.mu.Unlock()
	return Stats{Sessions: n, Streams: int(h.sseOpen.Load())}
}

// endSSE ends the count of w in Stats.Streams if w was an SSE response
// (writeSSEHeaders). ServeHTTP calls it when it returns.
func (h *Handler) endSSE(w http.ResponseWriter) {
	if v := w.Header()["Content-Type"]; len(v) == 1 && v[0] == mediaSSE {
		h.sseOpen.Add(-1)
	}
}
