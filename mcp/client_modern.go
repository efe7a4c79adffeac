package mcp

// This file sends the requests of a stateless-era session (2026-07-28):
// each carries the client's version, capabilities and info in _meta
// (https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta), its
// result's resultType is checked
// (https://modelcontextprotocol.io/specification/2026-07-28/basic#resulttype),
// and an input_required result is answered through the client's handlers
// and retried (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).

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
	// names a resultType the client does not know, which the spec says a
	// client MUST treat as invalid
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic#resulttype).
	ErrUnknownResultType = errors.New("mcp: unknown resultType")
	// ErrTooManyInputRounds is wrapped by the error of a call that got more
	// input_required results than ClientOptions.MaxInputRounds allows
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).
	ErrTooManyInputRounds = errors.New("mcp: too many input_required rounds")
	// ErrNoInputHandler is wrapped by the error of a call whose server asked
	// for input (elicitation, sampling, roots) the client has no handler
	// for in ClientOptions: the call cannot go on
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).
	ErrNoInputHandler = errors.New("mcp: no handler for the input the server asked for")
)

// defaultMaxInputRounds is ClientOptions.MaxInputRounds's zero value.
const defaultMaxInputRounds = 8

type logLevelKey struct{}

// WithLogLevel returns a context under which the requests of a
// stateless-era session carry level as
// _meta["io.modelcontextprotocol/logLevel"], so that the server sends the
// log messages of that request at level or more severe to
// ClientOptions.LoggingMessageHandler
// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging).
// It overrides the level set with ClientSession.SetLogLevel and
// ClientOptions.LogLevel. Session-era
// requests ignore it: there the level is the session's, set with
// SetLogLevel.
func WithLogLevel(ctx context.Context, level LoggingLevel) context.Context {
	return context.WithValue(ctx, logLevelKey{}, level)
}

// modernCapabilities is what the client declares in the stateless era: the
// session era's declaration without what 2026-07-28 removed, the tasks
// capability and roots.listChanged
// (https://modelcontextprotocol.io/specification/2026-07-28/schema#clientcapabilities).
func (c *Client) modernCapabilities() *ClientCapabilities {
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
		caps, err := jsonenc.Marshal(c.modernCapabilities())
		if err != nil {
			caps = emptyObject
		}
		info, err := jsonenc.Marshal(&c.impl)
		if err != nil {
			info = []byte(`{"name":"","version":""}`)
		}
		var b []byte
		b = append(b, `,"`+MetaClientCapabilities+`":`...)
		b = append(b, caps...)
		b = append(b, `,"`+MetaClientInfo+`":`...)
		b = append(b, info...)
		c.metaTail = b
	})
	v, _ := jsonenc.Marshal(version)
	b := make([]byte, 0, len(MetaProtocolVersion)+len(v)+len(c.metaTail)+3)
	b = append(b, `"`+MetaProtocolVersion+`":`...)
	b = append(b, v...)
	return append(b, c.metaTail...)
}

// discoverParams is the params of server/discover for version: _meta only
// (https://modelcontextprotocol.io/specification/2026-07-28/server/discover).
func (c *Client) discoverParams(version string) json.RawMessage {
	m := c.metaMembers(version)
	b := make([]byte, 0, len(m)+11)
	b = append(b, `{"_meta":{`...)
	b = append(b, m...)
	return append(b, "}}"...)
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

// callModern sends a stateless-era request and returns its complete
// result. It answers input_required results through the client's handlers
// and retries, each time as a new request with a new id; a -32022 error
// naming another version the client speaks is retried once with it.
func (cs *ClientSession) callModern(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	max := cs.client.opts.MaxInputRounds
	if max == 0 {
		max = defaultMaxInputRounds
	}
	level := cs.logLevel(ctx)
	var responses, state json.RawMessage
	versionRetried := false
	for rounds := 0; ; {
		era := cs.era.Load()
		p, err := modernParams(params, era.meta, level, responses, state)
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
		case "", ResultTypeComplete:
			return res, nil
		case ResultTypeInputRequired:
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
		case ResultTypeTask:
			if _, ok := cs.client.capabilities().Extensions[TasksExtensionID]; ok {
				return res, nil
			}
		}
		return nil, fmt.Errorf("mcp: %s: %w %q", method, ErrUnknownResultType, rt)
	}
}

// modernParams returns params (an object, or empty for none) with the
// stateless era's keys merged into its _meta (ahead of the caller's own
// _meta members, replacing those of the same name), and with
// inputResponses and requestState set when not nil, replacing any the
// params had.
func modernParams(params json.RawMessage, meta []byte, level LoggingLevel, responses, state json.RawMessage) (json.RawMessage, error) {
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
					case jsonscan.KeyEquals(k, MetaProtocolVersion), jsonscan.KeyEquals(k, MetaClientCapabilities), jsonscan.KeyEquals(k, MetaClientInfo):
					case level != "" && jsonscan.KeyEquals(k, MetaLogLevel):
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
	out := make([]byte, 0, len(params)+len(meta)+len(responses)+len(state)+96)
	out = append(out, `{"_meta":{`...)
	out = append(out, meta...)
	if level != "" {
		out = append(out, `,"`+MetaLogLevel+`":`...)
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

// inputMethods are the requests an input_required result may carry
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#inputrequests).
func isInputMethod(method string) bool {
	switch method {
	case "elicitation/create", "sampling/createMessage", "roots/list":
		return true
	}
	return false
}

// answerInputs answers the input requests of an input_required result
// through the client's handlers, one at a time in key order, and returns
// the retry's inputResponses (nil when the result asked for none) and its
// requestState, the raw JSON string echoed exactly (nil when the result
// had none)
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

// answerInput answers one input request through the handler that answers
// the same request in the session era, with the client's Middleware; the
// request's ID is its key.
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
