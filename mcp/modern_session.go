package mcp

import (
	"context"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// HandleModernRequest serves a stateless-era request that arrived on
// session ss, as a Streamable HTTP POST carrying both a live
// Mcp-Session-Id and the 2026-07-28 _meta does: like
// [Server.HandleModernRequest] it is served on its own, with the version
// and capabilities its _meta carries, but it is in flight on ss, so that
// ss's end (and a notifications/cancelled sent on ss) cancels it
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility).
//
// refused reports that the request was turned away before any handler ran
// (bad _meta, unsupported version, unknown or removed method), which
// Streamable HTTP answers with 400 or 404. err is ErrDuplicateRequestID or
// ErrSessionClosed, as for HandleRequest; resp is nil when the request was
// cancelled by notifications/cancelled.
func (ss *ServerSession) HandleModernRequest(ctx context.Context, req *jsonrpc.Request, related MessageWriter, extra *RequestExtra) (resp *jsonrpc.Response, refused bool, err error) {
	return ss.handleModern(ctx, req, related, extra)
}
