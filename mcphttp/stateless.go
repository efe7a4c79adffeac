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

// This file serves the 2026-07-28 era on the same endpoint as the session
// era (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility):
// a request that carries the era's _meta is served on its own, with no
// session created and no Mcp-Session-Id minted or echoed, after its
// request metadata headers are checked against its body
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http).
// Everything else keeps the session era's behaviour.

// statelessOf reports whether a POSTed message belongs to the 2026-07-28 era:
// a request whose params._meta names a protocol version, a request for
// server/discover or subscriptions/listen (which exist only in that era),
// or, outside any session, a message other than initialize whose
// MCP-Protocol-Version header names a version of that era. A
// notification is of the stateless era only outside any session: on a
// session it keeps reaching the session. The version the _meta names, if
// it names one, comes with the answer.
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

// scanStateless is mcp.StatelessVersionOf(req) (the first _meta
// member that is an object, its first protocol version member), reading
// the members of tools/call params that the header checks need (toolCall)
// in the same look. It reads the members of params jsonrpc.Decode noted
// (jsonrpc.Request.ParamsMembers) when it noted them, so that a
// session-era request, which never names a version, costs a look at the
// names of params and at the members of its _meta.
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

// serveStateless serves a POSTed message of the 2026-07-28 era. A
// notification is acknowledged with 202: the era defines none over HTTP
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#sending-messages).
// A request's headers are checked first (400 and -32020 when they disagree
// with the body); then it is served, on the live session it names if any
// (its own requests table then holds it), otherwise on no session at all.
// The reply is a JSON body or an SSE stream as Options.JSONResponse says,
// except that subscriptions/listen always streams; refusals are plain
// JSON with the status the era gives them (statelessStatus). Closing the
// connection cancels the request, as does Close.
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
			var evicted *entry
			var dup bool
			_, owner := h.authOf(r)
			e, evicted, dup = h.reg.acquireRequest(sid, owner, req.ID)
			switch {
			case evicted != nil:
				h.closeEntry(evicted)
			case dup:
				h.refuse(w, r, http.StatusConflict, req.ID, errDuplicateID(req.ID))
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

	// The request ends when the client goes away, which is how a client
	// of this era cancels it
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#cancellation),
	// or when the handler is closed.
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
		// A JSON reply has no stream for Shutdown to end: the request
		// needs only to end with its client or with Close, which
		// jsonCallCtx does without a context or a table entry of its own
		// unless its handler waits on Done.
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
// JSON body: it ends when the client goes away (its Context, the
// request's) or when the handler is closed (closed), as
// context.WithCancel(r.Context()) entered in statelessInflight would, but
// the cancelable context that merges the two is made only when someone
// asks for Done (a handler that waits, or a context derived from this
// one), so that a handler that never waits costs no allocation and no
// lock for it. Like scopedCtx it is ctxscope-scoped: it ends once the
// request is answered.
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
