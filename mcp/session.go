package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/internal/jsonenc"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// A ServerSession is one client's session with a Server
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle):
// a state machine (new → initialized → ready → closed) plus the runtime
// that serves it. Server.Connect creates one per Connection; package
// mcphttp creates one per Mcp-Session-Id. An idle session holds no goroutine.
type ServerSession struct {
	server *Server

	mu       sync.Mutex
	state    SessionState
	inflight inflightTable
	// standalone receives messages that are not related to any request
	// (list_changed, resource updates, requests outside a handler); nil
	// drops them.
	standalone messageWriter
	closed     bool
	done       chan struct{}
	// onClose are the functions OnClose registered, run by Close
	// (session_onclose.go); under mu.
	onClose []func()

	// loopDone and loopErr belong to a session served by Server.Connect.
	loopDone chan struct{}
	loopErr  error

	calls outgoing

	// notices queues notifications for a standalone writer that waits for
	// its client (notify_async.go).
	notices noticeQueue

	// taskOwner is the random key that owns the tasks of a session without
	// an id (task_session.go); guarded by mu.
	taskOwner string
	// ephemeral is SessionOptions.Ephemeral.
	ephemeral bool
	// transportStores is SessionOptions.TransportStores.
	transportStores bool
	// leaveBroadcast ends this session's hold on the server's broadcast
	// bus subscription (broadcast_bus.go); guarded by mu.
	leaveBroadcast func()
}

// inflightRequest is a request being handled, kept so that
// notifications/cancelled can stop it.
type inflightRequest struct {
	// cancel stops the request, unless lc is set: a server's request on a
	// session keeps its lazy context, whose cancel as a func value would
	// be an allocation of its own.
	cancel    context.CancelFunc
	lc        *lazyCancelCtx
	cancelled bool
	// initialize is never cancelled by the client
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation#behavior-requirements).
	initialize bool
	// The handler's Request shares this allocation.
	req Request
}

// stop cancels the request.
func (in *inflightRequest) stop() {
	if in.lc != nil {
		in.lc.cancel()
		return
	}
	in.cancel()
}

// inflightTable holds a session's requests in flight by id, integer and
// string ids in separate maps (docs/design.md, "Sessions").
type inflightTable struct {
	num map[int64]*inflightRequest
	str map[string]*inflightRequest
}

// get returns the request in flight with id.
func (t *inflightTable) get(id jsonrpc.ID) (*inflightRequest, bool) {
	if n, ok := id.Int64(); ok {
		in, found := t.num[n]
		return in, found
	}
	if s, ok := id.Str(); ok {
		in, found := t.str[s]
		return in, found
	}
	return nil, false
}

// put enters in under id, a valid id.
func (t *inflightTable) put(id jsonrpc.ID, in *inflightRequest) {
	if n, ok := id.Int64(); ok {
		if t.num == nil {
			t.num = make(map[int64]*inflightRequest)
		}
		t.num[n] = in
		return
	}
	s, _ := id.Str()
	if t.str == nil {
		t.str = make(map[string]*inflightRequest)
	}
	t.str[s] = in
}

// remove forgets the request with id.
func (t *inflightTable) remove(id jsonrpc.ID) {
	if n, ok := id.Int64(); ok {
		delete(t.num, n)
	} else if s, ok := id.Str(); ok {
		delete(t.str, s)
	}
}

// len returns the number of requests in flight.
func (t *inflightTable) len() int { return len(t.num) + len(t.str) }

// cancelAll cancels every request in flight.
func (t *inflightTable) cancelAll() {
	for _, in := range t.num {
		in.stop()
	}
	for _, in := range t.str {
		in.stop()
	}
}

// newSession creates a session for a transport to drive (Host.NewSession),
// registered with the server (it receives list_changed) until Close.
func (s *Server) newSession(opts SessionOptions) *ServerSession {
	now := time.Now()
	ss := &ServerSession{
		server:          s,
		standalone:      opts.Standalone,
		ephemeral:       opts.Ephemeral,
		transportStores: opts.TransportStores,
		done:            make(chan struct{}),
		state: SessionState{
			ID:        opts.ID,
			Owner:     opts.Owner,
			Lifecycle: stateNew,
			CreatedAt: now, LastActive: now,
		},
	}
	if st := opts.Restore; st != nil {
		ss.state = *copyState(*st)
		ss.state.ID, ss.state.Owner = opts.ID, opts.Owner
	}
	if opts.ID != "" && s.store.Shared() {
		// Replicas serve this session side by side: its server-to-client
		// request ids must not collide across them (bus.go).
		ss.calls.nextID = sharedIDStart()
	}
	if opts.Preinitialized {
		ss.state.Lifecycle = stateReady
		ss.state.ProtocolVersion = opts.ProtocolVersion
		if ss.state.ProtocolVersion == "" {
			ss.state.ProtocolVersion = LatestVersion
		}
	}
	s.addSession(ss)
	return ss
}

// ID returns the session id, empty for stream transports that have none.
func (ss *ServerSession) ID() string { return ss.state.ID }

// Server returns the server the session belongs to.
func (ss *ServerSession) Server() *Server { return ss.server }

// State returns a copy of the session's protocol state.
func (ss *ServerSession) State() SessionState {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	st := ss.state
	st.Subscriptions = append([]string(nil), st.Subscriptions...)
	return st
}

// ProtocolVersion returns the negotiated protocol version, or "" before
// initialization.
func (ss *ServerSession) ProtocolVersion() string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.state.ProtocolVersion
}

// setStandalone sets where messages unrelated to any request go (for
// Streamable HTTP, the GET stream). A nil w drops them.
func (ss *ServerSession) setStandalone(w messageWriter) {
	ss.mu.Lock()
	ss.standalone = w
	ss.mu.Unlock()
}

// Done is closed when the session closes; it is nil for the session of a
// 2026-07-28 request served outside any session (see Close).
func (ss *ServerSession) Done() <-chan struct{} { return ss.done }

// Close ends the session: handlers in flight see their contexts cancelled,
// server-to-client requests waiting for answers fail with ErrSessionClosed,
// and the server forgets the session. Close is idempotent. Closing the
// session of a 2026-07-28 request served outside any session only marks it
// closed.
func (ss *ServerSession) Close() error {
	ss.mu.Lock()
	if ss.closed {
		ss.mu.Unlock()
		return nil
	}
	ss.closed = true
	ss.state.Lifecycle = stateClosed
	ss.inflight.cancelAll()
	ss.mu.Unlock()
	ss.calls.closeAll()
	ss.server.removeSession(ss)
	if ss.done != nil {
		close(ss.done)
	}
	ss.server.endSessionTasks(ss) // task_bounds.go
	ss.runOnClose()               // session_onclose.go
	return nil
}

// handleRequest serves one request and returns its response
// (Host.HandleRequest). Messages the handler sends meanwhile go to related
// in order (nil: the standalone writer). The response is nil for a request
// cancelled by notifications/cancelled, which must not be answered; the
// error is ErrSessionClosed. Safe for concurrent use.
func (ss *ServerSession) handleRequest(ctx context.Context, req *jsonrpc.Request, related messageWriter, extra *RequestExtra) (*jsonrpc.Response, error) {
	if mayBeStateless(req) { // era_stateless.go
		if resp, served, err := ss.serveIfStateless(ctx, req, related, extra); served {
			return resp, err
		}
	}
	// ping is answered at any time, without bookkeeping.
	if req.Method == "ping" && ss.server.handler == nil {
		return &jsonrpc.Response{ID: req.ID, Result: emptyObject}, nil
	}
	ss.mu.Lock()
	if err := ss.admitLocked(req.ID); err != nil {
		ss.mu.Unlock()
		return admitRefusal(req.ID, err) // limits.go
	}
	lifecycle := ss.state.Lifecycle
	if lifecycle == stateNew && req.Method != "initialize" && req.Method != "ping" {
		ss.mu.Unlock()
		return jsonrpc.NewErrorResponse(req.ID, errInvalidRequest("Server not initialized")), nil
	}
	if req.Method == "initialize" && lifecycle != stateNew {
		ss.mu.Unlock()
		return jsonrpc.NewErrorResponse(req.ID, errInvalidRequest("Server already initialized")), nil
	}
	c := &sessionCall{in: inflightRequest{initialize: req.Method == "initialize"}}
	in := &c.in
	if related != nil {
		c.rctx = relatedCtx{Context: ctx, w: related}
		ctx = &c.rctx
	}
	c.lc.Context = ctx
	ctx = &c.lc
	in.lc = &c.lc
	ss.addInflightLocked(req.ID, in)
	r := &in.req
	*r = Request{
		Method:             req.Method,
		ID:                 req.ID,
		Params:             req.Params,
		Session:            ss,
		ProtocolVersion:    ss.state.ProtocolVersion,
		ClientInfo:         &ss.state.ClientInfo,
		ClientCapabilities: &ss.state.ClientCapabilities,
		Extra:              extra,
		related:            related,
		era:                newSessionEra(),
	}
	ss.mu.Unlock()

	result, err := ss.server.dispatch(ctx, r)

	cancelled := ss.retireInflight(req.ID, in)
	c.lc.cancel()
	if cancelled {
		return nil, nil
	}
	return ss.server.makeResponse(req.ID, result, err), nil
}

// sessionCall is a session-era request in flight, in one allocation with
// its lazily cancelable context and the context carrying its related
// writer.
type sessionCall struct {
	in   inflightRequest
	rctx relatedCtx
	lc   lazyCancelCtx
}

// lazyCancelCtx is context.WithCancel(Context) for a request served on a
// session, made only when someone asks for Done (docs/design.md).
type lazyCancelCtx struct {
	context.Context
	cancelled atomic.Bool
	mu        sync.Mutex
	merged    atomic.Pointer[cancelPair]
}

// cancelPair is a lazyCancelCtx's cancelable context, once made.
type cancelPair struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// merge returns c's cancelable context, making it on first call
// (cancelled already if c is).
func (c *lazyCancelCtx) merge() *cancelPair {
	if m := c.merged.Load(); m != nil {
		return m
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := c.merged.Load(); m != nil {
		return m
	}
	ctx, cancel := context.WithCancel(c.Context)
	m := &cancelPair{ctx: ctx, cancel: cancel}
	if c.cancelled.Load() {
		cancel()
	}
	c.merged.Store(m)
	return m
}

// cancel is c's context.CancelFunc.
func (c *lazyCancelCtx) cancel() {
	c.mu.Lock()
	c.cancelled.Store(true)
	m := c.merged.Load()
	c.mu.Unlock()
	if m != nil {
		m.cancel()
	}
}

func (c *lazyCancelCtx) Done() <-chan struct{} { return c.merge().ctx.Done() }

func (c *lazyCancelCtx) Err() error {
	if m := c.merged.Load(); m != nil {
		return m.ctx.Err()
	}
	if c.cancelled.Load() {
		return context.Canceled
	}
	return c.Context.Err()
}

func (c *lazyCancelCtx) Value(key any) any {
	// Once cancelled or merged, the merged context answers, so that
	// context.Cause and the contexts derived from this one see it.
	if m := c.merged.Load(); m != nil {
		return m.ctx.Value(key)
	}
	if c.cancelled.Load() {
		return c.merge().ctx.Value(key)
	}
	return c.Context.Value(key)
}

// admitLocked refuses a request the session cannot take in flight: closed
// (ErrSessionClosed), duplicate id (-32600) or MaxInFlightRequests reached
// (a *jsonrpc.Error to send). Called with ss.mu held, for both eras.
func (ss *ServerSession) admitLocked(id jsonrpc.ID) error {
	if ss.closed {
		return ErrSessionClosed
	}
	if _, dup := ss.inflight.get(id); dup {
		return errInvalidRequest("a request with id " + id.String() + " is already in flight")
	}
	if limit := ss.server.opts.MaxInFlightRequests; limit > 0 && ss.inflight.len() >= limit {
		return errTooManyInFlight(limit)
	}
	return nil
}

// addInflightLocked records a request as in flight, so that
// notifications/cancelled and Close reach it. It is called with ss.mu
// held.
func (ss *ServerSession) addInflightLocked(id jsonrpc.ID, in *inflightRequest) {
	ss.inflight.put(id, in)
}

// retireInflight forgets a request once its handler has returned, and
// reports whether notifications/cancelled cancelled it (it is then not
// answered).
func (ss *ServerSession) retireInflight(id jsonrpc.ID, in *inflightRequest) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.inflight.remove(id)
	return in.cancelled
}

// relatedKey carries, in a handler's context, the writer for messages
// related to the request being handled.
type relatedKey struct{}

// relatedCtx is context.WithValue(ctx, relatedKey{}, w) without an
// allocation of its own: it lives in the sessionCall.
type relatedCtx struct {
	context.Context
	w messageWriter
}

func (c *relatedCtx) Value(key any) any {
	if _, ok := key.(relatedKey); ok {
		return c.w
	}
	return c.Context.Value(key)
}

var emptyObject = json.RawMessage("{}")

// handleNotification processes one notification from the client; before
// initialize is answered, and when unknown, they are ignored. extra (may be
// nil) becomes Request.Extra.
func (ss *ServerSession) handleNotification(ctx context.Context, n *jsonrpc.Notification, extra *RequestExtra) {
	ss.mu.Lock()
	lifecycle := ss.state.Lifecycle
	if lifecycle == stateNew && n.Method == "notifications/cancelled" {
		// Stateless-era requests need no initialize, and on stdio this
		// is how they (and listen streams) are cancelled
		// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation).
		ss.cancelInflight(n.Params)
		ss.mu.Unlock()
		return
	}
	if lifecycle == stateNew || lifecycle == stateClosed {
		ss.mu.Unlock()
		return
	}
	ready := false
	switch n.Method {
	case "notifications/initialized":
		if lifecycle != stateInitialized {
			// A repeated notifications/initialized changes nothing.
			ss.mu.Unlock()
			return
		}
		ss.state.Lifecycle = stateReady
		ready = true
	case "notifications/cancelled":
		ss.cancelInflight(n.Params)
		// Then on to the middleware, like any notification.
	}
	r := &Request{
		Method:             n.Method,
		Params:             n.Params,
		Session:            ss,
		ProtocolVersion:    ss.state.ProtocolVersion,
		ClientInfo:         &ss.state.ClientInfo,
		ClientCapabilities: &ss.state.ClientCapabilities,
		Extra:              extra,
		era:                newSessionEra(),
	}
	ss.mu.Unlock()
	if ready {
		ss.update(ctx, func(st *SessionState) {
			if st.Lifecycle == stateInitialized {
				st.Lifecycle = stateReady
			}
		})
	}
	// notifications/initialized goes on to InitializedHandler and the
	// middleware like any other notification.
	ss.server.dispatchNotification(ctx, r)
}

// cancelInflight cancels the in-flight request notifications/cancelled
// names, except initialize. It is called with ss.mu held.
func (ss *ServerSession) cancelInflight(params json.RawMessage) {
	var p cancelledParams
	if exactjson.Unmarshal(params, &p) == nil && p.RequestID.IsValid() {
		if in, ok := ss.inflight.get(p.RequestID); ok && !in.initialize {
			in.cancelled = true
			in.stop()
		}
	}
}

// handleResponse delivers the client's answer to a server-to-client
// request; one matching no pending request is ignored and reported false.
func (ss *ServerSession) handleResponse(_ context.Context, resp *jsonrpc.Response) bool {
	return ss.calls.deliver(resp)
}

// update applies fn, a change already made here, to the state in the
// SessionStore (keeping other replicas' changes) and brings the result
// back. A failure is logged.
func (ss *ServerSession) update(ctx context.Context, fn func(*SessionState)) {
	if ss.state.ID == "" {
		return
	}
	defer recoverCallback(ss.server.logger, "SessionStore.Update", "") // recover.go
	st, err := ss.server.store.Update(ctx, ss.state.Owner, ss.state.ID, func(st *SessionState) error {
		fn(st)
		return nil
	})
	if err != nil {
		ss.server.logger.Error("mcp: recording session state", "session", ss.state.ID, "err", err)
		return
	}
	ss.syncState(st)
}

// create records the session, just initialized, in the server's
// SessionStore, unless its transport does (TransportStores). A failure is
// logged.
func (ss *ServerSession) create(ctx context.Context) {
	if ss.state.ID == "" || ss.transportStores {
		return
	}
	st := ss.State()
	defer recoverCallback(ss.server.logger, "SessionStore.Create", "") // recover.go
	if err := ss.server.store.Create(ctx, &st); err != nil {
		ss.server.logger.Error("mcp: recording a new session", "session", st.ID, "err", err)
	}
}

// syncState is Host.SyncState: st's protocol state becomes the session's;
// a closed session stays closed.
func (ss *ServerSession) syncState(st *SessionState) {
	if st == nil {
		return
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.state.Lifecycle == stateClosed {
		return
	}
	ss.state.ProtocolVersion = st.ProtocolVersion
	ss.state.ClientInfo = st.ClientInfo
	ss.state.ClientCapabilities = st.ClientCapabilities
	ss.state.Lifecycle = st.Lifecycle
	ss.state.LogLevel = st.LogLevel
	if !slices.Equal(ss.state.Subscriptions, st.Subscriptions) {
		ss.state.Subscriptions = append([]string(nil), st.Subscriptions...)
	}
	ss.state.LastActive = st.LastActive
}

// Notify sends a notification to the client: on the stream of the request
// being handled when ctx comes from a handler, otherwise on the standalone
// stream.
func (ss *ServerSession) Notify(ctx context.Context, method string, params any) error {
	w, _ := ctx.Value(relatedKey{}).(messageWriter)
	return ss.notifyRelated(ctx, w, method, params)
}

func (ss *ServerSession) notifyRelated(ctx context.Context, w messageWriter, method string, params any) error {
	raw, err := jsonenc.Marshal(params)
	if err != nil {
		return fmt.Errorf("mcp: encoding %s params: %w", method, err)
	}
	if w == nil {
		ss.mu.Lock()
		w = ss.standalone
		ss.mu.Unlock()
		if w == nil {
			return nil
		}
	}
	return ss.sendNotification(ctx, w, method, raw) // send.go
}

// Call sends a request to the client and decodes its result into result
// (which may be nil), on the stream of the request being handled when ctx
// comes from a handler. Except for ping, nothing is sent before
// notifications/initialized (ErrNotReady). If ctx ends first, the request
// is cancelled with notifications/cancelled. Stateless-era handlers use
// Request.Input instead.
func (ss *ServerSession) Call(ctx context.Context, method string, params, result any) error {
	if err := mayCallClient(ctx, method); err != nil {
		return err
	}
	ss.mu.Lock()
	lifecycle := ss.state.Lifecycle
	ss.mu.Unlock()
	if lifecycle == stateClosed {
		return ErrSessionClosed
	}
	if lifecycle != stateReady && method != "ping" {
		return ErrNotReady
	}
	w, _ := ctx.Value(relatedKey{}).(messageWriter)
	if w == nil {
		ss.mu.Lock()
		w = ss.standalone
		ss.mu.Unlock()
		if w == nil {
			return fmt.Errorf("mcp: %s: no stream to the client is open", method)
		}
	}
	var raw json.RawMessage
	if params != nil {
		var err error
		if raw, err = jsonenc.Marshal(params); err != nil {
			return fmt.Errorf("mcp: encoding %s params: %w", method, err)
		}
	}
	res, err := ss.call(ctx, w, method, raw) // send.go
	if err != nil {
		return err
	}
	return decodeResult(method, res, result) // client_session.go
}

// Ping checks that the client is alive.
func (ss *ServerSession) Ping(ctx context.Context) error {
	return ss.Call(ctx, "ping", nil, nil)
}

func mustMarshal(v any) json.RawMessage {
	b, err := jsonenc.Marshal(v)
	if err != nil {
		panic(err) // only called with types that always encode
	}
	return b
}

// handlerError is the error of a feature's handler as a request's answer:
// a *jsonrpc.Error wrapped in it unwrapped, so that it is sent as it is,
// any other error unchanged.
func handlerError(err error) error {
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return rpcErr
	}
	return err
}

// makeResponse turns a handler's outcome into the response to send. A
// result whose encoding panics (a MarshalJSON of the handler's) is -32603,
// as a panic in the handler is.
func (s *Server) makeResponse(id jsonrpc.ID, result any, err error) (resp *jsonrpc.Response) {
	defer func() {
		if recovered(recover(), s.logger, "result encoding", "") { // recover.go
			resp = jsonrpc.NewErrorResponse(id, errInternal())
		}
	}()
	if err != nil {
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) {
			return jsonrpc.NewErrorResponse(id, rpcErr)
		}
		return jsonrpc.NewErrorResponse(id, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()})
	}
	if result == nil {
		return &jsonrpc.Response{ID: id, Result: emptyObject}
	}
	if raw, ok := result.(json.RawMessage); ok {
		return &jsonrpc.Response{ID: id, Result: raw}
	}
	if raw := cachedListEncoding(result); raw != nil {
		return jsonrpc.NewCompactResult(id, raw) // list.go
	}
	var raw []byte
	var mErr error
	fast := false
	switch r := result.(type) {
	case *CallToolResult:
		if r != nil {
			raw, mErr = r.MarshalJSON() // without reflection (content.go)
			fast = true
		}
	case *ReadResourceResult:
		if r != nil {
			raw, fast = r.appendFast(&s.texts, nil) // resource_encode.go
		}
	case *GetPromptResult:
		if r != nil {
			raw, fast = r.appendFast(nil) // prompt_encode.go
		}
	}
	if !fast {
		raw, mErr = jsonenc.Marshal(result)
	}
	if mErr != nil {
		s.logger.Error("mcp: encoding result", "err", mErr)
		return jsonrpc.NewErrorResponse(id, errInternal())
	}
	// Marshal and the hand encoders (which fall back to it for raw
	// members they cannot copy as they are) write valid, compact JSON.
	return jsonrpc.NewCompactResult(id, raw)
}

// discardLogger is the logger used when ServerOptions.Logger is nil: the
// library never prints on its own.
var discardLogger = slog.New(slog.DiscardHandler)
