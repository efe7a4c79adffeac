package mcphttp

import "context"

// Shutdown stops the handler gracefully, in the manner of
// net/http.Server.Shutdown: it stops taking new work, lets the requests in
// flight finish until ctx ends, then ends them. Call it alongside
// http.Server.Shutdown, whose wait it shortens by ending the handler's
// streams.
//
// This placeholder closes the handler at once (see Close) and returns nil.
func (h *Handler) Shutdown(ctx context.Context) error {
	h.Close()
	return nil
}
