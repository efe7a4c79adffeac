package mcpsse

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
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpkit/mcpkit/internal/sse"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// ErrStreamDropped ends a client session whose SSE stream ended while it
// was open: every call still waiting fails with an error wrapping
// mcp.ErrSessionClosed and ErrStreamDropped, and the session is over, as
// the stream was the session
// (https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse).
var ErrStreamDropped = errors.New("mcpsse: the server's SSE stream ended")

// ErrNoEndpoint is wrapped by the error of Connect when the server's
// stream did not announce a usable endpoint: it ended first, sent none
// within EndpointTimeout, or sent one on another origin.
var ErrNoEndpoint = errors.New("mcpsse: no endpoint event")

// StatusError reports an HTTP status the client transport could not use.
// RPCError holds the JSON-RPC error of the body, when it had one.
type StatusError struct {
	Method     string // GET or POST
	StatusCode int
	RPCError   *jsonrpc.Error
}

func (e *StatusError) Error() string {
	if e.RPCError != nil {
		return fmt.Sprintf("mcpsse: %s: HTTP %d: %v", e.Method, e.StatusCode, e.RPCError)
	}
	return fmt.Sprintf("mcpsse: %s: HTTP %d", e.Method, e.StatusCode)
}

// Unwrap returns the JSON-RPC error, so errors.As finds it.
func (e *StatusError) Unwrap() error {
	if e.RPCError == nil {
		return nil
	}
	return e.RPCError
}

// DefaultEndpointTimeout is the default of ClientTransport.EndpointTimeout.
const DefaultEndpointTimeout = 10 * time.Second

// defaultMaxMessageBytes is ClientTransport.MaxMessageBytes's default.
const defaultMaxMessageBytes = 4 << 20

// ClientTransport is the client side of the 2024-11-05 HTTP+SSE transport
// (https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse).
// Connect opens the GET stream and waits for its endpoint event; the
// endpoint URL is resolved against URL and must be on the same origin
// (scheme, host and port), so that a server cannot send the client's
// messages, and its headers, elsewhere. Each message is then POSTed to
// the endpoint, and the server's messages are read from the stream. The
// stream is the session: when it ends, Read fails with ErrStreamDropped,
// which ends the mcp.ClientSession and every call waiting on it.
type ClientTransport struct {
	// URL is the SSE endpoint, such as http://127.0.0.1:8080/sse.
	URL string
	// HTTPClient sends the requests. It must not set a Timeout, which
	// would cut the stream. If nil, http.DefaultClient.
	HTTPClient *http.Client
	// Header is added to every request (for example Authorization).
	Header http.Header
	// EndpointTimeout bounds the wait for the endpoint event after the GET
	// is sent; past it Connect fails with an error wrapping ErrNoEndpoint.
	// If zero, 10 seconds.
	EndpointTimeout time.Duration
	// MaxMessageBytes limits one message from the server (the data of
	// one event). A larger event is read to its end without being kept,
	// its top-level id found on the way, and the stream goes on: Read
	// returns a *mcp.FrameTooLargeError carrying the id, with which the
	// ClientSession fails the call a response answers at once (its error
	// wraps the *mcp.FrameTooLargeError) and answers a request from the
	// server with -32600 at its id; an event without an id to find
	// answers nothing, and the call it may have answered waits for its
	// RequestTimeout, as over stdio. An endpoint event over the limit
	// fails Connect with ErrNoEndpoint. If zero, 4 MiB (as the stdio
	// transport); if negative, no limit.
	MaxMessageBytes int
	// Logger receives diagnostics. If nil, nothing is logged.
	Logger *slog.Logger
}

// Connect implements mcp.Transport: it opens the stream and returns once
// the endpoint is known.
func (t *ClientTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	if t.URL == "" {
		return nil, errors.New("mcpsse: ClientTransport.URL is empty")
	}
	base, err := url.Parse(t.URL)
	if err != nil {
		return nil, fmt.Errorf("mcpsse: %w", err)
	}
	c := &clientConn{
		t:        t,
		client:   t.HTTPClient,
		incoming: make(chan inbound, 64),
		pending:  make(map[jsonrpc.ID]struct{}),
		closed:   make(chan struct{}),
		readDone: make(chan struct{}),
	}
	if c.client == nil {
		c.client = http.DefaultClient
	}
	c.max = t.MaxMessageBytes
	if c.max == 0 {
		c.max = defaultMaxMessageBytes
	}
	c.bg, c.cancel = context.WithCancel(context.WithoutCancel(ctx))
	// Ending ctx or the timer before the endpoint arrives cancels the GET.
	wait := t.EndpointTimeout
	if wait <= 0 {
		wait = DefaultEndpointTimeout
	}
	var timedOut atomic.Bool
	timer := time.AfterFunc(wait, func() {
		timedOut.Store(true)
		c.cancel()
	})
	stop := context.AfterFunc(ctx, c.cancel)
	fail := func(err error) (mcp.Connection, error) {
		timer.Stop()
		stop()
		c.cancel()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("mcpsse: connecting to %s: %w", t.URL, ctx.Err())
		}
		if timedOut.Load() {
			return nil, fmt.Errorf("%w within %s from %s", ErrNoEndpoint, wait, t.URL)
		}
		return nil, err
	}
	req, err := http.NewRequestWithContext(c.bg, http.MethodGet, t.URL, nil)
	if err != nil {
		return fail(fmt.Errorf("mcpsse: %w", err))
	}
	c.addHeader(req)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.client.Do(req)
	if err != nil {
		return fail(fmt.Errorf("mcpsse: GET %s: %w", t.URL, err))
	}
	if err := statusError(http.MethodGet, resp); err != nil {
		return fail(err)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		resp.Body.Close()
		return fail(fmt.Errorf("%w: GET %s answered Content-Type %q, not text/event-stream", ErrNoEndpoint, t.URL, resp.Header.Get("Content-Type")))
	}
	c.body = resp.Body
	c.events = sse.NewReader(resp.Body, c.max)
	for {
		ev, err := c.events.Next()
		if tooLarge, ok := errors.AsType[*mcp.FrameTooLargeError](err); ok {
			if ev.Name != "endpoint" {
				continue // as any message before the endpoint
			}
			resp.Body.Close()
			return fail(fmt.Errorf("%w: the endpoint event from %s: %w", ErrNoEndpoint, t.URL, tooLarge))
		}
		if err != nil {
			resp.Body.Close()
			if errors.Is(err, io.EOF) {
				err = fmt.Errorf("%w: the stream from %s ended first", ErrNoEndpoint, t.URL)
			}
			return fail(err)
		}
		if ev.Name != "endpoint" {
			continue // a message before the endpoint has nobody to answer
		}
		ep, err := base.Parse(strings.TrimSpace(string(ev.Data)))
		if err != nil || !sameOrigin(base, ep) {
			resp.Body.Close()
			return fail(fmt.Errorf("%w: the endpoint %q is not on the origin of %s", ErrNoEndpoint, ev.Data, t.URL))
		}
		c.endpoint = ep.String()
		break
	}
	if !timer.Stop() || !stop() {
		resp.Body.Close()
		return fail(nil)
	}
	go c.readLoop()
	return c, nil
}

// sameOrigin reports whether a and b share scheme, host and port.
func sameOrigin(a, b *url.URL) bool {
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		if strings.EqualFold(u.Scheme, "https") {
			return "443"
		}
		return "80"
	}
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

type clientConn struct {
	t        *ClientTransport
	client   *http.Client
	max      int
	endpoint string
	body     io.ReadCloser
	events   *sse.Reader

	incoming chan inbound
	readErr  error // set before readDone is closed

	// pending are the requests sent and not yet answered: when the
	// stream drops, each fails with a *mcp.RequestFailedError.
	mu       sync.Mutex
	pending  map[jsonrpc.ID]struct{}
	readDone chan struct{}

	bg        context.Context
	cancel    context.CancelFunc
	closeOnce sync.Once
	closed    chan struct{}
}

func (c *clientConn) addHeader(req *http.Request) {
	for k, vs := range c.t.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
}

// inbound is what Read returns next: a frame, or the failure of a request
// (a *mcp.RequestFailedError).
type inbound struct {
	frame []byte
	err   error
}

// readLoop delivers the stream's message events until it ends; then it
// fails the requests still waiting, and Read returns the drop.
func (c *clientConn) readLoop() {
	defer close(c.readDone)
	defer c.body.Close()
	for {
		ev, err := c.events.Next()
		if tooLarge, ok := errors.AsType[*mcp.FrameTooLargeError](err); ok {
			if !c.tooLarge(ev, tooLarge) {
				c.readErr = ErrStreamDropped
				return
			}
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) || c.bg.Err() != nil {
				err = ErrStreamDropped
			} else {
				err = fmt.Errorf("%w: %w", ErrStreamDropped, err)
			}
			c.readErr = err
			c.mu.Lock()
			lost := c.pending
			c.pending = nil
			c.mu.Unlock()
			for id := range lost {
				if !c.send(inbound{err: &mcp.RequestFailedError{ID: id, Err: err}}) {
					return
				}
			}
			return
		}
		if (ev.Name != "" && ev.Name != "message") || len(bytes.TrimSpace(ev.Data)) == 0 {
			continue
		}
		if msg, _, err := jsonrpc.Decode(ev.Data); err == nil {
			if resp, ok := msg.(*jsonrpc.Response); ok {
				c.mu.Lock()
				delete(c.pending, resp.ID)
				c.mu.Unlock()
			}
		}
		if !c.send(inbound{frame: ev.Data}) {
			c.readErr = ErrStreamDropped
			return
		}
	}
}

// tooLarge hands a message event over MaxMessageBytes, which the stream
// skipped, to Read as its *mcp.FrameTooLargeError: the ClientSession
// fails the call a response answers and answers a request with an error,
// both by the id the error carries, and reads on. An event of another type
// is ignored, as it would be whole. It reports false once the connection
// is closed.
func (c *clientConn) tooLarge(ev sse.Event, err *mcp.FrameTooLargeError) bool {
	if ev.Name != "" && ev.Name != "message" {
		return true
	}
	if err.ID.IsValid() && !err.Request {
		c.mu.Lock()
		delete(c.pending, err.ID)
		c.mu.Unlock()
	}
	return c.send(inbound{err: err})
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

// Read implements mcp.Connection. Once the stream has ended it returns an
// error wrapping ErrStreamDropped; after Close, io.EOF.
func (c *clientConn) Read(ctx context.Context) ([]byte, error) {
	select {
	case in := <-c.incoming:
		return in.frame, in.err
	case <-c.closed:
		return nil, io.EOF
	case <-c.readDone:
		select {
		case in := <-c.incoming:
			return in.frame, in.err
		case <-c.closed:
			return nil, io.EOF
		default:
		}
		return nil, c.readErr
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write implements mcp.Connection: it POSTs frame to the endpoint and
// expects a 2xx status (202 Accepted); the reply arrives on the stream.
func (c *clientConn) Write(ctx context.Context, frame []byte) error {
	select {
	case <-c.closed:
		return mcp.ErrConnectionClosed
	case <-c.readDone:
		return c.readErr
	default:
	}
	var id jsonrpc.ID
	if msg, _, err := jsonrpc.Decode(frame); err == nil {
		if req, ok := msg.(*jsonrpc.Request); ok {
			id = req.ID
		}
	}
	if id.IsValid() {
		c.mu.Lock()
		if c.pending == nil {
			c.mu.Unlock()
			return c.readErr
		}
		c.pending[id] = struct{}{}
		c.mu.Unlock()
	}
	err := c.post(ctx, frame)
	if err != nil && id.IsValid() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}
	return err
}

// post POSTs one frame to the endpoint.
func (c *clientConn) post(ctx context.Context, frame []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(bytes.Clone(frame)))
	if err != nil {
		return fmt.Errorf("mcpsse: %w", err)
	}
	c.addHeader(req)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return fmt.Errorf("mcpsse: POST %s: %w", c.endpoint, err)
	}
	if err := statusError(http.MethodPost, resp); err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	return nil
}

// Close implements mcp.Connection: it closes the stream, which ends the
// session on the server.
func (c *clientConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.cancel()
		<-c.readDone
	})
	return nil
}

// statusError returns a *StatusError for a non-2xx response, closing its
// body, or nil.
func statusError(method string, resp *http.Response) error {
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	se := &StatusError{Method: method, StatusCode: resp.StatusCode}
	if msg, _, err := jsonrpc.Decode(data); err == nil {
		if r, ok := msg.(*jsonrpc.Response); ok && r.Error != nil {
			se.RPCError = r.Error
		}
	}
	return se
}
