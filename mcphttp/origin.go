package mcphttp

import (
	"net/http"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// checkOrigin returns the 403 error for a request whose Host or Origin is
// not allowed, or nil. It guards against DNS rebinding: a web page whose
// host name an attacker re-points at 127.0.0.1 must not reach a local
// server. The spec requires validating Origin
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning);
// checking Host as well stops a rebound page even when the browser sends
// no Origin. The rules are those of every HTTP transport of mcpkit
// (internal/httpguard).
func (h *Handler) checkOrigin(r *http.Request) *jsonrpc.Error {
	if h.opts.DisableDNSRebindingProtection {
		return nil
	}
	if header, value := h.guard.Check(r); header != "" {
		return errForbidden(header, value)
	}
	return nil
}
