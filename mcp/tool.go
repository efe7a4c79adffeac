package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/internal/exactjson"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpkit/mcpkit/internal/jsonenc"
	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/internal/schemacheck"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// A ToolHandler serves tools/call for one tool with raw arguments. Use it
// for tools with hand-written schemas, or when a tool builds its own
// result. A returned error that is not a *jsonrpc.Error becomes a result
// with isError set and the error's text, so the model sees it
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling).
type ToolHandler func(ctx context.Context, req *Request, args json.RawMessage) (*CallToolResult, error)

// A TypedToolHandler serves a tool whose arguments decode into In and
// whose result is Out
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#structured-content).
// A string Out is one text content; a *CallToolResult is sent as it is;
// anything else is sent as its JSON text and, when that JSON is an object,
// also as structuredContent (a non-object result of a tool with an output
// schema is a tool error instead). A returned error becomes a result with
// isError set, except a *jsonrpc.Error (a protocol error), ctx's own error
// once ctx has ended, and, in 2026-07-28, ErrInputRequired and a
// *CapabilityError (input_required and -32021). docs/design.md gives the
// reasons.
type TypedToolHandler[In, Out any] func(ctx context.Context, req *Request, in In) (Out, error)

type serverTool struct {
	tool    *Tool
	handler ToolHandler
}

// AddTool adds a tool with a hand-written input schema (t.InputSchema must
// be a JSON object schema; if nil, {"type":"object"}), replacing any tool of
// the same name. Arguments are passed to h as they came. Live sessions are
// sent notifications/tools/list_changed.
//
// It returns an error for an invalid tool name
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names):
// 1 to 128 characters of A-Z, a-z, 0-9, '_', '-' and '.'.
func (s *Server) AddTool(t *Tool, h ToolHandler) error {
	if err := validToolName(t.Name); err != nil {
		return err
	}
	if err := validTaskSupport(t); err != nil {
		return err
	}
	if t.InputSchema == nil {
		t.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	var root struct {
		Type json.RawMessage `json:"type"`
	}
	if err := json.Unmarshal(t.InputSchema, &root); err != nil || string(root.Type) != `"object"` {
		// https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool:
		// inputSchema is a JSON Schema object whose type is "object".
		return fmt.Errorf("mcp: tool %q: input schema must be a JSON object with \"type\": \"object\"", t.Name)
	}
	s.putTool(&serverTool{tool: t, handler: h})
	return nil
}

// AddTool adds a typed tool to s. The input schema is inferred from In
// (and the output schema from Out, when Out is a struct or a pointer to
// one; see TypedToolHandler for what each Out is sent as) with
// github.com/google/jsonschema-go unless t sets them. Arguments are
// validated against the input schema before h runs; a failure is a result
// with isError set that names the problem, as 2025-11-25 requires
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling).
//
// It is a function rather than a method because Go methods cannot have
// type parameters.
func AddTool[In, Out any](s *Server, t *Tool, h TypedToolHandler[In, Out]) error {
	if err := validToolName(t.Name); err != nil {
		return err
	}
	if err := validTaskSupport(t); err != nil {
		return err
	}
	inSchema, err := toolSchema[In](t.InputSchema)
	if err != nil {
		return fmt.Errorf("mcp: tool %q: input schema: %w", t.Name, err)
	}
	if t.InputSchema == nil {
		if t.InputSchema, err = jsonenc.Marshal(inSchema.Schema()); err != nil {
			return fmt.Errorf("mcp: tool %q: %w", t.Name, err)
		}
	}
	var zero Out
	switch any(zero).(type) {
	case string, *CallToolResult:
	default:
		if t.OutputSchema == nil {
			rt := reflect.TypeFor[Out]()
			if rt.Kind() == reflect.Pointer && rt.Elem().Kind() == reflect.Struct {
				// The schema of *T allows null, but an outputSchema's
				// type must be "object".
				rt = rt.Elem()
			}
			if rt.Kind() == reflect.Struct {
				out, err := jsonschema.ForType(rt, inferOptions)
				if err != nil {
					return fmt.Errorf("mcp: tool %q: output schema: %w", t.Name, err)
				}
				if t.OutputSchema, err = jsonenc.Marshal(out); err != nil {
					return fmt.Errorf("mcp: tool %q: %w", t.Name, err)
				}
			}
		}
	}
	v := newArgValidator(inSchema, reflect.TypeFor[In]())
	var enc *outEncoder
	switch any(zero).(type) {
	case string, *CallToolResult:
	default:
		enc = newOutEncoder(reflect.TypeFor[Out]())
	}
	s.putTool(&serverTool{tool: t, handler: func(ctx context.Context, req *Request, args json.RawMessage) (*CallToolResult, error) {
		var in In
		if msg := v.decode(args, &in); msg != "" {
			return toolError("invalid arguments for tool " + t.Name + ": " + msg), nil
		}
		out, err := h(ctx, req, in)
		if err != nil {
			return nil, err
		}
		if s, ok := any(out).(string); ok {
			// Checked here, where any(out) does not escape, so a string
			// result is not boxed on the heap on its way to typedResult.
			return newTextResult(s), nil
		}
		res, err := typedResult(out, enc)
		if err == nil && res.StructuredContent == nil && t.OutputSchema != nil {
			if _, own := any(out).(*CallToolResult); !own {
				// A tool with an output schema must return structured
				// content that conforms to it
				// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#output-schema):
				// a nil pointer or a non-object is the handler's mistake,
				// told to the model rather than sent as a broken result.
				return toolError("tool " + t.Name + " returned " + res.Content[0].(*TextContent).Text + ", not the object its output schema requires"), nil
			}
		}
		return res, err
	}})
	return nil
}

// toolSchema resolves the schema given, or the one inferred from T.
// inferOptions are the options of schema inference. A json.RawMessage
// (and so a Meta value) holds any JSON value, not the array of bytes its Go
// type would suggest.
var inferOptions = &jsonschema.ForOptions{
	TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {},
	},
}

func toolSchema[T any](given json.RawMessage) (*jsonschema.Resolved, error) {
	var schema *jsonschema.Schema
	if given != nil {
		schema = new(jsonschema.Schema)
		if err := json.Unmarshal(given, schema); err != nil {
			return nil, err
		}
	} else {
		var err error
		if schema, err = jsonschema.For[T](inferOptions); err != nil {
			return nil, err
		}
		if schema.Type != "object" {
			return nil, fmt.Errorf("arguments type %v must be a struct or map (schema type %q)", reflect.TypeFor[T](), schema.Type)
		}
	}
	return schema.Resolve(nil)
}

// typedResult turns a typed handler's output into a CallToolResult; enc,
// when not nil, is Out's outEncoder.
func typedResult(out any, enc *outEncoder) (*CallToolResult, error) {
	switch o := out.(type) {
	case string:
		return newTextResult(o), nil
	case *CallToolResult:
		if o == nil {
			return &CallToolResult{Content: []Content{}}, nil
		}
		return o, nil
	}
	var raw []byte
	own := false
	if enc != nil {
		raw, own = enc.encode(out)
	}
	if !own {
		var err error
		if raw, err = jsonenc.Marshal(out); err != nil {
			return nil, fmt.Errorf("encoding tool output: %w", err)
		}
	}
	res := newTextResult(string(raw))
	if len(raw) > 0 && raw[0] == '{' {
		res.StructuredContent = raw
	}
	if own {
		res.encoded = res.Content[0].(*TextContent).Text
	}
	return res, nil
}

// textResult is a result of one text content in one allocation.
type textResult struct {
	res  CallToolResult
	list [1]Content
	text TextContent
}

// newTextResult returns a result of one text content.
func newTextResult(text string) *CallToolResult {
	t := &textResult{text: TextContent{Text: text}}
	t.list[0] = &t.text
	t.res.Content = t.list[:]
	return &t.res
}

// toolError is a tool result reporting a failure to the model.
func toolError(text string) *CallToolResult {
	return &CallToolResult{IsError: true, Content: []Content{&TextContent{Text: text}}}
}

// RemoveTools removes the named tools; live sessions are sent
// notifications/tools/list_changed if any existed.
func (s *Server) RemoveTools(names ...string) {
	s.mu.Lock()
	removed := s.tools.remove(names...)
	s.mu.Unlock()
	if removed {
		s.broadcast("notifications/tools/list_changed", emptyObject)
	}
}

func (s *Server) putTool(t *serverTool) {
	s.mu.Lock()
	s.tools.put(t.tool.Name, t)
	s.mu.Unlock()
	s.broadcast("notifications/tools/list_changed", emptyObject)
}

func validToolName(name string) error {
	if len(name) == 0 || len(name) > 128 {
		return fmt.Errorf("mcp: invalid tool name %q: must be 1 to 128 characters", name)
	}
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return fmt.Errorf("mcp: invalid tool name %q: only A-Z, a-z, 0-9, '_', '-' and '.' are allowed", name)
		}
	}
	return nil
}

// listTools implements tools/list.
func (s *Server) listTools(_ context.Context, r *Request) (any, error) {
	return serveFeatures(s, r, &s.tools, func(t *serverTool) *Tool { return t.tool }, toolsResult)
}

// callTool implements tools/call.
func (s *Server) callTool(ctx context.Context, r *Request) (any, error) {
	// p stays on the stack: only copies reach encoding/json and task.go.
	var p CallToolParams
	if !r.modern.toolCallParams(r.Params, &p) && !decodeCallToolParams(r.Params, &p) {
		q := new(CallToolParams)
		if err := unmarshalParams(r.Params, q); err != nil {
			return nil, err
		}
		p = *q
	}
	r.setMeta(p.Meta)
	s.mu.RLock()
	t, ok := s.tools.get(p.Name)
	s.mu.RUnlock()
	if !ok {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params", "Unknown tool: "+p.Name)
	}
	if r.modern != nil {
		// The stateless era: tasks are the tasks extension's, and the
		// session era's task param is ignored (SEP-2663).
		if taskSupport(t.tool) != TaskSupportForbidden {
			return s.callToolExt(ctx, r, p.Arguments, t) // task_modern.go
		}
		return runTool(ctx, r, t, p.Arguments)
	}
	if p.Task != nil || taskSupport(t.tool) == TaskSupportRequired {
		tp := p
		return s.callToolTask(ctx, r, &tp, t) // task.go
	}
	return runTool(ctx, r, t, p.Arguments)
}

// decodeCallToolParams decodes the usual tools/call params (an object
// with "name", "arguments" and perhaps "_meta", spelled exactly so) in place
// with jsonscan, without encoding/json's reflection. It reports false,
// leaving p as it was, for anything else (another member, a name that is
// not a plain string, params that are not an object), which is then left to
// unmarshalParams so that every answer, error text included, stays
// encoding/json's. Arguments alias params, as params alias the message.
//
// What it accepts it decodes as encoding/json does, but for one thing: a
// _meta object from which encoding/json would take no progressToken (an
// empty RequestMeta, as on every stateless-era call) may leave p.Meta nil
// rather than costing an allocation. The two mean the same: Meta is read
// only by Request.setMeta, which ignores a RequestMeta without a token.
func decodeCallToolParams(params json.RawMessage, p *CallToolParams) bool {
	if len(params) == 0 || params[0] != '{' {
		return false
	}
	var c callMembers
	end, err := jsonscan.ScanObject(params, 0, func(key, value []byte) { c.add(key, value) })
	if err != nil || jsonscan.SkipSpace(params, end) != len(params) {
		return false
	}
	return c.decode(p, c.meta == nil || plainMeta(c.meta))
}

// callMembers are the members of tools/call params that
// decodeCallToolParams (and decodeGetPromptParams) read, the last of each
// name.
type callMembers struct {
	name, args, meta []byte
	// other is set by a member other than name, arguments and _meta
	// (spelled exactly so); twice by one of those seen twice.
	other, twice bool
}

func (c *callMembers) add(key, value []byte) {
	var dst *[]byte
	switch string(key) {
	case "name":
		dst = &c.name
	case "arguments":
		dst = &c.args
	case "_meta":
		dst = &c.meta
	default:
		c.other = true
		return
	}
	c.twice = c.twice || *dst != nil
	*dst = value
}

// decode is decodeCallToolParams once the members of valid params are
// known; plain says that _meta is absent or plainMeta.
func (c *callMembers) decode(p *CallToolParams, plain bool) bool {
	if c.other || len(c.name) < 2 || c.name[0] != '"' {
		return false
	}
	inner := c.name[1 : len(c.name)-1]
	if bytes.IndexByte(inner, '\\') >= 0 || !utf8.Valid(inner) {
		return false
	}
	var m *RequestMeta
	if !plain {
		var mp *RequestMeta // escapes, so declared only when needed
		if exactjson.Unmarshal(c.meta, &mp) != nil {
			return false
		}
		m = mp
	}
	p.Name = string(inner)
	p.Meta = m
	if c.args != nil {
		p.Arguments = json.RawMessage(c.args)
	}
	return true
}

// plainMeta reports whether the params' _meta (valid JSON) is an object
// that RequestMeta takes nothing from: no member encoding/json would match
// with progressToken. Stateless-era requests carry such a _meta on every
// call, and decoding it would leave only a RequestMeta without a token,
// which is as good as none.
func plainMeta(meta []byte) bool {
	if meta[0] != '{' {
		return false
	}
	plain := true
	jsonscan.Members(meta, func(key, _ []byte) bool {
		plain = ignoredKey(key, "progressToken") // modern_meta.go
		return plain
	})
	return plain
}

// runTool runs a tool's handler and makes its result: a Go error becomes
// a result with isError, a *jsonrpc.Error or the context's error stays an
// error.
func runTool(ctx context.Context, r *Request, t *serverTool, args json.RawMessage) (*CallToolResult, error) {
	res, err := t.handler(ctx, r, args)
	if err != nil {
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) {
			return nil, rpcErr
		}
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, err
		}
		if r.modern != nil {
			// Asking the client for input, or for what it did not
			// declare, is the protocol's business, not the model's.
			var capErr *CapabilityError
			if errors.Is(err, ErrInputRequired) || errors.As(err, &capErr) {
				return nil, err
			}
		}
		return toolError(err.Error()), nil
	}
	if res == nil {
		res = &CallToolResult{}
	}
	if res.Content == nil {
		res.Content = []Content{}
	}
	return res, nil
}

// argValidator checks tool arguments against the tool's input schema and
// decodes them into the handler's type. Simple schemas (the ones inferred
// from Go structs, and most hand-written ones) are checked on the raw JSON
// by internal/schemacheck without decoding it; others are checked by
// jsonschema-go on the decoded value.
type argValidator struct {
	schema *jsonschema.Resolved
	fast   *schemacheck.Checker
	// dec decodes the usual argument structs without encoding/json
	// (argdecode.go); nil for other types.
	dec *argDecoder
}

func newArgValidator(rs *jsonschema.Resolved, in reflect.Type) *argValidator {
	v := &argValidator{schema: rs, dec: newArgDecoder(in)}
	v.fast, _ = schemacheck.Compile(rs.Schema())
	return v
}

// decode validates args and decodes them into dst. It returns a
// human-readable problem, or "" on success. Absent arguments are {}.
func (v *argValidator) decode(args json.RawMessage, dst any) string {
	if len(args) == 0 || string(args) == "null" {
		args = emptyObject
	}
	if v.fast != nil {
		valid, err := v.fast.CheckValid(args) // one pass: validated as checked
		if !valid {
			return "arguments are not valid JSON"
		}
		if err != nil {
			return err.Error()
		}
	} else {
		var instance any
		if err := exactjson.Unmarshal(args, &instance); err != nil {
			return "arguments are not valid JSON: " + err.Error()
		}
		if err := v.schema.Validate(instance); err != nil {
			return strings.TrimPrefix(err.Error(), "validating root: ")
		}
	}
	if v.dec != nil && v.dec.decode(args, dst) {
		return ""
	}
	if v.dec != nil {
		// The fast decoder declined and may have set some fields: start
		// from the zero value again.
		rv := reflect.ValueOf(dst).Elem()
		rv.SetZero()
	}
	if err := exactjson.Unmarshal(args, dst); err != nil {
		return err.Error()
	}
	return ""
}
