package targets

import (
	"net/http"

	"github.com/mcpkit/mcpkit/mcphttp"
)

func init() {
	mcpkitTarget.HTTP = func(mode HTTPMode) (http.Handler, error) {
		s, err := newMCPKitServer()
		if err != nil {
			return nil, err
		}
		return mcphttp.NewHandler(s, &mcphttp.Options{
			JSONResponse: mode != SSE,
			// The peers have no session cap; the setup-rate scenario opens
			// tens of thousands of sessions.
			MaxSessions: -1,
		}), nil
	}
	mcpkitTarget.HTTPDefaults = func(maxSessions int) (http.Handler, error) {
		s, err := newMCPKitServer()
		if err != nil {
			return nil, err
		}
		return mcphttp.NewHandler(s, &mcphttp.Options{MaxSessions: maxSessions}), nil
	}
}
