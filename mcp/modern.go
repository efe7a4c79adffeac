package mcp

// This file serves the stateless era (2026-07-28 and later) beside the
// session era on the same Server, session and transport: a request whose
// params._meta carries io.modelcontextprotocol/protocolVersion is served on
// its own, with the version, capabilities and client identity it carries,
// whatever happened before on the connection
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpkit/mcpkit/internal/ctxscope"
	"github.com/mcpkit/mcpkit/internal/jsonenc"
	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// The _meta keys of the stateless era
// (https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta).
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// Result types of the stateless era
// (https://modelcontextprotocol.io/specification/2026-07-28/basic#resulttype).
const (
	ResultTypeComplete      = "complete"
	ResultTypeInputRequired = "input_required"
	ResultTypeTask          = "task"
)

// modernOnlyMethods exist only in the stateless era: a request for one is
// served on the modern path even without _meta, so that it is refused with
// -32602 for the missing _meta rather than as a session-era request.
func isModernOnlyMethod(method string) bool {
	return method == "server/discover" || method == "subscriptions/listen"
}

// modernMethods are the methods the stateless era serves; every other
// method, initialize, ping, logging/setLevel and resources/subscribe among
// them, is -32601
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#request-metadata).
var modernMethods = map[string]bool{
	"server/discover":          true,
	"subscriptions/listen":     true,
	"tools/list":               true,
	"tools/call":               true,
	"resources/list":           true,
	"resources/templates/list": true,
	"resources/read":           true,
	"prompts/list":             true,
	"prompts/get":              true,
	"completion/complete":      true,
}

// cacheableMethods carry ttlMs and cacheScope on their complete results
// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching).
func isCacheableMethod(method string) bool {
	switch method {
	case "server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read":
		return true
	}
	return false
}

// mrtrMethods may answer with an input_required result
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).
func isMRTRMethod(method string) bool {
	return method == "tools/call" || method == "prompts/get" || method == "resources/read"
}

// requestProtocolVersion is rawProtocolVersion(req.Params), read from the
// members of params jsonrpc.Decode noted (jsonrpc.Request.ParamsMembers)
// when it noted them: a session-era request, which never names a version,
// costs a look at the names of params and at the members of its _meta,
// however long its other members are.
func requestProtocolVersion(req *jsonrpc.Request) (version []byte, found bool) {
	n, ok := req.ParamsMembers()
	if !ok {
		return rawProtocolVersion(req.Params)
	}
	for i := range n {
		if key, value := req.ParamsMember(i); isMetaKey(key) {
			return metaProtocolVersion(value)
		}
	}
	return nil, false
}

// rawProtocolVersion returns the raw JSON of the version params._meta
// names, not decoded, and whether it names one.
func rawProtocolVersion(params json.RawMessage) (version []byte, found bool) {
	meta := metaMember(params)
	if meta == nil {
		return nil, false
	}
	return metaProtocolVersion(meta)
}

// metaProtocolVersion returns the raw version the valid _meta value meta
// names, and whether it names one (an object with the key).
func metaProtocolVersion(meta []byte) (version []byte, found bool) {
	if len(meta) == 0 || meta[0] != '{' {
		return nil, false
	}
	jsonscan.Members(meta, func(key, value []byte) bool {
		if jsonscan.KeyEquals(key, MetaProtocolVersion) {
			version, found = value, true
			return false
		}
		return true
	})
	return version, found
}

// metaMember returns params._meta when params is a valid object whose
// _meta is an object, or nil. (Params decoded from a frame are valid JSON;
// others may not be.)
func metaMember(params json.RawMessage) []byte {
	if len(params) == 0 || params[0] != '{' {
		return nil
	}
	var meta []byte
	if _, err := jsonscan.ScanObject(params, 0, func(key, value []byte) {
		if meta == nil && jsonscan.KeyEquals(key, "_meta") {
			meta = value
		}
	}); err != nil {
		return nil
	}
	if len(meta) == 0 || meta[0] != '{' {
		return nil
	}
	return meta
}

// modernState is what a stateless-era request carries besides its params:
// the per-request log level and the multi round-trip bookkeeping
// (input.go).
type modernState struct {
	logLevel LoggingLevel
	// answers are the input responses known for this attempt: those the
	// signed requestState carried from earlier rounds plus the retry's
	// inputResponses.
	answers map[string]json.RawMessage
	// pending are the input requests the handler asked for and did not
	// find answered, in the order asked.
	pending     []string
	pendingReqs map[string]*InputRequest
	// kept are the keys of the answers the handler asked for and found:
	// what the next requestState carries.
	kept map[string]bool
	// auto numbers the input requests made through Request.Elicit,
	// CreateMessage and ListRoots, which have no key of their own.
	auto int
	// task is set when the request is the work of a task of the tasks
	// extension: Request.Input waits for tasks/update (task_modern_input.go).
	task *extRun
	// meta is the request's _meta and what else parsing params found
	// (modern_meta.go); nil for a task's work.
	meta *requestMeta
}

// errUnsupportedVersion is -32022 with the versions served
// (https://modelcontextprotocol.io/specification/2026-07-28/schema#unsupportedprotocolversionerror).
func errUnsupportedVersion(requested string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeUnsupportedProtocolVersion, "Unsupported protocol version", struct {
		Supported []string `json:"supported"`
		Requested string   `json:"requested"`
	}{servedVersions, requested})
}

// MissingCapabilityError returns the -32021 error a stateless-era request
// gets when it needs a client capability the request did not declare
// (https://modelcontextprotocol.io/specification/2026-07-28/schema#missingrequiredclientcapabilityerror).
// capability is a dotted path such as "sampling" or "elicitation.url".
func MissingCapabilityError(capability string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeMissingClientCapability, "Missing required client capability: "+capability, struct {
		RequiredCapabilities json.RawMessage `json:"requiredCapabilities"`
	}{capabilityObject(capability)})
}

// capabilityObject turns "a.b" into {"a":{"b":{}}}.
func capabilityObject(dotted string) json.RawMessage {
	parts := strings.Split(dotted, ".")
	var b strings.Builder
	for _, p := range parts {
		b.WriteByte('{')
		name, _ := jsonenc.Marshal(p)
		b.Write(name)
		b.WriteByte(':')
	}
	b.WriteString("{}")
	for range parts {
		b.WriteByte('}')
	}
	return json.RawMessage(b.String())
}

// serveStateless serves one stateless-era request that arrived outside
// any session, as on a Streamable HTTP POST without Mcp-Session-Id: the
// request stands alone, and its messages (progress, log, subscription
// notifications) go to related. Cancellation is ctx's: the transport
// cancels it when the client goes away.
//
// refused reports that the request was turned away rather than served,
// which Streamable HTTP answers with 400, or 404 for -32601, rather than
// 200
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#request-metadata):
// before any handler ran (bad _meta → -32602, unsupported version →
// -32022, unknown or removed method → -32601), or by the method's handler
// for a method the server does not offer (-32601, as prompts/list on a
// server without prompts) or a capability the request did not declare
// (-32021). Such a handler may have sent notifications on related first;
// a transport that already started its reply can no longer change the
// status.
func (s *Server) serveStateless(ctx context.Context, req *jsonrpc.Request, related messageWriter, extra *RequestExtra) (resp *jsonrpc.Response, refused bool) {
	// The request's session lives and dies with it: nothing can reach it
	// but the handler (through Request.Session), so it needs no in-flight
	// table, and it shares the request's allocation.
	s.markServing()
	c := &soloCall{}
	c.ss.server = s
	c.ss.state.Lifecycle = StateReady
	resp, refused, _ = c.ss.serveModern(ctx, req, related, extra, &c.call, nil, &c.req, nil)
	return resp, refused
}

// modernCall is what a stateless-era request needs while it is served,
// besides its Request: its multi round-trip state, its decoded _meta and
// its context values.
type modernCall struct {
	st   modernState
	meta requestMeta
	ctx  statelessCtx
}

// sessionModernCall is a modernCall served on a session, in one
// allocation with its in-flight entry, which holds the handler's Request.
type sessionModernCall struct {
	in   inflightRequest
	call modernCall
	lc   lazyCancelCtx
}

// lazyCancelCtx is context.WithCancel(Context) for a request served on a
// session, where notifications/cancelled or the session's end must be
// able to cancel it, with the cancelable context made only when someone
// asks for Done (a handler that waits, or a context derived from this
// one): a handler that never waits costs no context of its own, and no
// entry in the parent's table of children to add and remove.
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

// soloCall is a modernCall served outside any session, in one allocation
// with the session and the Request its handler sees, and no in-flight
// entry (the entry's cancel function and related context would go
// unused): 1,144 bytes, in the allocator's 1,152-byte class rather than
// its 1,280-byte one.
type soloCall struct {
	ss   ServerSession
	req  Request
	call modernCall
}

// handleModern serves a stateless-era request on ss, which only lends its
// in-flight table (so that notifications/cancelled reaches the request on
// stdio, and ss's end cancels it) and its writers: no session state is
// read or written. It is Host.ServeStateless with a session, for a
// Streamable HTTP POST carrying both a live Mcp-Session-Id and the
// 2026-07-28 _meta
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility).
// refused and err are as for serveStateless and handleRequest.
func (ss *ServerSession) handleModern(ctx context.Context, req *jsonrpc.Request, related messageWriter, extra *RequestExtra) (*jsonrpc.Response, bool, error) {
	c := new(sessionModernCall)
	return ss.serveModern(ctx, req, related, extra, &c.call, &c.in, &c.in.req, &c.lc)
}

// errNotStateless is serveModern's answer, when asked to probe
// (requestMeta.probe), for a request whose params name no protocol version
// in _meta after all: handleRequest serves it in the session era.
var errNotStateless = errors.New("mcp: not a stateless-era request")

// probeModern is handleModern for a request that only may belong to the
// stateless era (its params' _meta names a protocol version, as
// requestProtocolVersion tells): the _meta is read again, by the
// stateless era's own parse, rather than first to tell the era and then
// again to serve it. modern is false, and nothing was done, when the
// params name no version after all (StatelessVersionOf would have said
// false).
func (ss *ServerSession) probeModern(ctx context.Context, req *jsonrpc.Request, related messageWriter, extra *RequestExtra) (resp *jsonrpc.Response, modern bool, err error) {
	c := new(sessionModernCall)
	c.call.meta.probe = true
	resp, _, err = ss.serveModern(ctx, req, related, extra, &c.call, &c.in, &c.in.req, &c.lc)
	if err == errNotStateless {
		return nil, false, nil
	}
	return resp, true, err
}

// serveModern is handleModern with the request's allocation: c, the
// in-flight entry in, and r, the handler's Request. A solo session
// (serveStateless's own, in nil) is reachable by nobody else: the request
// is not entered in its in-flight table. lc, given with in, is the
// request's cancelable context.
func (ss *ServerSession) serveModern(ctx context.Context, req *jsonrpc.Request, related messageWriter, extra *RequestExtra, c *modernCall, in *inflightRequest, r *Request, lc *lazyCancelCtx) (*jsonrpc.Response, bool, error) {
	solo := in == nil
	s := ss.server
	m := &c.meta
	m.maxState = s.opts.MaxClientStateBytes
	retry, rpcErr := m.parse(req.Params, req)
	if rpcErr != nil {
		if m.probe && !m.found {
			return nil, false, errNotStateless
		}
		return jsonrpc.NewErrorResponse(req.ID, rpcErr), true, nil
	}
	if !isStatelessVersion(m.version) {
		return jsonrpc.NewErrorResponse(req.ID, errUnsupportedVersion(m.version)), true, nil
	}
	if !s.servesModern(req.Method) {
		return jsonrpc.NewErrorResponse(req.ID, errMethodNotFound(req.Method)), true, nil
	}
	st := &c.st
	st.logLevel, st.meta = m.logLevel, m
	if isMRTRMethod(req.Method) {
		if err := s.readInputValues(req, st, retry.responses, retry.state); err != nil {
			return jsonrpc.NewErrorResponse(req.ID, err), false, nil
		}
	}

	c.ctx = statelessCtx{Context: ctx, w: related}
	if !solo {
		ss.mu.Lock()
		if err := ss.admitLocked(req.ID); err != nil {
			ss.mu.Unlock()
			resp, err := admitRefusal(req.ID, err) // limits.go
			return resp, false, err
		}
	}
	var cancel context.CancelFunc
	if solo && ctxscope.Scoped(ctx) {
		// The transport ends ctx once the request is answered, and
		// nothing else can reach a solo request: a context of its own
		// would only be cancelled on return.
		ctx, cancel = &c.ctx, func() {}
	} else if lc != nil {
		lc.Context = &c.ctx
		ctx, cancel = lc, lc.cancel
	} else {
		ctx, cancel = context.WithCancel(&c.ctx)
	}
	if !solo {
		in.cancel = cancel
		ss.addInflightLocked(req.ID, in)
		ss.mu.Unlock()
	}
	*r = Request{
		Method:             req.Method,
		ID:                 req.ID,
		Params:             req.Params,
		Session:            ss,
		ProtocolVersion:    m.version,
		ClientInfo:         &m.info,
		ClientCapabilities: &m.caps,
		Extra:              extra,
		related:            related,
		modern:             st,
	}

	result, err := s.dispatch(ctx, r)

	cancelled := !solo && ss.retireInflight(req.ID, in)
	cancel()
	if cancelled {
		return nil, false, nil
	}
	if err != nil {
		if errors.Is(err, ErrInputRequired) && len(st.pending) > 0 {
			if !isMRTRMethod(req.Method) {
				s.logger.Error("mcp: input requested outside tools/call, prompts/get and resources/read", "method", req.Method)
				return jsonrpc.NewErrorResponse(req.ID, errInternal()), false, nil
			}
			return s.inputRequiredResponse(req, st), false, nil
		}
		err = modernError(err)
	} else {
		return s.statelessResponse(req.ID, req.Method, result), false, nil // era_stateless_result.go
	}
	resp := s.makeResponse(req.ID, nil, err)
	switch resp.Error.Code {
	case jsonrpc.CodeMethodNotFound, jsonrpc.CodeMissingClientCapability:
		return resp, true, nil
	}
	return resp, false, nil
}

// statelessCtx is the context of a stateless-era request's handler: it
// marks the request as stateless and carries its related writer (when it
// has one), as two context.WithValue would, without allocations of its
// own.
type statelessCtx struct {
	context.Context
	w messageWriter
}

func (c *statelessCtx) Value(key any) any {
	switch key.(type) {
	case statelessKey:
		return true
	case relatedKey:
		if c.w != nil {
			return c.w
		}
	}
	return c.Context.Value(key)
}

// statelessKey marks, in a handler's context, a stateless-era request.
type statelessKey struct{}

// checkStatelessCall refuses a server-to-client request from the handler
// of a stateless-era request: the era has none, on any transport; input
// from the client arrives by multi round-trip requests (Request.Input)
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).
func checkStatelessCall(ctx context.Context, method string) error {
	if ctx.Value(statelessKey{}) != nil {
		return fmt.Errorf("mcp: %s not sent: a stateless-era request sends no requests to the client; ask with Request.Input", method)
	}
	return nil
}

// servesModern reports whether method is served in the stateless era.
func (s *Server) servesModern(method string) bool {
	if modernMethods[method] {
		return true
	}
	return s.tasksExtensionMethod(method)
}

// modernError rewrites the session era's error shapes into the stateless
// era's: a capability the client did not declare is -32021, and a missing
// resource is -32602 (with data.uri kept), no longer -32002
// (https://modelcontextprotocol.io/specification/2026-07-28/server/resources#error-handling).
func modernError(err error) error {
	var capErr *CapabilityError
	if errors.As(err, &capErr) {
		return MissingCapabilityError(capErr.Capability)
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc.CodeResourceNotFound {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: rpcErr.Message, Data: rpcErr.Data}
	}
	return err
}
