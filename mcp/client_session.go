package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"sync"
	"sync/atomic"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/internal/jsonenc"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// A ClientSession is one started connection from a Client to a server,
// in either era (see Stateless). Its methods send requests and wait for
// their answers; what the server sends goes to the ClientOptions handlers
// and callbacks. It is safe for concurrent use; Close it when done.
type ClientSession struct {
	client *Client
	conn   Connection
	w      *connWriter

	// ctx is the session's lifetime: cancelled when the read loop ends or
	// the session is closed.
	ctx    context.Context
	cancel context.CancelFunc

	calls outgoing

	// stateless is set when the session speaks the stateless era
	// (client_era_stateless.go); era() reads it.
	stateless atomic.Pointer[clientStatelessEra]

	mu         sync.Mutex
	initResult *InitializeResult
	level      LoggingLevel                 // set by SetLogLevel in the stateless era
	subs       map[jsonrpc.ID]*Subscription // open subscriptions/listen streams (client_listen.go)
	// inflight holds the server's requests being handled, so that
	// notifications/cancelled can stop them.
	inflight map[jsonrpc.ID]*inflightRequest
	// handlers counts the goroutines answering server requests; only the
	// read loop adds to it.
	handlers sync.WaitGroup
	// listens counts the goroutines of open subscriptions; Listen adds to
	// it under mu, and not once the session is closing.
	listens      sync.WaitGroup
	progress     progressWatchers // client_timeout.go
	elicitations urlElicitations  // client_elicitation.go

	closing   atomic.Bool
	closeOnce sync.Once
	closeErr  error
	loopDone  chan struct{}
	loopErr   error
	// onClose are the functions OnClose registered, run when the read
	// loop ends (session_onclose.go); onCloseMu guards them and ended.
	onCloseMu sync.Mutex
	onClose   []func()
	ended     bool
}

func newClientSession(ctx context.Context, c *Client, conn Connection) *ClientSession {
	cs := &ClientSession{
		client:   c,
		conn:     conn,
		w:        &connWriter{conn: conn},
		loopDone: make(chan struct{}),
	}
	// The session outlives the ctx given to Connect but keeps its values.
	cs.ctx, cs.cancel = context.WithCancel(context.WithoutCancel(ctx))
	return cs
}

// initializeResult returns what the server answered to initialize; nil
// on a stateless-era session.
func (cs *ClientSession) initializeResult() *InitializeResult {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.initResult
}

// Client returns the client the session belongs to.
func (cs *ClientSession) Client() *Client { return cs.client }

// ProtocolVersion returns the protocol version the session speaks: the one
// initialize negotiated, or the stateless-era version its requests carry.
func (cs *ClientSession) ProtocolVersion() string { return cs.era().hello(cs).version }

// ServerInfo returns the server's identity, from initialize or
// server/discover; nil if the server gave none.
func (cs *ClientSession) ServerInfo() *Implementation {
	if info := cs.era().hello(cs).info; info != nil {
		c := *info
		return &c
	}
	return nil
}

// ServerCapabilities returns the capabilities the server declared in
// initialize or server/discover.
func (cs *ClientSession) ServerCapabilities() *ServerCapabilities {
	return cs.era().hello(cs).capabilities
}

// Instructions returns the instructions the server gave in initialize or
// server/discover.
func (cs *ClientSession) Instructions() string { return cs.era().hello(cs).instructions }

// Discover calls server/discover again on a stateless-era session and
// returns the server's current versions, capabilities and instructions
// (https://modelcontextprotocol.io/specification/2026-07-28/server/discover).
// ServerCapabilities and Instructions then report what it said. On a
// session-era session it returns ErrWrongEra.
func (cs *ClientSession) Discover(ctx context.Context) (*DiscoverResult, error) {
	return cs.era().discover(ctx, cs)
}

// Close closes the connection and waits for the read loop, the handlers
// of the server's requests and the open subscriptions to finish; waiting
// calls fail with ErrSessionClosed. Every call returns the error of
// closing the connection.
func (cs *ClientSession) Close() error {
	cs.closeOnce.Do(func() {
		// Under mu, so that no Listen starts a subscription once Close
		// waits for them.
		cs.mu.Lock()
		cs.closing.Store(true)
		cs.mu.Unlock()
		cs.closeErr = cs.conn.Close()
		cs.cancel()
	})
	<-cs.loopDone
	cs.listens.Wait()
	return cs.closeErr
}

// Wait waits for the session to end, by Close or because the server closed
// the connection, and returns why: nil for Close or a clean end of input,
// otherwise the error that ended the read loop.
func (cs *ClientSession) Wait() error {
	<-cs.loopDone
	return cs.loopErr
}

// Done is closed when the session has ended.
func (cs *ClientSession) Done() <-chan struct{} { return cs.loopDone }

// Call sends a request and decodes its result into result (nil discards
// it, a *json.RawMessage keeps it raw). params may be nil, a
// json.RawMessage sent as it is, or any value that encodes as an object.
// A server's error is returned as a *jsonrpc.Error. If ctx ends first, the
// request is cancelled
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation)
// and ctx.Err() returned; if the session ends first, the error wraps
// ErrSessionClosed.
func (cs *ClientSession) Call(ctx context.Context, method string, params, result any) error {
	raw, err := encodeParams(params)
	if err != nil {
		return fmt.Errorf("mcp: encoding %s params: %w", method, err)
	}
	res, err := cs.era().call(ctx, cs, method, raw) // client_era*.go
	if err != nil {
		return err
	}
	return decodeResult(method, res, result)
}

// decodeResult decodes res, the result of a request for method that
// either side sent with Call, into result, unless result is nil.
func decodeResult(method string, res json.RawMessage, result any) error {
	if result == nil {
		return nil
	}
	if err := exactjson.Unmarshal(res, result); err != nil {
		return fmt.Errorf("mcp: decoding %s result: %w", method, err)
	}
	return nil
}

// send passes request or notification m through the client's
// SendingMiddleware, if any, to the connection (sendFromClient, send.go).
func (cs *ClientSession) send(ctx context.Context, m *SentMessage) (json.RawMessage, error) {
	if h := cs.client.send; h != nil {
		return h(ctx, m)
	}
	return sendFromClient(ctx, m)
}

// endedErr is the error of a call on a session whose read loop has ended.
func (cs *ClientSession) endedErr() error {
	select {
	case <-cs.loopDone:
		if cs.loopErr != nil {
			return fmt.Errorf("%w: %w", ErrSessionClosed, cs.loopErr)
		}
	default:
	}
	return ErrSessionClosed
}

// encodeParams turns a Call's params into the raw params member.
func encodeParams(params any) (json.RawMessage, error) {
	switch p := params.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return p, nil
	}
	return jsonenc.Marshal(params)
}

// notify sends a notification to the server.
func (cs *ClientSession) notify(ctx context.Context, method string, params any) error {
	raw, err := encodeParams(params)
	if err != nil {
		return fmt.Errorf("mcp: encoding %s params: %w", method, err)
	}
	return cs.sendNotification(ctx, method, raw) // send.go
}

// Ping checks that the server is alive
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping);
// in the stateless era, which has no ping, with server/discover.
func (cs *ClientSession) Ping(ctx context.Context) error {
	return cs.Call(ctx, cs.era().pingMethod(), nil, nil)
}

// ListTools returns one page of the server's tools, the first for nil
// params
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#listing-tools).
func (cs *ClientSession) ListTools(ctx context.Context, params *PaginatedParams) (*ListToolsResult, error) {
	return callList[ListToolsResult](ctx, cs, "tools/list", params)
}

// Tools iterates over the server's tools, page after page from
// params.Cursor; an error ends the iteration after being yielded once.
func (cs *ClientSession) Tools(ctx context.Context, params *PaginatedParams) iter.Seq2[*Tool, error] {
	return paginate(ctx, cs, "tools/list", params, (*ListToolsResult).pageOf)
}

// CallTool calls a tool on the server
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#calling-tools).
// A tool's own failure is a result with IsError set; the error is for
// protocol failures.
func (cs *ClientSession) CallTool(ctx context.Context, params *CallToolParams) (*CallToolResult, error) {
	if params == nil {
		return nil, errors.New("mcp: CallTool: params with the tool's name are required")
	}
	if params.Task != nil {
		return nil, errors.New("mcp: CallTool: params.Task is set: use CallToolAsTask, whose answer is a CreateTaskResult")
	}
	return call[CallToolResult](ctx, cs, "tools/call", params)
}

// readLoop reads and dispatches what the server sends until the connection
// ends.
func (cs *ClientSession) readLoop() {
	defer close(cs.loopDone)
	defer cs.runOnClose() // session_onclose.go: before Done, Close and Wait
	for {
		frame, err := cs.conn.Read(cs.ctx)
		if err != nil {
			// A failed request may wrap a *FrameTooLargeError: it is
			// looked for first.
			var failed *RequestFailedError
			if errors.As(err, &failed) {
				if !cs.calls.fail(failed.ID, failed.Err) {
					cs.client.logger.Debug("mcp: client: lost request no call waits for", "id", failed.ID.String(), "err", failed.Err)
				}
				continue
			}
			var tooLarge *FrameTooLargeError
			if errors.As(err, &tooLarge) {
				// A response the transport found the id of fails its
				// call at once; a request is answered with the error.
				cs.client.logger.Warn("mcp: client: message from server dropped", "id", tooLarge.ID.String(), "err", err)
				switch id := tooLarge.ID; {
				case id.IsValid() && tooLarge.Request:
					cs.reply(cs.ctx, jsonrpc.NewErrorResponse(id, errFrameTooLarge(tooLarge.Limit)))
				case id.IsValid():
					cs.calls.fail(id, tooLarge)
				}
				continue
			}
			if !errors.Is(err, io.EOF) && !cs.closing.Load() {
				cs.loopErr = err
			}
			break
		}
		cs.handleFrame(frame)
	}
	cs.calls.closeAll()
	cs.cancel()
	cs.handlers.Wait()
}

// handleFrame decodes one frame, a message or (from a 2025-03-26 peer) a
// batch, and dispatches its messages.
func (cs *ClientSession) handleFrame(frame []byte) {
	if jsonrpc.IsBatch(frame) {
		msgs, errs, err := jsonrpc.DecodeBatch(frame)
		if err != nil {
			cs.client.logger.Warn("mcp: client: undecodable batch from server", "err", err)
			return
		}
		for i, m := range msgs {
			if errs[i] != nil {
				cs.client.logger.Warn("mcp: client: undecodable message from server", "err", errs[i])
				continue
			}
			cs.handleMessage(m)
		}
		return
	}
	msg, id, err := jsonrpc.Decode(frame)
	if err != nil {
		cs.client.logger.Warn("mcp: client: undecodable message from server", "err", err)
		cs.refuse(frame, msg, id, err)
		return
	}
	cs.handleMessage(msg)
}

// refuse answers a message from the server that jsonrpc.Decode refused: a
// response (one that repeats a member name, even in its envelope) fails
// the call it answers, so the caller gets the reason at once, and is not
// answered; a request gets the error response.
func (cs *ClientSession) refuse(frame []byte, msg jsonrpc.Message, id jsonrpc.ID, err error) {
	var rpcErr *jsonrpc.Error
	if msg == nil {
		if rid, ok := refusedResponse(frame); ok {
			cs.calls.fail(rid, refusedError("server", err))
			return
		}
	}
	switch m := msg.(type) {
	case *jsonrpc.Response:
		cs.calls.fail(m.ID, refusedError("server", err))
	case *jsonrpc.Notification:
	default:
		if id.IsValid() && errors.As(err, &rpcErr) {
			cs.reply(cs.ctx, jsonrpc.NewErrorResponse(id, rpcErr))
		}
	}
}

func (cs *ClientSession) handleMessage(msg jsonrpc.Message) {
	switch m := msg.(type) {
	case *jsonrpc.Response:
		if !cs.calls.deliver(m) {
			cs.client.logger.Debug("mcp: client: response to no pending request", "id", m.ID.String())
		}
	case *jsonrpc.Notification:
		cs.handleNotification(m)
	case *jsonrpc.Request:
		cs.handleRequest(m)
	}
}

// handleRequest answers a request from the server: ping on the read loop,
// other methods on their own goroutine.
func (cs *ClientSession) handleRequest(req *jsonrpc.Request) {
	h, ok := cs.client.methods[req.Method]
	if !ok && cs.client.receive == nil {
		cs.reply(cs.ctx, jsonrpc.NewErrorResponse(req.ID, errMethodNotFound(req.Method)))
		return
	}
	if req.Method == "ping" {
		cs.reply(cs.ctx, cs.runHandler(cs.ctx, h, req))
		return
	}
	cs.mu.Lock()
	if _, dup := cs.inflight[req.ID]; dup {
		cs.mu.Unlock()
		cs.reply(cs.ctx, jsonrpc.NewErrorResponse(req.ID, errInvalidRequest("a request with id "+req.ID.String()+" is already in flight")))
		return
	}
	ctx, cancel := context.WithCancel(cs.ctx)
	in := &inflightRequest{cancel: cancel}
	if cs.inflight == nil {
		cs.inflight = make(map[jsonrpc.ID]*inflightRequest)
	}
	cs.inflight[req.ID] = in
	cs.mu.Unlock()

	cs.handlers.Add(1)
	go func() {
		defer cs.handlers.Done()
		resp := cs.runHandler(ctx, h, req)
		cs.mu.Lock()
		delete(cs.inflight, req.ID)
		cancelled := in.cancelled
		cs.mu.Unlock()
		cancel()
		if !cancelled {
			// The spec forbids answering a cancelled request.
			cs.reply(cs.ctx, resp)
		}
	}()
}

// runHandler runs h and makes its response, turning a panic into -32603.
func (cs *ClientSession) runHandler(ctx context.Context, h clientMethodHandler, req *jsonrpc.Request) (resp *jsonrpc.Response) {
	defer func() {
		if recovered(recover(), cs.client.logger, "client: handler", req.Method) { // recover.go
			resp = jsonrpc.NewErrorResponse(req.ID, errInternal())
		}
	}()
	result, err := cs.client.handle(ctx, cs, req, h) // middleware.go
	if err != nil {
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) {
			return jsonrpc.NewErrorResponse(req.ID, rpcErr)
		}
		return jsonrpc.NewErrorResponse(req.ID, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()})
	}
	if result == nil {
		return &jsonrpc.Response{ID: req.ID, Result: emptyObject}
	}
	raw, err := encodeParams(result)
	if err != nil {
		cs.client.logger.Error("mcp: client: encoding result", "method", req.Method, "err", err)
		return jsonrpc.NewErrorResponse(req.ID, errInternal())
	}
	return &jsonrpc.Response{ID: req.ID, Result: raw}
}

func (cs *ClientSession) reply(ctx context.Context, resp *jsonrpc.Response) {
	if err := cs.w.WriteMessage(ctx, resp); err != nil {
		cs.client.logger.Debug("mcp: client: response not delivered", "id", resp.ID.String(), "err", err)
	}
}

// deliverNotification passes a notification to the client's callbacks,
// on the read loop, in order, after the middleware (handleNotification in
// middleware.go).
func (cs *ClientSession) deliverNotification(n *jsonrpc.Notification) {
	opts := &cs.client.opts
	if !cs.routeSubscription(n) { // client_listen.go
		return
	}
	switch n.Method {
	case "notifications/cancelled":
		var p cancelledParams
		if exactjson.Unmarshal(n.Params, &p) == nil && p.RequestID.IsValid() {
			cs.mu.Lock()
			in, ok := cs.inflight[p.RequestID]
			if ok {
				in.cancelled = true
				in.cancel()
			}
			cs.mu.Unlock()
			if !ok {
				cs.endSubscription(p.RequestID) // client_listen.go
			}
		}
	case "notifications/progress":
		var p ProgressParams
		if cs.decodeNotification(n, &p) {
			cs.progress.seen(p.ProgressToken) // client_timeout.go
			notifyWith(cs, n, opts.ProgressHandler, &p)
		}
	case "notifications/message":
		decodeAndNotify(cs, n, opts.LoggingMessageHandler)
	case "notifications/tasks/status":
		decodeAndNotify(cs, n, opts.TaskStatusHandler)
	case "notifications/elicitation/complete":
		cs.elicitationComplete(n) // client_elicitation.go
	case "notifications/tools/list_changed":
		notifyChanged(cs, n, opts.ToolListChangedHandler)
	case "notifications/resources/list_changed":
		notifyChanged(cs, n, opts.ResourceListChangedHandler)
	case "notifications/resources/updated":
		decodeAndNotify(cs, n, opts.ResourceUpdatedHandler)
	case "notifications/prompts/list_changed":
		notifyChanged(cs, n, opts.PromptListChangedHandler)
	}
	if opts.NotificationHandler != nil {
		cs.callback(n.Method, func() { opts.NotificationHandler(cs.ctx, cs, n) })
	}
}

// decodeAndNotify decodes n's params as a P and passes them to h, if h is
// set.
func decodeAndNotify[P any](cs *ClientSession, n *jsonrpc.Notification, h func(context.Context, *ClientSession, *P)) {
	if h == nil {
		return
	}
	var p P
	if cs.decodeNotification(n, &p) {
		notifyWith(cs, n, h, &p)
	}
}

// notifyWith passes p to h, if h is set.
func notifyWith[P any](cs *ClientSession, n *jsonrpc.Notification, h func(context.Context, *ClientSession, *P), p *P) {
	if h != nil {
		cs.callback(n.Method, func() { h(cs.ctx, cs, p) })
	}
}

// notifyChanged calls h, if set, for a list_changed notification.
func notifyChanged(cs *ClientSession, n *jsonrpc.Notification, h func(context.Context, *ClientSession)) {
	if h != nil {
		cs.callback(n.Method, func() { h(cs.ctx, cs) })
	}
}

func (cs *ClientSession) decodeNotification(n *jsonrpc.Notification, v any) bool {
	if err := exactjson.Unmarshal(n.Params, v); err != nil {
		cs.client.logger.Warn("mcp: client: undecodable notification params", "method", n.Method, "err", err)
		return false
	}
	return true
}

// callback runs a user callback; a panic in it is logged and does not end
// the session.
func (cs *ClientSession) callback(method string, f func()) {
	defer recoverCallback(cs.client.logger, "client: notification handler", method) // recover.go
	f()
}
