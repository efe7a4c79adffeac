package inspect

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/mcp"
)

// Target is a server to inspect, as the command line or the page's
// connect form names it: a URL (Streamable HTTP, or HTTP+SSE through its
// fallback) with its headers, or a command to start and speak to over
// stdio.
type Target struct {
	URL     string   `json:"url,omitempty"`
	Headers []string `json:"headers,omitempty"`
	Command []string `json:"command,omitempty"`
	// Era is auto, session or stateless; empty is auto.
	Era string `json:"era,omitempty"`
	// TasksExtension declares the stateless era's tasks extension
	// (io.modelcontextprotocol/tasks, SEP-2663) in the client's
	// capabilities: the server then answers a tools/call of a tool that
	// may run as a task with a task (resultType "task"), which the page
	// polls with tasks/get and cancels with tasks/cancel
	// (https://modelcontextprotocol.io/extensions/tasks/overview).
	TasksExtension bool `json:"tasksExtension,omitempty"`
}

// Dialed is what Options.Dial makes of a Target.
type Dialed struct {
	// Transport reaches the server.
	Transport mcp.Transport
	// Era is the protocol era to connect in.
	Era mcp.ProtocolEra
	// Args is the part of an mcpkit command line that names the server
	// ("--url URL ..." or "-- COMMAND ARG..."), quoted for a POSIX shell:
	// the page's "copy as mcpkit command" appends it.
	Args string
	// Explain, if set, turns a failure to connect into the message shown.
	Explain func(error) error
	// Release, if set, frees what Dial opened beside the transport; it is
	// called when the connection ends.
	Release func()
	// Credentials, if set, returns the OAuth credentials the transport
	// uses (auth.Authorizer.Credentials): the page shows the token's
	// scopes and expiry.
	Credentials func() *auth.Credentials
}

// Options configure an Inspector. Dial is required; the zero value of
// every other field is useful.
type Options struct {
	// Dial builds the transport to a target. stderr receives what a
	// server started as a command writes on its stderr.
	Dial func(ctx context.Context, t Target, stderr io.Writer) (*Dialed, error)
	// ClientInfo is what the client says about itself in initialize (or
	// in the stateless era's _meta). If zero, mcpkit-inspect.
	ClientInfo mcp.Implementation
	// RequestTimeout and MaxRequestTimeout are the client's
	// (mcp.ClientOptions); zero means the library's defaults.
	RequestTimeout    time.Duration
	MaxRequestTimeout time.Duration
	// MaxInFlight bounds the page's requests in flight at once; past it
	// /api/request answers 429. It bounds the MCP Apps' tools/call in
	// flight (/api/app-call) too, apart. If zero, 64.
	MaxInFlight int
	// MaxBacklog is how many events (frames, stderr lines) a page that
	// (re)opens its event stream is sent from before it came. If zero,
	// 1000.
	MaxBacklog int
	// MaxPages bounds the event streams open at once (tabs showing the
	// page); past it /api/events answers 429. If zero, 8.
	MaxPages int
	// MaxBodyBytes bounds the body of a POST from the page; past it the
	// answer is 413. If zero, 4 MiB.
	MaxBodyBytes int64
	// MaxApps bounds the MCP Apps views (POST /api/app) the Inspector
	// keeps for the page's iframes; past it the oldest is dropped (its
	// /proxy/ID and /view/ID answer 404). If zero, 16.
	MaxApps int
	// Initial, if set, is connected to as soon as Serve starts.
	Initial *Target
	// Logger receives the Inspector's diagnostics. If nil, none.
	Logger *slog.Logger
}

// Inspector serves the page and holds the one client connection it
// drives. Create it with New.
type Inspector struct {
	opts  Options
	token string
	hub   *hub
	// addr is set by Serve: the host:port the page is served at.
	addr string
	// sandboxAddr and sandboxLn are set by Listen: the second loopback
	// port, another origin than the page's, that serves the MCP Apps
	// sandbox proxy (apps.go).
	sandboxAddr string
	sandboxLn   net.Listener

	mu   sync.Mutex
	conn *connection // the current connection, nil when none
	// state is what the page shows of the connection.
	state State
	// target is the last target connected to, for reconnect.
	target *Target
	// connecting serialises connect, disconnect and reconnect.
	connecting sync.Mutex
	closed     bool
	// asks are the server's requests waiting for the user.
	asks asks
	// roots are the roots the client shares (the page sets them).
	roots []*mcp.Root
	// login is the OAuth authorization waiting for the browser, if any.
	login *login
}

// State is the connection as the page shows it: the "state" event and
// the answer of /api/connect, /api/disconnect and /api/reconnect.
type State struct {
	// Status is disconnected, connecting, connected or failed.
	Status string  `json:"status"`
	Error  string  `json:"error,omitempty"`
	Target *Target `json:"target,omitempty"`
	// Args names the server on an mcpkit command line (Dialed.Args).
	Args            string                  `json:"args,omitempty"`
	Stateless       bool                    `json:"stateless,omitempty"`
	ProtocolVersion string                  `json:"protocolVersion,omitempty"`
	ServerInfo      *mcp.Implementation     `json:"serverInfo,omitempty"`
	Capabilities    *mcp.ServerCapabilities `json:"capabilities,omitempty"`
	Instructions    string                  `json:"instructions,omitempty"`
	SessionID       string                  `json:"sessionId,omitempty"`
	// Token describes the OAuth token of the connection, if any.
	Token *Token `json:"token,omitempty"`
	// Login is the authorization URL of a login waiting for the browser:
	// filled in for a page that opens its event stream.
	Login string `json:"login,omitempty"`
	// Asks are the server's requests waiting for the user, and Roots the
	// roots the client shares: filled in for a page that opens its event
	// stream.
	Asks  []Ask       `json:"asks,omitempty"`
	Roots []*mcp.Root `json:"roots,omitempty"`
}

// New returns an Inspector with a fresh random token.
func New(opts Options) (*Inspector, error) {
	if opts.Dial == nil {
		return nil, errors.New("inspect: Options.Dial is nil")
	}
	if opts.ClientInfo.Name == "" {
		opts.ClientInfo = mcp.Implementation{Name: "mcpkit-inspect", Version: "0.1.0"}
	}
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = 64
	}
	if opts.MaxBacklog <= 0 {
		opts.MaxBacklog = 1000
	}
	if opts.MaxPages <= 0 {
		opts.MaxPages = 8
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = 4 << 20
	}
	if opts.MaxApps <= 0 {
		opts.MaxApps = 16
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("inspect: making the token: %w", err)
	}
	in := &Inspector{opts: opts, token: hex.EncodeToString(b), state: State{Status: "disconnected"}, roots: []*mcp.Root{}}
	in.hub = newHub(opts.MaxBacklog, opts.MaxPages, in.snapshot)
	return in, nil
}

// Token is the secret every request from the page must carry.
func (in *Inspector) Token() string { return in.token }

// URL is the page's address with its token, once Serve has started.
func (in *Inspector) URL() string {
	return "http://" + in.addr + "/?token=" + in.token
}

// Listen opens the Inspector's listener on addr, which must be a
// loopback address ("127.0.0.1:0" picks a free port), and records its
// address for URL and the Host and Origin checks. It also opens, on a
// free port of the same address, the listener of the MCP Apps sandbox
// proxy (SandboxListener), which Serve serves too.
func (in *Inspector) Listen(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("inspect: listen address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() || ip.To4() == nil {
		return nil, fmt.Errorf("inspect: listen address %q: want a loopback IPv4 address such as 127.0.0.1:0", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("inspect: %w", err)
	}
	sln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("inspect: the sandbox proxy's listener: %w", err)
	}
	in.addr, in.sandboxAddr, in.sandboxLn = ln.Addr().String(), sln.Addr().String(), sln
	return ln, nil
}

// SandboxListener is the sandbox proxy's listener that Listen opened (nil
// before): serve SandboxHandler on it when not using Serve.
func (in *Inspector) SandboxListener() net.Listener { return in.sandboxLn }

// Serve serves the page on ln (from Listen) until ctx ends, then closes
// the connection to the MCP server and the page's event streams.
func (in *Inspector) Serve(ctx context.Context, ln net.Listener) error {
	if in.addr == "" {
		in.addr = ln.Addr().String()
	}
	srv := &http.Server{
		Handler:           in.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(in.opts.Logger.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()
	var sandbox *http.Server
	if in.sandboxLn != nil {
		sandbox = &http.Server{Handler: in.SandboxHandler(), ReadHeaderTimeout: srv.ReadHeaderTimeout, ErrorLog: srv.ErrorLog}
		go func() { errc <- sandbox.Serve(in.sandboxLn) }()
	}
	initialDone := make(chan struct{})
	go func() {
		defer close(initialDone)
		if in.opts.Initial != nil {
			in.connect(ctx, *in.opts.Initial)
		}
	}()
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	<-initialDone
	in.Close()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(shutdownCtx)
	if sandbox != nil {
		sandbox.Shutdown(shutdownCtx)
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// Close ends the connection to the MCP server and the page's event
// streams; later connects fail.
func (in *Inspector) Close() {
	in.connecting.Lock()
	defer in.connecting.Unlock()
	in.mu.Lock()
	in.closed = true
	c := in.conn
	in.conn = nil
	in.mu.Unlock()
	if c != nil {
		c.close()
	}
	in.hub.close()
}

// snapshot is the current state, for a page that opens its event stream.
func (in *Inspector) snapshot() State {
	in.mu.Lock()
	s := in.state
	s.Roots = in.roots
	if in.login != nil {
		s.Login = in.login.url
	}
	in.mu.Unlock()
	s.Asks = in.asks.list()
	return s
}

// setState records and announces the state.
func (in *Inspector) setState(s State) {
	in.mu.Lock()
	in.state = s
	in.mu.Unlock()
	in.hub.publish("state", s, false)
}
