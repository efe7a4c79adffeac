package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// A Client is the client side of MCP: it connects to servers over any
// Transport and gives one ClientSession per connection
// (https://modelcontextprotocol.io/specification/2025-11-25/architecture#client).
// The Client holds what every session shares: the client's identity, the
// capabilities it declares and the callbacks that receive what servers send.
//
// A Client is safe for concurrent use and may serve any number of
// sessions.
type Client struct {
	impl   Implementation
	opts   ClientOptions
	logger *slog.Logger
	// methods answers the requests a server may send. It is built once in
	// NewClient; features that need client support (sampling, elicitation,
	// roots) add entries there.
	methods map[string]clientMethodHandler
	// send and receive are the middleware chains (middleware.go), nil
	// when there is none.
	send    SendHandler
	receive ClientMethodHandler
	// roots is the list the client serves with roots/list, and the
	// sessions to tell when it changes (client_roots.go).
	roots rootsState
	// metaTail is the clientCapabilities and clientInfo members of every
	// stateless-era request's _meta, encoded once (client_era_stateless.go).
	metaOnce sync.Once
	metaTail []byte
}

// ClientOptions configures a Client. The zero value is useful: a client
// that declares no optional capabilities, answers ping and ignores
// notifications. Notification callbacks run on the session's read loop, one
// at a time and in order, so they must not block for long nor wait for a
// call on the same session. A panic in any function given here is
// recovered and logged on Logger, and the session goes on. The request
// handlers (CreateMessageHandler, ElicitationHandler, URLElicitationHandler,
// Roots) serve both eras: in 2026-07-28 they answer the input requests of an
// input_required result, and the call is retried with the answers
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).
type ClientOptions struct {
	// Capabilities, if set, is declared in initialize instead of the
	// capabilities inferred from the options. If nil, the client declares
	// none of the optional capabilities (an empty object).
	Capabilities *ClientCapabilities
	// Logger receives the client's own diagnostics (undecodable messages,
	// responses nobody waits for). If nil, nothing is logged: the library
	// never prints.
	Logger *slog.Logger

	// RequestTimeout is how long a request waits for its answer before the
	// client cancels it with notifications/cancelled and the call returns
	// an error wrapping ErrRequestTimeout and context.DeadlineExceeded
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#timeouts),
	// so that no call waits forever on a server that never answers.
	// WithRequestTimeout overrides it for one call. If zero,
	// DefaultRequestTimeout (60 seconds); if negative, requests wait as
	// long as their context allows, up to MaxRequestTimeout.
	RequestTimeout time.Duration
	// MaxRequestTimeout bounds every request, whatever its progress: each
	// notifications/progress for a request (one sent with
	// _meta.progressToken) restarts its RequestTimeout, but never past
	// MaxRequestTimeout from when it was sent, as the spec asks
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#timeouts).
	// If zero, DefaultMaxRequestTimeout (10 minutes); if negative, there is
	// no bound beyond RequestTimeout (progress does not extend it then) and
	// ctx's deadline.
	MaxRequestTimeout time.Duration

	// Middleware wraps the handling of every request and notification the
	// client receives, outermost first; see ClientMiddleware.
	Middleware []ClientMiddleware
	// SendingMiddleware wraps every request and notification the client
	// sends, outermost first; see SendingMiddleware.
	SendingMiddleware []SendingMiddleware

	// ToolListChangedHandler, if set, is called for
	// notifications/tools/list_changed
	// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#list-changed-notification).
	ToolListChangedHandler func(ctx context.Context, cs *ClientSession)
	// ResourceListChangedHandler, if set, is called for
	// notifications/resources/list_changed
	// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#list-changed-notification).
	ResourceListChangedHandler func(ctx context.Context, cs *ClientSession)
	// ResourceUpdatedHandler, if set, is called for
	// notifications/resources/updated, which the server sends for the
	// resources the session subscribed to with Subscribe
	// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#subscriptions).
	ResourceUpdatedHandler func(ctx context.Context, cs *ClientSession, p *ResourceUpdatedParams)
	// PromptListChangedHandler, if set, is called for
	// notifications/prompts/list_changed
	// (https://modelcontextprotocol.io/specification/2025-11-25/server/prompts#list-changed-notification).
	PromptListChangedHandler func(ctx context.Context, cs *ClientSession)
	// ProgressHandler, if set, is called for notifications/progress
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress).
	ProgressHandler func(ctx context.Context, cs *ClientSession, p *ProgressParams)
	// LoggingMessageHandler, if set, is called for notifications/message
	// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging#log-message-notifications).
	// In the session era the server sends its default level and up (info,
	// for an mcpkit server) until SetLogLevel. In the stateless era, which
	// Connect chooses by default for a server that speaks it, a request
	// gets log messages only if it carries a level: set LogLevel (or call
	// SetLogLevel, or WithLogLevel per call), or this handler is never
	// called.
	LoggingMessageHandler func(ctx context.Context, cs *ClientSession, p *LoggingMessageParams)
	// TaskStatusHandler, if set, is called for notifications/tasks/status
	// (experimental), which a server may send when a task's status changes
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#task-status-notification).
	// Servers need not send it: poll with GetTask as well.
	TaskStatusHandler func(ctx context.Context, cs *ClientSession, p *TaskStatusNotificationParams)
	// NotificationHandler, if set, is called for every notification the
	// server sends, known or not, after the specific handler above (if
	// any). Params are raw. If nil, notifications without a specific
	// handler are ignored.
	NotificationHandler func(ctx context.Context, cs *ClientSession, n *jsonrpc.Notification)

	// CreateMessageHandler, if set, answers sampling/createMessage, and the
	// client declares the sampling capability
	// (https://modelcontextprotocol.io/specification/2025-11-25/client/sampling).
	// The request's messages and tool pairing are checked before it is
	// called (a bad request gets -32602). Return UserRejectedSamplingError()
	// when the user says no. If nil, sampling/createMessage gets -32601.
	CreateMessageHandler func(ctx context.Context, cs *ClientSession, p *CreateMessageParams) (*CreateMessageResult, error)
	// SamplingTools declares sampling.tools: CreateMessageHandler takes
	// requests with tools and toolChoice (2025-11-25). If false, such
	// requests get -32602, as the spec requires.
	SamplingTools bool
	// SamplingContext declares sampling.context: CreateMessageHandler
	// honours includeContext "thisServer" and "allServers".
	SamplingContext bool
	// ElicitationHandler, if set, answers form-mode elicitation/create, and
	// the client declares elicitation.form
	// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#form-mode-elicitation-requests).
	// The content it accepts with is checked against the requested schema
	// before it is sent; content that does not match is not sent (the
	// server gets -32603). If nil, form-mode requests get -32602 (or
	// -32601 when no elicitation handler is set at all).
	ElicitationHandler func(ctx context.Context, cs *ClientSession, p *ElicitParams) (*ElicitResult, error)
	// ElicitationApplyDefaults fills in, in the content of an accepted
	// form, the default of every property the handler left out.
	ElicitationApplyDefaults bool
	// URLElicitationHandler, if set, answers URL-mode elicitation/create,
	// and the client declares elicitation.url
	// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#url-mode-elicitation-requests).
	// It must show the full URL and open it only with the user's consent,
	// never fetching it itself; accept means the user consented. Content
	// is never sent in URL mode. If nil, URL-mode requests get -32602 (or
	// -32601 when no elicitation handler is set at all).
	URLElicitationHandler func(ctx context.Context, cs *ClientSession, p *ElicitParams) (*ElicitResult, error)
	// ElicitationCompleteHandler, if set, is called for
	// notifications/elicitation/complete naming a URL-mode elicitation this
	// session accepted, or one from a URLElicitationRequired error passed
	// to ClientSession.URLElicitationRequired, once per id. Other ids are
	// ignored, as the spec requires.
	ElicitationCompleteHandler func(ctx context.Context, cs *ClientSession, p *ElicitationCompleteParams)
	// ProtocolEra chooses how Connect starts a session: by probing for the
	// stateless era with server/discover and falling back to initialize
	// (EraAuto, the zero value), with initialize only (EraSession), or in
	// the stateless era only (EraStateless). See ProtocolEra.
	ProtocolEra ProtocolEra
	// ProbeTimeout bounds how long EraAuto waits for the answer to its
	// server/discover probe before it falls back to initialize, for
	// session-era servers that never answer a request sent before
	// initialize
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility-with-initialization-based-versions).
	// A late answer is still used if initialize then fails, so a slow
	// starting stateless-era server is not lost. If zero, 10 seconds; if
	// negative, the probe waits as long as Connect's context allows.
	ProbeTimeout time.Duration
	// LogLevel is the log level every request of a stateless-era session
	// carries in _meta["io.modelcontextprotocol/logLevel"], so that the
	// server sends that request's log messages at LogLevel or more severe
	// to LoggingMessageHandler
	// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging).
	// ClientSession.SetLogLevel and WithLogLevel override it. If empty, the
	// requests carry no level and the server sends no log messages.
	// Sessions of the session era ignore it: there the server's default
	// applies until SetLogLevel sends logging/setLevel.
	LogLevel LoggingLevel
	// MaxInputRounds bounds the multi round-trip requests of the stateless
	// era: how many input_required results one call answers (through the
	// handlers below) before it gives up with ErrTooManyInputRounds
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).
	// If zero, 8; if negative, an input_required result is an error at
	// once.
	MaxInputRounds int
	// MaxListPages bounds the pages one iterator over a list
	// (ClientSession.Tools, Prompts, Resources, ResourceTemplates, Tasks)
	// asks for, so that a server whose cursors never end cannot keep it
	// going for ever
	// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination).
	// Past it the iterator yields an error wrapping ErrTooManyPages and
	// stops; a cursor the server gives a second time stops it sooner, with
	// ErrCursorRepeated. If zero, 10000; if negative, no bound.
	MaxListPages int

	// Roots, if not nil (an empty list counts), is the list the client
	// serves with roots/list, and the client declares roots with
	// listChanged
	// (https://modelcontextprotocol.io/specification/2025-11-25/client/roots).
	// Each URI must be a file:// URI; others are dropped and logged.
	// Client.SetRoots changes the list and tells every session. If nil,
	// roots/list gets -32601.
	Roots []*Root
}

// clientMethodHandler answers one kind of request a server sends to the
// client. params are raw; the result is encoded as JSON (nil encodes as
// {}). An error that is a *jsonrpc.Error is sent as it is; any other error
// is sent as -32603 with its text.
type clientMethodHandler func(ctx context.Context, cs *ClientSession, params json.RawMessage) (any, error)

// NewClient returns a client that identifies itself as impl in initialize.
// A nil opts is the zero ClientOptions.
func NewClient(impl Implementation, opts *ClientOptions) *Client {
	c := &Client{impl: impl}
	if opts != nil {
		c.opts = *opts
	}
	c.logger = c.opts.Logger
	if c.logger == nil {
		c.logger = discardLogger
	}
	c.methods = map[string]clientMethodHandler{
		"ping": func(context.Context, *ClientSession, json.RawMessage) (any, error) { return emptyObject, nil },
	}
	// Each feature the client answers adds its methods from its own file.
	c.addSamplingMethods()
	c.addElicitationMethods()
	c.addRootsMethods()
	c.send = c.sendingChain()          // send.go
	c.receive = c.clientReceiveChain() // middleware.go
	return c
}

// Implementation returns what the client says about itself in initialize.
func (c *Client) Implementation() Implementation { return c.impl }

// capabilities returns what the client declares in initialize.
func (c *Client) capabilities() *ClientCapabilities {
	if c.opts.Capabilities != nil {
		return c.opts.Capabilities
	}
	// Declared from the handlers set in ClientOptions, each by its
	// feature's own file.
	caps := &ClientCapabilities{}
	c.samplingCapability(caps)
	c.elicitationCapability(caps)
	c.rootsCapability(caps)
	return caps
}

// Connect opens t, starts the session's read loop and starts the session
// in the era ClientOptions.ProtocolEra chooses: EraAuto (the default)
// probes with server/discover and falls back to initialize
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility-with-initialization-based-versions),
// EraSession initializes
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization),
// and EraStateless requires server/discover to name a version both sides
// speak. ProtocolVersion and Stateless report the outcome. When no version
// is shared, Connect closes the connection and returns an error wrapping
// ErrUnsupportedVersion; any other failure closes it too. ctx bounds the
// start only; the session lives until Close or until the server closes the
// connection. docs/design.md says how the era is chosen.
func (c *Client) Connect(ctx context.Context, t Transport) (*ClientSession, error) {
	conn, err := t.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("mcp: connecting transport: %w", err)
	}
	cs := newClientSession(ctx, c, conn)
	go cs.readLoop()

	if err := cs.start(ctx); err != nil { // client_era.go
		cs.Close()
		return nil, err
	}
	return cs, nil
}
