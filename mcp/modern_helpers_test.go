package mcp_test

// This file holds the helpers of the stateless-era tests (modern_test.go,
// input_test.go): a server whose features exercise the stateless era's
// core (_meta checks, stamps, multi round-trip input), a way to serve one
// raw request through Host.ServeStateless and get back the exact
// frame, and the 2026-07-28 schema. Every helper is prefixed "mod".

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// modInfo is what modServer's servers call themselves, and modInfoMember
// the _meta member every stateless-era result of theirs carries.
var modInfo = mcp.Implementation{Name: "mod-server", Version: "2.0.0"}

const modInfoMember = `"io.modelcontextprotocol/serverInfo":{"name":"mod-server","version":"2.0.0"}`

// modAllCaps declares every capability a handler may ask input for.
const modAllCaps = `{"elicitation":{},"sampling":{},"roots":{}}`

// modMeta is a stateless-era request _meta declaring caps (a JSON object).
func modMeta(caps string) string {
	return `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps +
		`,"io.modelcontextprotocol/clientInfo":{"name":"mod-client","version":"1.0.0"}}`
}

// modParams is params with a stateless-era _meta declaring caps, then
// rest, raw members to add ("" for none, else starting with a comma).
func modParams(caps, rest string) string {
	return `{"_meta":` + modMeta(caps) + rest + `}`
}

// modFrame is a request frame; params "" means no params member.
func modFrame(id, method, params string) string {
	f := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"`
	if params != "" {
		f += `,"params":` + params
	}
	return f + "}"
}

// modWriter records the messages a request sends on its stream.
type modWriter struct {
	mu     sync.Mutex
	frames []string
	// wrote, if not nil, gets a value for each frame.
	wrote chan struct{}
}

func (w *modWriter) WriteMessage(_ context.Context, msg jsonrpc.Message) error {
	b, err := jsonrpc.Encode(msg)
	if err != nil {
		return err
	}
	w.mu.Lock()
	w.frames = append(w.frames, string(b))
	w.mu.Unlock()
	if w.wrote != nil {
		w.wrote <- struct{}{}
	}
	return nil
}

func (w *modWriter) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.frames...)
}

// modServe serves one raw request frame with Host.ServeStateless,
// as a transport does for a request outside any session, and returns the
// response frame, whether it was refused, and what went on the stream.
func modServe(t testing.TB, srv *mcp.Server, frame string) (resp string, refused bool, stream []string) {
	t.Helper()
	return modServeExtra(t, srv, frame, nil)
}

// modServeExtra is modServe with transport information attached to the
// request.
func modServeExtra(t testing.TB, srv *mcp.Server, frame string, extra *mcp.RequestExtra) (resp string, refused bool, stream []string) {
	t.Helper()
	msg, _, err := jsonrpc.Decode([]byte(frame))
	if err != nil {
		t.Fatalf("decoding %s: %v", frame, err)
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		t.Fatalf("%s is not a request", frame)
	}
	w := &modWriter{}
	r, refused, _ := srv.Host().ServeStateless(context.Background(), nil, req, w, extra)
	if r == nil {
		t.Fatalf("HandleModernRequest(%s) returned no response", frame)
	}
	b, err := jsonrpc.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), refused, w.all()
}

// modCall is modServe for a request that must not be refused and must
// send nothing on its stream.
func modCall(t testing.TB, srv *mcp.Server, id, method, params string) string {
	t.Helper()
	resp, refused, stream := modServe(t, srv, modFrame(id, method, params))
	if refused {
		t.Errorf("%s %s was refused: %s", method, params, resp)
	}
	if len(stream) > 0 {
		t.Errorf("%s sent on its stream:\n\t%s", method, strings.Join(stream, "\n\t"))
	}
	return resp
}

var modStateRE = regexp.MustCompile(`"requestState":"([^"]*)"`)

// modState returns the requestState of an input_required frame, and the
// frame with the state replaced by "STATE" so that it can be compared
// exactly.
func modState(t testing.TB, frame string) (state, masked string) {
	t.Helper()
	m := modStateRE.FindStringSubmatch(frame)
	if m == nil {
		t.Fatalf("no requestState in %s", frame)
	}
	return m[1], modStateRE.ReplaceAllString(frame, `"requestState":"STATE"`)
}

// modResult returns the result member of a response frame.
func modResult(t testing.TB, frame string) json.RawMessage {
	t.Helper()
	var r struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(frame), &r); err != nil || r.Result == nil {
		t.Fatalf("no result in %s", frame)
	}
	return r.Result
}

// modText is the frame of a complete tools/call result with one text.
func modText(id, text string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"complete","_meta":{` + modInfoMember +
		`},"content":[{"type":"text","text":` + askQuote(text) + `}]}}`
}

// modError is the frame of an error response; data "" means none.
func modError(id string, code int64, message, data string) string {
	f := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s`, id, code, askQuote(message))
	if data != "" {
		f += `,"data":` + data
	}
	return f + "}}"
}

// The input requests of modServer's handlers.
func modNameInput() *mcp.InputRequest {
	return mcp.ElicitationInput(&mcp.ElicitParams{
		Message: "What is your name?",
		RequestedSchema: &mcp.ElicitSchema{
			Properties: []mcp.ElicitProperty{{Name: "name", Schema: &mcp.PrimitiveSchema{Type: "string"}}},
			Required:   []string{"name"},
		},
	})
}

func modConfirmInput(what string) *mcp.InputRequest {
	return mcp.ElicitationInput(&mcp.ElicitParams{
		Message: "Confirm " + what + "?",
		RequestedSchema: &mcp.ElicitSchema{
			Properties: []mcp.ElicitProperty{{Name: "ok", Schema: &mcp.PrimitiveSchema{Type: "boolean"}}},
		},
	})
}

func modSamplingParams() *mcp.CreateMessageParams {
	return &mcp.CreateMessageParams{
		Messages:  []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.TextContent{Text: "What is the capital of France?"}}}},
		MaxTokens: 100,
	}
}

// The wire form of those input requests.
const (
	modNameRequest     = `{"method":"elicitation/create","params":{"message":"What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}`
	modSamplingRequest = `{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"What is the capital of France?"}}],"maxTokens":100}}`
	modRootsRequest    = `{"method":"roots/list","params":{}}`
)

func modConfirmRequest(what string) string {
	return `{"method":"elicitation/create","params":{"message":"Confirm ` + what + `?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}}`
}

// The answers a client gives them.
const (
	modNameAnswer     = `{"action":"accept","content":{"name":"Alice"}}`
	modSamplingAnswer = `{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"test-model","stopReason":"endTurn"}`
	modRootsAnswer    = `{"roots":[{"uri":"file:///test/root","name":"Test Root"}]}`
	modYes            = `{"action":"accept","content":{"ok":true}}`
)

// modRounds records, for the "rounds" tool, the answers each run saw.
type modRounds struct {
	mu   sync.Mutex
	runs []string
}

func (r *modRounds) add(s string) {
	r.mu.Lock()
	r.runs = append(r.runs, s)
	r.mu.Unlock()
}

func (r *modRounds) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.runs...)
}

// modServer returns a server for the stateless-era tests, with:
//
//   - tools: "echo" (typed, echoes text); "sample" (Request.CreateMessage);
//     "meta" (a result with its own _meta); "log" (Request.Log at info,
//     then "logged"); "ask" (Request.Input for a name, a sampling and the
//     roots at once); "rounds" (asks "a", then "b", in two rounds);
//     "user" (asks "user_name"); "whoami" (the version and capabilities
//     the request carries);
//   - prompt "greet", which asks "user_context";
//   - resources "test://doc" (text) and "test://roots", which asks for the
//     roots.
//
// rounds, when not nil, records what each run of the "rounds" tool saw.
func modServer(t testing.TB, opts *mcp.ServerOptions, rounds *modRounds) *mcp.Server {
	t.Helper()
	if opts == nil {
		opts = &mcp.ServerOptions{}
	}
	if opts.Logging == nil {
		opts.Logging = &mcp.LoggingOptions{}
	}
	srv := mcp.NewServer(modInfo, opts)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	type echoIn struct {
		Text string `json:"text"`
	}
	must(mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.Request, in echoIn) (string, error) {
		return in.Text, nil
	}))
	must(srv.AddTool(&mcp.Tool{Name: "sample"}, func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		res, err := req.CreateMessage(ctx, modSamplingParams())
		if err != nil {
			return nil, err
		}
		return text("model " + res.Model), nil
	}))
	must(srv.AddTool(&mcp.Tool{Name: "meta"}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		r := text("m")
		r.Meta = mcp.Meta{"example.com/k": json.RawMessage(`1`)}
		return r, nil
	}))
	must(srv.AddTool(&mcp.Tool{Name: "log"}, func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		if err := req.Log(ctx, mcp.LevelInfo, "mod", "hello"); err != nil {
			return nil, err
		}
		return text("logged"), nil
	}))
	must(srv.AddTool(&mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		rs, err := req.Input(ctx, map[string]*mcp.InputRequest{
			"name":    modNameInput(),
			"capital": mcp.SamplingInput(modSamplingParams()),
			"roots":   mcp.RootsInput(),
		})
		if err != nil {
			return nil, err
		}
		el, err := rs.Elicitation("name")
		if err != nil {
			return nil, err
		}
		sm, err := rs.Sampling("capital")
		if err != nil {
			return nil, err
		}
		rt, err := rs.Roots("roots")
		if err != nil {
			return nil, err
		}
		var who struct{ Name string }
		if err := json.Unmarshal(el.Content, &who); err != nil {
			return nil, err
		}
		capital := sm.Content[0].(*mcp.TextContent).Text
		return text(fmt.Sprintf("name=%s capital=%s root=%s", who.Name, capital, rt.Roots[0].URI)), nil
	}))
	must(srv.AddTool(&mcp.Tool{Name: "rounds"}, func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		a, err := req.Input(ctx, map[string]*mcp.InputRequest{"a": modConfirmInput("A")})
		if err != nil {
			if rounds != nil {
				rounds.add("asked a")
			}
			return nil, err
		}
		b, err := req.Input(ctx, map[string]*mcp.InputRequest{"b": modConfirmInput("B")})
		if err != nil {
			if rounds != nil {
				rounds.add("a=" + string(a["a"]) + " asked b")
			}
			return nil, err
		}
		if rounds != nil {
			rounds.add("a=" + string(a["a"]) + " b=" + string(b["b"]))
		}
		return text("done"), nil
	}))
	must(srv.AddTool(&mcp.Tool{Name: "user"}, func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		rs, err := req.Input(ctx, map[string]*mcp.InputRequest{"user_name": modNameInput()})
		if err != nil {
			return nil, err
		}
		el, err := rs.Elicitation("user_name")
		if err != nil {
			return nil, err
		}
		return text("Hello, " + el.Action + " " + string(el.Content)), nil
	}))
	must(srv.AddTool(&mcp.Tool{Name: "whoami"}, func(_ context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		caps, err := json.Marshal(req.ClientCapabilities)
		if err != nil {
			return nil, err
		}
		return text(fmt.Sprintf("version=%s stateless=%t client=%s caps=%s", req.ProtocolVersion, req.Stateless(), req.ClientInfo.Name, caps)), nil
	}))
	must(srv.AddPrompt(&mcp.Prompt{Name: "greet"}, func(ctx context.Context, req *mcp.Request, _ *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
		rs, err := req.Input(ctx, map[string]*mcp.InputRequest{"user_context": mcp.ElicitationInput(&mcp.ElicitParams{
			Message: "What context?",
			RequestedSchema: &mcp.ElicitSchema{
				Properties: []mcp.ElicitProperty{{Name: "context", Schema: &mcp.PrimitiveSchema{Type: "string"}}},
				Required:   []string{"context"},
			},
		})})
		if err != nil {
			return nil, err
		}
		var in struct{ Context string }
		el, err := rs.Elicitation("user_context")
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(el.Content, &in); err != nil {
			return nil, err
		}
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "Context: " + in.Context}}}}, nil
	}))
	must(srv.AddResource(&mcp.Resource{URI: "test://doc", Name: "doc", MIMEType: "text/plain"}, func(context.Context, *mcp.Request, *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{Text: "doc body"}}}, nil
	}))
	must(srv.AddResource(&mcp.Resource{URI: "test://roots", Name: "roots", MIMEType: "text/plain"}, func(ctx context.Context, req *mcp.Request, _ *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		roots, err := req.ListRoots(ctx, nil)
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{Text: roots.Roots[0].URI}}}, nil
	}))
	return srv
}

// modSchemaFile is a copy of ../shared/spec/schema/2026-07-28/schema.json.
const modSchemaFile = "testdata/schema/2026-07-28/schema.json"

var (
	modSchemaOnce   sync.Once
	modSchemaLoaded *schemaSpec
	modSchemaErr    error
)

// modSchema loads the 2026-07-28 schema once, with the helpers of the
// 2025-11-25 schema test (schema_helpers_test.go).
func modSchema(t testing.TB) *schemaSpec {
	t.Helper()
	modSchemaOnce.Do(func() {
		modSchemaLoaded, modSchemaErr = schemaRead(modSchemaFile)
		if modSchemaErr != nil {
			return
		}
		// _meta objects take any key: the strict variant must not close
		// them (a result's own _meta keeps its keys beside serverInfo).
		for name, def := range modSchemaLoaded.strict {
			if d, ok := def.(map[string]any); ok && strings.HasSuffix(name, "MetaObject") {
				delete(d, "additionalProperties")
			}
		}
	})
	if modSchemaErr != nil {
		t.Fatalf("loading the 2026-07-28 schema: %v", modSchemaErr)
	}
	return modSchemaLoaded
}

// modValidate checks raw JSON against definition def of the 2026-07-28
// schema, then against its strict variant (no member the definition does
// not name).
func modValidate(t testing.TB, s *schemaSpec, def string, raw []byte) {
	t.Helper()
	var instance any
	if err := json.Unmarshal(raw, &instance); err != nil {
		t.Errorf("%s: not JSON: %v\n%s", def, err, raw)
		return
	}
	for _, strict := range []bool{false, true} {
		rs, err := s.resolve(def, strict)
		if err != nil {
			t.Fatal(err)
		}
		if err := rs.Validate(instance); err != nil {
			t.Errorf("does not validate against %s of the 2026-07-28 schema (strict %t):\n%v\ninstance: %s", def, strict, err, raw)
			return
		}
	}
}
