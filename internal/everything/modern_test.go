package everything_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/internal/everything"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// The tests in this file serve the fixtures of the 2026-07-28 era with
// Host.ServeStateless, as Streamable HTTP does for a POST
// without a session, with the _meta the conformance suite sends.

// harnessCaps are the client capabilities the suite declares unless a
// scenario says otherwise.
const harnessCaps = `{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}`

// recorder is a jsonrpc.Writer that keeps what a request sends before its
// response.
type recorder struct {
	mu   sync.Mutex
	msgs []jsonrpc.Message
	// ch, if not nil, gets every message too.
	ch chan jsonrpc.Message
}

func (r *recorder) WriteMessage(_ context.Context, msg jsonrpc.Message) error {
	r.mu.Lock()
	r.msgs = append(r.msgs, msg)
	r.mu.Unlock()
	if r.ch != nil {
		r.ch <- msg
	}
	return nil
}

func (r *recorder) messages() []jsonrpc.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]jsonrpc.Message(nil), r.msgs...)
}

// withMeta returns params (a JSON object) with the stateless era's _meta:
// version 2026-07-28, the suite's clientInfo, caps, and the extra members
// given as "key":value JSON.
func withMeta(params, caps string, extra ...string) json.RawMessage {
	meta := `{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"},` +
		`"io.modelcontextprotocol/clientCapabilities":` + caps
	for _, e := range extra {
		meta += "," + e
	}
	meta += "}"
	params = strings.TrimSpace(params)
	if params == "{}" {
		return json.RawMessage(`{"_meta":` + meta + `}`)
	}
	return json.RawMessage(`{"_meta":` + meta + "," + params[1:])
}

// modern serves one stateless-era request on s and returns the response and
// what was sent before it; it fails if the request was refused (see
// serve).
func modern(t *testing.T, s *mcp.Server, method string, params json.RawMessage) (*jsonrpc.Response, []jsonrpc.Message) {
	t.Helper()
	resp, msgs, refused := serve(t, s, method, params)
	if refused {
		t.Fatalf("%s: refused: %+v", method, resp.Error)
	}
	return resp, msgs
}

// serve serves one stateless-era request on s and returns the response,
// what was sent before it, and whether it was refused (the status that
// Streamable HTTP turns into 400 or 404).
func serve(t *testing.T, s *mcp.Server, method string, params json.RawMessage) (*jsonrpc.Response, []jsonrpc.Message, bool) {
	t.Helper()
	rec := &recorder{}
	resp, refused, _ := s.Host().ServeStateless(context.Background(), nil, &jsonrpc.Request{ID: jsonrpc.Int64ID(7), Method: method, Params: params}, rec, nil)
	if resp == nil {
		t.Fatalf("%s: no response", method)
	}
	if resp.ID != jsonrpc.Int64ID(7) {
		t.Errorf("%s: response id %v, want 7", method, resp.ID)
	}
	return resp, rec.messages(), refused
}

// result decodes a successful response's result into members, failing on
// an error response.
func result(t *testing.T, resp *jsonrpc.Response) map[string]json.RawMessage {
	t.Helper()
	if resp.Error != nil {
		t.Fatalf("error %d %q %s, want a result", resp.Error.Code, resp.Error.Message, resp.Error.Data)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(resp.Result, &m); err != nil {
		t.Fatalf("result %s: %v", resp.Result, err)
	}
	return m
}

// inputRequired checks that resp is an input_required result whose
// inputRequests are exactly want, and returns its requestState.
func inputRequired(t *testing.T, resp *jsonrpc.Response, want string) string {
	t.Helper()
	m := result(t, resp)
	if string(m["resultType"]) != `"input_required"` {
		t.Fatalf("resultType = %s, want \"input_required\" (result %s)", m["resultType"], resp.Result)
	}
	if !sameJSON(t, m["inputRequests"], []byte(want)) {
		t.Errorf("inputRequests =\n\t%s\nwant\n\t%s", m["inputRequests"], want)
	}
	var state string
	if err := json.Unmarshal(m["requestState"], &state); err != nil || state == "" {
		t.Fatalf("requestState = %s, want a non-empty string", m["requestState"])
	}
	for _, k := range []string{"ttlMs", "cacheScope"} {
		if _, ok := m[k]; ok {
			t.Errorf("input_required result has %s: %s", k, resp.Result)
		}
	}
	return state
}

// completeText checks that resp is a complete tools/call result with one
// text content and returns the text.
func completeText(t *testing.T, resp *jsonrpc.Response) string {
	t.Helper()
	m := result(t, resp)
	if string(m["resultType"]) != `"complete"` {
		t.Fatalf("resultType = %s, want \"complete\" (result %s)", m["resultType"], resp.Result)
	}
	if _, ok := m["isError"]; ok {
		t.Errorf("result has isError: %s", resp.Result)
	}
	var content []struct{ Type, Text string }
	if err := json.Unmarshal(m["content"], &content); err != nil || len(content) != 1 || content[0].Type != "text" {
		t.Fatalf("content = %s, want one text", m["content"])
	}
	return content[0].Text
}

// retry is the params of a tools/call retry with answers and state.
func retry(name, answers, state string) string {
	p := `{"name":"` + name + `","arguments":{},"inputResponses":` + answers
	if state != "" {
		st, _ := json.Marshal(state)
		p += `,"requestState":` + string(st)
	}
	return p + "}"
}

// The harness's mock answers.
const (
	acceptAlice  = `{"action":"accept","content":{"name":"Alice"}}`
	sampleAnswer = `{"role":"assistant","content":{"type":"text","text":"The capital of France is Paris."},"model":"test-model","stopReason":"endTurn"}`
	rootsAnswer  = `{"roots":[{"uri":"file:///test/root","name":"Test Root"}]}`

	nameRequest    = `{"method":"elicitation/create","params":{"message":"What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}`
	rootsRequest   = `{"method":"roots/list","params":{}}`
	greetRequest   = `{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Generate a greeting"}}],"maxTokens":50}}`
	confirmRequest = `{"method":"elicitation/create","params":{"message":"Please confirm","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}}}`
)

// TestMRTRToolsStateless runs each single-round MRTR tool as the suite's
// scenarios do: a first call without answers gets exactly the input
// requests the scenario describes, and the retry with the mock answers and
// the echoed requestState completes with the text given.
func TestMRTRToolsStateless(t *testing.T) {
	s := everything.NewServer(nil)
	for _, tc := range []struct {
		tool, requests, answers, text string
	}{
		{"test_input_required_result_elicitation", `{"user_name":` + nameRequest + `}`,
			`{"user_name":` + acceptAlice + `}`, "Hello, Alice!"},
		{"test_input_required_result_sampling",
			`{"capital_question":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"What is the capital of France?"}}],"maxTokens":100}}}`,
			`{"capital_question":` + sampleAnswer + `}`, "LLM response: The capital of France is Paris."},
		{"test_input_required_result_list_roots", `{"client_roots":` + rootsRequest + `}`,
			`{"client_roots":` + rootsAnswer + `}`, "Roots (1): file:///test/root"},
		{"test_input_required_result_request_state", `{"confirm":` + confirmRequest + `}`,
			`{"confirm":{"action":"accept","content":{"ok":true}}}`,
			`state-ok: the requestState was verified; action=accept, content={"ok":true}`},
		{"test_input_required_result_tampered_state", `{"confirm":` + confirmRequest + `}`,
			`{"confirm":{"action":"accept","content":{"ok":true}}}`,
			`The requestState was intact; action=accept, content={"ok":true}`},
		{"test_input_required_result_multiple_inputs",
			`{"user_name":` + nameRequest + `,"greeting":` + greetRequest + `,"client_roots":` + rootsRequest + `}`,
			`{"user_name":` + acceptAlice + `,"greeting":` + sampleAnswer + `,"client_roots":` + rootsAnswer + `}`,
			"Hello, Alice! LLM response: The capital of France is Paris. Roots (1): file:///test/root"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			resp, msgs := modern(t, s, "tools/call", withMeta(`{"name":"`+tc.tool+`","arguments":{}}`, harnessCaps))
			state := inputRequired(t, resp, tc.requests)
			if len(msgs) != 0 {
				t.Errorf("sent before the result: %v", msgs)
			}
			resp, msgs = modern(t, s, "tools/call", withMeta(retry(tc.tool, tc.answers, state), harnessCaps))
			if got := completeText(t, resp); got != tc.text {
				t.Errorf("text = %q, want %q", got, tc.text)
			}
			if len(msgs) != 0 {
				t.Errorf("sent before the result: %v", msgs)
			}
		})
	}
}

// TestMRTRMultiRound: test_input_required_result_multi_round asks step1,
// then step2 with a different requestState, then completes.
func TestMRTRMultiRound(t *testing.T) {
	s := everything.NewServer(nil)
	const tool = "test_input_required_result_multi_round"
	resp, _ := modern(t, s, "tools/call", withMeta(`{"name":"`+tool+`","arguments":{}}`, harnessCaps))
	state1 := inputRequired(t, resp,
		`{"step1":{"method":"elicitation/create","params":{"message":"Step 1: What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}}`)
	resp, _ = modern(t, s, "tools/call", withMeta(retry(tool, `{"step1":`+acceptAlice+`}`, state1), harnessCaps))
	state2 := inputRequired(t, resp,
		`{"step2":{"method":"elicitation/create","params":{"message":"Step 2: What is your favorite color?","requestedSchema":{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}}}}`)
	if state2 == state1 {
		t.Errorf("round 2 has the requestState of round 1")
	}
	resp, _ = modern(t, s, "tools/call", withMeta(retry(tool, `{"step2":{"action":"accept","content":{"color":"blue"}}}`, state2), harnessCaps))
	if got, want := completeText(t, resp), "Hello, Alice! Your favorite color is blue."; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
	// Round 2's state alone carries step1's answer: without it, step1 is
	// asked again.
	resp, _ = modern(t, s, "tools/call", withMeta(retry(tool, `{"step2":{"action":"accept","content":{"color":"blue"}}}`, state1), harnessCaps))
	inputRequired(t, resp,
		`{"step1":{"method":"elicitation/create","params":{"message":"Step 1: What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}}`)
}

// TestMRTRBadRetries covers the scenarios that retry wrongly: a tampered
// state and invalid answers are -32602 errors; a wrong key is asked again;
// unknown extra keys are ignored.
func TestMRTRBadRetries(t *testing.T) {
	s := everything.NewServer(nil)
	resp, _ := modern(t, s, "tools/call", withMeta(`{"name":"test_input_required_result_tampered_state","arguments":{}}`, harnessCaps))
	state := inputRequired(t, resp, `{"confirm":`+confirmRequest+`}`)
	resp, _ = modern(t, s, "tools/call", withMeta(retry("test_input_required_result_tampered_state", `{"confirm":{"action":"accept","content":{"ok":true}}}`, state+"-TAMPERED"), harnessCaps))
	if resp.Error == nil || resp.Error.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("tampered state: %+v %s, want error -32602", resp.Error, resp.Result)
	}
	// A state issued for another tool is refused too.
	resp, _ = modern(t, s, "tools/call", withMeta(retry("test_input_required_result_request_state", `{"confirm":{"action":"accept","content":{"ok":true}}}`, state), harnessCaps))
	if resp.Error == nil || resp.Error.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("state of another tool: %+v %s, want error -32602", resp.Error, resp.Result)
	}

	const tool = "test_input_required_result_elicitation"
	resp, _ = modern(t, s, "tools/call", withMeta(retry(tool, `{"wrong_key":{"action":"accept","content":{"data":"wrong"}}}`, ""), harnessCaps))
	inputRequired(t, resp, `{"user_name":`+nameRequest+`}`)

	resp, _ = modern(t, s, "tools/call", withMeta(retry(tool, `{"user_name":`+acceptAlice+`,"unknown_extra_key":{"action":"accept","content":{"foo":"bar"}},"another_unexpected":{"action":"accept","content":{"baz":123}}}`, ""), harnessCaps))
	if got := completeText(t, resp); got != "Hello, Alice!" {
		t.Errorf("with extra keys: text = %q", got)
	}

	for _, answers := range []string{`{"user_name":12345}`, `null`, `{"user_name":{"action":"accept","content":{"name":5}}}`} {
		resp, _ = modern(t, s, "tools/call", withMeta(retry(tool, answers, ""), harnessCaps))
		if resp.Error == nil || resp.Error.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("inputResponses %s: %+v %s, want error -32602", answers, resp.Error, resp.Result)
		}
	}
}

// TestMRTRCapabilities: test_input_required_result_capabilities asks only
// for what the request's capabilities declare.
func TestMRTRCapabilities(t *testing.T) {
	s := everything.NewServer(nil)
	const tool = `{"name":"test_input_required_result_capabilities","arguments":{}}`
	resp, _ := modern(t, s, "tools/call", withMeta(tool, `{"sampling":{}}`))
	inputRequired(t, resp, `{"greeting":`+greetRequest+`}`)

	resp, _ = modern(t, s, "tools/call", withMeta(tool, harnessCaps))
	state := inputRequired(t, resp, `{"user_name":`+nameRequest+`,"greeting":`+greetRequest+`,"client_roots":`+rootsRequest+`}`)
	resp, _ = modern(t, s, "tools/call", withMeta(retry("test_input_required_result_capabilities",
		`{"user_name":`+acceptAlice+`,"greeting":`+sampleAnswer+`,"client_roots":`+rootsAnswer+`}`, state), harnessCaps))
	if got, want := completeText(t, resp), "Received 3 input(s), one for each capability the client declared."; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}

	resp, _ = modern(t, s, "tools/call", withMeta(tool, `{}`))
	if got, want := completeText(t, resp), "The client declared no capability to give input with, so nothing was asked."; got != want {
		t.Errorf("no capabilities: text = %q, want %q", got, want)
	}
}

// TestMRTRPrompt: prompts/get test_input_required_result_prompt asks for
// user_context, then returns its messages.
func TestMRTRPrompt(t *testing.T) {
	s := everything.NewServer(nil)
	resp, _ := modern(t, s, "prompts/get", withMeta(`{"name":"test_input_required_result_prompt"}`, harnessCaps))
	state := inputRequired(t, resp,
		`{"user_context":{"method":"elicitation/create","params":{"message":"What context should the prompt use?","requestedSchema":{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}}}}`)
	st, _ := json.Marshal(state)
	resp, _ = modern(t, s, "prompts/get", withMeta(`{"name":"test_input_required_result_prompt","inputResponses":{"user_context":{"action":"accept","content":{"context":"test context"}}},"requestState":`+string(st)+`}`, harnessCaps))
	m := result(t, resp)
	if string(m["resultType"]) != `"complete"` {
		t.Errorf("resultType = %s", m["resultType"])
	}
	if want := `[{"role":"user","content":{"type":"text","text":"Use this context: test context"}}]`; !sameJSON(t, m["messages"], []byte(want)) {
		t.Errorf("messages = %s, want %s", m["messages"], want)
	}
}

// TestListsCachingHints: discover and the list methods are complete and
// public for 300 s, resources/read private for 300 s.
func TestListsCachingHints(t *testing.T) {
	s := everything.NewServer(nil)
	for _, tc := range []struct{ method, params, scope string }{
		{"tools/list", `{}`, "public"},
		{"prompts/list", `{}`, "public"},
		{"resources/list", `{}`, "public"},
		{"resources/templates/list", `{}`, "public"},
		{"server/discover", `{}`, "public"},
		{"resources/read", `{"uri":"test://static-text"}`, "private"},
	} {
		resp, _ := modern(t, s, tc.method, withMeta(tc.params, harnessCaps))
		m := result(t, resp)
		if string(m["resultType"]) != `"complete"` || string(m["ttlMs"]) != "300000" || string(m["cacheScope"]) != `"`+tc.scope+`"` {
			t.Errorf("%s: resultType %s, ttlMs %s, cacheScope %s; want complete, 300000, %s", tc.method, m["resultType"], m["ttlMs"], m["cacheScope"], tc.scope)
		}
	}
}

// TestMissingCapability: test_missing_capability needs sampling. Without
// it the request is refused with -32021 naming sampling (HTTP answers it
// with 400); with it, the tool asks by MRTR.
func TestMissingCapability(t *testing.T) {
	s := everything.NewServer(nil)
	resp, msgs, refused := serve(t, s, "tools/call", withMeta(`{"name":"test_missing_capability","arguments":{}}`, `{}`))
	if resp.Error == nil || resp.Error.Code != jsonrpc.CodeMissingClientCapability || !refused {
		t.Fatalf("response %+v %s, refused %v; want error -32021, refused", resp.Error, resp.Result, refused)
	}
	data, _ := json.Marshal(resp.Error.Data)
	if !sameJSON(t, data, []byte(`{"requiredCapabilities":{"sampling":{}}}`)) {
		t.Errorf("data = %s", data)
	}
	if len(msgs) != 0 {
		t.Errorf("sent: %v", msgs)
	}
	resp, _ = modern(t, s, "tools/call", withMeta(`{"name":"test_missing_capability","arguments":{}}`, `{"sampling":{}}`))
	state := inputRequired(t, resp, `{"sample":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Say hello."}}],"maxTokens":20}}}`)
	resp, _ = modern(t, s, "tools/call", withMeta(retry("test_missing_capability", `{"sample":`+sampleAnswer+`}`, state), `{"sampling":{}}`))
	if got := completeText(t, resp); got != "LLM response: The capital of France is Paris." {
		t.Errorf("text = %q", got)
	}
}

// methodsOf lists the methods of notifications and requests in msgs, and
// fails on anything else (a response, or a request).
func methodsOf(t *testing.T, msgs []jsonrpc.Message) []string {
	t.Helper()
	var out []string
	for _, m := range msgs {
		n, ok := m.(*jsonrpc.Notification)
		if !ok {
			t.Fatalf("sent %T %+v before the result, want only notifications", m, m)
		}
		out = append(out, n.Method)
	}
	return out
}

// TestStreamingElicitation: the tool streams notifications when the request
// allows them and asks for input by MRTR, never by a request.
func TestStreamingElicitation(t *testing.T) {
	s := everything.NewServer(nil)
	const tool = `{"name":"test_streaming_elicitation","arguments":{}}`
	// As the suite calls it: elicitation only, no progress token, no level.
	resp, msgs := modern(t, s, "tools/call", withMeta(tool, `{"elicitation":{}}`))
	inputRequired(t, resp, `{"user_name":`+nameRequest+`}`)
	if len(msgs) != 0 {
		t.Errorf("sent %v, want nothing", msgs)
	}

	params := withMeta(`{"name":"test_streaming_elicitation","arguments":{}}`, `{"elicitation":{}}`, `"io.modelcontextprotocol/logLevel":"info"`, `"progressToken":"tok"`)
	resp, msgs = modern(t, s, "tools/call", params)
	state := inputRequired(t, resp, `{"user_name":`+nameRequest+`}`)
	if got := strings.Join(methodsOf(t, msgs), " "); got != "notifications/progress notifications/message" {
		t.Errorf("round 1 sent %s", got)
	}
	st, _ := json.Marshal(state)
	params = withMeta(`{"name":"test_streaming_elicitation","arguments":{},"inputResponses":{"user_name":`+acceptAlice+`},"requestState":`+string(st)+`}`,
		`{"elicitation":{}}`, `"io.modelcontextprotocol/logLevel":"info"`, `"progressToken":"tok"`)
	resp, msgs = modern(t, s, "tools/call", params)
	if got := completeText(t, resp); got != "Hello, Alice!" {
		t.Errorf("text = %q", got)
	}
	want := "notifications/progress notifications/message notifications/progress notifications/progress"
	if got := strings.Join(methodsOf(t, msgs), " "); got != want {
		t.Errorf("round 2 sent %s, want %s", got, want)
	}
}

// TestLoggingTool: test_logging_tool logs only at the level the request's
// _meta asks for.
func TestLoggingTool(t *testing.T) {
	s := everything.NewServer(nil)
	const tool = `{"name":"test_logging_tool","arguments":{}}`
	for _, tc := range []struct {
		extra []string
		want  int
	}{
		{nil, 0},
		{[]string{`"io.modelcontextprotocol/logLevel":"debug"`}, 3},
		{[]string{`"io.modelcontextprotocol/logLevel":"info"`}, 3},
		{[]string{`"io.modelcontextprotocol/logLevel":"warning"`}, 0},
	} {
		resp, msgs := modern(t, s, "tools/call", withMeta(tool, `{}`, tc.extra...))
		completeText(t, resp)
		methods := methodsOf(t, msgs)
		if len(methods) != tc.want {
			t.Errorf("%v: sent %v, want %d notifications/message", tc.extra, methods, tc.want)
		}
		for i, m := range msgs {
			n := m.(*jsonrpc.Notification)
			var p struct{ Level, Data string }
			if err := json.Unmarshal(n.Params, &p); err != nil || n.Method != "notifications/message" || p.Level != "info" {
				t.Errorf("message %d: %s %s", i, n.Method, n.Params)
			}
		}
	}
}

// listen opens a subscriptions/listen stream on s with filter and returns
// its messages and a function that ends it and returns its response.
func listen(t *testing.T, s *mcp.Server, filter string) (<-chan jsonrpc.Message, func() *jsonrpc.Response) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	rec := &recorder{ch: make(chan jsonrpc.Message, 16)}
	done := make(chan *jsonrpc.Response, 1)
	go func() {
		resp, _, _ := s.Host().ServeStateless(ctx, nil, &jsonrpc.Request{ID: jsonrpc.Int64ID(99), Method: "subscriptions/listen",
			Params: withMeta(`{"notifications":`+filter+`}`, `{}`)}, rec, nil)
		done <- resp
	}()
	ack := <-rec.ch
	n, ok := ack.(*jsonrpc.Notification)
	if !ok || n.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first message %+v, want the acknowledgement", ack)
	}
	return rec.ch, func() *jsonrpc.Response {
		cancel()
		return <-done
	}
}

// TestTriggers: test_trigger_tool_change and test_trigger_prompt_change
// reach the listen streams that asked for their kind, and only those, and
// leave the lists as they were.
func TestTriggers(t *testing.T) {
	s := everything.NewServer(nil)
	toolsCh, endTools := listen(t, s, `{"toolsListChanged":true}`)
	promptsCh, endPrompts := listen(t, s, `{"promptsListChanged":true}`)

	before, _ := modern(t, s, "tools/list", withMeta(`{}`, `{}`))
	resp, _ := modern(t, s, "tools/call", withMeta(`{"name":"test_trigger_tool_change","arguments":{}}`, `{}`))
	completeText(t, resp)
	// Added, then removed: one list_changed, or two when the first was
	// written before the second came (an unwritten one stands for both).
	if n := (<-toolsCh).(*jsonrpc.Notification); n.Method != "notifications/tools/list_changed" || !sameJSON(t, n.Params, []byte(`{"_meta":{"io.modelcontextprotocol/subscriptionId":99}}`)) {
		t.Errorf("tools stream got %s %s", n.Method, n.Params)
	}
	after, _ := modern(t, s, "tools/list", withMeta(`{}`, `{}`))
	if !sameJSON(t, result(t, before)["tools"], result(t, after)["tools"]) {
		t.Errorf("the tool list changed for good")
	}

	resp, _ = modern(t, s, "tools/call", withMeta(`{"name":"test_trigger_prompt_change","arguments":{}}`, `{}`))
	completeText(t, resp)
	if n := (<-promptsCh).(*jsonrpc.Notification); n.Method != "notifications/prompts/list_changed" || !sameJSON(t, n.Params, []byte(`{"_meta":{"io.modelcontextprotocol/subscriptionId":99}}`)) {
		t.Errorf("prompts stream got %s %s", n.Method, n.Params)
	}
	resp, _ = modern(t, s, "prompts/get", withMeta(`{"name":"`+everything.TemporaryPromptName+`"}`, `{}`))
	if resp.Error == nil {
		t.Errorf("%s still exists", everything.TemporaryPromptName)
	}

	endTools()
	endPrompts()
	// Nothing but the tools notifications reached the tools stream, and
	// the other way round (a second list_changed of the stream's own kind
	// may have come).
	for {
		select {
		case m := <-toolsCh:
			if n, ok := m.(*jsonrpc.Notification); !ok || n.Method != "notifications/tools/list_changed" {
				t.Errorf("tools stream also got %+v", m)
			}
			continue
		case m := <-promptsCh:
			if n, ok := m.(*jsonrpc.Notification); !ok || n.Method != "notifications/prompts/list_changed" {
				t.Errorf("prompts stream also got %+v", m)
			}
			continue
		default:
		}
		break
	}
}

// TestHeaderParamTool: test_header_param lists its x-mcp-header schema
// verbatim and echoes region.
func TestHeaderParamTool(t *testing.T) {
	s := everything.NewServer(nil)
	resp, _ := modern(t, s, "tools/list", withMeta(`{}`, `{}`))
	var list struct {
		Tools []struct {
			Name        string
			InputSchema json.RawMessage
		}
	}
	if err := json.Unmarshal(resp.Result, &list); err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, tool := range list.Tools {
		if strings.Contains(string(tool.InputSchema), "x-mcp-header") {
			found++
			if tool.Name != "test_header_param" || string(tool.InputSchema) != everything.HeaderParamSchema {
				t.Errorf("tool %s with x-mcp-header: %s", tool.Name, tool.InputSchema)
			}
		}
	}
	if found != 1 {
		t.Errorf("%d tools with x-mcp-header, want 1", found)
	}
	resp, _ = modern(t, s, "tools/call", withMeta(`{"name":"test_header_param","arguments":{"region":"Hello"}}`, `{}`))
	if got := completeText(t, resp); got != "Region: Hello" {
		t.Errorf("text = %q", got)
	}
}
