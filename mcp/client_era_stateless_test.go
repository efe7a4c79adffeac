package mcp_test

// Tests of a stateless-era session's requests: _meta, resultType, multi
// round-trip requests answered through the client's handlers, log levels.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// connectStatelessFake connects a client with copts to a fake server that
// answers the probe with discoverResult and every later frame with
// answer. The caller closes the session, then reads run.frames().
func connectStatelessFake(t *testing.T, copts *mcp.ClientOptions, answer func(frame string) []string) (*mcp.ClientSession, *fakeRun) {
	t.Helper()
	ct, fake := newFakeServer(t)
	run := runFake(fake, func(f string) []string {
		if strings.Contains(f, `"method":"server/discover"`) && strings.Contains(f, `"id":1,`) {
			return []string{`{"jsonrpc":"2.0","id":1,"result":` + discoverResult + `}`}
		}
		return answer(f)
	})
	cs, err := mcp.NewClient(clientTestInfo, copts).Connect(context.Background(), ct)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if !cs.Stateless() {
		t.Fatal("the session is not stateless")
	}
	return cs, run
}

// idOf returns the id of a request frame, as JSON.
func idOf(frame string) string {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal([]byte(frame), &m)
	return string(m.ID)
}

// mrtrOptions answers every kind of input request and records what it
// was asked.
func mrtrOptions(asked *[]string, mu *sync.Mutex) *mcp.ClientOptions {
	record := func(s string) {
		mu.Lock()
		*asked = append(*asked, s)
		mu.Unlock()
	}
	return &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			record("elicit: " + p.Message)
			content := json.RawMessage(`{}`)
			if p.RequestedSchema != nil && len(p.RequestedSchema.Properties) > 0 {
				content = json.RawMessage(`{"name":"Gopher"}`)
			}
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: content}, nil
		},
		CreateMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			record("sample: " + p.SystemPrompt)
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: mcp.SamplingContents{&mcp.TextContent{Text: "Paris"}}, Model: "m", StopReason: "endTurn"}, nil
		},
		Roots: []*mcp.Root{{URI: "file:///work", Name: "work"}},
	}
}

const mrtrCaps = `"io.modelcontextprotocol/clientCapabilities":{"roots":{},"sampling":{},"elicitation":{"form":{}}}`

func TestMRTRAgainstFakeServer(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var asked []string
	var mu sync.Mutex
	elicit := `{"method":"elicitation/create","params":{"message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}`
	sample := `{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Capital of France?"}}],"systemPrompt":"geo","maxTokens":10}}`
	roots := `{"method":"roots/list"}`
	round := 0
	cs, run := connectStatelessFake(t, mrtrOptions(&asked, &mu), func(f string) []string {
		id := idOf(f)
		if !strings.Contains(f, `"method":"tools/call"`) {
			return []string{`{"jsonrpc":"2.0","id":` + id + `,"result":{"tools":[]}}`}
		}
		round++
		switch round {
		case 1:
			return []string{`{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"input_required","inputRequests":{"b_sample":` + sample + `,"a_name":` + elicit + `,"c_roots":` + roots + `},"requestState":"s\u00e9-1"}}`}
		case 2:
			// No inputRequests: the client retries at once, echoing
			// only the state.
			return []string{`{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"input_required","requestState":"s-2"}}`}
		case 3:
			// An input request without requestState: the retry
			// carries none.
			return []string{`{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"input_required","inputRequests":{"again":` + elicit + `}}}`}
		}
		return []string{`{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"complete","content":[{"type":"text","text":"done"}]}}`}
	})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "book", Arguments: json.RawMessage(`{"city":"Paris"}`)})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	jsonEqual(t, "result content", res.Content, `[{"type":"text","text":"done"}]`)
	// An unrelated call afterwards carries nothing of the exchange.
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	cs.Close()

	meta := strings.Replace(statelessMeta, `"io.modelcontextprotocol/clientCapabilities":{}`, mrtrCaps, 1)
	answers := `"inputResponses":{"a_name":{"action":"accept","content":{"name":"Gopher"}},"b_sample":{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m","stopReason":"endTurn"},"c_roots":{"roots":[{"uri":"file:///work","name":"work"}]}}`
	args := `"name":"book","arguments":{"city":"Paris"}`
	wantFrames(t, run.frames(),
		strings.Replace(discoverFrame1, statelessMeta, meta, 1),
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{`+meta+`,`+args+`}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{`+meta+`,`+answers+`,"requestState":"s\u00e9-1",`+args+`}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{`+meta+`,"requestState":"s-2",`+args+`}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{`+meta+`,"inputResponses":{"again":{"action":"accept","content":{"name":"Gopher"}}},`+args+`}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{`+meta+`}}`,
	)
	want := []string{"elicit: Name?", "sample: geo", "elicit: Name?"}
	if strings.Join(asked, "|") != strings.Join(want, "|") {
		t.Errorf("handlers asked %q, want %q", asked, want)
	}
}

// Calls in flight at once each keep their own round trips: one call's
// requestState and inputResponses never reach the other
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#client-requirements-basic-workflow).
func TestMRTRParallelIsolation(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var asked []string
	var mu sync.Mutex
	elicit := `{"method":"elicitation/create","params":{"message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}`
	var calls sync.Map
	cs, run := connectStatelessFake(t, mrtrOptions(&asked, &mu), func(f string) []string {
		id := idOf(f)
		var p struct {
			Params struct {
				Name  string `json:"name"`
				State string `json:"requestState"`
			} `json:"params"`
		}
		_ = json.Unmarshal([]byte(f), &p)
		if _, seen := calls.LoadOrStore(p.Params.Name+p.Params.State, true); !seen && p.Params.State == "" {
			return []string{`{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"input_required","inputRequests":{"k":` + elicit + `},"requestState":"state-of-` + p.Params.Name + `"}}`}
		}
		return []string{`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"` + p.Params.Name + `:` + p.Params.State + `"}]}}`}
	})
	var wg sync.WaitGroup
	results := make([]string, 2)
	for i, name := range []string{"first", "second"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name})
			if err != nil {
				t.Errorf("CallTool(%s): %v", name, err)
				return
			}
			results[i] = res.Content[0].(*mcp.TextContent).Text
		}()
	}
	wg.Wait()
	cs.Close()
	run.frames()
	if results[0] != "first:state-of-first" || results[1] != "second:state-of-second" {
		t.Errorf("results = %q, want each call to retry with its own state", results)
	}
}

// A result without resultType is complete (a session-era server's result
// or a lenient one); one naming a type the client does not know is an
// error.
func TestClientStatelessResultTypes(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cs, run := connectStatelessFake(t, nil, func(f string) []string {
		id := idOf(f)
		switch {
		case strings.Contains(f, `"name":"plain"`):
			return []string{`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"ok"}]}}`}
		case strings.Contains(f, `"name":"weird"`):
			return []string{`{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"later","content":[]}}`}
		case strings.Contains(f, `"name":"task"`):
			return []string{`{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"task","task":{}}}`}
		case strings.Contains(f, `"method":"tools/list"`):
			return []string{`{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"input_required","requestState":"x"}}`}
		case strings.Contains(f, `"name":"ask"`):
			return []string{`{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"input_required","inputRequests":{"q":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}}}}`}
		case strings.Contains(f, `"name":"empty"`):
			return []string{`{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"input_required"}}`}
		case strings.Contains(f, `"name":"ping"`):
			return []string{`{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"input_required","inputRequests":{"q":{"method":"ping"}}}}`}
		}
		return nil
	})
	defer run.frames()
	defer cs.Close()
	ctx := context.Background()
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "plain"}); err != nil {
		t.Errorf("result without resultType: %v", err)
	} else {
		jsonEqual(t, "content", res.Content, `[{"type":"text","text":"ok"}]`)
	}
	for _, tc := range []struct{ name, want string }{
		{"weird", `mcp: tools/call: mcp: unknown resultType "later"`},
		{"task", `mcp: tools/call: mcp: unknown resultType "task"`},
		{"ask", `mcp: tools/call: input request "q": mcp: no handler for the input the server asked for: sampling/createMessage`},
		{"empty", `mcp: tools/call: input_required result carries neither inputRequests nor requestState`},
		{"ping", `mcp: tools/call: input request "q": method "ping" cannot be asked of a client (elicitation/create, sampling/createMessage or roots/list)`},
	} {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.name})
		if err == nil || err.Error() != tc.want {
			t.Errorf("CallTool(%s) error = %v, want %s", tc.name, err, tc.want)
		}
	}
	_, err := cs.ListTools(ctx, nil)
	if !errors.Is(err, mcp.ErrUnknownResultType) {
		t.Errorf("tools/list answered input_required: error = %v, want ErrUnknownResultType", err)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask"})
	if !errors.Is(err, mcp.ErrNoInputHandler) {
		t.Errorf("input without a handler: error = %v, want ErrNoInputHandler", err)
	}
}

func TestMRTRRoundLimit(t *testing.T) {
	for _, tc := range []struct {
		max, calls int
	}{{0, 9}, {2, 3}, {-1, 1}} {
		t.Run(fmt.Sprint(tc.max), func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			n := 0
			cs, run := connectStatelessFake(t, &mcp.ClientOptions{MaxInputRounds: tc.max}, func(f string) []string {
				n++
				return []string{`{"jsonrpc":"2.0","id":` + idOf(f) + `,"result":{"resultType":"input_required","requestState":"again"}}`}
			})
			_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "loop"})
			cs.Close()
			run.frames()
			if !errors.Is(err, mcp.ErrTooManyInputRounds) {
				t.Errorf("error = %v, want ErrTooManyInputRounds", err)
			}
			if n != tc.calls {
				t.Errorf("%d tools/call sent, want %d", n, tc.calls)
			}
		})
	}
}

// A handler's error ends the call: an input request has no way to carry
// an error back.
func TestMRTRHandlerError(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cs, run := connectStatelessFake(t, &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.ClientSession, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return nil, mcp.UserRejectedSamplingError()
		},
	}, func(f string) []string {
		return []string{`{"jsonrpc":"2.0","id":` + idOf(f) + `,"result":{"resultType":"input_required","inputRequests":{"q":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":1}}}}}`}
	})
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "t"})
	cs.Close()
	if n := len(run.frames()); n != 2 {
		t.Errorf("%d frames sent, want discover and one tools/call", n)
	}
	if !errors.Is(err, mcp.UserRejectedSamplingError()) {
		t.Errorf("error = %v, want UserRejectedSamplingError()", err)
	}
}

// MRTR against mcpkit's own server: a tool asks for three inputs, then for
// one more, and the client's handlers answer both rounds.
func TestMRTRAgainstMcpkitServer(t *testing.T) {
	s := mcp.NewServer(serverTestInfo, nil)
	if err := mcp.AddTool(s, &mcp.Tool{Name: "trip"}, func(ctx context.Context, r *mcp.Request, _ struct{}) (string, error) {
		rs, err := r.Input(ctx, map[string]*mcp.InputRequest{
			"who": mcp.ElicitationInput(&mcp.ElicitParams{Message: "Who?", RequestedSchema: &mcp.ElicitSchema{
				Properties: []mcp.ElicitProperty{{Name: "name", Schema: &mcp.PrimitiveSchema{Type: "string"}}},
			}}),
			"llm": mcp.SamplingInput(&mcp.CreateMessageParams{
				Messages:  []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.TextContent{Text: "Capital?"}}}},
				MaxTokens: 5, SystemPrompt: "geo",
			}),
			"dirs": mcp.RootsInput(),
		})
		if err != nil {
			return "", err
		}
		who, _ := rs.Elicitation("who")
		llm, _ := rs.Sampling("llm")
		dirs, _ := rs.Roots("dirs")
		again, err := r.Input(ctx, map[string]*mcp.InputRequest{
			"confirm": mcp.ElicitationInput(&mcp.ElicitParams{Message: "Sure?", RequestedSchema: &mcp.ElicitSchema{}}),
		})
		if err != nil {
			return "", err
		}
		ok, _ := again.Elicitation("confirm")
		return string(who.Content) + " " + llm.Content[0].(*mcp.TextContent).Text + " " + dirs.Roots[0].URI + " " + ok.Action, nil
	}); err != nil {
		t.Fatal(err)
	}
	var asked []string
	var mu sync.Mutex
	cs := connectEra(t, s, mrtrOptions(&asked, &mu))
	if !cs.Stateless() {
		t.Fatal("not stateless")
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "trip"})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	jsonEqual(t, "content", res.Content, `[{"type":"text","text":"{\"name\":\"Gopher\"} Paris file:///work accept"}]`)
	// One at a time, in key order: dirs, llm, who; then confirm.
	if got := strings.Join(asked, "|"); got != "sample: geo|elicit: Who?|elicit: Sure?" {
		t.Errorf("handlers asked %s", got)
	}
}

func TestClientStatelessLogLevel(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cs, run := connectStatelessFake(t, &mcp.ClientOptions{LogLevel: mcp.LevelInfo}, func(f string) []string {
		return []string{`{"jsonrpc":"2.0","id":` + idOf(f) + `,"result":{"prompts":[]}}`}
	})
	ctx := context.Background()
	cs.ListPrompts(ctx, nil)
	if err := cs.SetLogLevel(ctx, &mcp.SetLevelParams{Level: mcp.LevelWarning}); err != nil {
		t.Fatalf("SetLogLevel: %v", err)
	}
	cs.ListPrompts(ctx, nil)
	cs.ListPrompts(mcp.WithLogLevel(ctx, mcp.LevelDebug), nil)
	if err := cs.SetLogLevel(ctx, &mcp.SetLevelParams{Level: "loud"}); err == nil {
		t.Error("SetLogLevel accepted an unknown level")
	}
	cs.Close()
	level := func(l string) string {
		return strings.Replace(statelessMeta, `}}`, `},"io.modelcontextprotocol/logLevel":"`+l+`"}`, 1)
	}
	wantFrames(t, run.frames(),
		discoverFrame1,
		`{"jsonrpc":"2.0","id":2,"method":"prompts/list","params":{`+level("info")+`}}`,
		`{"jsonrpc":"2.0","id":3,"method":"prompts/list","params":{`+level("warning")+`}}`,
		`{"jsonrpc":"2.0","id":4,"method":"prompts/list","params":{`+level("debug")+`}}`,
	)
}

// The methods 2026-07-28 removed: ping becomes server/discover,
// subscribe is refused without sending anything, _meta keys of the caller
// are kept beside the era's.
func TestClientStatelessRemovedMethods(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cs, run := connectStatelessFake(t, &mcp.ClientOptions{Roots: []*mcp.Root{}}, func(f string) []string {
		return []string{`{"jsonrpc":"2.0","id":` + idOf(f) + `,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"contents":[]}}`}
	})
	ctx := context.Background()
	if err := cs.Ping(ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "file:///a"}); !errors.Is(err, mcp.ErrWrongEra) || err.Error() != "mcp: Subscribe: mcp: not available in the stateless era (2026-07-28): use Listen" {
		t.Errorf("Subscribe error = %v, want ErrWrongEra", err)
	}
	if err := cs.Unsubscribe(ctx, &mcp.SubscribeParams{URI: "file:///a"}); !errors.Is(err, mcp.ErrWrongEra) || err.Error() != "mcp: Unsubscribe: mcp: not available in the stateless era (2026-07-28): close the Listen subscription" {
		t.Errorf("Unsubscribe error = %v, want ErrWrongEra", err)
	}
	var raw json.RawMessage
	if err := cs.Call(ctx, "resources/read", json.RawMessage(`{"uri":"file:///a","_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"1999-01-01"}}`), &raw); err != nil {
		t.Errorf("Call: %v", err)
	}
	d, err := cs.Discover(ctx)
	if err != nil {
		t.Errorf("Discover: %v", err)
	}
	// No notifications/roots/list_changed in the stateless era.
	if err := cs.Client().SetRoots(ctx, &mcp.Root{URI: "file:///b"}); err != nil {
		t.Errorf("SetRoots: %v", err)
	}
	jsonEqual(t, "Discover", d, `{"supportedVersions":["2026-07-28"],"capabilities":{}}`)
	jsonEqual(t, "ServerCapabilities after Discover", cs.ServerCapabilities(), `{}`)
	cs.Close()
	// The roots capability is declared without listChanged, which the
	// stateless era removed.
	meta := strings.Replace(statelessMeta, `clientCapabilities":{}`, `clientCapabilities":{"roots":{}}`, 1)
	wantFrames(t, run.frames(),
		strings.Replace(discoverFrame1, statelessMeta, meta, 1),
		`{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{`+meta+`}}`,
		`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{`+strings.TrimSuffix(meta, "}")+`,"progressToken":"p"},"uri":"file:///a"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"server/discover","params":{`+meta+`}}`,
	)
}

// A -32022 on a later request switches the session to a version the
// server names, once.
func TestClientStatelessVersionRetry(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	n := 0
	cs, run := connectStatelessFake(t, nil, func(f string) []string {
		n++
		if n <= 2 {
			return []string{`{"jsonrpc":"2.0","id":` + idOf(f) + `,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2026-07-28"}}}`}
		}
		return []string{`{"jsonrpc":"2.0","id":` + idOf(f) + `,"result":{"tools":[]}}`}
	})
	_, err := cs.ListTools(context.Background(), nil)
	wantRPCError(t, err, jsonrpc.CodeUnsupportedProtocolVersion, "Unsupported protocol version", `{"supported":["2026-07-28"],"requested":"2026-07-28"}`)
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Errorf("ListTools: %v", err)
	}
	cs.Close()
	if got := len(run.frames()); got != 4 {
		t.Errorf("%d frames, want discover, tools/list retried once, tools/list", got)
	}
}

func TestIsResourceNotFound(t *testing.T) {
	for _, tc := range []struct {
		err  error
		uri  string
		want bool
	}{
		{jsonrpc.NewError(jsonrpc.CodeResourceNotFound, "Resource not found", map[string]string{"uri": "file:///x"}), "file:///x", true},
		{jsonrpc.NewError(jsonrpc.CodeResourceNotFound, "Resource not found", nil), "", true},
		{jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Resource not found", map[string]string{"uri": "file:///y"}), "file:///y", true},
		{jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params", nil), "", false},
		{jsonrpc.NewError(jsonrpc.CodeInternalError, "x", map[string]string{"uri": "file:///z"}), "", false},
		{errors.New("plain"), "", false},
	} {
		uri, ok := mcp.IsResourceNotFound(tc.err)
		if uri != tc.uri || ok != tc.want {
			t.Errorf("IsResourceNotFound(%v) = %q, %v; want %q, %v", tc.err, uri, ok, tc.uri, tc.want)
		}
	}
}
