package mcphttp

import (
	"context"
	"net/http"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// serveSessionless serves one message in stateless mode
// (Options.Stateless): a request gets a fresh Ephemeral session, closed
// once it is answered, ready at the MCP-Protocol-Version header's version
// unless it is initialize; notifications and responses get 202. Such a
// session offers no session-owned tasks (docs/design.md, "Stateless mode
// and tasks").
func (h *Handler) serveSessionless(w http.ResponseWriter, r *http.Request, msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	// Ephemeral: the session ends with this request, so the server offers
	// no tasks owned by it, which no later request could reach (unless
	// TaskOptions.Owner names an owner that outlives sessions).
	opts := mcp.SessionOptions{Ephemeral: true}
	if req.Method != "initialize" {
		opts.Preinitialized = true
		opts.ProtocolVersion = headerVersion(r.Header)
	}
	srv, status, rerr := h.serverFor(r)
	if rerr != nil {
		h.refuse(w, r, status, req.ID, rerr)
		return
	}
	host := srv.Host()
	ss := host.NewSession(opts)
	stop := context.AfterFunc(h.closed, func() { _ = ss.Close() })
	ctx := context.WithoutCancel(r.Context())
	info, _ := h.authOf(r)
	extra := &mcp.RequestExtra{Header: r.Header, Auth: info}
	if h.opts.JSONResponse {
		resp, err := host.HandleRequest(ctx, ss, req, jsonModeWriter{}, extra)
		stop()
		_ = ss.Close()
		h.writeJSONReply(w, r, req.ID, resp, err)
		return
	}
	// The stream carries notifications but no server-to-client requests:
	// the client's answer would reach another session.
	st := &stream{h: h}
	st.openInline(w, r)
	resp, err := host.HandleRequest(ctx, ss, req, st, extra)
	stop()
	_ = ss.Close()
	reply := responseFor(resp, err)
	if reply == nil && h.forced.Load() {
		reply = jsonrpc.NewErrorResponse(req.ID, errShuttingDown)
	}
	st.closeInline(ctx, reply)
}
