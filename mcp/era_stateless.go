package mcp

// The stateless era (2026-07-28 and later): *statelessRequest, its era
// operations, and the path that serves a request carrying the era's _meta
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpkit/mcpkit/internal/ctxscope"
	"github.com/mcpkit/mcpkit/internal/jsonenc"
	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// The _meta keys of the stateless era
// (https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta).
const (
	metaKeyProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaKeyClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaKeyClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaKeyLogLevel           = "io.modelcontextprotocol/logLevel"
	metaKeyServerInfo         = "io.modelcontextprotocol/serverInfo"
	metaKeySubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// Result types of the stateless era
// (https://modelcontextprotocol.io/specification/2026-07-28/basic#resulttype).
const (
	resultTypeComplete      = "complete"
	resultTypeInputRequired = "input_required"
	resultTypeTask          = "task"
)

// isStatelessVersion reports whether v is a stateless-era version mcpkit
// serves.
func isStatelessVersion(v string) bool { return slices.Contains(statelessVersions, v) }

// isStatelessOnlyMethod reports whether method exists only in the stateless
// era: a request for one is served there even without _meta, and refused
// with -32602 for the missing _meta.
func isStatelessOnlyMethod(method string) bool {
	return method == "server/discover" || method == "subscriptions/listen"
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
// members of params jsonrpc.Decode noted, when it noted them.
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
		if jsonscan.KeyEquals(key, metaKeyProtocolVersion) {
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

// statelessRequest is what a stateless-era request carries besides its params:
// the per-request log level and the multi round-trip bookkeeping
// (input.go).
type statelessRequest struct {
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
	// task is set when the request is the work of a task of the tasks
	// extension: Request.Input waits for tasks/update (task_ext.go).
	task *extRun
	// auto numbers the input requests made through Request.Elicit,
	// CreateMessage and ListRoots, which have no key of their own. An
	// int32 beside the flags keeps sessionStatelessCall within its
	// allocation size class (docs/design.md).
	auto int32
	// beforeTask is set while the handler of a tool with
	// Tool.InputBeforeTask runs before its task exists; begun once it
	// called Request.BeginTask then (task_ext.go).
	beforeTask, begun bool
	// meta is the request's _meta and what else parsing params found
	// (era_stateless_meta.go); nil for a task's work.
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

// missingCapabilityError returns the -32021 error a stateless-era request
// gets when it needs a client capability the request did not declare
// (https://modelcontextprotocol.io/specification/2026-07-28/schema#missingrequiredclientcapabilityerror).
// capability is a dotted path such as "sampling" or "elicitation.url".
func missingCapabilityError(capability string) *jsonrpc.Error {
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
// any session on a session of its own (Host.ServeStateless without ss).
func (s *Server) serveStateless(ctx context.Context, req *jsonrpc.Request, related messageWriter, extra *RequestExtra) (resp *jsonrpc.Response, refused bool) {
	s.markServing()
	c := &soloCall{}
	c.ss.server = s
	c.ss.state.Lifecycle = stateReady
	resp, refused, _ = c.ss.serveStatelessCall(ctx, req, related, extra, &c.call, nil, &c.req, nil)
	return resp, refused
}

// statelessCall is what a stateless-era request needs while it is served,
// besides its Request: its multi round-trip state, its decoded _meta and
// its context values.
type statelessCall struct {
	st   statelessRequest
	meta requestMeta
	ctx  statelessCtx
}

// sessionStatelessCall is a statelessCall served on a session, in one
// allocation with its in-flight entry, which holds the handler's Request.
type sessionStatelessCall struct {
	in   inflightRequest
	call statelessCall
	lc   lazyCancelCtx
}

// soloCall is a statelessCall served outside any session, in one
// allocation with its session and Request, and no in-flight entry
// (docs/design.md).
type soloCall struct {
	ss   ServerSession
	req  Request
	call statelessCall
}

// handleStateless is Host.ServeStateless with a session: ss lends only its
// in-flight table and writers, no session state.
func (ss *ServerSession) handleStateless(ctx context.Context, req *jsonrpc.Request, related messageWriter, extra *RequestExtra) (*jsonrpc.Response, bool, error) {
	c := new(sessionStatelessCall)
	return ss.serveStatelessCall(ctx, req, related, extra, &c.call, &c.in, &c.in.req, &c.lc)
}

// mayBeStateless reports whether req may belong to the stateless era: its
// method exists only there, or its params' noted _meta names a protocol
// version. It inlines into handleRequest.
func mayBeStateless(req *jsonrpc.Request) bool {
	if isStatelessOnlyMethod(req.Method) {
		return true
	}
	_, found := requestProtocolVersion(req)
	return found
}

// serveIfStateless serves in the stateless era a request mayBeStateless
// let through, whatever the session did before; served is false, and
// nothing was done, when its parse finds no version after all.
func (ss *ServerSession) serveIfStateless(ctx context.Context, req *jsonrpc.Request, related messageWriter, extra *RequestExtra) (resp *jsonrpc.Response, served bool, err error) {
	if isStatelessOnlyMethod(req.Method) {
		resp, _, err = ss.handleStateless(ctx, req, related, extra)
		return resp, true, err
	}
	return ss.probeStateless(ctx, req, related, extra)
}

// errNotStateless is serveStatelessCall's answer, when asked to probe
// (requestMeta.probe), for a request whose params name no protocol version
// in _meta after all: handleRequest serves it in the session era.
var errNotStateless = errors.New("mcp: not a stateless-era request")

// probeStateless is handleStateless for a request whose noted _meta names
// a protocol version; served is false, and nothing was done, when the
// era's own parse finds none.
func (ss *ServerSession) probeStateless(ctx context.Context, req *jsonrpc.Request, related messageWriter, extra *RequestExtra) (resp *jsonrpc.Response, served bool, err error) {
	c := new(sessionStatelessCall)
	c.call.meta.probe = true
	resp, _, err = ss.serveStatelessCall(ctx, req, related, extra, &c.call, &c.in, &c.in.req, &c.lc)
	if err == errNotStateless {
		return nil, false, nil
	}
	return resp, true, err
}

// serveStatelessCall is handleStateless with the request's allocation: c,
// the in-flight entry in (nil for serveStateless's solo session, which
// nobody else reaches), r, the handler's Request, and lc, given with in,
// the request's cancelable context.
func (ss *ServerSession) serveStatelessCall(ctx context.Context, req *jsonrpc.Request, related messageWriter, extra *RequestExtra, c *statelessCall, in *inflightRequest, r *Request, lc *lazyCancelCtx) (*jsonrpc.Response, bool, error) {
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
	if !s.servesStateless(req.Method) {
		return jsonrpc.NewErrorResponse(req.ID, errMethodNotFound(req.Method)), true, nil
	}
	st := &c.st
	st.logLevel, st.meta = m.logLevel, m
	if isMRTRMethod(req.Method) {
		answers, err := s.readInputValues(req, retry.responses, retry.state) // input_state.go
		if err != nil {
			return jsonrpc.NewErrorResponse(req.ID, err), false, nil
		}
		st.answers = answers
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
	var cancel context.CancelFunc // nil: lc's, not a func value, which would escape
	if solo && ctxscope.Scoped(ctx) {
		// The transport ends ctx once the request is answered, and
		// nothing else can reach a solo request: a context of its own
		// would only be cancelled on return.
		ctx, cancel = &c.ctx, func() {}
	} else if lc != nil {
		lc.Context = &c.ctx
		ctx = lc
	} else {
		ctx, cancel = context.WithCancel(&c.ctx)
	}
	if !solo {
		in.cancel, in.lc = cancel, lc
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
		era:                st,
	}

	result, err := s.dispatch(ctx, r)

	cancelled := !solo && ss.retireInflight(req.ID, in)
	if cancel != nil {
		cancel()
	} else {
		lc.cancel()
	}
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
		err = statelessError(err)
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

// statelessCtx is a stateless-era handler's context: the statelessKey
// mark and the related writer, as two context.WithValue without their
// allocations.
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

// mayCallClient is the era's answer to whether a request may be sent to
// the client from ctx: not from the handler of a stateless-era request,
// as the era has none, on any transport; input
// from the client arrives by multi round-trip requests (Request.Input)
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).
func mayCallClient(ctx context.Context, method string) error {
	if ctx.Value(statelessKey{}) != nil {
		return fmt.Errorf("mcp: %s not sent: a stateless-era request sends no requests to the client; ask with Request.Input", method)
	}
	return nil
}

// servesStateless reports whether method is in the stateless era's table,
// the tasks extension's methods only while it is enabled (task_ext.go).
func (s *Server) servesStateless(method string) bool {
	if _, ok := s.tables.Load().stateless[method]; !ok {
		return false
	}
	return !strings.HasPrefix(method, "tasks/") || s.tasksExtensionMethod(method)
}

// statelessError rewrites the session era's error shapes into the stateless
// era's: a capability the client did not declare is -32021, and a missing
// resource is -32602 (with data.uri kept), no longer -32002
// (https://modelcontextprotocol.io/specification/2026-07-28/server/resources#error-handling).
func statelessError(err error) error {
	var capErr *capabilityError
	if errors.As(err, &capErr) {
		return missingCapabilityError(capErr.Capability)
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc.CodeResourceNotFound {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: rpcErr.Message, Data: rpcErr.Data}
	}
	return err
}

// Stateless reports whether the request belongs to the stateless era
// (2026-07-28 and later), where input from the client arrives by multi
// round-trip requests
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).
func (r *Request) Stateless() bool {
	_, ok := r.era.(*statelessRequest)
	return ok
}

func (*statelessRequest) methods(s *Server) map[string]MethodHandler {
	return s.tables.Load().stateless
}

// callTool runs a tool that may be a task as the tasks extension's; the
// session era's task param is ignored (SEP-2663).
func (*statelessRequest) callTool(ctx context.Context, s *Server, r *Request, p CallToolParams, t *serverTool) (any, error) {
	if taskSupport(t.tool) != TaskSupportForbidden {
		return s.callToolExt(ctx, r, p.Arguments, t) // task_ext.go
	}
	return runTool(ctx, r, t, p.Arguments)
}

// protocolToolError: asking the client for input, or for what it did not
// declare, is the protocol's business, not the model's.
func (*statelessRequest) protocolToolError(err error) bool {
	var capErr *capabilityError
	return errors.Is(err, ErrInputRequired) || errors.Is(err, ErrBeginTask) || errors.As(err, &capErr)
}

// input returns the answers the retry carries; while any is missing it
// notes what to ask in the input_required result and returns
// ErrInputRequired. A task's work waits for tasks/update instead
// (task_ext.go).
func (st *statelessRequest) input(ctx context.Context, r *Request, keys []string, requests map[string]*InputRequest) (InputResponses, error) {
	if err := checkInputs(r, keys, requests, checkStatelessInput); err != nil {
		return nil, err
	}
	if st.task != nil {
		return st.taskInput(ctx, keys, requests)
	}
	missing := false
	for _, k := range keys {
		if raw, ok := st.answers[k]; ok {
			// Checked at once, even while other answers are missing: a
			// bad answer is not carried to the next round.
			if err := checkInputResponse(requests[k], raw); err != nil {
				return nil, fmt.Errorf("mcp: %w", errInvalidParams("inputResponses["+strconv.Quote(k)+"]: "+err.Error()))
			}
			if st.kept == nil {
				st.kept = make(map[string]bool)
			}
			st.kept[k] = true
			continue
		}
		missing = true
		if st.pendingReqs == nil {
			st.pendingReqs = make(map[string]*InputRequest)
		}
		if _, dup := st.pendingReqs[k]; !dup {
			st.pending = append(st.pending, k)
		}
		st.pendingReqs[k] = requests[k]
	}
	if missing {
		return nil, ErrInputRequired
	}
	out := make(InputResponses, len(keys))
	for _, k := range keys {
		out[k] = st.answers[k]
	}
	return out, nil
}

// taskInput is Request.Input in a task's work: the answers gathered
// before the task (Tool.InputBeforeTask) are returned at once, and the
// other requests are asked with the task's input_required status.
func (st *statelessRequest) taskInput(ctx context.Context, keys []string, requests map[string]*InputRequest) (InputResponses, error) {
	ask := keys
	if len(st.answers) > 0 {
		ask = nil
		for _, k := range keys {
			if _, ok := st.answers[k]; !ok {
				ask = append(ask, k)
			}
		}
	}
	var got InputResponses
	if len(ask) > 0 {
		var err error
		if got, err = st.task.input(ctx, ask, requests); err != nil {
			return nil, err
		}
	}
	out := make(InputResponses, len(keys))
	for _, k := range keys {
		if raw, ok := got[k]; ok {
			out[k] = raw
		} else {
			out[k] = st.answers[k]
		}
	}
	return out, nil
}

// ask is one input request under an automatic key.
func (st *statelessRequest) ask(ctx context.Context, r *Request, q *InputRequest) (any, error) {
	st.auto++
	key := q.Method + "#" + strconv.Itoa(int(st.auto))
	rs, err := st.input(ctx, r, []string{key}, map[string]*InputRequest{key: q})
	if err != nil {
		return nil, err
	}
	switch q.Method {
	case "elicitation/create":
		return rs.Elicitation(key)
	case "sampling/createMessage":
		return rs.Sampling(key)
	}
	return rs.Roots(key)
}

// log sends at the request's own _meta logLevel, nothing without one
// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging).
func (st *statelessRequest) log(ctx context.Context, r *Request, level LoggingLevel, logger string, data any) error {
	if !level.IsValid() {
		return fmt.Errorf("mcp: log level %q is not one of %s", level, levelList())
	}
	if !st.logEnabled(r, level) {
		return nil
	}
	return r.Session.sendLog(ctx, r.related, level, logger, data)
}

func (st *statelessRequest) logEnabled(r *Request, level LoggingLevel) bool {
	l := st.logLevel
	return l != "" && r.related != nil && r.Session.server.loggingEnabled() && level.rank() >= l.rank()
}

// newTaskWorkEra returns the era of the work of a task of the tasks
// extension: its Request.Input returns answers, the input gathered before
// the task (Tool.InputBeforeTask), and asks for the rest through task
// (task_ext.go).
func newTaskWorkEra(task *extRun, answers map[string]json.RawMessage) era {
	return &statelessRequest{task: task, answers: answers}
}

// runBeforeTask runs the handler as a plain request, with input_required
// results and retries, until it calls Request.BeginTask (SEP-2663, "Task
// Creation"). The task's work gets the answers the handler used; the
// phase's keys end with it (SEP-2663, "Composition with Multi Round-Trip
// Requests").
func (st *statelessRequest) runBeforeTask(ctx context.Context, r *Request, t *serverTool, args json.RawMessage) (any, map[string]json.RawMessage, bool, error) {
	st.beforeTask = true
	res, err := runTool(ctx, r, t, args)
	st.beforeTask = false
	if !st.begun || !errors.Is(err, ErrBeginTask) {
		return res, nil, false, err
	}
	var answers map[string]json.RawMessage
	for k := range st.kept {
		if answers == nil {
			answers = make(map[string]json.RawMessage, len(st.kept))
		}
		answers[k] = slices.Clone(st.answers[k])
	}
	return nil, answers, true, nil
}

// beginTask marks the end of the phase before the task: ErrBeginTask while
// runBeforeTask runs the handler, nil elsewhere (a task's work, a call
// that runs inline).
func (st *statelessRequest) beginTask() error {
	if st.beforeTask {
		st.begun = true
		return ErrBeginTask
	}
	return nil
}

// checkStatelessInput is InputRequest.check in the stateless era, where a
// URL-mode elicitation needs no elicitationId.
func checkStatelessInput(q *InputRequest, caps *ClientCapabilities) error {
	if q.Method == "elicitation/create" && q.elicit != nil && q.elicit.isURL() && q.elicit.ElicitationID == "" {
		p := *q.elicit
		p.ElicitationID = "stateless" // checked as the session era would
		q = &InputRequest{Method: q.Method, elicit: &p}
	}
	return q.check(caps)
}

// inputRequiredResponse is the input_required result for what the handler
// asked and found unanswered, with a signed requestState carrying the
// answers it asked for and got so far.
func (s *Server) inputRequiredResponse(req *jsonrpc.Request, st *statelessRequest) *jsonrpc.Response {
	var b []byte
	// The server's identity in _meta, as on every stateless-era result
	// (era_stateless_result.go).
	b = append(b, `{"_meta":{`...)
	b = append(b, s.serverInfoMember()...)
	b = append(b, `},"resultType":"input_required","inputRequests":{`...)
	for i, k := range st.pending {
		if i > 0 {
			b = append(b, ',')
		}
		kb, _ := jsonenc.Marshal(k)
		b = append(b, kb...)
		b = append(b, ':')
		qb, err := jsonenc.Marshal(st.pendingReqs[k])
		if err != nil {
			s.logger.Error("mcp: encoding an input request", "key", k, "err", err)
			return jsonrpc.NewErrorResponse(req.ID, errInternal())
		}
		b = append(b, qb...)
	}
	b = append(b, `},"requestState":`...)
	// The state carries the answers the handler used, not whatever else
	// the client sent.
	var carried map[string]json.RawMessage
	for k := range st.kept {
		if carried == nil {
			carried = make(map[string]json.RawMessage, len(st.kept))
		}
		carried[k] = st.answers[k]
	}
	state, err := s.signState(req, carried)
	if err != nil {
		s.logger.Error("mcp: encoding requestState", "err", err)
		return jsonrpc.NewErrorResponse(req.ID, errInternal())
	}
	sb, _ := jsonenc.Marshal(state)
	b = append(b, sb...)
	b = append(b, '}')
	return &jsonrpc.Response{ID: req.ID, Result: b}
}
