package mcphttp

import (
	"net/http"

	"github.com/mcpkit/mcpkit/internal/httpguard"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// checkOrigin returns the 403 error for a request whose Host or Origin is
// not allowed (DNS rebinding, internal/httpguard), or nil
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning).
func (h *Handler) checkOrigin(r *http.Request) *jsonrpc.Error {
	if h.opts.DisableDNSRebindingProtection {
		return nil
	}
	if header, value := h.guard.Check(r); header != "" {
		return httpguard.Forbidden(header, value)
	}
	return nil
}
