package mcphttp

import (
	"context"
	"net/http"
	"strconv"

	"github.com/mcpkit/mcpkit/internal/httpguard"
	"github.com/mcpkit/mcpkit/internal/sessquota"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// initialize serves an initialize POSTed without Mcp-Session-Id. The
// session is created first and registered only if initialize succeeds;
// only then does the response carry Mcp-Session-Id
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).
// A failed initialize leaves no trace.
func (h *Handler) initialize(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) {
	srv, status, rerr := h.serverFor(r) // perrequest.go
	if rerr != nil {
		h.refuse(w, r, status, req.ID, rerr)
		return
	}
	_, owner := h.authOf(r)
	qkey, qmax, qkind := h.quotas.Key(r, owner)
	ok, quota, retryAfter, reclaimed := h.reg.reserve(qkey, qmax)
	for _, e := range reclaimed {
		h.closeEntry(e)
	}
	if !ok {
		w.Header().Set("Retry-After", strconv.Itoa(sessquota.RetrySeconds(retryAfter)))
		if quota {
			h.refuse(w, r, http.StatusTooManyRequests, req.ID, sessquota.Refusal(qkind, qmax))
			return
		}
		h.refuse(w, r, http.StatusServiceUnavailable, req.ID, httpguard.CapReached(h.opts.MaxSessions))
		return
	}
	id := h.newID()
	if !validSessionID(id) {
		h.reg.unreserve(qkey)
		h.logger.Error("mcphttp: Options.SessionID returned an id that is empty or not visible ASCII")
		h.refuse(w, r, http.StatusInternalServerError, req.ID, errInternal)
		return
	}
	host := srv.Host()
	ss := host.NewSession(mcp.SessionOptions{ID: id, Owner: owner, TransportStores: true})
	ctx := context.WithoutCancel(r.Context())
	var col collector
	info, _ := h.authOf(r)
	resp, err := host.HandleRequest(ctx, ss, req, &col, &mcp.RequestExtra{Header: r.Header, Auth: info})
	if err != nil || resp == nil || resp.Error != nil {
		h.reg.unreserve(qkey)
		_ = ss.Close()
		if err != nil || resp == nil {
			// A fresh session neither holds a duplicate id nor can have
			// been cancelled; this cannot happen.
			h.logger.Error("mcphttp: initialize produced no response", "err", err)
			h.refuse(w, r, http.StatusInternalServerError, req.ID, errInternal)
			return
		}
		h.writeUnregistered(w, resp, col.take())
		return
	}
	if !h.createInStore(w, r, ss, req.ID) { // shared.go
		h.reg.unreserve(qkey)
		_ = ss.Close()
		return
	}
	shared := srv.Host().Store.Shared()
	if shared && h.getServer != nil {
		h.routeServer(srv) // shared_routing.go
	}
	e, closed := h.reg.commit(id, ss, owner, shared, qkey)
	if e == nil {
		h.deleteFromStore(&entry{id: id, ss: ss, owner: owner})
		_ = ss.Close()
		if closed {
			h.refuse(w, r, http.StatusServiceUnavailable, req.ID, httpguard.ErrClosed)
			return
		}
		h.logger.Error("mcphttp: Options.SessionID returned an id already in use")
		h.refuse(w, r, http.StatusInternalServerError, req.ID, errInternal)
		return
	}
	defer h.reg.release(e)
	h.shareStandalone(e) // shared_streams.go
	w.Header().Set(headerSessionID, id)
	msgs := col.take()
	if h.opts.JSONResponse || h.opts.JSONReplyWithin > 0 && h.opts.EventStore != nil && len(msgs) == 0 {
		// Ready at once and nothing sent before it: with
		// JSONReplyWithin, a JSON body, and nothing stored (jsonreply.go).
		h.writeJSON(w, resp)
		return
	}
	st := h.newStream(e, false)
	st.open(ctx, w, r, ss.ProtocolVersion(), false, false)
	for _, m := range msgs {
		_ = st.WriteMessage(ctx, m)
	}
	st.finish(ctx, resp)
}

// writeUnregistered answers a failed initialize: the error response (and
// any notification sent before it) with no session and no event ids.
func (h *Handler) writeUnregistered(w http.ResponseWriter, resp *jsonrpc.Response, msgs []jsonrpc.Message) {
	if h.opts.JSONResponse {
		h.writeJSON(w, resp)
		return
	}
	st := &stream{h: h}
	ctx := context.Background()
	st.open(ctx, w, nil, "", false, false)
	for _, m := range msgs {
		_ = st.WriteMessage(ctx, m)
	}
	st.finish(ctx, resp)
}

// validSessionID reports whether id is non-empty visible ASCII, as the
// spec requires of session ids.
func validSessionID(id string) bool {
	if id == "" {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return false
		}
	}
	return true
}
