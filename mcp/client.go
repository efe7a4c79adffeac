package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// A Client is the client side of MCP: its identity, capabilities and
// callbacks, shared by the ClientSession Connect makes for each connection
// (https://modelcontextprotocol.io/specification/2025-11-25/architecture#client).
// It is safe for concurrent use.
type Client struct {
	impl   Implementation
	opts   ClientOptions
	logger *slog.Logger
	// methods answers the requests a server may send; built in NewClient.
	methods map[string]clientMethodHandler
	// send and receive are the middleware chains, nil when there is none.
	send    SendHandler
	receive ClientMethodHandler
	roots   rootsState // client_roots.go
	// metaTail is the clientCapabilities and clientInfo members of every
	// stateless-era request's _meta, encoded once (client_era_stateless.go).
	metaOnce sync.Once
	metaTail []byte
	// caps is what the client declares, made in NewClient; capsErr is
	// why ClientOptions.Extensions cannot be declared, which Connect
	// returns.
	caps    *ClientCapabilities
	capsErr error
}

// ClientOptions configures a Client. The zero value is a client that
// declares no optional capabilities, answers ping and ignores
// notifications. Notification callbacks run on the read loop, in order, so
// they must not block; a panic in any function here is logged and the
// session goes on (docs/design.md). In 2026-07-28 the request handlers
// answer an input_required result's input requests
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).
type ClientOptions struct {
	// Capabilities, if set, is declared in initialize instead of the
	// capabilities inferred from the options. If nil, the client declares
	// none of the optional capabilities (an empty object).
	Capabilities *ClientCapabilities
	// Extensions are the protocol extensions the client supports, by
	// extension identifier ("{vendor-prefix}/{name}", such as
	// "io.modelcontextprotocol/ui"), each with its settings, declared as
	// capabilities.extensions in initialize and in the clientCapabilities
	// of every 2026-07-28 request's _meta
	// (https://modelcontextprotocol.io/extensions/overview#negotiation).
	// They are added to the capabilities the client infers from its
	// options (or to Capabilities, if set) rather than replacing them.
	// Each value must encode to a JSON object; nil declares {}. Connect
	// fails, before it opens the transport, on an identifier that is not
	// one, a value that does not encode to an object, or an identifier
	// Capabilities.Extensions declares as well.
	Extensions map[string]any
	// Logger receives the client's own diagnostics. If nil, nothing is
	// logged.
	Logger *slog.Logger

	// RequestTimeout is how long a request waits for its answer before the
	// client cancels it with notifications/cancelled and the call fails
	// with ErrRequestTimeout
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#timeouts).
	// WithRequestTimeout overrides it per call. If zero, 60 seconds; if
	// negative, none, up to MaxRequestTimeout.
	RequestTimeout time.Duration
	// MaxRequestTimeout bounds every request: notifications/progress for a
	// request sent with _meta.progressToken restarts its RequestTimeout,
	// but never past MaxRequestTimeout from when it was sent. If zero,
	// 10 minutes; if negative, no bound beyond RequestTimeout (which
	// progress then does not extend).
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
	// In the stateless era a request gets log messages only if it carries
	// a level: set LogLevel, SetLogLevel or WithLogLevel.
	LoggingMessageHandler func(ctx context.Context, cs *ClientSession, p *LoggingMessageParams)
	// TaskStatusHandler, if set, is called for notifications/tasks/status
	// (experimental), which servers may send; poll with GetTask as well
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#task-status-notification).
	TaskStatusHandler func(ctx context.Context, cs *ClientSession, p *TaskStatusNotificationParams)
	// NotificationHandler, if set, is called for every notification the
	// server sends, known or not, after the specific handler above (if
	// any), with raw params.
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
	// Accepted content that does not match the requested schema is not
	// sent (the server gets -32603). If nil, form-mode requests get -32602
	// (-32601 if neither elicitation handler is set).
	ElicitationHandler func(ctx context.Context, cs *ClientSession, p *ElicitParams) (*ElicitResult, error)
	// ElicitationApplyDefaults fills in, in the content of an accepted
	// form, the default of every property the handler left out.
	ElicitationApplyDefaults bool
	// URLElicitationHandler, if set, answers URL-mode elicitation/create,
	// and the client declares elicitation.url
	// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#url-mode-elicitation-requests).
	// It must show the full URL and open it only with the user's consent,
	// never fetching it itself. If nil, URL-mode requests get -32602
	// (-32601 if neither elicitation handler is set).
	URLElicitationHandler func(ctx context.Context, cs *ClientSession, p *ElicitParams) (*ElicitResult, error)
	// ElicitationCompleteHandler, if set, is called once per id for
	// notifications/elicitation/complete naming a URL-mode elicitation the
	// session accepted or got from ClientSession.URLElicitationRequired.
	ElicitationCompleteHandler func(ctx context.Context, cs *ClientSession, p *ElicitationCompleteParams)
	// ProtocolEra chooses how Connect starts a session; the zero value is
	// EraAuto.
	ProtocolEra ProtocolEra
	// ProbeTimeout bounds how long EraAuto waits for the answer to its
	// server/discover probe before it falls back to initialize (a late
	// answer is still used if initialize then fails)
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility-with-initialization-based-versions).
	// If zero, 10 seconds; if negative, as long as Connect's ctx allows.
	ProbeTimeout time.Duration
	// LogLevel is the level every request of a stateless-era session
	// carries in _meta["io.modelcontextprotocol/logLevel"]: the server sends
	// that request's log messages at LogLevel or more severe
	// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging).
	// SetLogLevel and WithLogLevel override it. If empty, none. The session
	// era ignores it.
	LogLevel LoggingLevel
	// MaxInputRounds bounds how many input_required results one
	// stateless-era call answers before it fails with ErrTooManyInputRounds
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).
	// If zero, 8; if negative, none is answered.
	MaxInputRounds int
	// MaxListPages bounds the pages one iterator over a list
	// (ClientSession.Tools and the like) asks for; past it the iterator
	// yields an error wrapping ErrTooManyPages
	// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination).
	// If zero, 10000; if negative, no bound.
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
	// A bound's zero value is its default; a negative one means none.
	o := &c.opts
	setDefault(&o.RequestTimeout, defaultRequestTimeout)
	setDefault(&o.MaxRequestTimeout, defaultMaxRequestTimeout)
	setDefault(&o.ProbeTimeout, defaultProbeTimeout)
	o.ProbeTimeout = max(o.ProbeTimeout, 0)
	setDefault(&o.MaxInputRounds, defaultMaxInputRounds)
	setDefault(&o.MaxListPages, defaultMaxListPages)
	c.methods = map[string]clientMethodHandler{
		"ping": func(context.Context, *ClientSession, json.RawMessage) (any, error) { return emptyObject, nil },
	}
	// Each feature the client answers adds its methods from its own file.
	c.addSamplingMethods()
	c.addElicitationMethods()
	c.addRootsMethods()
	c.caps, c.capsErr = c.declaredCapabilities()
	c.send = c.sendingChain()          // send.go
	c.receive = c.clientReceiveChain() // middleware.go
	return c
}

// setDefault sets *v to def if it is zero.
func setDefault[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}

// positiveOr returns v if it is positive, else def.
func positiveOr[T cmp.Ordered](v, def T) T {
	var zero T
	if v <= zero {
		return def
	}
	return v
}

// capabilities returns what the client declares in initialize.
func (c *Client) capabilities() *ClientCapabilities { return c.caps }

// declaredCapabilities makes what the client declares: Capabilities, or
// the capabilities inferred from the options, with Extensions added. On
// an error it returns them without Extensions.
func (c *Client) declaredCapabilities() (*ClientCapabilities, error) {
	caps := c.opts.Capabilities
	if caps == nil {
		caps = &ClientCapabilities{}
		c.samplingCapability(caps)
		c.elicitationCapability(caps)
		c.rootsCapability(caps)
	}
	if len(c.opts.Extensions) == 0 {
		return caps, nil
	}
	merged := *caps
	merged.Extensions = make(map[string]json.RawMessage, len(caps.Extensions)+len(c.opts.Extensions))
	maps.Copy(merged.Extensions, caps.Extensions)
	for _, id := range slices.Sorted(maps.Keys(c.opts.Extensions)) {
		if err := checkExtensionID(id); err != nil {
			return caps, fmt.Errorf("mcp: ClientOptions.Extensions: %s", strings.TrimPrefix(err.Error(), "mcp: "))
		}
		if _, dup := merged.Extensions[id]; dup {
			return caps, fmt.Errorf("mcp: ClientOptions.Extensions[%q]: ClientOptions.Capabilities.Extensions declares it as well", id)
		}
		settings, err := encodeSettings(fmt.Sprintf("mcp: ClientOptions.Extensions[%q]", id), c.opts.Extensions[id]) // extension.go
		if err != nil {
			return caps, err
		}
		merged.Extensions[id] = settings
	}
	return &merged, nil
}

// Connect opens t and starts a session in the era
// ClientOptions.ProtocolEra chooses (see ProtocolEra; docs/design.md).
// When no version is shared it fails with an error wrapping
// ErrUnsupportedVersion; on any failure it closes the connection. ctx
// bounds the start only. It fails without opening t when
// ClientOptions.Extensions cannot be declared.
func (c *Client) Connect(ctx context.Context, t Transport) (*ClientSession, error) {
	if c.capsErr != nil {
		return nil, c.capsErr
	}
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
