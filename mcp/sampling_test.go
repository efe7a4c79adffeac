package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

func askPtr[T any](v T) *T { return &v }

// samplingParams uses every member of sampling/createMessage.
func samplingParams() *mcp.CreateMessageParams {
	return &mcp.CreateMessageParams{
		Messages: []*mcp.SamplingMessage{
			{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.TextContent{Text: "What is the capital of France?"}}},
			{Role: mcp.RoleAssistant, Content: mcp.SamplingContents{&mcp.TextContent{Text: "Paris."}}},
			{Role: mcp.RoleUser, Content: mcp.SamplingContents{
				&mcp.TextContent{Text: "And this?"},
				&mcp.ImageContent{Data: schemaPNG, MIMEType: "image/png"},
				&mcp.AudioContent{Data: schemaWAV, MIMEType: "audio/wav"},
			}},
		},
		ModelPreferences: &mcp.ModelPreferences{
			Hints:                []mcp.ModelHint{{Name: "claude-3-sonnet"}, {Name: "claude"}},
			CostPriority:         askPtr(0.3),
			SpeedPriority:        askPtr(0.8),
			IntelligencePriority: askPtr(0.5),
		},
		SystemPrompt:   "You are a helpful assistant.",
		IncludeContext: "none",
		Temperature:    askPtr(0.7),
		MaxTokens:      100,
		StopSequences:  []string{"\n\n"},
		Metadata:       json.RawMessage(`{"provider":{"top_k":5}}`),
	}
}

const samplingParamsJSON = `{
	"messages":[
		{"role":"user","content":{"type":"text","text":"What is the capital of France?"}},
		{"role":"assistant","content":{"type":"text","text":"Paris."}},
		{"role":"user","content":[
			{"type":"text","text":"And this?"},
			{"type":"image","data":"` + schemaPNG + `","mimeType":"image/png"},
			{"type":"audio","data":"` + schemaWAV + `","mimeType":"audio/wav"}]}],
	"modelPreferences":{"hints":[{"name":"claude-3-sonnet"},{"name":"claude"}],"costPriority":0.3,"speedPriority":0.8,"intelligencePriority":0.5},
	"systemPrompt":"You are a helpful assistant.",
	"includeContext":"none",
	"temperature":0.7,
	"maxTokens":100,
	"stopSequences":["\n\n"],
	"metadata":{"provider":{"top_k":5}}}`

// TestSamplingRoundTrip: a tool asks the client's LLM with every member of
// the request; the client's handler sees exactly what the server sent and
// its answer reaches the tool.
func TestSamplingRoundTrip(t *testing.T) {
	got := make(chan *mcp.CreateMessageParams, 1)
	s := askServer(t, nil, func(ctx context.Context, req *mcp.Request) (string, error) {
		res, err := req.CreateMessage(ctx, samplingParams())
		if err != nil {
			return "", err
		}
		raw, _ := json.Marshal(res)
		return string(raw), nil
	})
	p := connectClient(t, s, &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, cs *mcp.ClientSession, params *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			got <- params
			return &mcp.CreateMessageResult{
				Role:       mcp.RoleAssistant,
				Content:    mcp.SamplingContents{&mcp.TextContent{Text: "The capital of France is Paris."}},
				Model:      "claude-3-sonnet-20240307",
				StopReason: "endTurn",
			}, nil
		},
	})
	text, isErr := askCall(t, p.cs)
	if isErr {
		t.Fatalf("tool failed: %s", text)
	}
	if want := `{"role":"assistant","content":{"type":"text","text":"The capital of France is Paris."},"model":"claude-3-sonnet-20240307","stopReason":"endTurn"}`; text != want {
		t.Errorf("the tool got\n\t%s\nwant\n\t%s", text, want)
	}
	params := recvWithin(t, got, "the handler's params")
	jsonEqual(t, "params seen by the handler", params, samplingParamsJSON)
	if !reflect.DeepEqual(params, samplingParams()) {
		t.Errorf("params decode to %+v, want %+v", params, samplingParams())
	}
}

// TestSamplingWithTools runs the spec's tool loop: the model asks for two
// tool uses, the server answers them with tool results in the next
// request, and the model answers in text. Content lists travel as lists.
func TestSamplingWithTools(t *testing.T) {
	weather := &mcp.Tool{
		Name:        "get_weather",
		Description: "Get current weather for a city",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
	}
	question := &mcp.SamplingMessage{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.TextContent{Text: "Weather in Paris and London?"}}}
	var requests []*mcp.CreateMessageParams
	s := askServer(t, nil, func(ctx context.Context, req *mcp.Request) (string, error) {
		first, err := req.CreateMessage(ctx, &mcp.CreateMessageParams{
			Messages:   []*mcp.SamplingMessage{question},
			Tools:      []*mcp.Tool{weather},
			ToolChoice: &mcp.ToolChoice{Mode: mcp.ToolChoiceAuto},
			MaxTokens:  1000,
		})
		if err != nil {
			return "", err
		}
		if first.StopReason != "toolUse" || len(first.Content) != 2 {
			return "", errors.New("want two tool uses")
		}
		var results mcp.SamplingContents
		for _, c := range first.Content {
			use := c.(*mcp.ToolUseContent)
			var in struct{ City string }
			if err := json.Unmarshal(use.Input, &in); err != nil {
				return "", err
			}
			results = append(results, &mcp.ToolResultContent{
				ToolUseID: use.ID,
				Content:   []mcp.Content{&mcp.TextContent{Text: "Sunny in " + in.City}},
			})
		}
		final, err := req.CreateMessage(ctx, &mcp.CreateMessageParams{
			Messages: []*mcp.SamplingMessage{
				question,
				{Role: mcp.RoleAssistant, Content: first.Content},
				{Role: mcp.RoleUser, Content: results},
			},
			Tools:      []*mcp.Tool{weather},
			ToolChoice: &mcp.ToolChoice{Mode: mcp.ToolChoiceNone},
			MaxTokens:  1000,
		})
		if err != nil {
			return "", err
		}
		return final.Content[0].(*mcp.TextContent).Text, nil
	})
	p := connectClient(t, s, &mcp.ClientOptions{
		SamplingTools: true,
		CreateMessageHandler: func(_ context.Context, _ *mcp.ClientSession, params *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			requests = append(requests, params) // the tool's calls are sequential
			if len(params.Messages) == 1 {
				return &mcp.CreateMessageResult{
					Role: mcp.RoleAssistant,
					Content: mcp.SamplingContents{
						&mcp.ToolUseContent{ID: "call_1", Name: "get_weather", Input: json.RawMessage(`{"city":"Paris"}`)},
						&mcp.ToolUseContent{ID: "call_2", Name: "get_weather", Input: json.RawMessage(`{"city":"London"}`)},
					},
					Model:      "m",
					StopReason: "toolUse",
				}, nil
			}
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: mcp.SamplingContents{&mcp.TextContent{Text: "Both sunny."}}, Model: "m", StopReason: "endTurn"}, nil
		},
	})
	text, isErr := askCall(t, p.cs)
	if isErr || text != "Both sunny." {
		t.Fatalf("tool = %q (isError %v), want %q", text, isErr, "Both sunny.")
	}
	if len(requests) != 2 {
		t.Fatalf("the handler saw %d requests, want 2", len(requests))
	}
	tool := `{"name":"get_weather","description":"Get current weather for a city","inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}`
	jsonEqual(t, "first request", requests[0], `{"messages":[{"role":"user","content":{"type":"text","text":"Weather in Paris and London?"}}],
		"maxTokens":1000,"tools":[`+tool+`],"toolChoice":{"mode":"auto"}}`)
	jsonEqual(t, "second request", requests[1], `{"messages":[
		{"role":"user","content":{"type":"text","text":"Weather in Paris and London?"}},
		{"role":"assistant","content":[
			{"type":"tool_use","id":"call_1","name":"get_weather","input":{"city":"Paris"}},
			{"type":"tool_use","id":"call_2","name":"get_weather","input":{"city":"London"}}]},
		{"role":"user","content":[
			{"type":"tool_result","toolUseId":"call_1","content":[{"type":"text","text":"Sunny in Paris"}]},
			{"type":"tool_result","toolUseId":"call_2","content":[{"type":"text","text":"Sunny in London"}]}]}],
		"maxTokens":1000,"tools":[`+tool+`],"toolChoice":{"mode":"none"}}`)
}

// TestSamplingRefusedWithoutCapability: what the client did not declare is
// never sent; the handler gets ErrCapabilityNotDeclared naming the capability,
// and the next frame on the wire is the tool's own answer.
func TestSamplingRefusedWithoutCapability(t *testing.T) {
	basic := func() *mcp.CreateMessageParams {
		return &mcp.CreateMessageParams{
			Messages:  []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.TextContent{Text: "hi"}}}},
			MaxTokens: 10,
		}
	}
	withTools := basic()
	withTools.Tools = []*mcp.Tool{{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	withChoice := basic()
	withChoice.ToolChoice = &mcp.ToolChoice{Mode: mcp.ToolChoiceNone}
	withContext := basic()
	withContext.IncludeContext = "thisServer"
	withAll := basic()
	withAll.IncludeContext = "allServers"
	for _, tc := range []struct {
		name, caps string
		params     *mcp.CreateMessageParams
		capability string
	}{
		{"no capabilities", `{}`, basic(), "sampling"},
		{"elicitation only", `{"elicitation":{}}`, basic(), "sampling"},
		{"tools without sampling.tools", `{"sampling":{}}`, withTools, "sampling.tools"},
		{"toolChoice without sampling.tools", `{"sampling":{"context":{}}}`, withChoice, "sampling.tools"},
		{"includeContext thisServer without sampling.context", `{"sampling":{"tools":{}}}`, withContext, "sampling.context"},
		{"includeContext allServers without sampling.context", `{"sampling":{}}`, withAll, "sampling.context"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errc := make(chan error, 1)
			s := askServer(t, nil, func(ctx context.Context, req *mcp.Request) (string, error) {
				_, err := req.CreateMessage(ctx, tc.params)
				errc <- err
				return "", err
			})
			c := askRaw(t, s, tc.caps)
			frame := askRawTool(c)
			err := <-errc
			want := "mcp: sampling/createMessage not sent: the client did not declare the " + tc.capability + " capability"
			if !errors.Is(err, mcp.ErrCapabilityNotDeclared) || err.Error() != want {
				t.Fatalf("CreateMessage = %v, want ErrCapabilityNotDeclared: %s", err, want)
			}
			askWantToolError(t, frame, "3", "mcp: sampling/createMessage not sent: the client did not declare the "+tc.capability+" capability")
		})
	}
}

// TestSamplingAllowedWithCapability: the same requests go out once the
// capability is declared (with tools, sampling.tools; with context,
// sampling.context).
func TestSamplingAllowedWithCapability(t *testing.T) {
	params := &mcp.CreateMessageParams{
		Messages:       []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.TextContent{Text: "hi"}}}},
		MaxTokens:      10,
		Tools:          []*mcp.Tool{{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		ToolChoice:     &mcp.ToolChoice{Mode: mcp.ToolChoiceRequired},
		IncludeContext: "thisServer",
	}
	s := askServer(t, nil, func(ctx context.Context, req *mcp.Request) (string, error) {
		res, err := req.CreateMessage(ctx, params)
		if err != nil {
			return "", err
		}
		return res.Model, nil
	})
	c := askRaw(t, s, `{"sampling":{"tools":{},"context":{}}}`)
	c.request("tools/call", `{"name":"ask"}`)
	req := askRequest(t, c.read(), "sampling/createMessage")
	jsonEqual(t, "params", req.Params, `{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"includeContext":"thisServer","maxTokens":10,"tools":[{"name":"t","inputSchema":{"type":"object"}}],"toolChoice":{"mode":"required"}}`)
	c.send(`{"jsonrpc":"2.0","id":` + req.ID.String() + `,"result":{"role":"assistant","content":{"type":"text","text":"ok"},"model":"m-1"}}`)
	if got, want := string(c.read()), `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"m-1"}]}}`; got != want {
		t.Errorf("tool answer\n\t%s\nwant\n\t%s", got, want)
	}
}

// TestSamplingInvalidParamsNotSent: params the spec does not allow are
// refused before anything is sent, with an error that says why.
func TestSamplingInvalidParamsNotSent(t *testing.T) {
	text := func(s string) mcp.SamplingContents { return mcp.SamplingContents{&mcp.TextContent{Text: s}} }
	use := func(ids ...string) mcp.SamplingContents {
		var out mcp.SamplingContents
		for _, id := range ids {
			out = append(out, &mcp.ToolUseContent{ID: id, Name: "f", Input: json.RawMessage(`{}`)})
		}
		return out
	}
	result := func(ids ...string) mcp.SamplingContents {
		var out mcp.SamplingContents
		for _, id := range ids {
			out = append(out, &mcp.ToolResultContent{ToolUseID: id})
		}
		return out
	}
	user := func(c mcp.SamplingContents) *mcp.SamplingMessage {
		return &mcp.SamplingMessage{Role: mcp.RoleUser, Content: c}
	}
	assistant := func(c mcp.SamplingContents) *mcp.SamplingMessage {
		return &mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: c}
	}
	for _, tc := range []struct {
		name   string
		params *mcp.CreateMessageParams
		want   string
	}{
		{"nil params", nil, "params with messages and maxTokens are required"},
		{"no messages", &mcp.CreateMessageParams{MaxTokens: 1}, "messages must not be empty"},
		{"no maxTokens", &mcp.CreateMessageParams{Messages: []*mcp.SamplingMessage{user(text("a"))}}, "maxTokens must be positive, not 0"},
		{"bad role", &mcp.CreateMessageParams{MaxTokens: 1, Messages: []*mcp.SamplingMessage{{Role: "system", Content: text("a")}}},
			`messages[0].role must be user or assistant, not "system"`},
		{"no content", &mcp.CreateMessageParams{MaxTokens: 1, Messages: []*mcp.SamplingMessage{user(nil)}}, "messages[0] has no content"},
		{"unknown includeContext", &mcp.CreateMessageParams{MaxTokens: 1, IncludeContext: "everything", Messages: []*mcp.SamplingMessage{user(text("a"))}},
			`includeContext "everything" is not one of none, thisServer and allServers`},
		{"priority above 1", &mcp.CreateMessageParams{MaxTokens: 1, ModelPreferences: &mcp.ModelPreferences{SpeedPriority: askPtr(1.5)}, Messages: []*mcp.SamplingMessage{user(text("a"))}},
			"modelPreferences.speedPriority must be between 0 and 1, not 1.5"},
		{"metadata not an object", &mcp.CreateMessageParams{MaxTokens: 1, Metadata: json.RawMessage(`[1]`), Messages: []*mcp.SamplingMessage{user(text("a"))}},
			"metadata must be a JSON object"},
		{"tool without schema", &mcp.CreateMessageParams{MaxTokens: 1, Tools: []*mcp.Tool{{Name: "f"}}, Messages: []*mcp.SamplingMessage{user(text("a"))}},
			"tools[0] (f) has no inputSchema"},
		{"unknown toolChoice", &mcp.CreateMessageParams{MaxTokens: 1, ToolChoice: &mcp.ToolChoice{Mode: "any"}, Messages: []*mcp.SamplingMessage{user(text("a"))}},
			`toolChoice.mode "any" is not one of auto, required and none`},
		{"tool results mixed with text", &mcp.CreateMessageParams{MaxTokens: 1, Messages: []*mcp.SamplingMessage{
			user(text("q")), assistant(use("a")), user(append(result("a"), &mcp.TextContent{Text: "x"}))}},
			"messages[2]: tool results must not be mixed with other content"},
		{"tool result missing", &mcp.CreateMessageParams{MaxTokens: 1, Messages: []*mcp.SamplingMessage{
			user(text("q")), assistant(use("a", "b")), user(result("a"))}},
			`messages[2]: no tool result for tool use "b" of messages[1]`},
		{"tool result for no tool use", &mcp.CreateMessageParams{MaxTokens: 1, Messages: []*mcp.SamplingMessage{
			user(text("q")), assistant(use("a")), user(result("a", "z"))}},
			`messages[2]: tool result "z" answers no tool use of messages[1]`},
		{"text before the tool results", &mcp.CreateMessageParams{MaxTokens: 1, Messages: []*mcp.SamplingMessage{
			user(text("q")), assistant(use("a")), user(text("hm")), user(result("a"))}},
			"messages[2]: the tool uses of messages[1] must be answered by tool results first"},
		{"tool uses never answered", &mcp.CreateMessageParams{MaxTokens: 1, Messages: []*mcp.SamplingMessage{
			user(text("q")), assistant(use("a"))}},
			"messages[1]: its tool uses have no results"},
		{"tool results out of the blue", &mcp.CreateMessageParams{MaxTokens: 1, Messages: []*mcp.SamplingMessage{user(result("a"))}},
			"messages[0]: tool results must follow the assistant message with their tool uses"},
		{"tool use from the user", &mcp.CreateMessageParams{MaxTokens: 1, Messages: []*mcp.SamplingMessage{user(use("a"))}},
			"messages[0]: a tool_use belongs in an assistant message"},
		{"tool results from the assistant", &mcp.CreateMessageParams{MaxTokens: 1, Messages: []*mcp.SamplingMessage{
			user(text("q")), assistant(use("a")), assistant(result("a"))}},
			"messages[2]: tool results belong in a user message"},
		{"tool use id twice", &mcp.CreateMessageParams{MaxTokens: 1, Messages: []*mcp.SamplingMessage{
			user(text("q")), assistant(use("a", "a")), user(result("a"))}},
			`messages[1]: tool_use id "a" appears twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errc := make(chan error, 1)
			s := askServer(t, nil, func(ctx context.Context, req *mcp.Request) (string, error) {
				_, err := req.CreateMessage(ctx, tc.params)
				errc <- err
				return "", err
			})
			c := askRaw(t, s, `{"sampling":{"tools":{},"context":{}}}`)
			frame := askRawTool(c)
			err := <-errc
			if !errors.Is(err, mcp.ErrInvalidSamplingRequest) {
				t.Fatalf("CreateMessage = %v, want ErrInvalidSamplingRequest", err)
			}
			want := "mcp: invalid sampling/createMessage params: " + tc.want
			if err.Error() != want {
				t.Errorf("error = %q, want %q", err, want)
			}
			askWantToolError(t, frame, "3", want)
		})
	}
}

// TestSamplingClientErrors: what the client answers reaches the tool as a
// *jsonrpc.Error: -32601 from a client with no handler, -1 when the user
// rejects, -32603 for a handler's failure or a result it may not send.
func TestSamplingClientErrors(t *testing.T) {
	hi := &mcp.CreateMessageParams{
		Messages:  []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.TextContent{Text: "hi"}}}},
		MaxTokens: 10,
	}
	for _, tc := range []struct {
		name    string
		opts    *mcp.ClientOptions
		code    int64
		message string
		data    string
	}{
		{"declared but no handler", &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}}},
			jsonrpc.CodeMethodNotFound, "Method not found", `"sampling/createMessage"`},
		{"user rejected", &mcp.ClientOptions{CreateMessageHandler: func(context.Context, *mcp.ClientSession, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return nil, mcp.UserRejectedSamplingError()
		}}, -1, "User rejected sampling request", ""},
		{"handler error", &mcp.ClientOptions{CreateMessageHandler: func(context.Context, *mcp.ClientSession, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return nil, errors.New("no model available")
		}}, jsonrpc.CodeInternalError, "no model available", ""},
		{"nil result", &mcp.ClientOptions{CreateMessageHandler: func(context.Context, *mcp.ClientSession, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return nil, nil
		}}, jsonrpc.CodeInternalError, "Internal error", ""},
		{"result without a role", &mcp.ClientOptions{CreateMessageHandler: func(context.Context, *mcp.ClientSession, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Content: mcp.SamplingContents{&mcp.TextContent{Text: "x"}}, Model: "m"}, nil
		}}, jsonrpc.CodeInternalError, "Internal error", ""},
		{"handler panics", &mcp.ClientOptions{CreateMessageHandler: func(context.Context, *mcp.ClientSession, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			panic("boom")
		}}, jsonrpc.CodeInternalError, "Internal error", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errc := make(chan error, 1)
			s := askServer(t, nil, func(ctx context.Context, req *mcp.Request) (string, error) {
				_, err := req.CreateMessage(ctx, hi)
				errc <- err
				return "done", nil
			})
			p := connectClient(t, s, tc.opts)
			askCall(t, p.cs)
			err := <-errc
			wantRPCError(t, err, tc.code, tc.message, tc.data)
			if tc.code == -1 && !errors.Is(err, mcp.UserRejectedSamplingError()) {
				t.Errorf("errors.Is(%v, UserRejectedSamplingError()) = false", err)
			}
		})
	}
}

// TestSamplingClientRefusesBadRequests: a client checks what a server
// sends: tools without a declared sampling.tools, and messages whose tool
// results do not pair up, get -32602, and the handler never runs.
func TestSamplingClientRefusesBadRequests(t *testing.T) {
	called := make(chan struct{}, 10)
	handler := func(context.Context, *mcp.ClientSession, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		called <- struct{}{}
		return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: mcp.SamplingContents{&mcp.TextContent{Text: "x"}}, Model: "m"}, nil
	}
	msg := `"messages":[{"role":"user","content":{"type":"text","text":"hi"}}]`
	for _, tc := range []struct {
		name, params, want string
		tools              bool
	}{
		{"tools without sampling.tools", `{` + msg + `,"maxTokens":5,"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`,
			`{"jsonrpc":"2.0","id":"s1","error":{"code":-32602,"message":"Invalid params","data":"tools and toolChoice need the sampling.tools capability, which this client did not declare"}}`, false},
		{"toolChoice without sampling.tools", `{` + msg + `,"maxTokens":5,"toolChoice":{"mode":"auto"}}`,
			`{"jsonrpc":"2.0","id":"s1","error":{"code":-32602,"message":"Invalid params","data":"tools and toolChoice need the sampling.tools capability, which this client did not declare"}}`, false},
		{"mixed tool results", `{"messages":[{"role":"user","content":{"type":"text","text":"q"}},{"role":"assistant","content":{"type":"tool_use","id":"a","name":"f","input":{}}},{"role":"user","content":[{"type":"tool_result","toolUseId":"a","content":[]},{"type":"text","text":"x"}]}],"maxTokens":5}`,
			`{"jsonrpc":"2.0","id":"s1","error":{"code":-32602,"message":"Invalid params","data":"messages[2]: tool results must not be mixed with other content"}}`, true},
		{"missing tool result", `{"messages":[{"role":"user","content":{"type":"text","text":"q"}},{"role":"assistant","content":{"type":"tool_use","id":"a","name":"f","input":{}}},{"role":"user","content":{"type":"text","text":"x"}}],"maxTokens":5}`,
			`{"jsonrpc":"2.0","id":"s1","error":{"code":-32602,"message":"Invalid params","data":"messages[2]: the tool uses of messages[1] must be answered by tool results first"}}`, true},
		{"no maxTokens", `{` + msg + `}`,
			`{"jsonrpc":"2.0","id":"s1","error":{"code":-32602,"message":"Invalid params","data":"maxTokens must be positive, not 0"}}`, false},
		{"no params", ``,
			`{"jsonrpc":"2.0","id":"s1","error":{"code":-32602,"message":"Invalid params","data":"missing params: sampling/createMessage requires messages and maxTokens"}}`, false},
		{"resource link in a sampling message", `{"messages":[{"role":"user","content":{"type":"resource_link","uri":"file:///a","name":"a"}}],"maxTokens":5}`,
			`{"jsonrpc":"2.0","id":"s1","error":{"code":-32602,"message":"Invalid params","data":"invalid params: mcp: content type \"resource_link\" is not allowed in a sampling message"}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := askPeer(t, &mcp.ClientOptions{CreateMessageHandler: handler, SamplingTools: tc.tools})
			if got := string(askPeerCall(p, `"s1"`, "sampling/createMessage", tc.params)); got != tc.want {
				t.Errorf("client answered\n\t%s\nwant\n\t%s", got, tc.want)
			}
			select {
			case <-called:
				t.Errorf("the handler ran")
			default:
			}
		})
	}
}

// TestSamplingCancelled: when the server's context ends, the client's
// handler sees its context cancelled and sends no answer.
func TestSamplingCancelled(t *testing.T) {
	started := make(chan struct{})
	handlerDone := make(chan error, 1)
	s := askServer(t, nil, func(ctx context.Context, req *mcp.Request) (string, error) {
		ctx, cancel := context.WithCancel(ctx)
		go func() { <-started; cancel() }()
		_, err := req.CreateMessage(ctx, &mcp.CreateMessageParams{
			Messages:  []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.TextContent{Text: "slow"}}}},
			MaxTokens: 10,
		})
		return "", err
	})
	p := connectClient(t, s, &mcp.ClientOptions{
		CreateMessageHandler: func(ctx context.Context, _ *mcp.ClientSession, _ *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			close(started)
			<-ctx.Done()
			handlerDone <- ctx.Err()
			return nil, ctx.Err()
		},
	})
	text, isErr := askCall(t, p.cs)
	if !isErr || text != "context canceled" {
		t.Errorf("tool = %q (isError %v), want context canceled", text, isErr)
	}
	if err := recvWithin(t, handlerDone, "the handler's end"); !errors.Is(err, context.Canceled) {
		t.Errorf("handler ctx = %v, want canceled", err)
	}
}

// TestSamplingContentsJSON: one block travels as an object, others as a
// list, and both forms decode.
func TestSamplingContentsJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    mcp.SamplingContents
		want string
	}{
		{"one block", mcp.SamplingContents{&mcp.TextContent{Text: "a"}}, `{"type":"text","text":"a"}`},
		{"two blocks", mcp.SamplingContents{&mcp.TextContent{Text: "a"}, &mcp.TextContent{Text: "b"}}, `[{"type":"text","text":"a"},{"type":"text","text":"b"}]`},
		{"none", nil, `[]`},
		{"tool use without input", mcp.SamplingContents{&mcp.ToolUseContent{ID: "1", Name: "f"}}, `{"type":"tool_use","id":"1","name":"f","input":{}}`},
		{"tool result without content", mcp.SamplingContents{&mcp.ToolResultContent{ToolUseID: "1", IsError: true}}, `{"type":"tool_result","toolUseId":"1","content":[],"isError":true}`},
		{"tool result with everything", mcp.SamplingContents{&mcp.ToolResultContent{
			ToolUseID: "1", Content: []mcp.Content{&mcp.ImageContent{Data: "AA==", MIMEType: "image/png"}},
			StructuredContent: json.RawMessage(`{"t":1}`), Meta: mcp.Meta{"k": json.RawMessage(`"v"`)},
		}}, `{"type":"tool_result","toolUseId":"1","content":[{"type":"image","data":"AA==","mimeType":"image/png"}],"structuredContent":{"t":1},"_meta":{"k":"v"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := json.Marshal(tc.c)
			if err != nil {
				t.Fatal(err)
			}
			if string(raw) != tc.want {
				t.Errorf("Marshal = %s, want %s", raw, tc.want)
			}
			var back mcp.SamplingContents
			if err := json.Unmarshal(raw, &back); err != nil {
				t.Fatal(err)
			}
			if again, _ := json.Marshal(back); string(again) != tc.want {
				t.Errorf("round trip = %s, want %s", again, tc.want)
			}
		})
	}
	var c mcp.SamplingContents
	if err := json.Unmarshal([]byte(`{"type":"resource","resource":{"uri":"a","text":"b"}}`), &c); err == nil {
		t.Errorf("an embedded resource decoded as sampling content")
	}
}
