package inspect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// connection is one client session with the server, and the page's
// requests in flight on it.
type connection struct {
	cs      *mcp.ClientSession
	conn    *tapConn
	dialed  *Dialed
	ctx     context.Context // ends the page's requests when the connection closes
	cancel  context.CancelFunc
	once    sync.Once
	wg      sync.WaitGroup
	mu      sync.Mutex
	pending map[string]context.CancelFunc
	// views are the MCP Apps fetched for the page, oldest first (apps.go).
	views []*appView
	// appCalls counts the apps' tools/call in flight (apps.go).
	appCalls int
}

// close ends the session (stopping a server started as a command),
// cancels the requests in flight and waits for them to end.
func (c *connection) close() {
	c.once.Do(func() {
		c.cancel()
		c.cs.Close()
		c.wg.Wait()
		if c.dialed.Release != nil {
			c.dialed.Release()
		}
	})
}

// Connect closes the current connection, if any, and connects to t; the
// pages are told each step ("connecting", then "connected" or "failed").
func (in *Inspector) Connect(ctx context.Context, t Target) State { return in.connect(ctx, t) }

// connect closes the current connection, if any, and connects to t.
func (in *Inspector) connect(ctx context.Context, t Target) State {
	in.connecting.Lock()
	defer in.connecting.Unlock()
	in.mu.Lock()
	closed, old := in.closed, in.conn
	in.conn = nil
	in.mu.Unlock()
	if closed {
		return State{Status: "disconnected", Error: "the inspector is shutting down"}
	}
	if old != nil {
		old.close()
	}
	in.setState(State{Status: "connecting", Target: &t})
	fail := func(err error) State {
		s := State{Status: "failed", Error: err.Error(), Target: &t}
		in.setState(s)
		return s
	}
	d, err := in.opts.Dial(ctx, t, stderrWriter{in})
	if err != nil {
		return fail(err)
	}
	tap := &tapTransport{inner: d.Transport, in: in}
	copts := &mcp.ClientOptions{
		ProtocolEra:       d.Era,
		RequestTimeout:    in.opts.RequestTimeout,
		MaxRequestTimeout: in.opts.MaxRequestTimeout,
		// A stateless-era server sends log messages only to requests
		// that carry a level; the log pane's setter changes it.
		LogLevel: mcp.LevelInfo,
	}
	// asks.go: the handlers, whose capabilities mcp infers, and the
	// extensions added to them.
	in.clientHandlers(copts)
	declareExtensions(copts, t.TasksExtension)
	client := mcp.NewClient(in.opts.ClientInfo, copts)
	cs, err := client.Connect(ctx, tap)
	if err != nil {
		if d.Explain != nil {
			err = d.Explain(err)
		}
		if d.Release != nil {
			d.Release()
		}
		return fail(err)
	}
	cctx, cancel := context.WithCancel(context.Background())
	c := &connection{cs: cs, conn: tap.conn, dialed: d, ctx: cctx, cancel: cancel, pending: map[string]context.CancelFunc{}}
	s := State{
		Status:          "connected",
		Target:          &t,
		Args:            d.Args,
		Stateless:       cs.Stateless(),
		ProtocolVersion: cs.ProtocolVersion(),
		ServerInfo:      cs.ServerInfo(),
		Capabilities:    cs.ServerCapabilities(),
		Instructions:    cs.Instructions(),
		SessionID:       mcphttp.SessionID(tap.conn.Connection),
	}
	if d.Credentials != nil {
		s.Token = tokenOf(d.Credentials())
	}
	in.mu.Lock()
	in.conn = c
	in.target = &t
	in.mu.Unlock()
	in.setState(s)
	go in.watch(c, s)
	return s
}

// watch notices a session the server ended (a command that exited, an
// HTTP session that expired) and says so.
func (in *Inspector) watch(c *connection, s State) {
	<-c.cs.Done()
	in.mu.Lock()
	current := in.conn == c
	if current {
		in.conn = nil
	}
	in.mu.Unlock()
	if !current {
		return // disconnected on purpose, or replaced
	}
	err := c.cs.Wait()
	c.close()
	msg := "the server ended the session"
	if err != nil && !errors.Is(err, io.EOF) {
		msg += ": " + err.Error()
	}
	in.setState(State{Status: "disconnected", Error: msg, Target: s.Target, Args: s.Args})
}

// disconnect closes the current connection.
func (in *Inspector) disconnect() State {
	in.connecting.Lock()
	defer in.connecting.Unlock()
	in.mu.Lock()
	c := in.conn
	in.conn = nil
	target := in.target
	in.mu.Unlock()
	if c != nil {
		c.close()
	}
	s := State{Status: "disconnected", Target: target}
	in.setState(s)
	return s
}

func (in *Inspector) apiConnect(w http.ResponseWriter, r *http.Request) {
	var t Target
	if !decodeBody(w, r, &t) {
		return
	}
	writeJSON(w, http.StatusOK, in.connect(r.Context(), t))
}

func (in *Inspector) apiReconnect(w http.ResponseWriter, r *http.Request) {
	var none struct{}
	if !decodeBody(w, r, &none) {
		return
	}
	in.mu.Lock()
	t := in.target
	in.mu.Unlock()
	if t == nil {
		httpError(w, http.StatusConflict, "nothing to reconnect to: connect first")
		return
	}
	writeJSON(w, http.StatusOK, in.connect(r.Context(), *t))
}

func (in *Inspector) apiDisconnect(w http.ResponseWriter, r *http.Request) {
	var none struct{}
	if !decodeBody(w, r, &none) {
		return
	}
	writeJSON(w, http.StatusOK, in.disconnect())
}

// current is the connection, or nil with a 409 answered.
func (in *Inspector) current(w http.ResponseWriter) *connection {
	in.mu.Lock()
	c := in.conn
	in.mu.Unlock()
	if c == nil {
		httpError(w, http.StatusConflict, "not connected to a server")
	}
	return c
}

// requestBody is the body of POST /api/request: a request for the server,
// under an id of the page's choosing (for /api/cancel and the response
// event).
type requestBody struct {
	ID     string          `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// Response is the "response" event: how a request of the page ended.
type Response struct {
	ID        string          `json:"id"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *jsonrpc.Error  `json:"error,omitempty"`
	Cancelled bool            `json:"cancelled,omitempty"`
	// Millis is how long the request took.
	Millis float64 `json:"ms"`
}

// apiRequest is POST /api/request: it sends the request and answers 202
// at once; the outcome comes as a "response" event, so that any number
// of slow requests leave the page's connections free (for a cancel).
func (in *Inspector) apiRequest(w http.ResponseWriter, r *http.Request) {
	var body requestBody
	if !decodeBody(w, r, &body) {
		return
	}
	if body.ID == "" || len(body.ID) > 64 || body.Method == "" {
		httpError(w, http.StatusBadRequest, "want an id (1 to 64 characters) and a method")
		return
	}
	if len(body.Params) > 0 && body.Params[0] != '{' {
		httpError(w, http.StatusBadRequest, "params must be a JSON object")
		return
	}
	c := in.current(w)
	if c == nil {
		return
	}
	c.mu.Lock()
	if _, dup := c.pending[body.ID]; dup {
		c.mu.Unlock()
		httpError(w, http.StatusConflict, "a request with id "+quote(body.ID)+" is in flight")
		return
	}
	if len(c.pending) >= in.opts.MaxInFlight {
		c.mu.Unlock()
		httpError(w, http.StatusTooManyRequests, fmt.Sprintf("%d requests in flight already (the most there may be)", in.opts.MaxInFlight))
		return
	}
	ctx, cancel := context.WithCancel(c.ctx)
	c.pending[body.ID] = cancel
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		start := time.Now()
		var params any
		if len(body.Params) > 0 {
			params = body.Params
		}
		var raw json.RawMessage
		err := c.cs.Call(ctx, body.Method, params, &raw)
		c.mu.Lock()
		delete(c.pending, body.ID)
		c.mu.Unlock()
		cancelled := ctx.Err() != nil
		cancel()
		res := Response{ID: body.ID, Millis: float64(time.Since(start).Microseconds()) / 1000}
		switch {
		case err == nil:
			res.Result = raw
		case cancelled:
			res.Cancelled = true
		default:
			if rpcErr, ok := errors.AsType[*jsonrpc.Error](err); ok {
				res.Error = rpcErr
			} else {
				res.Error = &jsonrpc.Error{Code: 0, Message: err.Error()}
			}
		}
		in.hub.publish("response", res, false)
	}()
	writeJSON(w, http.StatusAccepted, map[string]string{"id": body.ID})
}

// apiCancel is POST /api/cancel {"id"}: the request ends, and the client
// sends notifications/cancelled for it.
func (in *Inspector) apiCancel(w http.ResponseWriter, r *http.Request) {
	var body struct {
		ID string `json:"id"`
	}
	if !decodeBody(w, r, &body) {
		return
	}
	c := in.current(w)
	if c == nil {
		return
	}
	c.mu.Lock()
	cancel, ok := c.pending[body.ID]
	c.mu.Unlock()
	if !ok {
		httpError(w, http.StatusNotFound, "no request "+quote(body.ID)+" in flight")
		return
	}
	cancel()
	writeJSON(w, http.StatusOK, map[string]string{"id": body.ID})
}

// apiSetLevel is POST /api/set-level {"level"}: logging/setLevel in the
// session era; in the stateless era, the level the next requests carry.
func (in *Inspector) apiSetLevel(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Level mcp.LoggingLevel `json:"level"`
	}
	if !decodeBody(w, r, &body) {
		return
	}
	if !body.Level.IsValid() {
		httpError(w, http.StatusBadRequest, quote(string(body.Level))+" is not a log level")
		return
	}
	c := in.current(w)
	if c == nil {
		return
	}
	if err := c.cs.SetLogLevel(r.Context(), &mcp.SetLevelParams{Level: body.Level}); err != nil {
		resp := map[string]any{"error": err.Error()}
		if rpcErr, ok := errors.AsType[*jsonrpc.Error](err); ok {
			resp["error"] = rpcErr
		}
		writeJSON(w, http.StatusBadGateway, resp)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"level": string(body.Level)})
}

// stderrWriter sends what a server command writes on stderr to the page.
type stderrWriter struct{ in *Inspector }

func (s stderrWriter) Write(p []byte) (int, error) {
	s.in.hub.publish("stderr", map[string]any{"t": unixMillis(time.Now()), "text": string(p)}, true)
	return len(p), nil
}

func unixMillis(t time.Time) float64 { return float64(t.UnixMicro()) / 1000 }

// tapTransport shows the page every frame of its connection, both ways.
type tapTransport struct {
	inner mcp.Transport
	in    *Inspector
	conn  *tapConn
}

func (t *tapTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.conn = &tapConn{Connection: c, in: t.in}
	return t.conn, nil
}

// tapConn is a Connection whose frames are published as "message"
// events: {"dir":"send"|"recv","t":MILLIS,"frame":JSON}.
type tapConn struct {
	mcp.Connection
	in *Inspector
}

// Frame is the "message" event.
type Frame struct {
	Dir string  `json:"dir"`
	T   float64 `json:"t"`
	// Frame is the JSON-RPC message (or batch); Text holds a frame that
	// is not JSON.
	Frame json.RawMessage `json:"frame,omitempty"`
	Text  string          `json:"text,omitempty"`
}

func (c *tapConn) publish(dir string, frame []byte) {
	f := Frame{Dir: dir, T: unixMillis(time.Now())}
	if json.Valid(frame) {
		f.Frame = append(json.RawMessage(nil), frame...)
	} else {
		f.Text = string(frame)
	}
	c.in.hub.publish("message", f, true)
}

func (c *tapConn) Read(ctx context.Context) ([]byte, error) {
	frame, err := c.Connection.Read(ctx)
	if err == nil {
		c.publish("recv", frame)
	}
	return frame, err
}

func (c *tapConn) Write(ctx context.Context, frame []byte) error {
	c.publish("send", frame)
	return c.Connection.Write(ctx, frame)
}

// SessionID is the Streamable HTTP session's id, if any.
func (c *tapConn) SessionID() string { return mcphttp.SessionID(c.Connection) }
