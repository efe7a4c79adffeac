package everything_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpkit/mcpkit/internal/everything"
	"github.com/mcpkit/mcpkit/mcp"
)

// askConnect serves a new reference server over an in-memory transport to
// a client with opts; both end with the test.
func askConnect(t *testing.T, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := everything.NewServer(nil).Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "test", Version: "1"}, legacyEra(opts)).Connect(ctx, ct)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// askCallRaw calls a tool with raw params and returns the raw result.
func askCallRaw(t *testing.T, cs *mcp.ClientSession, params string) string {
	t.Helper()
	var res json.RawMessage
	if err := cs.Call(context.Background(), "tools/call", json.RawMessage(params), &res); err != nil {
		t.Fatalf("tools/call %s: %v", params, err)
	}
	return string(res)
}

func askWantJSON(t *testing.T, what string, got any, want string) {
	t.Helper()
	raw, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if !sameJSON(t, raw, []byte(want)) {
		t.Errorf("%s =\n\t%s\nwant\n\t%s", what, raw, want)
	}
}

// TestSamplingFixture: test_sampling sends exactly the request of the
// conformance notes and answers "LLM response: <text>" with the harness's
// answer.
func TestSamplingFixture(t *testing.T) {
	got := make(chan *mcp.CreateMessageParams, 1)
	cs := askConnect(t, &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			got <- p
			return &mcp.CreateMessageResult{Role: "assistant", Content: mcp.SamplingContents{&mcp.TextContent{Text: "This is a test response from the client"}}, Model: "test-model", StopReason: "endTurn"}, nil
		},
	})
	res := askCallRaw(t, cs, `{"name":"test_sampling","arguments":{"prompt":"Test prompt for sampling"}}`)
	if want := `{"content":[{"type":"text","text":"LLM response: This is a test response from the client"}]}`; res != want {
		t.Errorf("result =\n\t%s\nwant\n\t%s", res, want)
	}
	askWantJSON(t, "sampling request", <-got, `{"messages":[{"role":"user","content":{"type":"text","text":"Test prompt for sampling"}}],"maxTokens":100}`)
}

// TestSamplingFixtureWithoutSampling: a client that cannot sample gets a
// tool error, and nothing is sent to it.
func TestSamplingFixtureWithoutSampling(t *testing.T) {
	cs := askConnect(t, nil)
	res := askCallRaw(t, cs, `{"name":"test_sampling","arguments":{"prompt":"p"}}`)
	if want := `{"content":[{"type":"text","text":"mcp: sampling/createMessage not sent: the client did not declare the sampling capability"}],"isError":true}`; res != want {
		t.Errorf("result =\n\t%s\nwant\n\t%s", res, want)
	}
	// A client that declares sampling but cannot do it answers -32601,
	// which the tool reports as a tool error.
	cs = askConnect(t, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}}})
	res = askCallRaw(t, cs, `{"name":"test_sampling","arguments":{"prompt":"p"}}`)
	if want := `{"content":[{"type":"text","text":"the client answered: jsonrpc error -32601: Method not found: \"sampling/createMessage\""}],"isError":true}`; res != want {
		t.Errorf("result =\n\t%s\nwant\n\t%s", res, want)
	}
}

// elicitRecorder is an ElicitationHandler that records the request and
// answers with the given result.
func elicitRecorder(got chan<- *mcp.ElicitParams, action, content string) func(context.Context, *mcp.ClientSession, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return func(_ context.Context, _ *mcp.ClientSession, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		got <- p
		return &mcp.ElicitResult{Action: action, Content: json.RawMessage(content)}, nil
	}
}

// TestElicitationFixture: test_elicitation sends exactly the request of
// the conformance notes, to a client that declared an empty elicitation
// capability as the suite's client does, and describes the answer.
func TestElicitationFixture(t *testing.T) {
	got := make(chan *mcp.ElicitParams, 1)
	cs := askConnect(t, &mcp.ClientOptions{
		Capabilities:       &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}, Elicitation: &mcp.ElicitationCapability{}},
		ElicitationHandler: elicitRecorder(got, "accept", `{"username":"testuser","email":"test@example.com"}`),
	})
	res := askCallRaw(t, cs, `{"name":"test_elicitation","arguments":{"message":"Please provide your information"}}`)
	if want := `{"content":[{"type":"text","text":"User response: action=accept, content={\"username\":\"testuser\",\"email\":\"test@example.com\"}"}]}`; res != want {
		t.Errorf("result =\n\t%s\nwant\n\t%s", res, want)
	}
	p := <-got
	askWantJSON(t, "elicitation request", p, `{"message":"Please provide your information","requestedSchema":{"type":"object","properties":{"username":{"type":"string","description":"User's response"},"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}}`)

	// decline: no content, described as {}.
	cs = askConnect(t, &mcp.ClientOptions{ElicitationHandler: elicitRecorder(got, "decline", ``)})
	res = askCallRaw(t, cs, `{"name":"test_elicitation","arguments":{"message":"m"}}`)
	if want := `{"content":[{"type":"text","text":"User response: action=decline, content={}"}]}`; res != want {
		t.Errorf("result =\n\t%s\nwant\n\t%s", res, want)
	}
	<-got
}

// TestElicitationSEP1034Fixture: the requested schema has one field of
// each type with its default, with exactly the types the suite checks.
func TestElicitationSEP1034Fixture(t *testing.T) {
	got := make(chan *mcp.ElicitParams, 1)
	cs := askConnect(t, &mcp.ClientOptions{ElicitationHandler: elicitRecorder(got, "accept", `{"name":"Jane","age":31}`)})
	res := askCallRaw(t, cs, `{"name":"test_elicitation_sep1034_defaults","arguments":{}}`)
	if want := `{"content":[{"type":"text","text":"Elicitation completed: action=accept, content={\"name\":\"Jane\",\"age\":31}"}]}`; res != want {
		t.Errorf("result =\n\t%s\nwant\n\t%s", res, want)
	}
	p := <-got
	raw, _ := json.Marshal(p.RequestedSchema)
	want := `{"type":"object","properties":{` +
		`"name":{"type":"string","description":"User name","default":"John Doe"},` +
		`"age":{"type":"integer","description":"User age","default":30},` +
		`"score":{"type":"number","description":"User score","default":95.5},` +
		`"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},` +
		`"verified":{"type":"boolean","description":"Verification status","default":true}},"required":[]}`
	if string(raw) != want {
		t.Errorf("requested schema =\n\t%s\nwant\n\t%s", raw, want)
	}
	if p.Message != "Please review and update the form fields with defaults" {
		t.Errorf("message = %q", p.Message)
	}

	// A client that fills in the defaults for the fields left out.
	cs = askConnect(t, &mcp.ClientOptions{ElicitationApplyDefaults: true, ElicitationHandler: elicitRecorder(got, "accept", `{}`)})
	res = askCallRaw(t, cs, `{"name":"test_elicitation_sep1034_defaults"}`)
	if want := `{"content":[{"type":"text","text":"Elicitation completed: action=accept, content={\"age\":30,\"name\":\"John Doe\",\"score\":95.5,\"status\":\"active\",\"verified\":true}"}]}`; res != want {
		t.Errorf("result with defaults =\n\t%s\nwant\n\t%s", res, want)
	}
	<-got
}

// TestElicitationSEP1330Fixture: the requested schema has every enum
// shape: untitled and titled single select, legacy enumNames, untitled
// and titled multi select.
func TestElicitationSEP1330Fixture(t *testing.T) {
	got := make(chan *mcp.ElicitParams, 1)
	content := `{"untitledSingle":"option1","titledSingle":"value2","legacyEnum":"opt3","untitledMulti":["option1","option3"],"titledMulti":["value1"]}`
	cs := askConnect(t, &mcp.ClientOptions{ElicitationHandler: elicitRecorder(got, "accept", content)})
	res := askCallRaw(t, cs, `{"name":"test_elicitation_sep1330_enums","arguments":{}}`)
	if want := `{"content":[{"type":"text","text":"Elicitation completed: action=accept, content=` + jsonEscape(content) + `"}]}`; res != want {
		t.Errorf("result =\n\t%s\nwant\n\t%s", res, want)
	}
	p := <-got
	raw, _ := json.Marshal(p.RequestedSchema)
	want := `{"type":"object","properties":{` +
		`"untitledSingle":{"type":"string","description":"Select one option","enum":["option1","option2","option3"]},` +
		`"titledSingle":{"type":"string","description":"Select one option with titles","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},` +
		`"legacyEnum":{"type":"string","description":"Select one option (legacy)","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},` +
		`"untitledMulti":{"type":"array","description":"Select multiple options","items":{"type":"string","enum":["option1","option2","option3"]},"minItems":1,"maxItems":3},` +
		`"titledMulti":{"type":"array","description":"Select multiple options with titles","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]},"minItems":1,"maxItems":3}` +
		`},"required":[]}`
	if string(raw) != want {
		t.Errorf("requested schema =\n\t%s\nwant\n\t%s", raw, want)
	}

	// A client that declares elicitation without answering it gets a tool
	// error quoting its -32601.
	cs = askConnect(t, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}})
	res = askCallRaw(t, cs, `{"name":"test_elicitation_sep1330_enums"}`)
	if want := `{"content":[{"type":"text","text":"the client answered: jsonrpc error -32601: Method not found: \"elicitation/create\""}],"isError":true}`; res != want {
		t.Errorf("result from a client without a handler =\n\t%s\nwant\n\t%s", res, want)
	}
}

func jsonEscape(s string) string {
	raw, _ := json.Marshal(s)
	return string(raw[1 : len(raw)-1])
}

// TestListRootsFixture: list_roots returns the client's roots as
// structured content.
func TestListRootsFixture(t *testing.T) {
	cs := askConnect(t, &mcp.ClientOptions{Roots: []*mcp.Root{{URI: "file:///home/user/project", Name: "Project"}}})
	res := askCallRaw(t, cs, `{"name":"list_roots"}`)
	if want := `{"content":[{"type":"text","text":"{\"roots\":[{\"uri\":\"file:///home/user/project\",\"name\":\"Project\"}]}"}],"structuredContent":{"roots":[{"uri":"file:///home/user/project","name":"Project"}]}}`; res != want {
		t.Errorf("result =\n\t%s\nwant\n\t%s", res, want)
	}
	cs = askConnect(t, nil)
	res = askCallRaw(t, cs, `{"name":"list_roots"}`)
	if want := `{"content":[{"type":"text","text":"mcp: roots/list not sent: the client did not declare the roots capability"}],"isError":true}`; res != want {
		t.Errorf("result without roots =\n\t%s\nwant\n\t%s", res, want)
	}
}

// TestAskingToolsSchemas: the asking tools' input schemas, as tools/list
// gives them.
func TestAskingToolsSchemas(t *testing.T) {
	cs := askConnect(t, nil)
	want := map[string]string{
		"test_sampling":                     `{"type":"object","required":["prompt"],"properties":{"prompt":{"type":"string","description":"The prompt to send to the LLM"}},"additionalProperties":false}`,
		"test_elicitation":                  `{"type":"object","required":["message"],"properties":{"message":{"type":"string","description":"The message to show the user"}},"additionalProperties":false}`,
		"test_elicitation_sep1034_defaults": `{"type":"object","properties":{}}`,
		"test_elicitation_sep1330_enums":    `{"type":"object","properties":{}}`,
		"list_roots":                        `{"type":"object","additionalProperties":false}`,
	}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		schema, ok := want[tool.Name]
		if !ok {
			continue
		}
		delete(want, tool.Name)
		if tool.Description == "" {
			t.Errorf("%s has no description", tool.Name)
		}
		if !sameJSON(t, tool.InputSchema, []byte(schema)) {
			t.Errorf("%s inputSchema =\n\t%s\nwant\n\t%s", tool.Name, tool.InputSchema, schema)
		}
	}
	for name := range want {
		t.Errorf("tool %s not listed", name)
	}
}
