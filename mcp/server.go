package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/internal/jsonenc"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// A Server holds the features it offers (tools, resources, resource
// templates, prompts, completion, logging, tasks) and serves any number of
// sessions over any transports, in both protocol eras
// (https://modelcontextprotocol.io/specification/2025-11-25/architecture#servers).
// Features may be added and removed while sessions are live; sessions are
// told with list_changed notifications (in the stateless era, the clients
// listening with subscriptions/listen).
//
// A Server is safe for concurrent use.
type Server struct {
	impl   Implementation
	opts   ServerOptions
	logger *slog.Logger
	store  SessionStore

	// tables holds the session era's and the stateless era's method
	// tables, built in NewServer and replaced whole by AddExtension
	// (extension.go).
	tables atomic.Pointer[methodTables]
	// extensions are the extensions added, in order, guarded by mu.
	extensions []*Extension
	// handler is the dispatcher wrapped in the configured middleware, or
	// nil when there is none (the fast path).
	handler MethodHandler
	// send is the sending chain (SendingMiddleware, send.go), or nil when
	// there is none.
	send SendHandler

	mu       sync.RWMutex
	tools    featureSet[*serverTool]
	res      resourceFeatures // resource.go
	prm      promptFeatures   // prompt.go
	tasks    taskRuntime      // task_engine.go; has its own lock
	sessions map[*ServerSession]struct{}

	// The stateless era's state: the encoded server identity written into
	// results, within the head of a result that carries no cache hint
	// (era_stateless_result.go), the requestState key
	// (input_state.go) and the open subscriptions/listen streams (listen.go).
	infoOnce  sync.Once
	infoHead  []byte
	stateKey  stateKeyHolder
	listeners listenerSet
	// texts keeps the escaped form of long resource texts read more than
	// once (resource_textcache.go).
	texts textCache
	// What the Bus carries between replicas: listen notifications
	// (listen_bus.go), task operations (task_bus.go) and broadcasts to
	// sessions (broadcast_bus.go).
	busOnce      sync.Once
	busSelf      string
	listenBus    busSub
	taskBus      busSub
	broadcastBus busSub
	// serving is set once a transport is given the server or it holds a
	// session: list_changed before that is setup and is not broadcast.
	serving atomic.Bool
}

// ServerOptions configures a Server. The zero value is a useful
// configuration; every field says what its zero value means.
//
// A panic in any function given here (handlers, middleware, callbacks,
// hooks, the SessionStore) is recovered and logged with its stack at
// error level on Logger, never sent to the client: a request is answered
// -32603 "Internal error", a notification's callback just ends, and the
// session goes on.
type ServerOptions struct {
	// Instructions are sent in the initialize result, as a hint for the
	// model. If empty, none are sent.
	Instructions string
	// Logger receives the server's own diagnostics (handler panics, encode
	// failures). If nil, nothing is logged: the library never prints.
	Logger *slog.Logger
	// Capabilities, if set, is sent instead of the capabilities inferred
	// from the registered features.
	Capabilities *ServerCapabilities
	// PageSize is the number of items per page of list methods
	// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination).
	// If zero, 100. The pages of tools/list, prompts/list, resources/list
	// and resources/templates/list are encoded once and served from that
	// encoding until a feature of the list is added or removed, so a Tool,
	// Prompt, Resource or ResourceTemplate must not be changed once added:
	// add a new one under the same name instead.
	PageSize int
	// MaxConcurrentRequests bounds the requests one session on a stream
	// transport (stdio, in-memory) handles at once; as many again wait,
	// then the session stops reading until one finishes. If zero, 64.
	MaxConcurrentRequests int
	// MaxInFlightRequests bounds the requests one session has in flight
	// (admitted, not yet answered) on any transport and in both eras,
	// batched ones among them; ping is not counted
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server).
	// A request past it is answered -32000 "Too many requests in flight",
	// data {"maxInFlightRequests": n}. If zero, 64 or MaxConcurrentRequests
	// if larger; if negative, no bound.
	MaxInFlightRequests int
	// MaxClientStateBytes bounds the client state a session keeps: the
	// raw JSON of initialize's clientInfo and capabilities together
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization),
	// or of a stateless-era request's _meta
	// io.modelcontextprotocol/clientInfo and
	// io.modelcontextprotocol/clientCapabilities
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta).
	// A request past the bound is refused with -32602 "Invalid params",
	// data naming what is too large, and leaves no state behind: a
	// refused initialize leaves the session uninitialized. If zero,
	// 64 KiB; if negative, there is no bound.
	MaxClientStateBytes int
	// MaxQueuedNotifications bounds the notifications from API calls
	// (list_changed, resources/updated, listen notifications) queued for
	// one client of a stream Connection (Streamable HTTP: see
	// mcphttp.Options.MaxStreamQueueBytes); a duplicate of a queued one is
	// not queued again. Past it a notification is dropped and logged with
	// ErrNotificationQueueFull. If zero, 1024; if
	// negative, no bound.
	MaxQueuedNotifications int
	// Middleware wraps every request and notification, outermost first.
	Middleware []Middleware
	// SendingMiddleware wraps every request and notification the server
	// sends (progress, log messages, list_changed, cancellations,
	// server-to-client requests), outermost first; see SendingMiddleware.
	SendingMiddleware []SendingMiddleware
	// Logging, if set, declares the logging capability, serves
	// logging/setLevel and lets handlers send log messages. If nil,
	// logging/setLevel is -32601 and log messages are dropped
	// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging#capabilities).
	Logging *LoggingOptions
	// Tasks configures the tasks that tools with execution.taskSupport
	// "optional" or "required" run as (experimental; see TaskOptions). The
	// zero value is a useful configuration.
	Tasks TaskOptions
	// MaxResourceURIBytes bounds the uri of resources/read, subscribe and
	// unsubscribe: a longer one is refused with -32602 "Invalid params",
	// data "uri is N bytes, over the limit of M
	// (ServerOptions.MaxResourceURIBytes)". If zero, 8192; if negative, no
	// bound.
	MaxResourceURIBytes int
	// ResourceTextCacheBytes bounds the memory kept for the JSON-escaped
	// form of resource texts (16 KiB or more, the only content of a
	// resources/read) returned twice as the very same string; the oldest
	// are dropped first. A handler returning strings that alias bytes it
	// later changes (unsafe.String) must set it negative. If zero, 32 MiB;
	// if negative, nothing is kept.
	ResourceTextCacheBytes int
	// SessionStore keeps the state of the server's session-era sessions
	// from initialize to their end. A store whose Shared reports true lets
	// every Streamable HTTP Handler using it serve any of its sessions. If
	// nil, NewMemorySessionStore(nil) (not shared).
	SessionStore SessionStore
	// Bus, if set, carries messages between the replicas of this server
	// (see Bus); every replica needs the same one. If nil, nothing crosses
	// replicas.
	Bus Bus
	// InitializedHandler, if set, is called when a session receives
	// notifications/initialized.
	InitializedHandler func(ctx context.Context, ss *ServerSession)
	// RootsListChangedHandler, if set, is called when a session receives
	// notifications/roots/list_changed
	// (https://modelcontextprotocol.io/specification/2025-11-25/client/roots#root-list-changes).
	// It runs on the session's read loop: call ServerSession.ListRoots from
	// a goroutine, not directly, or the answer cannot be read.
	RootsListChangedHandler func(ctx context.Context, ss *ServerSession)
	// ProgressHandler, if set, is called for notifications/progress from a
	// client, about a request the server sent with _meta.progressToken
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress).
	// It runs on the session's read loop and must not block for long.
	ProgressHandler func(ctx context.Context, ss *ServerSession, p *ProgressParams)
	// CompletionHandler, if set, answers completion/complete for the
	// arguments of prompts and the variables of resource templates, and
	// the server declares the completions capability
	// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion).
	// If nil, completion/complete is -32601.
	CompletionHandler CompletionHandler
	// CacheHint, if set, gives the ttlMs and cacheScope of stateless-era
	// results of server/discover, the list methods and resources/read
	// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching),
	// by method. If nil, ttlMs is 0 and cacheScope "private": clients do
	// not reuse results.
	CacheHint func(method string) CacheHint
	// RequestStateKey signs the requestState of input_required results
	// (HMAC-SHA256)
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).
	// Replicas serving the same clients need the same key. If nil and the
	// SessionStore is shared, the store's key (its RequestStateKey method) is used,
	// and without one every requestState fails with -32603. If nil
	// otherwise, a random key is made in NewServer.
	RequestStateKey []byte
	// RequestStateTTL bounds how long an input_required result can be
	// answered. If zero, 1 hour.
	RequestStateTTL time.Duration
}

// NewServer returns a server that identifies itself as impl. A nil opts is
// the zero ServerOptions.
func NewServer(impl Implementation, opts *ServerOptions) *Server {
	s := &Server{impl: impl}
	if opts != nil {
		s.opts = *opts
	}
	s.logger = s.opts.Logger
	if s.logger == nil {
		s.logger = discardLogger
	}
	s.store = s.opts.SessionStore
	if s.store == nil {
		s.store = &memorySessionStore{}
	}
	s.opts.PageSize = positiveOr(s.opts.PageSize, 100) // client.go
	s.opts.MaxConcurrentRequests = positiveOr(s.opts.MaxConcurrentRequests, 64)
	setDefault(&s.opts.MaxQueuedNotifications, defaultMaxQueuedNotifications) // client.go
	setDefault(&s.opts.MaxClientStateBytes, defaultMaxClientStateBytes)
	setDefault(&s.opts.MaxInFlightRequests, max(defaultMaxInFlightRequests, s.opts.MaxConcurrentRequests))
	s.stateKey.init(s.opts.RequestStateKey, s.store) // state_key.go
	setDefault(&s.opts.ResourceTextCacheBytes, defaultResourceTextCacheBytes)
	s.texts.limit = s.opts.ResourceTextCacheBytes
	s.opts.RequestStateTTL = positiveOr(s.opts.RequestStateTTL, time.Hour)
	// Each feature's methods live in the feature's own file.
	methods := map[string]MethodHandler{
		"initialize":            s.initialize,
		"ping":                  func(context.Context, *Request) (any, error) { return emptyObject, nil },
		"resources/subscribe":   s.subscription(true), // resource.go
		"resources/unsubscribe": s.subscription(false),
		"logging/setLevel":      s.setLogLevel,
		"tasks/get":             s.getTask, // task_session.go
		"tasks/result":          s.getTaskResult,
		"tasks/list":            s.listTasks,
		"tasks/cancel":          s.cancelTask,
	}
	// https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#request-metadata
	statelessMethods := map[string]MethodHandler{
		"server/discover":      s.discover,
		"subscriptions/listen": s.listen,
		"tasks/get":            s.getTaskExt, // task_ext.go
		"tasks/update":         s.updateTaskExt,
		"tasks/cancel":         s.cancelTaskExt,
	}
	for method, h := range map[string]MethodHandler{
		"tools/list":               s.listTools,
		"tools/call":               s.callTool,
		"resources/list":           s.listResources,
		"resources/templates/list": s.listResourceTemplates,
		"resources/read":           s.readResource,
		"prompts/list":             s.listPrompts,
		"prompts/get":              s.getPrompt,
		"completion/complete":      s.complete,
	} {
		methods[method], statelessMethods[method] = h, h
	}
	s.tables.Store(&methodTables{session: methods, stateless: statelessMethods})
	if len(s.opts.Middleware) > 0 {
		h := MethodHandler(s.route)
		for i := len(s.opts.Middleware) - 1; i >= 0; i-- {
			h = s.opts.Middleware[i](h)
		}
		s.handler = h
	}
	s.send = s.sendingChain() // send.go
	return s
}

// dispatch runs a request through the middleware and the method table,
// turning a panic into -32603.
func (s *Server) dispatch(ctx context.Context, r *Request) (result any, err error) {
	defer s.recoverHandler(r.Method, &err)
	if s.handler != nil {
		return s.handler(ctx, r)
	}
	return s.route(ctx, r)
}

// route finds the method's handler in the method table of the request's
// era.
func (s *Server) route(ctx context.Context, r *Request) (any, error) {
	if !r.ID.IsValid() {
		// Notifications reach here only through middleware; they have no
		// handlers of their own yet.
		return nil, nil
	}
	h, ok := r.inEra().methods(s)[r.Method]
	if !ok {
		return nil, errMethodNotFound(r.Method)
	}
	return h(ctx, r)
}

// dispatchNotification runs a notification through the middleware.
func (s *Server) dispatchNotification(ctx context.Context, r *Request) {
	// A panic in a callback or the middleware is logged and ends only
	// that callback: the session lives on (recover.go).
	if r.Method == "notifications/initialized" && s.opts.InitializedHandler != nil {
		s.callback("InitializedHandler", r.Method, func() { s.opts.InitializedHandler(ctx, r.Session) })
	}
	if r.Method == "notifications/roots/list_changed" && s.opts.RootsListChangedHandler != nil {
		s.callback("RootsListChangedHandler", r.Method, func() { s.opts.RootsListChangedHandler(ctx, r.Session) }) // roots.go
	}
	if r.Method == "notifications/progress" && s.opts.ProgressHandler != nil {
		s.callback("ProgressHandler", r.Method, func() { s.progressNotification(ctx, r) }) // progress.go
	}
	if s.handler == nil {
		return
	}
	s.callback("middleware", r.Method, func() { _, _ = s.handler(ctx, r) })
}

// unmarshalParams decodes params into v, treating absent params as {}.
func unmarshalParams(params json.RawMessage, v any) *jsonrpc.Error {
	if len(params) == 0 {
		return nil
	}
	if err := exactjson.Unmarshal(params, v); err != nil {
		return errInvalidParams("invalid params: " + err.Error())
	}
	return nil
}

// initialize implements the initialize request
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization).
func (s *Server) initialize(ctx context.Context, r *Request) (any, error) {
	if len(r.Params) == 0 {
		return nil, errInvalidParams("missing params: initialize requires protocolVersion, capabilities and clientInfo")
	}
	var raw struct {
		ProtocolVersion json.RawMessage `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ClientInfo      json.RawMessage `json:"clientInfo"`
	}
	if err := exactjson.Unmarshal(r.Params, &raw); err != nil {
		return nil, errInvalidParams("params must be an object")
	}
	if err := s.checkClientState("clientInfo and capabilities", len(raw.ClientInfo)+len(raw.Capabilities)); err != nil {
		return nil, err // limits.go; nothing is kept
	}
	var p initializeParams
	if !isJSONString(raw.ProtocolVersion) || exactjson.Unmarshal(raw.ProtocolVersion, &p.ProtocolVersion) != nil {
		return nil, errInvalidParams("protocolVersion must be a string")
	}
	if len(raw.Capabilities) == 0 || raw.Capabilities[0] != '{' || exactjson.Unmarshal(raw.Capabilities, &p.Capabilities) != nil {
		return nil, errInvalidParams("capabilities must be an object")
	}
	var fields struct {
		Name    json.RawMessage `json:"name"`
		Version json.RawMessage `json:"version"`
	}
	if len(raw.ClientInfo) == 0 || raw.ClientInfo[0] != '{' || exactjson.Unmarshal(raw.ClientInfo, &fields) != nil {
		return nil, errInvalidParams("clientInfo must be an object with name and version")
	}
	if !isJSONString(fields.Name) {
		return nil, errInvalidParams("clientInfo.name must be a string")
	}
	if !isJSONString(fields.Version) {
		return nil, errInvalidParams("clientInfo.version must be a string")
	}
	var info Implementation
	if err := exactjson.Unmarshal(raw.ClientInfo, &info); err != nil {
		return nil, errInvalidParams("clientInfo is invalid: " + err.Error())
	}

	ss := r.Session
	version := negotiateVersion(p.ProtocolVersion)
	ss.mu.Lock()
	if ss.state.Lifecycle != stateNew {
		// A concurrent initialize won the race.
		ss.mu.Unlock()
		return nil, errInvalidRequest("Server already initialized")
	}
	ss.state.ProtocolVersion = version
	ss.state.ClientInfo = info
	ss.state.ClientCapabilities = *p.Capabilities
	ss.state.Lifecycle = stateInitialized
	ss.mu.Unlock()
	ss.create(ctx)

	return &InitializeResult{
		ProtocolVersion: version,
		Capabilities:    s.sessionCapabilities(ss, authOf(r)), // task_session.go
		ServerInfo:      s.impl,
		Instructions:    s.opts.Instructions,
	}, nil
}

// isJSONString reports whether raw is a JSON string (not null, not absent).
func isJSONString(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '"' }

// capabilities returns what the server declares: the configured
// capabilities, or those of the registered features.
func (s *Server) capabilities() ServerCapabilities {
	if s.opts.Capabilities != nil {
		return *s.opts.Capabilities
	}
	var c ServerCapabilities
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.tools.len() > 0 {
		c.Tools = &ListChangedCapability{ListChanged: true}
	}
	// Each feature declares itself from its own file.
	c.Resources = s.resourcesCapability()
	c.Prompts = s.promptsCapability()
	c.Completions = s.completionsCapability()
	c.Logging = s.loggingCapability()
	c.Tasks = s.tasksCapability()
	c.Extensions = s.extensionsCapability() // extension.go
	return c
}

// markServing records that the server serves clients (broadcast): a
// transport was given it, or it holds a session.
func (s *Server) markServing() {
	if !s.serving.Load() {
		s.serving.Store(true)
	}
}

func (s *Server) addSession(ss *ServerSession) {
	s.markServing()
	s.mu.Lock()
	if s.sessions == nil {
		s.sessions = make(map[*ServerSession]struct{})
	}
	s.sessions[ss] = struct{}{}
	s.mu.Unlock()
	if s.opts.Bus != nil && !ss.ephemeral {
		// An ephemeral session ends with its one request: no broadcast
		// reaches it, and it must not cost a subscription per request.
		leave := s.joinBroadcastBus(context.Background()) // broadcast_bus.go
		ss.mu.Lock()
		ss.leaveBroadcast = leave
		ss.mu.Unlock()
	}
}

func (s *Server) removeSession(ss *ServerSession) {
	s.mu.Lock()
	delete(s.sessions, ss)
	s.mu.Unlock()
	ss.mu.Lock()
	leave := ss.leaveBroadcast
	ss.leaveBroadcast = nil
	ss.mu.Unlock()
	if leave != nil {
		leave()
	}
	if id := ss.state.ID; id != "" && !ss.transportStores {
		defer recoverCallback(s.logger, "SessionStore.Delete", "") // recover.go
		_ = s.store.Delete(context.Background(), ss.state.Owner, id)
	}
}

// Sessions returns the sessions currently open on the server.
func (s *Server) Sessions() []*ServerSession {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]*ServerSession, 0, len(s.sessions))
	for ss := range s.sessions {
		out = append(out, ss)
	}
	return out
}

// broadcast sends a notification (list_changed) to every initialized
// session and listener, here and on other replicas, without waiting for
// any client (notify_async.go). Before the server is serving it sends
// nothing (docs/design.md, "Broadcasts").
func (s *Server) broadcast(method string, params any) {
	if !s.serving.Load() {
		return
	}
	s.notifyListeners(context.Background(), method, "", params) // listen.go
	if s.opts.Bus == nil && len(s.Sessions()) == 0 {
		return
	}
	raw, err := jsonenc.Marshal(params)
	if err != nil {
		s.logger.Error("mcp: encoding notification", "method", method, "err", err)
		return
	}
	key := s.publishBroadcast(context.Background(), method, "", raw) // broadcast_bus.go
	s.deliverBroadcast(broadcastContext(context.Background(), key), method, raw)
}

// deliverBroadcast sends a list_changed notification to every initialized
// session held here.
func (s *Server) deliverBroadcast(ctx context.Context, method string, raw json.RawMessage) {
	ctx = withSharedNotification(ctx, method, raw) // notify_async.go
	for _, ss := range s.Sessions() {
		ss.mu.Lock()
		lifecycle := ss.state.Lifecycle
		ss.mu.Unlock()
		if lifecycle != stateInitialized && lifecycle != stateReady {
			continue
		}
		if err := ss.notifyUnrelated(ctx, method, raw); err != nil {
			s.logger.Debug("mcp: notification not delivered", "method", method, "err", err)
		}
	}
}
