package mcphttp

import (
	"bytes"
	"context"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/mcpkit/mcpkit/internal/ctxscope"
	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// metaProtocolVersion is the params._meta key naming a stateless-era
// request's protocol version
// (https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta).
const metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"

// The 2026-07-28 era on the session era's endpoint
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility).

// statelessOf reports whether a POSTed message belongs to the 2026-07-28
// era (docs/eras.md, "How a message is classified"; a notification only
// outside any session), with the version its _meta names.
func (h *Handler) statelessOf(r *http.Request, msg jsonrpc.Message) (v metaVersion, stateless bool) {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		v = scanStateless(m)
		if v.present || m.Method == "server/discover" || m.Method == "subscriptions/listen" {
			return v, true
		}
		// initialize selects the session era whatever the header says
		// (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility).
		return v, m.Method != "initialize" && h.noSession(r) && isStatelessVersion(headerVersion(r.Header))
	case *jsonrpc.Notification:
		return v, h.noSession(r) && (isStatelessMessage(m) || isStatelessVersion(headerVersion(r.Header)))
	}
	return v, false
}

// metaVersion is the protocol version a request's _meta names, and
// whether it names one; when it does, call is what the header checks read
// of tools/call params, found in the same scan.
type metaVersion struct {
	version string
	present bool
	call    toolCall
}

// scanStateless is mcp.StatelessVersionOf(req), reading in the same look
// the tools/call members the header checks need (toolCall), from the
// members jsonrpc.Decode noted when it did.
func scanStateless(req *jsonrpc.Request) (v metaVersion) {
	params := req.Params
	if len(params) == 0 || params[0] != '{' {
		return v
	}
	var meta []byte
	var call toolCall
	member := func(key, value []byte) {
		switch {
		case jsonscan.KeyEquals(key, "_meta"):
			if meta == nil {
				meta = value
			}
		case jsonscan.KeyEquals(key, "name"):
			call.name = value
		case jsonscan.KeyEquals(key, "arguments"):
			call.args = value
		}
	}
	var end int
	var err error
	if n, ok := req.ParamsMembers(); ok {
		for i := range n {
			member(req.ParamsMember(i))
		}
		end = len(params)
	} else {
		end, err = jsonscan.ScanObject(params, 0, member)
	}
	if err != nil || len(meta) == 0 || meta[0] != '{' {
		return v
	}
	jsonscan.Members(meta, func(key, value []byte) bool {
		if jsonscan.KeyEquals(key, metaProtocolVersion) {
			v.version = versionString(value)
			v.present = true
			return false
		}
		return true
	})
	if v.present && jsonscan.SkipSpace(params, end) == len(params) {
		v.call = call
	}
	return v
}

// versionString is jsonscan.StringValue(raw) (empty if raw is not a
// string), without a copy for the versions served.
func versionString(raw []byte) string {
	if len(raw) >= 2 && raw[0] == '"' {
		inner := raw[1 : len(raw)-1]
		for _, v := range servedVersions {
			if string(inner) == v {
				return v
			}
		}
	}
	s, _ := jsonscan.StringValue(raw)
	return s
}

// containsSplit is bytes.Contains(data, head+tail), searching for tail,
// which starts with a byte far rarer in JSON than the '"' head starts
// with, and checking what precedes it.
func containsSplit(data []byte, head string, tail []byte) bool {
	for off := 0; ; {
		i := bytes.Index(data[off:], tail)
		if i < 0 {
			return false
		}
		i += off
		if i >= len(head) && string(data[i-len(head):i]) == head {
			return true
		}
		off = i + 1
	}
}

// noSession reports whether r names no session the handler could serve
// it on: it carries no Mcp-Session-Id, or the handler keeps no sessions.
func (h *Handler) noSession(r *http.Request) bool {
	if h.opts.Stateless {
		return true
	}
	return headerValue(r.Header, headerSessionID) == ""
}

// serveStateless serves a POSTed message of the 2026-07-28 era
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#sending-messages):
// a notification gets 202; a request has its headers checked, then is
// served on the live session it names, if any, else on none, its reply a
// JSON body or an SSE stream. Closing the connection cancels it.
func (h *Handler) serveStateless(w http.ResponseWriter, r *http.Request, msg jsonrpc.Message, v metaVersion) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	srv, status, rerr := h.statelessServer(r) // perrequest.go
	if rerr != nil {
		h.refuse(w, r, status, req.ID, rerr)
		return
	}
	if e := h.checkStatelessHeaders(r, req, v, srv); e != nil {
		h.refuse(w, r, http.StatusBadRequest, req.ID, e)
		return
	}
	streaming := !h.opts.JSONResponse || req.Method == "subscriptions/listen"
	if streaming && !accepts(r.Header, mediaSSE) {
		// Only in JSON response mode, where POST needs only
		// application/json: a listen stream is SSE.
		h.refuse(w, r, http.StatusNotAcceptable, req.ID, errNotAcceptPOST)
		return
	}

	var e *entry
	if !h.opts.Stateless {
		if sid := headerValue(r.Header, headerSessionID); sid != "" {
			_, owner := h.authOf(r)
			if e, ok = h.acquireRequest(w, r, sid, owner, req.ID); !ok {
				return
			}
			// Not held here, or shared: checked against, or rebuilt
			// from, a shared store (shared.go).
			if e, ok = h.sharedStateless(w, r, e, sid, owner, req.ID); !ok {
				return
			}
			// An unknown or expired session is no reason to refuse a
			// request that needs none: it is served on no session.
		}
	}

	// The request ends when the client goes away or the handler is closed
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#cancellation).
	var st *stream
	var related jsonrpc.Writer = jsonModeWriter{}
	mr := &statelessCall{}
	extra := &mr.extra
	if streaming {
		// No server-to-client request travels on the stream: the era
		// asks for input in results instead (input_required).
		st = &stream{h: h, lazy: true}
		extra = &st.extra
		related = st
		mr.st, mr.id = st, req.ID
	}
	mr.listen = req.Method == "subscriptions/listen"
	extra.Header = r.Header
	extra.Auth, _ = h.authOf(r)
	var ctx context.Context
	if streaming {
		cctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		mr.ctx.Context = cctx
		ctx = &mr.ctx
		if mr.listen {
			// A listen stream whose client stops reading is closed, and
			// the request with it.
			st.abort = cancel
		}
		h.stateless.add(h, mr, cancel)
		defer h.stateless.remove(mr)
	} else {
		// A JSON reply ends with its client or with Close (jsonCallCtx).
		mr.jctx = jsonCallCtx{Context: r.Context(), closed: h.closed}
		defer mr.jctx.release()
		ctx = &mr.jctx
	}
	if streaming {
		st.openInline(w, r)
	}
	resp, refused := h.dispatchStateless(ctx, e, srv, req, related, extra)
	if e != nil {
		h.reg.finishRequest(e, req.ID)
	}
	status = http.StatusOK
	if resp != nil {
		status = statelessStatus(resp, refused)
	}
	if !streaming {
		switch {
		case resp == nil:
			// Cancelled by notifications/cancelled on its session.
			w.WriteHeader(http.StatusAccepted)
		case status != http.StatusOK:
			h.refuse(w, r, status, req.ID, resp.Error)
		default:
			h.writeJSON(w, resp)
		}
		return
	}
	if status != http.StatusOK && st.dropUnstarted() {
		h.refuse(w, r, status, req.ID, resp.Error)
		return
	}
	// A stream that has started keeps its 200: the error travels on it.
	st.closeInline(ctx, resp)
}

// dispatchStateless serves req on session e when there is one, and on no
// session of srv otherwise (or when e has just ended).
func (h *Handler) dispatchStateless(ctx context.Context, e *entry, srv *mcp.Server, req *jsonrpc.Request, related jsonrpc.Writer, extra *mcp.RequestExtra) (*jsonrpc.Response, bool) {
	if e != nil {
		resp, refused, err := e.host().ServeStateless(ctx, e.ss, req, related, extra)
		if err == nil { // else mcp.ErrSessionClosed
			return resp, refused
		}
	}
	resp, refused, _ := srv.Host().ServeStateless(ctx, nil, req, related, extra)
	return resp, refused
}

// statelessStatus is the HTTP status of a 2026-07-28 response: 404 for an
// unknown or removed method, 400 for a request refused before its handler
// ran (invalid _meta -32602, unsupported version -32022) and for a missing
// client capability (-32021, which handlers report too), 200 for the rest,
// errors included
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#request-metadata).
func statelessStatus(resp *jsonrpc.Response, refused bool) int {
	if resp.Error == nil {
		return http.StatusOK
	}
	switch resp.Error.Code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeMissingClientCapability, jsonrpc.CodeUnsupportedProtocolVersion, jsonrpc.CodeHeaderMismatch:
		return http.StatusBadRequest
	}
	if refused {
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// statelessCall is what serving a 2026-07-28 request allocates: the
// RequestExtra of a JSON reply (a stream has its own) and the request's
// context.
type statelessCall struct {
	extra mcp.RequestExtra
	ctx   scopedCtx
	// st is the reply stream of request id, if the reply streams; listen
	// marks a subscriptions/listen, which a Shutdown ends at once.
	st     *stream
	id     jsonrpc.ID
	listen bool
	// jctx is the context of a request answered with one JSON body.
	jctx jsonCallCtx
}

// scopedCtx marks a request's context as ended by serveStateless once the
// request is answered (ctxscope), so that package mcp derives no context
// of its own for a request served on no session.
type scopedCtx struct {
	context.Context
}

func (c *scopedCtx) Value(key any) any {
	if _, ok := key.(ctxscope.Key); ok {
		return true
	}
	return c.Context.Value(key)
}

// jsonCallCtx is the context of a 2026-07-28 request answered with one
// JSON body: it ends when the client goes away or the handler is closed,
// like context.WithCancel(r.Context()) in statelessInflight, but makes that
// context only when Done is asked for. It is ctxscope-scoped like
// scopedCtx.
type jsonCallCtx struct {
	context.Context
	closed context.Context
	mu     sync.Mutex
	merged atomic.Pointer[mergedCtx]
}

// mergedCtx is a jsonCallCtx's cancelable context, made on first need.
type mergedCtx struct {
	ctx    context.Context
	cancel context.CancelFunc
	stop   func() bool
}

// merge returns c's cancelable context, making it on first call.
func (c *jsonCallCtx) merge() *mergedCtx {
	if m := c.merged.Load(); m != nil {
		return m
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := c.merged.Load(); m != nil {
		return m
	}
	ctx, cancel := context.WithCancel(c.Context)
	m := &mergedCtx{ctx: ctx, cancel: cancel}
	if c.closed.Err() != nil {
		cancel()
	} else {
		m.stop = context.AfterFunc(c.closed, cancel)
	}
	c.merged.Store(m)
	return m
}

// ended returns c's merged context when c has ended because the handler
// is closed, cancelled already: the AfterFunc that cancels it runs in a
// goroutine of its own, later.
func (c *jsonCallCtx) ended() *mergedCtx {
	select {
	case <-c.closed.Done():
		m := c.merge()
		m.cancel()
		return m
	default:
		return nil
	}
}

func (c *jsonCallCtx) Done() <-chan struct{} {
	if m := c.ended(); m != nil {
		return m.ctx.Done()
	}
	return c.merge().ctx.Done()
}

func (c *jsonCallCtx) Err() error {
	if m := c.ended(); m != nil {
		return m.ctx.Err()
	}
	if m := c.merged.Load(); m != nil {
		return m.ctx.Err()
	}
	return c.Context.Err()
}

func (c *jsonCallCtx) Value(key any) any {
	if _, ok := key.(ctxscope.Key); ok {
		return true
	}
	// Once merged (or once it must be, the handler being closed), the
	// merged context answers, so that context.Cause and the contexts
	// derived from this one see the cancellation that ended it.
	if m := c.ended(); m != nil {
		return m.ctx.Value(key)
	}
	if m := c.merged.Load(); m != nil {
		return m.ctx.Value(key)
	}
	return c.Context.Value(key)
}

// release lets go of the merged context, if one was made: the request is
// answered.
func (c *jsonCallCtx) release() {
	if m := c.merged.Load(); m != nil {
		if m.stop != nil {
			m.stop()
		}
		m.cancel()
	}
}

// statelessInflight holds the cancel functions of the 2026-07-28 requests
// being served, so that Close cancels them (one map entry per request,
// where a context.AfterFunc on h.closed allocated twice).
type statelessInflight struct {
	once    sync.Once
	mu      sync.Mutex
	cancels map[*statelessCall]context.CancelFunc
	closed  bool
}

// add enters a request, or cancels it at once when h is closed.
func (m *statelessInflight) add(h *Handler, key *statelessCall, cancel context.CancelFunc) {
	m.once.Do(func() { context.AfterFunc(h.closed, m.cancelAll) })
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		cancel()
		return
	}
	if m.cancels == nil {
		m.cancels = make(map[*statelessCall]context.CancelFunc)
	}
	m.cancels[key] = cancel
	m.mu.Unlock()
}

// remove forgets a request that has been answered.
func (m *statelessInflight) remove(key *statelessCall) {
	m.mu.Lock()
	delete(m.cancels, key)
	m.mu.Unlock()
}

// cancelAll cancels the requests in flight and those still to come: h is
// closed.
func (m *statelessInflight) cancelAll() {
	m.mu.Lock()
	m.closed = true
	for _, cancel := range m.cancels {
		cancel()
	}
	clear(m.cancels)
	m.mu.Unlock()
}
