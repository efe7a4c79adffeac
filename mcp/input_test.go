package mcp_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// The tests of this file check multi round-trip requests
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr):
// a handler asks with Request.Input (or Elicit, CreateMessage, ListRoots),
// the stateless era answers input_required with a signed requestState, and
// the retry with the answers completes; the session era sends the same
// asks as real server-to-client requests.

// modInputRequired is the frame of an input_required result whose
// requestState was masked by modState.
func modInputRequired(id, requests string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"_meta":{` + modInfoMember +
		`},"resultType":"input_required","inputRequests":{` + requests + `},"requestState":"STATE"}}`
}

// TestInputSeveralInOneRound: one round asks for an elicitation, a
// sampling and the roots at once; the retry with the three answers and
// the state completes.
func TestInputSeveralInOneRound(t *testing.T) {
	srv := modServer(t, nil, nil)
	got := modCall(t, srv, "1", "tools/call", modParams(modAllCaps, `,"name":"ask"`))
	state, masked := modState(t, got)
	want := modInputRequired("1", `"capital":`+modSamplingRequest+`,"name":`+modNameRequest+`,"roots":`+modRootsRequest)
	if masked != want {
		t.Fatalf("round 1:\n\t%s\nwant\n\t%s", masked, want)
	}
	answers := `"inputResponses":{"name":` + modNameAnswer + `,"capital":` + modSamplingAnswer + `,"roots":` + modRootsAnswer + `}`
	got = modCall(t, srv, "2", "tools/call", modParams(modAllCaps, `,"name":"ask",`+answers+`,"requestState":"`+state+`"`))
	if want := modText("2", "name=Alice capital=Paris root=file:///test/root"); got != want {
		t.Errorf("retry:\n\t%s\nwant\n\t%s", got, want)
	}
	// The state is not needed when the client answers everything at once.
	got = modCall(t, srv, "3", "tools/call", modParams(modAllCaps, `,"name":"ask",`+answers))
	if want := modText("3", "name=Alice capital=Paris root=file:///test/root"); got != want {
		t.Errorf("retry without state:\n\t%s\nwant\n\t%s", got, want)
	}
}

// TestInputSeveralRounds: round 1 asks A; the retry with A asks B with a
// different requestState, which carries A; the retry with B alone
// completes, and the handler sees both answers.
func TestInputSeveralRounds(t *testing.T) {
	var runs modRounds
	srv := modServer(t, nil, &runs)
	got := modCall(t, srv, "1", "tools/call", modParams(modAllCaps, `,"name":"rounds"`))
	state1, masked := modState(t, got)
	if want := modInputRequired("1", `"a":`+modConfirmRequest("A")); masked != want {
		t.Fatalf("round 1:\n\t%s\nwant\n\t%s", masked, want)
	}
	got = modCall(t, srv, "2", "tools/call", modParams(modAllCaps, `,"name":"rounds","inputResponses":{"a":`+modYes+`},"requestState":"`+state1+`"`))
	state2, masked := modState(t, got)
	if want := modInputRequired("2", `"b":`+modConfirmRequest("B")); masked != want {
		t.Fatalf("round 2:\n\t%s\nwant\n\t%s", masked, want)
	}
	if state2 == state1 {
		t.Errorf("round 2 carries the requestState of round 1")
	}
	got = modCall(t, srv, "3", "tools/call", modParams(modAllCaps, `,"name":"rounds","inputResponses":{"b":{"action":"decline"}},"requestState":"`+state2+`"`))
	if want := modText("3", "done"); got != want {
		t.Errorf("round 3:\n\t%s\nwant\n\t%s", got, want)
	}
	wantRuns := []string{
		"asked a",
		`a={"action":"accept","content":{"ok":true}} asked b`,
		`a={"action":"accept","content":{"ok":true}} b={"action":"decline"}`,
	}
	if got := runs.all(); strings.Join(got, "\n") != strings.Join(wantRuns, "\n") {
		t.Errorf("the handler saw\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(wantRuns, "\n\t"))
	}
	// Round 2's state, sent again without B, asks for B again.
	got = modCall(t, srv, "4", "tools/call", modParams(modAllCaps, `,"name":"rounds","requestState":"`+state2+`"`))
	if _, masked := modState(t, got); masked != modInputRequired("4", `"b":`+modConfirmRequest("B")) {
		t.Errorf("state 2 without B:\n\t%s", masked)
	}
}

// TestInputTamperedState: a requestState the server did not issue, or
// issued for another request, or that has expired, is refused with
// -32602 and the handler does not run.
func TestInputTamperedState(t *testing.T) {
	var runs modRounds
	srv := modServer(t, nil, &runs)
	round1 := func(name string) string {
		state, _ := modState(t, modCall(t, srv, "1", "tools/call", modParams(modAllCaps, `,"name":"`+name+`"`)))
		return state
	}
	state := round1("rounds")
	flip := func(s string, i int) string {
		b := []byte(s)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	payload, _, _ := strings.Cut(state, ".")
	forged := func() string {
		// A payload the client rewrote (another tool), with the old MAC.
		raw, err := base64.RawURLEncoding.DecodeString(payload)
		if err != nil {
			t.Fatal(err)
		}
		raw = []byte(strings.Replace(string(raw), `"rounds"`, `"user"`, 1))
		return base64.RawURLEncoding.EncodeToString(raw) + state[len(payload):]
	}()
	other := mcp.NewServer(modInfo, nil) // another key
	if err := other.AddTool(&mcp.Tool{Name: "rounds"}, func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		_, err := req.Input(ctx, map[string]*mcp.InputRequest{"a": modConfirmInput("A")})
		return nil, err
	}); err != nil {
		t.Fatal(err)
	}
	otherState, _ := modState(t, modCall(t, other, "1", "tools/call", modParams(modAllCaps, `,"name":"rounds"`)))
	const bad = "requestState is not one this server issued, or was altered"
	for _, tc := range []struct {
		name, tool, state, detail string
	}{
		{"suffix", "rounds", state + "-TAMPERED", bad},
		{"payload byte flipped", "rounds", flip(state, 3), bad},
		{"MAC byte flipped", "rounds", flip(state, len(state)-3), bad},
		{"no MAC", "rounds", payload, bad},
		{"empty", "rounds", "", bad},
		{"not base64", "rounds", "!!.!!", bad},
		{"payload rewritten", "rounds", forged, bad},
		{"another server's key", "rounds", otherState, bad},
		{"issued for another tool", "user", state, "requestState was issued for another request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(runs.all())
			got, refused, _ := modServe(t, srv, modFrame("2", "tools/call", modParams(modAllCaps, `,"name":"`+tc.tool+`","inputResponses":{"a":`+modYes+`},"requestState":`+askQuote(tc.state))))
			if want := modError("2", jsonrpc.CodeInvalidParams, "Invalid params", askQuote(tc.detail)); got != want {
				t.Errorf("got\n\t%s\nwant\n\t%s", got, want)
			}
			if refused {
				t.Errorf("refused = true: a handler-level error is not a refusal")
			}
			if len(runs.all()) != before {
				t.Errorf("the handler ran")
			}
		})
	}
	t.Run("issued for another method", func(t *testing.T) {
		// A prompt named like the tool the state was issued for.
		if err := srv.AddPrompt(&mcp.Prompt{Name: "rounds"}, func(context.Context, *mcp.Request, *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
			t.Error("the prompt ran")
			return nil, nil
		}); err != nil {
			t.Fatal(err)
		}
		got := modCall(t, srv, "3", "prompts/get", modParams(modAllCaps, `,"name":"rounds","requestState":"`+state+`"`))
		if want := modError("3", jsonrpc.CodeInvalidParams, "Invalid params", `"requestState was issued for another request"`); got != want {
			t.Errorf("got\n\t%s\nwant\n\t%s", got, want)
		}
	})
	t.Run("not a string", func(t *testing.T) {
		got := modCall(t, srv, "4", "tools/call", modParams(modAllCaps, `,"name":"rounds","requestState":42`))
		if want := modError("4", jsonrpc.CodeInvalidParams, "Invalid params", `"requestState must be a string"`); got != want {
			t.Errorf("got\n\t%s\nwant\n\t%s", got, want)
		}
	})
}

// TestInputSharedKey: servers given the same RequestStateKey (replicas)
// accept each other's states.
func TestInputSharedKey(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	a := modServer(t, &mcp.ServerOptions{RequestStateKey: key}, nil)
	b := modServer(t, &mcp.ServerOptions{RequestStateKey: key}, nil)
	state, _ := modState(t, modCall(t, a, "1", "tools/call", modParams(modAllCaps, `,"name":"rounds"`)))
	got := modCall(t, b, "2", "tools/call", modParams(modAllCaps, `,"name":"rounds","inputResponses":{"a":`+modYes+`},"requestState":"`+state+`"`))
	if _, masked := modState(t, got); masked != modInputRequired("2", `"b":`+modConfirmRequest("B")) {
		t.Errorf("replica b:\n\t%s", masked)
	}
}

// TestInputStateExpires: a requestState older than RequestStateTTL is
// refused (the clock is testing/synctest's).
func TestInputStateExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := modServer(t, &mcp.ServerOptions{RequestStateTTL: time.Minute}, nil)
		state, _ := modState(t, modCall(t, srv, "1", "tools/call", modParams(modAllCaps, `,"name":"rounds"`)))
		retry := func(id string) string {
			return modCall(t, srv, id, "tools/call", modParams(modAllCaps, `,"name":"rounds","inputResponses":{"a":`+modYes+`},"requestState":"`+state+`"`))
		}
		time.Sleep(59 * time.Second)
		if got := retry("2"); !strings.Contains(got, `"resultType":"input_required"`) {
			t.Errorf("within the TTL: %s", got)
		}
		time.Sleep(2 * time.Second)
		if got, want := retry("3"), modError("3", jsonrpc.CodeInvalidParams, "Invalid params", `"requestState has expired"`); got != want {
			t.Errorf("after the TTL:\n\t%s\nwant\n\t%s", got, want)
		}
	})
}

// TestInputResponsesChecked: the answers of a retry are checked as the
// session era checks the results of the same requests.
func TestInputResponsesChecked(t *testing.T) {
	srv := modServer(t, nil, nil)
	state, _ := modState(t, modCall(t, srv, "1", "tools/call", modParams(modAllCaps, `,"name":"user"`)))
	retry := func(id, rest string) string {
		return modCall(t, srv, id, "tools/call", modParams(modAllCaps, `,"name":"user"`+rest))
	}
	withState := `,"requestState":"` + state + `"`
	invalid := func(id, detail string) string {
		return modError(id, jsonrpc.CodeInvalidParams, "Invalid params", askQuote(detail))
	}
	for _, tc := range []struct{ name, rest, want string }{
		{"null", `,"inputResponses":null` + withState, invalid("2", "inputResponses must be an object of input responses")},
		{"an array", `,"inputResponses":[]` + withState, invalid("2", "inputResponses must be an object of input responses")},
		{"a number for the answer", `,"inputResponses":{"user_name":12345}` + withState, invalid("2", `inputResponses["user_name"]: must be an object`)},
		{"an unknown action", `,"inputResponses":{"user_name":{"action":"maybe"}}` + withState, invalid("2", `inputResponses["user_name"]: action "maybe" is not accept, decline or cancel`)},
		{"content against the schema", `,"inputResponses":{"user_name":{"action":"accept","content":{"name":7}}}` + withState, ""},
		{"accept without the required member", `,"inputResponses":{"user_name":{"action":"accept"}}` + withState, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := retry("2", tc.rest)
			if tc.want == "" {
				// The message is the schema check's; the code is what matters.
				if !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params","data":"inputResponses[\"user_name\"]: `) {
					t.Errorf("got %s, want -32602 naming inputResponses[\"user_name\"]", got)
				}
				return
			}
			if got != tc.want {
				t.Errorf("got\n\t%s\nwant\n\t%s", got, tc.want)
			}
		})
	}
	t.Run("a missing key asks again", func(t *testing.T) {
		got := retry("3", `,"inputResponses":{"wrong_key":`+modNameAnswer+`}`+withState)
		if _, masked := modState(t, got); masked != modInputRequired("3", `"user_name":`+modNameRequest) {
			t.Errorf("got\n\t%s", masked)
		}
		got = retry("4", `,"inputResponses":{}`)
		if _, masked := modState(t, got); masked != modInputRequired("4", `"user_name":`+modNameRequest) {
			t.Errorf("got\n\t%s", masked)
		}
	})
	t.Run("extra keys are ignored", func(t *testing.T) {
		got := retry("5", `,"inputResponses":{"user_name":`+modNameAnswer+`,"extra":{"x":1},"more":12}`+withState)
		if want := modText("5", `Hello, accept {"name":"Alice"}`); got != want {
			t.Errorf("got\n\t%s\nwant\n\t%s", got, want)
		}
	})
	t.Run("decline", func(t *testing.T) {
		got := retry("6", `,"inputResponses":{"user_name":{"action":"decline"}}`+withState)
		if want := modText("6", `Hello, decline `); got != want {
			t.Errorf("got\n\t%s\nwant\n\t%s", got, want)
		}
	})
}

// TestInputCapabilityMissing: a handler that asks for what the request's
// _meta does not declare gets ErrCapabilityNotDeclared, which becomes -32021:
// the client is not asked
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).
func TestInputCapabilityMissing(t *testing.T) {
	srv := modServer(t, nil, nil)
	for _, tc := range []struct{ caps, tool, capability, data string }{
		{`{"sampling":{},"roots":{}}`, "ask", "elicitation", `{"elicitation":{}}`},
		{`{"elicitation":{},"roots":{}}`, "ask", "sampling", `{"sampling":{}}`},
		{`{"elicitation":{},"sampling":{}}`, "ask", "roots", `{"roots":{}}`},
		{`{"elicitation":{"url":{}}}`, "user", "elicitation.form", `{"elicitation":{"form":{}}}`},
		{`{}`, "sample", "sampling", `{"sampling":{}}`},
	} {
		got, refused, stream := modServe(t, srv, modFrame("1", "tools/call", modParams(tc.caps, `,"name":"`+tc.tool+`"`)))
		want := modError("1", jsonrpc.CodeMissingClientCapability, "Missing required client capability: "+tc.capability, `{"requiredCapabilities":`+tc.data+`}`)
		if got != want {
			t.Errorf("%s with %s:\n\t%s\nwant\n\t%s", tc.tool, tc.caps, got, want)
		}
		if !refused || len(stream) > 0 {
			t.Errorf("%s with %s: refused %t (want true: HTTP 400), stream %q", tc.tool, tc.caps, refused, stream)
		}
	}
}

// TestInputAutoKeys: Request.Elicit, CreateMessage and ListRoots ask in
// the stateless era under keys of their own, numbered in the order asked.
func TestInputAutoKeys(t *testing.T) {
	srv := mcp.NewServer(modInfo, nil)
	if err := srv.AddTool(&mcp.Tool{Name: "three"}, func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		if _, err := req.CreateMessage(ctx, modSamplingParams()); err != nil {
			return nil, err
		}
		roots, err := req.ListRoots(ctx, nil)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: roots.Roots[0].Name}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	got := modCall(t, srv, "1", "tools/call", modParams(modAllCaps, `,"name":"three"`))
	state, masked := modState(t, got)
	if want := modInputRequired("1", `"sampling/createMessage#1":`+modSamplingRequest); masked != want {
		t.Fatalf("round 1:\n\t%s\nwant\n\t%s", masked, want)
	}
	got = modCall(t, srv, "2", "tools/call", modParams(modAllCaps, `,"name":"three","inputResponses":{"sampling/createMessage#1":`+modSamplingAnswer+`},"requestState":"`+state+`"`))
	state, masked = modState(t, got)
	if want := modInputRequired("2", `"roots/list#2":`+modRootsRequest); masked != want {
		t.Fatalf("round 2:\n\t%s\nwant\n\t%s", masked, want)
	}
	got = modCall(t, srv, "3", "tools/call", modParams(modAllCaps, `,"name":"three","inputResponses":{"roots/list#2":`+modRootsAnswer+`},"requestState":"`+state+`"`))
	if want := modText("3", "Test Root"); got != want {
		t.Errorf("round 3:\n\t%s\nwant\n\t%s", got, want)
	}
}

// TestInputPromptAndResource: prompts/get and resources/read take part in
// multi round-trip requests as tools/call does; a complete resources/read
// after input carries its caching stamps, the input_required one none.
func TestInputPromptAndResource(t *testing.T) {
	srv := modServer(t, nil, nil)
	got := modCall(t, srv, "1", "prompts/get", modParams(modAllCaps, `,"name":"greet"`))
	state, masked := modState(t, got)
	want := modInputRequired("1", `"user_context":{"method":"elicitation/create","params":{"message":"What context?","requestedSchema":{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}}}`)
	if masked != want {
		t.Fatalf("prompts/get round 1:\n\t%s\nwant\n\t%s", masked, want)
	}
	got = modCall(t, srv, "2", "prompts/get", modParams(modAllCaps, `,"name":"greet","inputResponses":{"user_context":{"action":"accept","content":{"context":"tests"}}},"requestState":"`+state+`"`))
	if want := `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","_meta":{` + modInfoMember + `},"messages":[{"role":"user","content":{"type":"text","text":"Context: tests"}}]}}`; got != want {
		t.Errorf("prompts/get round 2:\n\t%s\nwant\n\t%s", got, want)
	}

	got = modCall(t, srv, "3", "resources/read", modParams(modAllCaps, `,"uri":"test://roots"`))
	state, masked = modState(t, got)
	if want := modInputRequired("3", `"roots/list#1":`+modRootsRequest); masked != want {
		t.Fatalf("resources/read round 1:\n\t%s\nwant\n\t%s", masked, want)
	}
	got = modCall(t, srv, "4", "resources/read", modParams(modAllCaps, `,"uri":"test://roots","inputResponses":{"roots/list#1":`+modRootsAnswer+`},"requestState":"`+state+`"`))
	if want := `{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":{` + modInfoMember + `},"contents":[{"uri":"test://roots","mimeType":"text/plain","text":"file:///test/root"}]}}`; got != want {
		t.Errorf("resources/read round 2:\n\t%s\nwant\n\t%s", got, want)
	}
	// A state issued for one resource does not serve another.
	got = modCall(t, srv, "5", "resources/read", modParams(modAllCaps, `,"uri":"test://doc","requestState":"`+state+`"`))
	if want := modError("5", jsonrpc.CodeInvalidParams, "Invalid params", `"requestState was issued for another request"`); got != want {
		t.Errorf("resources/read of another URI:\n\t%s\nwant\n\t%s", got, want)
	}
}

// TestInputOnlyOnMRTRMethods: input may be asked only on tools/call,
// prompts/get and resources/read; a tools/list whose handler (here a
// middleware) asks gets -32603, never input_required.
func TestInputOnlyOnMRTRMethods(t *testing.T) {
	asked := make(chan error, 1)
	srv := modServer(t, &mcp.ServerOptions{Middleware: []mcp.Middleware{func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, req *mcp.Request) (any, error) {
			if req.Method == "tools/list" {
				_, err := req.Input(ctx, map[string]*mcp.InputRequest{"r": mcp.RootsInput()})
				asked <- err
				return nil, err
			}
			return next(ctx, req)
		}
	}}}, nil)
	got := modCall(t, srv, "1", "tools/list", modParams(modAllCaps, ""))
	if err := <-asked; err == nil {
		t.Errorf("Input on tools/list succeeded")
	}
	if strings.Contains(got, "input_required") || !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,`) {
		t.Errorf("got %s, want -32603", got)
	}
}

// TestInputErrInputRequiredAlone: a handler that returns ErrInputRequired
// without asking anything gets an error, not an empty input_required.
func TestInputErrInputRequiredAlone(t *testing.T) {
	srv := mcp.NewServer(modInfo, nil)
	if err := srv.AddTool(&mcp.Tool{Name: "liar"}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return nil, mcp.ErrInputRequired
	}); err != nil {
		t.Fatal(err)
	}
	got := modCall(t, srv, "1", "tools/call", modParams(modAllCaps, `,"name":"liar"`))
	if strings.Contains(got, "input_required") || !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,`) {
		t.Errorf("got %s, want -32603", got)
	}
}

// TestInputSessionEra: the same handler, on a session, sends real
// server-to-client requests in key order on the request's stream and
// completes in one call.
func TestInputSessionEra(t *testing.T) {
	srv := modServer(t, nil, nil)
	c := askRaw(t, srv, modAllCaps)
	c.request("tools/call", `{"name":"ask"}`)
	for _, step := range []struct{ method, params, answer string }{
		{"sampling/createMessage", modSamplingRequest, modSamplingAnswer},
		{"elicitation/create", modNameRequest, modNameAnswer},
		{"roots/list", "", modRootsAnswer},
	} {
		frame := c.read()
		req := askRequest(t, frame, step.method)
		if step.params != "" {
			var q struct {
				Params json.RawMessage `json:"params"`
			}
			_ = json.Unmarshal([]byte(step.params), &q)
			if string(req.Params) != string(q.Params) {
				t.Errorf("%s params = %s, want %s", step.method, req.Params, q.Params)
			}
		}
		c.send(`{"jsonrpc":"2.0","id":` + req.ID.String() + `,"result":` + step.answer + `}`)
	}
	got := string(c.read())
	if want := `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"name=Alice capital=Paris root=file:///test/root"}]}}`; got != want {
		t.Errorf("got\n\t%s\nwant\n\t%s", got, want)
	}
	if strings.Contains(got, "resultType") {
		t.Errorf("a session-era result carries resultType")
	}
}

// TestInputSessionEraCapability: in the session era too, what the client
// did not declare (in initialize) is not asked: the tool fails with the
// capability error, and nothing is sent.
func TestInputSessionEraCapability(t *testing.T) {
	srv := modServer(t, nil, nil)
	c := askRaw(t, srv, `{"sampling":{},"roots":{}}`)
	got := c.call("tools/call", `{"name":"ask"}`)
	askWantToolError(t, got, "3", "mcp: elicitation/create not sent: the client did not declare the elicitation capability")
}

// TestInputAPIErrors: misuse of Request.Input.
func TestInputAPIErrors(t *testing.T) {
	srv := mcp.NewServer(modInfo, nil)
	errc := make(chan error, 2)
	if err := srv.AddTool(&mcp.Tool{Name: "misuse"}, func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		_, err := req.Input(ctx, map[string]*mcp.InputRequest{"x": nil})
		errc <- err
		_, err = req.Input(ctx, map[string]*mcp.InputRequest{"x": mcp.ElicitationInput(nil)})
		errc <- err
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	modCall(t, srv, "1", "tools/call", modParams(modAllCaps, `,"name":"misuse"`))
	if err := <-errc; err == nil || err.Error() != `mcp: input request "x" is nil` {
		t.Errorf("nil request: %v", err)
	}
	if err := <-errc; !errors.Is(err, mcp.ErrInvalidElicitation) || err.Error() != "mcp: invalid elicitation/create params: params are required" {
		t.Errorf("nil elicitation params: %v", err)
	}
}

// TestInputStateBoundToArguments: the answers a state carries were given
// for one call; the same tool called with other arguments does not get
// them (a confirmation of a transfer of 1 is not one of 1000), while the
// same arguments spelt differently do.
func TestInputStateBoundToArguments(t *testing.T) {
	srv := mcp.NewServer(modInfo, nil)
	type transferIn struct {
		Amount int    `json:"amount"`
		To     string `json:"to"`
	}
	if err := mcp.AddTool(srv, &mcp.Tool{Name: "transfer"}, func(ctx context.Context, req *mcp.Request, in transferIn) (string, error) {
		a, err := req.Input(ctx, map[string]*mcp.InputRequest{"confirm": modConfirmInput("transfer")})
		if err != nil {
			return "", err
		}
		b, err := req.Input(ctx, map[string]*mcp.InputRequest{"again": modConfirmInput("again")})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("sent %d to %s (%s, %s)", in.Amount, in.To, a["confirm"], b["again"]), nil
	}); err != nil {
		t.Fatal(err)
	}
	call := func(id, args, rest string) string {
		return modCall(t, srv, id, "tools/call", modParams(modAllCaps, `,"name":"transfer","arguments":`+args+rest))
	}
	state, _ := modState(t, call("1", `{"amount":1,"to":"bob"}`, ""))
	state2, _ := modState(t, call("2", `{"amount":1,"to":"bob"}`, `,"inputResponses":{"confirm":`+modYes+`},"requestState":"`+state+`"`))
	if got, want := call("3", `{"amount":1000,"to":"bob"}`, `,"inputResponses":{"again":`+modYes+`},"requestState":"`+state2+`"`),
		modError("3", jsonrpc.CodeInvalidParams, "Invalid params", `"requestState was issued for another request"`); got != want {
		t.Errorf("other arguments:\n\t%s\nwant\n\t%s", got, want)
	}
	got := call("4", `{ "to" : "bob", "amount" : 1 }`, `,"inputResponses":{"again":{"action":"decline"}},"requestState":"`+state2+`"`)
	if want := modText("4", `sent 1 to bob ({"action":"accept","content":{"ok":true}}, {"action":"decline"})`); got != want {
		t.Errorf("the same arguments:\n\t%s\nwant\n\t%s", got, want)
	}
}

// TestInputEarlierAnswersStand: a retry cannot replace an answer the
// signed state carries from an earlier round; it only adds answers.
func TestInputEarlierAnswersStand(t *testing.T) {
	var runs modRounds
	srv := modServer(t, nil, &runs)
	state1, _ := modState(t, modCall(t, srv, "1", "tools/call", modParams(modAllCaps, `,"name":"rounds"`)))
	state2, _ := modState(t, modCall(t, srv, "2", "tools/call", modParams(modAllCaps, `,"name":"rounds","inputResponses":{"a":`+modYes+`},"requestState":"`+state1+`"`)))
	got := modCall(t, srv, "3", "tools/call", modParams(modAllCaps, `,"name":"rounds","inputResponses":{"a":{"action":"decline"},"b":`+modYes+`},"requestState":"`+state2+`"`))
	if want := modText("3", "done"); got != want {
		t.Errorf("got\n\t%s\nwant\n\t%s", got, want)
	}
	all := runs.all()
	if last := all[len(all)-1]; last != `a={"action":"accept","content":{"ok":true}} b={"action":"accept","content":{"ok":true}}` {
		t.Errorf("the handler saw %s", last)
	}
}

// TestInputThroughClient: a Client whose handlers answer sampling and
// elicitation and that serves roots completes the "ask" tool in one call:
// the same handlers serve the session era's requests and (should the
// Client speak the stateless era) its input_required rounds.
func TestInputThroughClient(t *testing.T) {
	srv := modServer(t, nil, nil)
	var asked []string
	client := mcp.NewClient(clientTestInfo, &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			asked = append(asked, "sampling")
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: mcp.SamplingContents{&mcp.TextContent{Text: "Paris"}}, Model: "test-model", StopReason: "endTurn"}, nil
		},
		ElicitationHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			asked = append(asked, "elicitation: "+p.Message)
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: json.RawMessage(`{"name":"Alice"}`)}, nil
		},
		Roots: []*mcp.Root{{URI: "file:///test/root", Name: "Test Root"}},
	})
	clientT, serverT := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), serverT)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(context.Background(), clientT)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cs.Close()
		_ = ss.Wait()
	}()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || res.IsError {
		t.Fatalf("CallTool(ask) = %+v", res)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "name=Alice capital=Paris root=file:///test/root" {
		t.Errorf("CallTool(ask) = %q", got)
	}
	// The handlers run on the session's read loop, in order; CallTool has
	// returned, so they are done.
	if want := []string{"sampling", "elicitation: What is your name?"}; strings.Join(asked, "|") != strings.Join(want, "|") {
		t.Errorf("the client was asked %q, want %q", asked, want)
	}
}

// TestInputURLElicitation: in the stateless era a URL-mode elicitation
// needs no elicitationId and is sent without one (the era has none); the
// client accepts and retries.
func TestInputURLElicitation(t *testing.T) {
	srv := mcp.NewServer(modInfo, nil)
	if err := srv.AddTool(&mcp.Tool{Name: "login"}, func(ctx context.Context, req *mcp.Request, args json.RawMessage) (*mcp.CallToolResult, error) {
		p := &mcp.ElicitParams{Mode: mcp.ElicitationModeURL, Message: "Sign in", URL: "https://example.com/login"}
		if string(args) == `{"id":true}` {
			p.ElicitationID = "e-1"
		}
		res, err := req.Elicit(ctx, p)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Action}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	const caps = `{"elicitation":{"url":{}}}`
	for _, args := range []string{`{}`, `{"id":true}`} {
		got := modCall(t, srv, "1", "tools/call", modParams(caps, `,"name":"login","arguments":`+args))
		state, masked := modState(t, got)
		want := modInputRequired("1", `"elicitation/create#1":{"method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"https://example.com/login"}}`)
		if masked != want {
			t.Errorf("arguments %s:\n\t%s\nwant\n\t%s", args, masked, want)
		}
		modValidate(t, modSchema(t), "InputRequiredResult", modResult(t, got))
		got = modCall(t, srv, "2", "tools/call", modParams(caps, `,"name":"login","arguments":`+args+`,"inputResponses":{"elicitation/create#1":{"action":"accept"}},"requestState":"`+state+`"`))
		if want := modText("2", "accept"); got != want {
			t.Errorf("arguments %s, retry:\n\t%s\nwant\n\t%s", args, got, want)
		}
	}
}

// TestInputBadAnswerRefusedAtOnce: an answer of the wrong shape is refused
// as soon as it arrives, even while other answers are still missing, so
// that no requestState ever carries it.
func TestInputBadAnswerRefusedAtOnce(t *testing.T) {
	srv := modServer(t, nil, nil)
	state, _ := modState(t, modCall(t, srv, "1", "tools/call", modParams(modAllCaps, `,"name":"ask"`)))
	got := modCall(t, srv, "2", "tools/call", modParams(modAllCaps, `,"name":"ask","inputResponses":{"name":12345},"requestState":"`+state+`"`))
	if want := modError("2", jsonrpc.CodeInvalidParams, "Invalid params", `"inputResponses[\"name\"]: must be an object"`); got != want {
		t.Errorf("got\n\t%s\nwant\n\t%s", got, want)
	}
}

// TestInputStateCarriesWhatWasAsked: the next requestState carries the
// answers the handler asked for, not the other keys the client sent.
func TestInputStateCarriesWhatWasAsked(t *testing.T) {
	srv := modServer(t, nil, nil)
	state1, _ := modState(t, modCall(t, srv, "1", "tools/call", modParams(modAllCaps, `,"name":"rounds"`)))
	got := modCall(t, srv, "2", "tools/call", modParams(modAllCaps, `,"name":"rounds","inputResponses":{"a":`+modYes+`,"junk":{"big":"xxxxxxxx"}},"requestState":"`+state1+`"`))
	state2, _ := modState(t, got)
	payload, _, _ := strings.Cut(state2, ".")
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Answers map[string]json.RawMessage `json:"a"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Answers) != 1 || string(p.Answers["a"]) != modYes {
		t.Errorf("the state carries %s, want only a", raw)
	}
}
