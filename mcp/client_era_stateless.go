package mcp

// The stateless era on the client side (2026-07-28): _meta on every
// request (https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta),
// resultType checked, input_required answered and retried
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/internal/jsonenc"
	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

var (
	// ErrUnknownResultType is wrapped by the error of a call whose result
	// names a resultType the client does not know
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic#resulttype).
	ErrUnknownResultType = errors.New("mcp: unknown resultType")
	// ErrTooManyInputRounds is wrapped by the error of a call that got more
	// input_required results than ClientOptions.MaxInputRounds allows
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).
	ErrTooManyInputRounds = errors.New("mcp: too many input_required rounds")
	// ErrNoInputHandler is wrapped by the error of a call whose server asked
	// for input (elicitation, sampling, roots) the client has no handler for
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).
	ErrNoInputHandler = errors.New("mcp: no handler for the input the server asked for")
)

// defaultMaxInputRounds is ClientOptions.MaxInputRounds's zero value.
const defaultMaxInputRounds = 8

type logLevelKey struct{}

// WithLogLevel returns a context under which the requests of a
// stateless-era session carry level, overriding SetLogLevel and
// ClientOptions.LogLevel (see there)
// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging).
func WithLogLevel(ctx context.Context, level LoggingLevel) context.Context {
	return context.WithValue(ctx, logLevelKey{}, level)
}

// clientStatelessEra is the clientEra of a stateless-era session: what it
// knows of its server. It is replaced whole, never changed in place.
type clientStatelessEra struct {
	version    string // the version every request carries
	meta       []byte // the _meta members every request carries (metaMembers)
	result     *DiscoverResult
	serverInfo *Implementation
}

// statelessEra returns the era of requests carrying version.
func (c *Client) statelessEra(version string) *clientStatelessEra {
	return &clientStatelessEra{version: version, meta: c.metaMembers(version)}
}

func (e *clientStatelessEra) call(ctx context.Context, cs *ClientSession, method string, params json.RawMessage) (json.RawMessage, error) {
	return cs.callStateless(ctx, method, params)
}

func (e *clientStatelessEra) params(params json.RawMessage) (json.RawMessage, error) {
	return e.merge(params, "", nil, nil)
}

func (e *clientStatelessEra) lacks(method string) error {
	switch method {
	case "resources/subscribe", "resources/unsubscribe":
		return errSessionEraOnly
	}
	return nil
}

// pingMethod is server/discover: the era removed ping.
func (e *clientStatelessEra) pingMethod() string { return "server/discover" }

// setLogLevel sends nothing: the era removed logging/setLevel, and the
// level goes with every later request of the session.
func (e *clientStatelessEra) setLogLevel(_ context.Context, cs *ClientSession, params *SetLevelParams) error {
	if !params.Level.IsValid() {
		return fmt.Errorf("mcp: SetLogLevel: %q is not a log level", params.Level)
	}
	cs.mu.Lock()
	cs.level = params.Level
	cs.mu.Unlock()
	return nil
}

func (e *clientStatelessEra) discover(ctx context.Context, cs *ClientSession) (*DiscoverResult, error) {
	raw, err := cs.callStateless(ctx, "server/discover", nil)
	if err != nil {
		return nil, err
	}
	d, err := parseDiscover(raw)
	if err != nil {
		return nil, err
	}
	cs.updateStateless(func(e *clientStatelessEra) {
		e.result = d.result
		if d.serverInfo != nil {
			e.serverInfo = d.serverInfo
		}
	})
	return d.result, nil
}

func (e *clientStatelessEra) hello(*ClientSession) serverHello {
	h := serverHello{version: e.version, info: e.serverInfo}
	if e.result != nil {
		h.capabilities = &e.result.Capabilities
		h.instructions = e.result.Instructions
	}
	return h
}

// urlElicitationID is false: the era dropped elicitationId, the server
// learns of completion from requestState
// (https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation).
func (e *clientStatelessEra) urlElicitationID() bool { return false }

// Stateless reports whether the session speaks the stateless era
// (2026-07-28) rather than having started with initialize
// (https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta).
func (cs *ClientSession) Stateless() bool { return cs.stateless.Load() != nil }

// adopt makes cs a stateless-era session.
func (cs *ClientSession) adopt(d *discovered) {
	e := cs.client.statelessEra(d.version)
	e.result, e.serverInfo = d.result, d.serverInfo
	cs.stateless.Store(e)
}

// setVersion switches a stateless-era session to version, which a -32022
// error named.
func (cs *ClientSession) setVersion(version string) {
	cs.updateStateless(func(e *clientStatelessEra) {
		e.version, e.meta = version, cs.client.metaMembers(version)
	})
}

// updateStateless replaces the session's era with a copy that f changed.
func (cs *ClientSession) updateStateless(f func(*clientStatelessEra)) {
	for {
		old := cs.stateless.Load()
		e := *old
		f(&e)
		if cs.stateless.CompareAndSwap(old, &e) {
			return
		}
	}
}

// statelessCapabilities is the session era's declaration without what
// 2026-07-28 removed: tasks and roots.listChanged
// (https://modelcontextprotocol.io/specification/2026-07-28/schema#clientcapabilities).
func (c *Client) statelessCapabilities() *ClientCapabilities {
	caps := *c.capabilities()
	caps.Tasks = nil
	if caps.Roots != nil {
		caps.Roots = &RootsCapability{}
	}
	return &caps
}

// metaMembers returns the _meta members every stateless-era request of
// version carries, encoded: protocolVersion, clientCapabilities and
// clientInfo. The capabilities and info are encoded once per client.
func (c *Client) metaMembers(version string) []byte {
	c.metaOnce.Do(func() {
		caps, err := jsonenc.Marshal(c.statelessCapabilities())
		if err != nil {
			caps = emptyObject
		}
		info, err := jsonenc.Marshal(&c.impl)
		if err != nil {
			info = []byte(`{"name":"","version":""}`)
		}
		var b []byte
		b = append(b, `,"`+metaKeyClientCapabilities+`":`...)
		b = append(b, caps...)
		b = append(b, `,"`+metaKeyClientInfo+`":`...)
		b = append(b, info...)
		c.metaTail = b
	})
	v, _ := jsonenc.Marshal(version)
	b := make([]byte, 0, len(metaKeyProtocolVersion)+len(v)+len(c.metaTail)+3)
	b = append(b, `"`+metaKeyProtocolVersion+`":`...)
	b = append(b, v...)
	return append(b, c.metaTail...)
}

// logLevel is the level a stateless-era request made under ctx carries, ""
// for none.
func (cs *ClientSession) logLevel(ctx context.Context) LoggingLevel {
	if l, ok := ctx.Value(logLevelKey{}).(LoggingLevel); ok {
		return l
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.level != "" {
		return cs.level
	}
	return cs.client.opts.LogLevel
}

// callStateless sends a stateless-era request and returns its complete
// result, answering input_required results and retrying (a new request
// each time), and retrying once with the version a -32022 error names.
func (cs *ClientSession) callStateless(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	max := cs.client.opts.MaxInputRounds
	level := cs.logLevel(ctx)
	var responses, state json.RawMessage
	versionRetried := false
	for rounds := 0; ; {
		p, err := cs.stateless.Load().merge(params, level, responses, state)
		if err != nil {
			return nil, fmt.Errorf("mcp: %s: %w", method, err)
		}
		res, err := cs.call(ctx, method, p)
		if err != nil {
			if supported, ok := unsupportedVersionData(err); ok && !versionRetried {
				if v := newestShared(supported, statelessVersions); v != "" {
					versionRetried = true
					cs.setVersion(v)
					continue
				}
			}
			return nil, err
		}
		rt, err := resultTypeOf(res)
		if err != nil {
			return nil, fmt.Errorf("mcp: %s: %w", method, err)
		}
		switch rt {
		case "", resultTypeComplete:
			return res, nil
		case resultTypeInputRequired:
			if !isMRTRMethod(method) {
				return nil, fmt.Errorf("mcp: %s: the server answered input_required, which only tools/call, prompts/get and resources/read may: %w %q", method, ErrUnknownResultType, rt)
			}
			if rounds >= max {
				return nil, fmt.Errorf("mcp: %s: %w (%d)", method, ErrTooManyInputRounds, rounds)
			}
			rounds++
			if responses, state, err = cs.answerInputs(ctx, method, res); err != nil {
				return nil, err
			}
			continue
		case resultTypeTask:
			if _, ok := cs.client.capabilities().Extensions[TasksExtensionID]; ok {
				return res, nil
			}
		}
		return nil, fmt.Errorf("mcp: %s: %w %q", method, ErrUnknownResultType, rt)
	}
}

// merge returns params (an object, or empty for none) with the era's
// _meta members and level merged into its _meta (ahead of the caller's
// own _meta members, replacing those of the same name), and with
// inputResponses and requestState set when not nil, replacing any the
// params had.
func (e *clientStatelessEra) merge(params json.RawMessage, level LoggingLevel, responses, state json.RawMessage) (json.RawMessage, error) {
	params = bytes.TrimSpace(params)
	if len(params) == 0 || string(params) == "null" {
		params = emptyObject
	}
	var userMeta, rest [][]byte // rest: whole "key":value members
	_, err := jsonscan.ScanObject(params, 0, func(key, value []byte) {
		switch {
		case jsonscan.KeyEquals(key, "_meta"):
			userMeta = nil
			if jsonscan.KindOf(value) == jsonscan.Object {
				jsonscan.Members(value, func(k, v []byte) bool {
					switch {
					case jsonscan.KeyEquals(k, metaKeyProtocolVersion), jsonscan.KeyEquals(k, metaKeyClientCapabilities), jsonscan.KeyEquals(k, metaKeyClientInfo):
					case level != "" && jsonscan.KeyEquals(k, metaKeyLogLevel):
					default:
						userMeta = append(userMeta, member(k, v))
					}
					return true
				})
			}
		case responses != nil && jsonscan.KeyEquals(key, "inputResponses"),
			state != nil && jsonscan.KeyEquals(key, "requestState"):
		default:
			rest = append(rest, member(key, value))
		}
	})
	if err != nil {
		return nil, fmt.Errorf("params must be a JSON object: %w", err)
	}
	out := make([]byte, 0, len(params)+len(e.meta)+len(responses)+len(state)+96)
	out = append(out, `{"_meta":{`...)
	out = append(out, e.meta...)
	if level != "" {
		out = append(out, `,"`+metaKeyLogLevel+`":`...)
		lb, _ := jsonenc.Marshal(string(level))
		out = append(out, lb...)
	}
	for _, m := range userMeta {
		out = append(out, ',')
		out = append(out, m...)
	}
	out = append(out, '}')
	if responses != nil {
		out = append(out, `,"inputResponses":`...)
		out = append(out, responses...)
	}
	if state != nil {
		out = append(out, `,"requestState":`...)
		out = append(out, state...)
	}
	for _, m := range rest {
		out = append(out, ',')
		out = append(out, m...)
	}
	return append(out, '}'), nil
}

// member rebuilds `"key":value` from a raw key (without quotes) and value.
func member(key, value []byte) []byte {
	b := make([]byte, 0, len(key)+len(value)+3)
	b = append(b, '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return append(b, value...)
}

// isInputMethod reports whether an input_required result may carry method
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#inputrequests).
func isInputMethod(method string) bool {
	switch method {
	case "elicitation/create", "sampling/createMessage", "roots/list":
		return true
	}
	return false
}

// answerInputs answers an input_required result's input requests, in key
// order, and returns the retry's inputResponses and requestState (echoed
// exactly), each nil when the result had none
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#client-requirements-basic-workflow).
func (cs *ClientSession) answerInputs(ctx context.Context, method string, res json.RawMessage) (responses, state json.RawMessage, err error) {
	var ir struct {
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  json.RawMessage            `json:"requestState"`
	}
	if err := exactjson.Unmarshal(res, &ir); err != nil {
		return nil, nil, fmt.Errorf("mcp: %s: decoding input_required result: %w", method, err)
	}
	if len(ir.RequestState) > 0 && string(ir.RequestState) != "null" {
		if jsonscan.KindOf(ir.RequestState) != jsonscan.String {
			return nil, nil, fmt.Errorf("mcp: %s: input_required result: requestState is not a string", method)
		}
		state = ir.RequestState
	}
	if len(ir.InputRequests) == 0 {
		if state == nil {
			return nil, nil, fmt.Errorf("mcp: %s: input_required result carries neither inputRequests nor requestState", method)
		}
		return nil, state, nil
	}
	keys := make([]string, 0, len(ir.InputRequests))
	for k := range ir.InputRequests {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := []byte{'{'}
	for i, k := range keys {
		answer, err := cs.answerInput(ctx, k, ir.InputRequests[k])
		if err != nil {
			return nil, nil, fmt.Errorf("mcp: %s: input request %q: %w", method, k, err)
		}
		if i > 0 {
			out = append(out, ',')
		}
		kb, _ := jsonenc.Marshal(k)
		out = append(out, kb...)
		out = append(out, ':')
		out = append(out, answer...)
	}
	return append(out, '}'), state, nil
}

// answerInput answers one input request as the session era's request is
// answered, Middleware included; the request's ID is its key.
func (cs *ClientSession) answerInput(ctx context.Context, key string, raw json.RawMessage) (answer json.RawMessage, err error) {
	var q struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := exactjson.Unmarshal(raw, &q); err != nil {
		return nil, fmt.Errorf("undecodable: %w", err)
	}
	if !isInputMethod(q.Method) {
		return nil, fmt.Errorf("method %q cannot be asked of a client (elicitation/create, sampling/createMessage or roots/list)", q.Method)
	}
	c := cs.client
	h, ok := c.methods[q.Method]
	if !ok && c.receive == nil {
		return nil, fmt.Errorf("%w: %s", ErrNoInputHandler, q.Method)
	}
	req := &jsonrpc.Request{ID: jsonrpc.StringID(key), Method: q.Method, Params: q.Params}
	defer func() {
		if v := recover(); recovered(v, c.logger, "client: handler", q.Method) { // recover.go
			answer, err = nil, fmt.Errorf("%s: the handler panicked: %v", q.Method, v)
		}
	}()
	result, err := c.handle(ctx, cs, req, h) // middleware.go
	if err != nil {
		var rpcErr *jsonrpc.Error
		if !ok && errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc.CodeMethodNotFound {
			return nil, fmt.Errorf("%w: %s", ErrNoInputHandler, q.Method)
		}
		return nil, fmt.Errorf("%s: %w", q.Method, err)
	}
	if result == nil {
		return emptyObject, nil
	}
	b, err := encodeParams(result)
	if err != nil {
		return nil, fmt.Errorf("%s: encoding the answer: %w", q.Method, err)
	}
	return b, nil
}

// resultTypeOf returns a result's resultType, "" when it has none (a
// session-era server's result, which counts as complete)
// (https://modelcontextprotocol.io/specification/2026-07-28/basic#resulttype).
func resultTypeOf(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || raw[0] != '{' {
		return "", nil
	}
	var rt []byte
	if _, err := jsonscan.ScanObject(raw, 0, func(key, value []byte) {
		if jsonscan.KeyEquals(key, "resultType") {
			rt = value
		}
	}); err != nil {
		return "", fmt.Errorf("result is not valid JSON: %w", err)
	}
	if rt == nil {
		return "", nil
	}
	s, ok := jsonscan.StringValue(rt)
	if !ok {
		return "", fmt.Errorf("%w: resultType %s is not a string", ErrUnknownResultType, rt)
	}
	return s, nil
}
