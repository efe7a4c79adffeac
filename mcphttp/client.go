package mcphttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/internal/httpmeta"
	"github.com/mcpkit/mcpkit/internal/sse"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// ErrSessionExpired is returned when the server answers 404 to a request
// carrying the session id: the session has ended (deleted, reaped or the
// server restarted) and the client must initialize a new one
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).
var ErrSessionExpired = errors.New("mcphttp: session expired")

// ErrStreamLost is wrapped by the error of a call whose response stream
// ended before the response and could not be resumed: the stream had no
// event id to resume from, the server refused the GET with Last-Event-ID,
// or ClientTransport.MaxReconnects attempts failed. The server may or may
// not have run the request.
var ErrStreamLost = errors.New("mcphttp: the response stream ended before the response")

// ErrNoResponse is wrapped by the error of a call that the server answered
// with a 2xx status but neither a JSON response nor an event stream (a
// 202 Accepted, or an empty body), where the spec requires one of them
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server).
var ErrNoResponse = errors.New("mcphttp: the server answered the request without a response")

// StatusError reports an HTTP response the client transport could not use.
// RPCError holds the JSON-RPC error of the body, when it had one.
type StatusError struct {
	StatusCode int
	RPCError   *jsonrpc.Error
}

func (e *StatusError) Error() string {
	if e.RPCError != nil {
		return fmt.Sprintf("mcphttp: HTTP %d: %v", e.StatusCode, e.RPCError)
	}
	return fmt.Sprintf("mcphttp: HTTP %d", e.StatusCode)
}

// Unwrap returns the JSON-RPC error, so errors.As finds it.
func (e *StatusError) Unwrap() error {
	if e.RPCError == nil {
		return nil
	}
	return e.RPCError
}

// ClientTransport is the client side of Streamable HTTP
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http):
// each message is POSTed to URL and answered with a JSON body or an SSE
// stream. It carries both eras: session-era sessions (Mcp-Session-Id, the
// GET stream, resumption with Last-Event-ID, DELETE on Close) and
// 2026-07-28 requests, each its own POST with the Mcp-* headers
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http).
// A server that speaks only HTTP+SSE (2024-11-05) is reached through
// package mcpsse by itself
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#backwards-compatibility).
// docs/design.md ("The Streamable HTTP client") says how each case is handled.
type ClientTransport struct {
	// URL is the MCP endpoint, such as http://127.0.0.1:8080/mcp.
	URL string
	// HTTPClient sends the requests. If nil, http.DefaultClient.
	HTTPClient *http.Client
	// Header is added to every request (for example Authorization).
	Header http.Header
	// MaxReconnects bounds the attempts to resume one broken SSE stream.
	// If zero, 5; negative disables resumption.
	MaxReconnects int
	// DefaultRetry is the wait before a reconnection when the server sent
	// no retry field. If zero, 1 second.
	DefaultRetry time.Duration
	// MaxRetryWait caps the wait before a reconnection that the server's
	// retry field asks for
	// (https://html.spec.whatwg.org/multipage/server-sent-events.html#concept-event-stream-reconnection-time),
	// so that a server cannot hold a call for days. If zero,
	// DefaultMaxRetryWait (30 seconds).
	MaxRetryWait time.Duration
	// MaxMessageBytes limits one message from the server: a JSON response
	// body, or the data of one SSE event. A JSON body over it fails its
	// call with an error wrapping *mcp.FrameTooLargeError. An event over
	// it is read to its end without being kept, its top-level id found on
	// the way, and its stream goes on (its event id still counts for
	// resumption): Read returns the *mcp.FrameTooLargeError, with which
	// the ClientSession fails the call a response answers at once and
	// answers a request from the server with -32600 at its id; an event
	// without an id to find answers nothing (a POST stream that then ends
	// without the response is resumed or fails its call as usual). If
	// zero, 4 MiB (as the stdio transport); negative means no limit.
	MaxMessageBytes int
	// NoStandaloneStream, if set, never opens the GET stream for
	// server-initiated messages.
	NoStandaloneStream bool
	// Logger receives diagnostics. If nil, nothing is logged.
	Logger *slog.Logger
	// Authorizer, if set, authorizes every request (POST, GET stream,
	// DELETE) and is asked to reauthorize on a 401 or a 403
	// insufficient_scope. If nil, requests carry only
	// Header, and such an answer is a *StatusError.
	Authorizer Authorizer
	// MaxAuthAttempts bounds the reauthorizations of one request
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#scope-challenge-handling).
	// If zero, 3; past it the request fails with an *AuthError
	// (errors.Is ErrUnauthorized).
	MaxAuthAttempts int
}

// Connect implements mcp.Transport. Nothing is sent until the first Write.
func (t *ClientTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	if t.URL == "" {
		return nil, errors.New("mcphttp: ClientTransport.URL is empty")
	}
	c := &clientConn{
		t:        t,
		client:   t.HTTPClient,
		incoming: make(chan inbound, 64),
		closed:   make(chan struct{}),
		logger:   t.Logger,
	}
	if c.client == nil {
		c.client = http.DefaultClient
	}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	c.bg, c.cancel = context.WithCancel(context.WithoutCancel(ctx))
	return c, nil
}

// DefaultMaxRetryWait is the default of ClientTransport.MaxRetryWait.
const DefaultMaxRetryWait = 30 * time.Second

// defaultMaxMessageBytes is ClientTransport.MaxMessageBytes's default.
const defaultMaxMessageBytes = 4 << 20

// inbound is what Read returns next: a frame from the server, or the
// failure of a request the transport lost (a *mcp.RequestFailedError).
type inbound struct {
	frame []byte
	err   error
}

type clientConn struct {
	t        *ClientTransport
	client   *http.Client
	logger   *slog.Logger
	incoming chan inbound

	mu              sync.Mutex
	sessionID       string
	protocolVersion string
	initID          jsonrpc.ID
	getStarted      bool
	// stateless holds the stateless-era requests awaiting their answer, and
	// tools the Mcp-Param headers of the tools the stateless era's
	// tools/list results described (client_stateless.go).
	stateless map[jsonrpc.ID]*statelessRequest
	tools     map[string][]httpmeta.Param
	// legacy is the 2024-11-05 HTTP+SSE connection everything goes
	// through once initialize fell back to it (client_legacy.go).
	legacy mcp.Connection

	bg        context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	closeOnce sync.Once
	closed    chan struct{}
}

// SessionID returns the session id the server assigned, "" before
// initialization or for a stateless server.
func (c *clientConn) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID
}

// Read implements mcp.Connection.
func (c *clientConn) Read(ctx context.Context) ([]byte, error) {
	select {
	case in := <-c.incoming:
		return in.frame, in.err
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// deliver hands a frame from the server to Read, and learns the negotiated
// protocol version from the initialize result.
func (c *clientConn) deliver(frame []byte) bool {
	c.mu.Lock()
	initID := c.initID
	c.mu.Unlock()
	if initID.IsValid() {
		if msg, _, err := jsonrpc.Decode(frame); err == nil {
			if resp, ok := msg.(*jsonrpc.Response); ok && resp.ID == initID && resp.Error == nil {
				var res struct {
					ProtocolVersion string `json:"protocolVersion"`
				}
				if exactjson.Unmarshal(resp.Result, &res) == nil {
					c.mu.Lock()
					c.protocolVersion = res.ProtocolVersion
					c.initID = jsonrpc.ID{}
					c.mu.Unlock()
				}
			}
		}
	}
	return c.send(inbound{frame: frame})
}

// failRequest ends the call waiting for request id with err, after the
// frames delivered before it; it reports false once the connection is
// closed.
func (c *clientConn) failRequest(id jsonrpc.ID, err error) bool {
	return c.send(inbound{err: &mcp.RequestFailedError{ID: id, Err: err}})
}

// send hands in to Read; it reports false once the connection is closed.
func (c *clientConn) send(in inbound) bool {
	select {
	case c.incoming <- in:
		return true
	case <-c.closed:
		return false
	}
}

// isClosed reports whether Close has begun.
func (c *clientConn) isClosed() bool {
	select {
	case <-c.closed:
		return true
	default:
		return false
	}
}

// maxMessage is the limit on one message from the server; 0 means none.
func (c *clientConn) maxMessage() int {
	switch n := c.t.MaxMessageBytes; {
	case n == 0:
		return defaultMaxMessageBytes
	case n < 0:
		return 0
	default:
		return n
	}
}

// readMessage reads a JSON response body of at most maxMessage bytes.
func (c *clientConn) readMessage(body io.Reader) ([]byte, error) {
	max := c.maxMessage()
	if max == 0 {
		return io.ReadAll(body)
	}
	data, err := io.ReadAll(io.LimitReader(body, int64(max)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > max {
		return nil, &mcp.FrameTooLargeError{Limit: max}
	}
	return data, nil
}

// readJSONReply reads and closes the JSON body of resp, the answer to
// method (a request when request is set). An empty body is
// ErrNoResponse for a request.
func (c *clientConn) readJSONReply(resp *http.Response, method string, request bool) ([]byte, error) {
	data, err := c.readMessage(resp.Body)
	resp.Body.Close()
	switch {
	case err != nil && request:
		return nil, fmt.Errorf("mcphttp: reading the response to %s: %w", method, err)
	case err != nil:
		return nil, fmt.Errorf("mcphttp: reading the response: %w", err)
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 && request {
		return nil, fmt.Errorf("%w: %s got HTTP %d with an empty body", ErrNoResponse, method, resp.StatusCode)
	}
	return data, nil
}

// Write implements mcp.Connection: it POSTs one frame.
func (c *clientConn) Write(ctx context.Context, frame []byte) error {
	select {
	case <-c.closed:
		return mcp.ErrConnectionClosed
	default:
	}
	if l := c.legacyConn(); l != nil {
		return l.Write(ctx, frame)
	}
	msg, _, err := jsonrpc.Decode(frame)
	if err != nil {
		return fmt.Errorf("mcphttp: refusing to send an invalid message: %w", err)
	}
	var reqID jsonrpc.ID
	method := ""
	isInitialized := false
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if version, ok := mcp.StatelessVersionOf(m); ok {
			return c.writeStateless(ctx, m, version, frame) // client_stateless.go
		}
		reqID, method = m.ID, m.Method
		if m.Method == "initialize" {
			c.mu.Lock()
			c.initID = m.ID
			c.mu.Unlock()
		}
	case *jsonrpc.Notification:
		if m.Method == "notifications/cancelled" && c.cancelStateless(m.Params) {
			// The stateless era cancels by closing the request's
			// stream, which cancelStateless did.
			return nil
		}
		isInitialized = m.Method == "notifications/initialized"
	}
	body := bytes.Clone(frame)
	req, err := c.newRequest(ctx, http.MethodPost, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := c.do(req)
	if err != nil {
		return postFailed(c.t.URL, err)
	}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		c.mu.Lock()
		if c.sessionID == "" {
			c.sessionID = sid
		}
		c.mu.Unlock()
	}
	if err := c.checkStatus(resp); err != nil {
		if method == "initialize" {
			return c.fallBack(ctx, err, frame) // client_legacy.go
		}
		return err
	}
	if isInitialized {
		c.startStandalone(ctx)
	}
	// The body is read by its Content-Type whatever the 2xx status: some
	// servers answer a request with 202 Accepted and an event stream.
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case mediaType == mediaSSE:
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			c.readStream(resp, reqID)
		}()
		return nil
	case mediaType == mediaJSON:
		data, err := c.readJSONReply(resp, method, reqID.IsValid())
		if len(data) > 0 {
			c.deliver(data)
		}
		return err
	case !reqID.IsValid():
		// A notification or a response: 202 Accepted is the answer.
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		return nil
	default:
		return noReply(resp, method)
	}
}

// noReply closes resp, which answered the request method with neither
// JSON nor a stream, and returns the error saying so.
func noReply(resp *http.Response, method string) error {
	resp.Body.Close()
	if resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent {
		return fmt.Errorf("%w: %s got HTTP %d", ErrNoResponse, method, resp.StatusCode)
	}
	return fmt.Errorf("mcphttp: unexpected response Content-Type %q", resp.Header.Get("Content-Type"))
}

// newRequest builds a request with the session and version headers.
func (c *clientConn) newRequest(ctx context.Context, method string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.t.URL, body)
	if err != nil {
		return nil, fmt.Errorf("mcphttp: %w", err)
	}
	for k, vs := range c.t.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	c.mu.Lock()
	sid, version := c.sessionID, c.protocolVersion
	c.mu.Unlock()
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	if version != "" {
		req.Header.Set("MCP-Protocol-Version", version)
	}
	return req, nil
}

// postFailed is the error of a POST to endpoint that got no response.
// A *url.Error names the method and the URL already.
func postFailed(endpoint string, err error) error {
	if _, ok := errors.AsType[*url.Error](err); ok {
		return fmt.Errorf("mcphttp: %w", err)
	}
	return fmt.Errorf("mcphttp: POST %s: %w", endpoint, err)
}

// checkStatus turns an unusable response into an error, closing its body.
func (c *clientConn) checkStatus(resp *http.Response) error {
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	se := &StatusError{StatusCode: resp.StatusCode}
	if msg, _, err := jsonrpc.Decode(data); err == nil {
		if r, ok := msg.(*jsonrpc.Response); ok && r.Error != nil {
			se.RPCError = r.Error
		}
	}
	c.mu.Lock()
	hadSession := c.sessionID != ""
	c.mu.Unlock()
	if resp.StatusCode == http.StatusNotFound && hadSession {
		return fmt.Errorf("%w: %w", ErrSessionExpired, se)
	}
	return se
}

// standaloneWait bounds how long the end of initialization waits for the
// GET stream to be answered; a server that holds the GET's headers back
// gets no longer than this.
const standaloneWait = 2 * time.Second

// startStandalone opens the GET stream once, after initialization, and
// waits until the server has answered it (or refused it), at most
// standaloneWait: a message the server sends outside any request as soon
// as the client is ready (list_changed, roots/list) then has a stream to
// travel on.
func (c *clientConn) startStandalone(ctx context.Context) {
	if c.t.NoStandaloneStream {
		return
	}
	c.mu.Lock()
	if c.getStarted || c.sessionID == "" {
		c.mu.Unlock()
		return
	}
	c.getStarted = true
	c.mu.Unlock()
	answered := make(chan struct{})
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.standaloneLoop(answered)
	}()
	t := time.NewTimer(standaloneWait)
	defer t.Stop()
	select {
	case <-answered:
	case <-t.C:
	case <-ctx.Done():
	case <-c.bg.Done():
	}
}

// standaloneLoop keeps the GET stream open, resuming it after a drop. A
// 405 means the server offers no such stream.
func (c *clientConn) standaloneLoop(answered chan struct{}) {
	var once sync.Once
	signal := func() { once.Do(func() { close(answered) }) }
	defer signal()
	lastID := ""
	var retry time.Duration
	failures := 0
	for {
		resp, err := c.get(lastID)
		signal()
		if err != nil {
			if c.bg.Err() != nil {
				return
			}
			failures++
		} else if resp.StatusCode == http.StatusMethodNotAllowed || resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusBadRequest {
			resp.Body.Close()
			return
		} else if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			failures++
		} else {
			st := c.consume(resp.Body, jsonrpc.ID{}, c.deliver, c.passTooLarge)
			resp.Body.Close()
			if st.events > 0 {
				failures = 0
			} else {
				// A stream that ends without an event is no better
				// than a refused one: it is not reopened for ever.
				failures++
			}
			if st.lastID != "" {
				lastID = st.lastID
			}
			if st.retry > 0 {
				retry = st.retry
			}
		}
		if c.isClosed() {
			return
		}
		if c.t.MaxReconnects < 0 || failures > c.maxReconnects() {
			c.logger.Warn("mcphttp: standalone GET stream lost; server-initiated messages outside requests will not arrive", "failures", failures, "err", err)
			return
		}
		if !c.wait(retry) {
			return
		}
	}
}

func (c *clientConn) maxReconnects() int {
	if c.t.MaxReconnects == 0 {
		return 5
	}
	return c.t.MaxReconnects
}

// wait sleeps for the reconnection delay (the server's retry d, at most
// MaxRetryWait), or returns false on Close.
func (c *clientConn) wait(d time.Duration) bool {
	if d <= 0 {
		d = c.t.DefaultRetry
		if d <= 0 {
			d = time.Second
		}
	}
	max := c.t.MaxRetryWait
	if max <= 0 {
		max = DefaultMaxRetryWait
	}
	d = min(d, max)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.bg.Done():
		return false
	}
}

// get opens a GET stream, resuming after lastID when set.
func (c *clientConn) get(lastID string) (*http.Response, error) {
	req, err := c.newRequest(c.bg, http.MethodGet, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	return c.do(req)
}

// readStream reads a POST's SSE stream. If it breaks before the response
// to reqID arrived, it resumes with GET and Last-Event-ID, at most
// MaxReconnects times; when it cannot, the request fails with
// ErrStreamLost, so that its call never waits for ever
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery).
func (c *clientConn) readStream(resp *http.Response, reqID jsonrpc.ID) {
	st := c.consume(resp.Body, reqID, c.deliver, c.passTooLarge)
	resp.Body.Close()
	if !reqID.IsValid() || st.answered || c.isClosed() {
		return
	}
	if err := c.resume(reqID, st); err != nil && !c.isClosed() {
		c.failRequest(reqID, err)
	}
}

// resume resumes the stream of request reqID after it broke with st, and
// returns nil once the response has been delivered (or on Close), or
// why the request is lost: MaxReconnects attempts in a row failed or
// brought no new event.
func (c *clientConn) resume(reqID jsonrpc.ID, st streamState) error {
	switch {
	case st.lastID == "":
		return fmt.Errorf("%w, and it had no event id to resume it with", ErrStreamLost)
	case c.t.MaxReconnects < 0:
		return fmt.Errorf("%w, and resumption is disabled", ErrStreamLost)
	}
	var lastErr error
	for attempt := 1; attempt <= c.maxReconnects(); attempt++ {
		if !c.wait(st.retry) {
			return nil
		}
		r, err := c.get(st.lastID)
		if err != nil {
			if c.isClosed() {
				return nil
			}
			lastErr = err
			continue
		}
		switch {
		case r.StatusCode >= 500 || r.StatusCode == http.StatusTooManyRequests:
			// The server is restarting or busy: try again.
			lastErr = c.checkStatus(r)
			continue
		case r.StatusCode != http.StatusOK:
			return fmt.Errorf("%w, and the server refused to resume it: %w", ErrStreamLost, c.checkStatus(r))
		}
		next := c.consume(r.Body, reqID, c.deliver, c.passTooLarge)
		r.Body.Close()
		if next.answered || c.isClosed() {
			return nil
		}
		if next.lastID != "" && next.lastID != st.lastID {
			// The stream moved on (a long request reporting
			// progress): the attempts count afresh.
			st.lastID = next.lastID
			attempt = 0
		}
		if next.retry > 0 {
			st.retry = next.retry
		}
		lastErr = nil
	}
	if lastErr != nil {
		return fmt.Errorf("%w, and %d attempts to resume it failed: %w", ErrStreamLost, c.maxReconnects(), lastErr)
	}
	return fmt.Errorf("%w, and %d attempts in a row to resume it ended without it", ErrStreamLost, c.maxReconnects())
}

// streamState is what reading an SSE stream learned.
type streamState struct {
	lastID   string
	retry    time.Duration
	answered bool
	// events counts the events dispatched (with data or an id).
	events int
}

// consume reads SSE events (https://html.spec.whatwg.org/multipage/server-sent-events.html)
// and hands each message event's data to deliver, and the
// *mcp.FrameTooLargeError of each message event over the message limit
// (internal/sse skips it and finds its id) to tooLarge, if not nil. It
// stops at the end of the stream, or once the response to reqID (if
// valid) has been delivered or was over the limit (st.answered).
func (c *clientConn) consume(body io.Reader, reqID jsonrpc.ID, deliver func([]byte) bool, tooLarge func(*mcp.FrameTooLargeError) bool) (st streamState) {
	r := sse.NewReader(body, c.maxMessage())
	defer func() { st.lastID, st.retry = r.LastID, r.Retry }()
	for {
		ev, err := r.Next()
		big, isBig := errors.AsType[*mcp.FrameTooLargeError](err)
		if err != nil && !isBig {
			return st
		}
		if ev.ID != "" || ev.HasData {
			st.events++
		}
		if !ev.HasData || (ev.Name != "" && ev.Name != "message") {
			continue
		}
		if isBig {
			if tooLarge != nil && !tooLarge(big) {
				return st
			}
			if reqID.IsValid() && big.ID == reqID && !big.Request {
				st.answered = true
				return st
			}
			continue
		}
		if len(bytes.TrimSpace(ev.Data)) == 0 {
			continue
		}
		if !deliver(ev.Data) {
			return st
		}
		if reqID.IsValid() && isResponseTo(ev.Data, reqID) {
			st.answered = true
			return st
		}
	}
}

// passTooLarge hands a message over the limit, skipped, to Read: the
// ClientSession fails the call a response answers and answers a request
// at its id. It reports false once the connection is closed.
func (c *clientConn) passTooLarge(err *mcp.FrameTooLargeError) bool {
	return c.send(inbound{err: err})
}

func isResponseTo(frame []byte, id jsonrpc.ID) bool {
	msg, _, err := jsonrpc.Decode(frame)
	if err != nil {
		return false
	}
	resp, ok := msg.(*jsonrpc.Response)
	return ok && resp.ID == id
}

// Close implements mcp.Connection: it DELETEs the session (best effort)
// and stops every stream.
func (c *clientConn) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		sid := c.sessionID
		c.mu.Unlock()
		if sid != "" {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(c.bg), 5*time.Second)
			if req, err := c.newRequest(ctx, http.MethodDelete, nil); err == nil {
				if resp, err := c.doOnce(req); err == nil {
					io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
					resp.Body.Close()
				}
			}
			cancel()
		}
		close(c.closed)
		c.cancel()
		c.closeLegacy()
		c.wg.Wait()
	})
	return nil
}

// sessionIDer lets callers find the session id behind an mcp.Connection.
type sessionIDer interface{ SessionID() string }

// SessionID returns the Streamable HTTP session id of a connection made by
// ClientTransport, or "".
func SessionID(conn mcp.Connection) string {
	if s, ok := conn.(sessionIDer); ok {
		return s.SessionID()
	}
	return ""
}
