package mcphttp

import (
	"context"
	"net/http"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// serveStateless serves one message in stateless mode: a request gets a
// fresh session, closed once it is answered, and nothing is kept.
// initialize gets a new session each time, so it may repeat; any other
// request gets a session that starts ready, at the version of the
// MCP-Protocol-Version header (the latest if absent). Notifications and
// responses have no session to reach and are acknowledged with 202.
func (h *Handler) serveStateless(w http.ResponseWriter, r *http.Request, msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	opts := &mcp.SessionOptions{}
	if req.Method != "initialize" {
		opts.Preinitialized = true
		opts.ProtocolVersion = headerVersion(r.Header)
	}
	ss := h.server.NewSession(opts)
	stop := context.AfterFunc(h.closed, func() { _ = ss.Close() })
	ctx := context.WithoutCancel(r.Context())
	extra := &mcp.RequestExtra{Header: r.Header}
	if h.opts.JSONResponse {
		resp, err := ss.HandleRequestExtra(ctx, req, jsonModeWriter{}, extra)
		stop()
		_ = ss.Close()
		h.writeJSONReply(w, r, req.ID, resp, err)
		return
	}
	// The stream carries notifications but no server-to-client requests:
	// the client's answer would reach another session.
	st := &stream{h: h}
	st.openInline(w, r)
	resp, err := ss.HandleRequestExtra(ctx, req, st, extra)
	stop()
	_ = ss.Close()
	reply := responseFor(req.ID, resp, err)
	if reply == nil && h.forced.Load() {
		reply = jsonrpc.NewErrorResponse(req.ID, errShuttingDown)
	}
	st.closeInline(ctx, reply)
}
