package mcphttp

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// serveBatch serves a JSON array body. Only protocol version 2025-03-26
// had JSON-RPC batches
// (https://modelcontextprotocol.io/specification/2025-03-26/basic/transports#sending-messages-to-the-server),
// so an array is refused unless it comes on a session that negotiated that
// version, and one holding initialize is always refused.
func (h *Handler) serveBatch(w http.ResponseWriter, r *http.Request, body []byte) {
	sid := headerValue(r.Header, headerSessionID)
	if h.opts.Stateless || sid == "" {
		h.refuse(w, r, http.StatusBadRequest, jsonrpc.ID{}, errNotSingle)
		return
	}
	e := h.acquireShared(w, r, sid) // shared.go
	if e == nil {
		return
	}
	released := false
	release := func() {
		if !released {
			released = true
			h.reg.release(e)
		}
	}
	defer release()
	if e.ss.ProtocolVersion() != "2025-03-26" {
		h.refuse(w, r, http.StatusBadRequest, jsonrpc.ID{}, errNotSingle)
		return
	}
	msgs, errs, err := jsonrpc.DecodeBatch(body)
	if err != nil {
		h.refuse(w, r, http.StatusBadRequest, jsonrpc.ID{}, err.(*jsonrpc.Error))
		return
	}
	if limit := h.opts.MaxBatchLength; limit > 0 && len(msgs) > limit {
		h.refuse(w, r, http.StatusBadRequest, jsonrpc.ID{}, errBatchTooLong(len(msgs), limit))
		return
	}
	for _, m := range msgs {
		if isInitialize(m) {
			h.refuse(w, r, http.StatusBadRequest, jsonrpc.ID{}, errBatchInit)
			return
		}
	}
	for _, m := range msgs {
		// A request lacking a scope refuses the whole batch, before any of
		// it is served.
		if req, ok := m.(*jsonrpc.Request); ok && !h.checkScopes(w, r, req) {
			return
		}
	}
	ctx := context.WithoutCancel(r.Context())
	var reqs []*jsonrpc.Request
	var early []*jsonrpc.Response
	var busErr error // the first message the bus could not publish
	for i, m := range msgs {
		if errs[i] != nil {
			early = append(early, jsonrpc.NewErrorResponse(jsonrpc.ID{}, errs[i].(*jsonrpc.Error)))
			continue
		}
		switch m := m.(type) {
		case *jsonrpc.Notification:
			e.host().Deliver(ctx, e.ss, m, h.notificationExtra(r))
			if err := h.routeNotification(ctx, e, m); busErr == nil { // shared_routing.go
				busErr = err
			}
		case *jsonrpc.Response:
			if !e.host().Deliver(ctx, e.ss, m, nil) {
				if err := h.routeResponse(ctx, e, m); busErr == nil {
					busErr = err
				}
			}
		case *jsonrpc.Request:
			if !h.reg.beginRequest(e, m.ID) {
				early = append(early, jsonrpc.NewErrorResponse(m.ID, errDuplicateID(m.ID)))
				continue
			}
			reqs = append(reqs, m)
		}
	}
	if len(reqs) == 0 && len(early) == 0 {
		if busErr != nil {
			// Nothing else to answer: the client sends the batch again.
			h.refuseBus(w, r, busErr)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	info, _ := h.authOf(r)
	extra := &mcp.RequestExtra{Header: r.Header, Auth: info}
	if h.opts.JSONResponse {
		resps := h.runBatch(ctx, e, reqs, jsonModeWriter{}, extra, nil)
		h.writeBatchJSON(w, append(early, resps...))
		return
	}
	st := h.newStream(e, true)
	att := st.open(ctx, w, r, e.ss.ProtocolVersion(), false, true)
	for _, resp := range early {
		_ = st.WriteMessage(ctx, resp)
	}
	released = true // the goroutine releases e
	h.reg.wg.Add(1)
	go func() {
		defer h.reg.wg.Done()
		h.runBatch(ctx, e, reqs, st, extra, st)
		st.finish(ctx, nil)
		h.reg.dropStream(e, st)
		h.reg.release(e)
	}()
	h.pump(r, st, att, e.ss.Done())
}

func isInitialize(m jsonrpc.Message) bool {
	switch m := m.(type) {
	case *jsonrpc.Request:
		return m.Method == "initialize"
	case *jsonrpc.Notification:
		return m.Method == "initialize"
	}
	return false
}

// runBatch serves the requests of a batch concurrently, at most
// MaxBatchConcurrency at once, taken in the batch's order. With out set
// each response is written to it as it comes; otherwise they are returned
// in the order of the requests.
func (h *Handler) runBatch(ctx context.Context, e *entry, reqs []*jsonrpc.Request, related jsonrpc.Writer, extra *mcp.RequestExtra, out *stream) []*jsonrpc.Response {
	resps := make([]*jsonrpc.Response, len(reqs))
	workers := len(reqs)
	if n := h.opts.MaxBatchConcurrency; n > 0 && n < workers {
		workers = n
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(reqs) {
					return
				}
				req := reqs[i]
				resp, err := e.host().HandleRequest(ctx, e.ss, req, related, extra)
				resp = responseFor(resp, err)
				h.reg.endRequest(e, req.ID)
				if out != nil && resp != nil {
					_ = out.WriteMessage(ctx, resp)
					continue
				}
				resps[i] = resp
			}
		})
	}
	wg.Wait()
	var kept []*jsonrpc.Response
	for _, r := range resps {
		if r != nil {
			kept = append(kept, r)
		}
	}
	return kept
}

// writeBatchJSON answers a batch with a JSON array of responses, or 202
// when there is none.
func (h *Handler) writeBatchJSON(w http.ResponseWriter, resps []*jsonrpc.Response) {
	if len(resps) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	body := []byte{'['}
	for i, resp := range resps {
		if i > 0 {
			body = append(body, ',')
		}
		var err error
		if body, err = jsonrpc.AppendEncode(body, resp); err != nil {
			h.logger.Error("mcphttp: encoding a response", "err", err)
			return
		}
	}
	body = append(body, ']')
	hdr := w.Header()
	hdr.Set("Content-Type", mediaJSON)
	hdr.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}
