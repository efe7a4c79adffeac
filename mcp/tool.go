package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/mcpkit/mcpkit/internal/exactjson"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpkit/mcpkit/internal/jsonenc"
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
// anything else as its JSON text and, if an object, as structuredContent.
// An error becomes a result with isError set, except a *jsonrpc.Error,
// ctx's own error, and in 2026-07-28 ErrInputRequired and the
// ErrCapabilityNotDeclared error of a request to the client.
type TypedToolHandler[In, Out any] func(ctx context.Context, req *Request, in In) (Out, error)

type serverTool struct {
	tool    *Tool
	handler ToolHandler
}

// AddTool adds a tool with a hand-written input schema (an object schema;
// if nil, {"type":"object"}), replacing any tool of the same name, and
// sends notifications/tools/list_changed. It fails for an invalid name
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names).
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

// AddTool adds a typed tool to s. Unless t sets them, the input schema is
// inferred from In, and the output schema from a struct Out
// (jsonschema-go). Arguments are validated before h runs; a failure is a
// result with isError set
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling).
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

// inferOptions are the options of schema inference. A json.RawMessage
// (and so a Meta value) holds any JSON value, not the array of bytes its Go
// type would suggest.
var inferOptions = &jsonschema.ForOptions{
	TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {},
	},
}

// toolSchema resolves the schema given, or the one inferred from T.
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
	var p CallToolParams // stays on the stack (docs/design.md)
	if err := decodeToolCall(r, &p); err != nil {
		return nil, err
	}
	r.setMeta(p.Meta)
	s.mu.RLock()
	t, ok := s.tools.get(p.Name)
	s.mu.RUnlock()
	if !ok {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params", "Unknown tool: "+p.Name)
	}
	return r.inEra().callTool(ctx, s, r, p, t)
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
		if r.inEra().protocolToolError(err) {
			return nil, err
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
