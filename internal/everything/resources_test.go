package everything_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcpkit/mcpkit/internal/everything"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// call sends a raw request and returns the raw result.
func call(t *testing.T, cs *mcp.ClientSession, method, params string) json.RawMessage {
	t.Helper()
	var got json.RawMessage
	if err := cs.Call(context.Background(), method, json.RawMessage(params), &got); err != nil {
		t.Fatalf("%s %s: %v", method, params, err)
	}
	return got
}

// TestResources checks the conformance resources, raw, exactly as the
// resources-* scenarios of the official suite read them
// (@modelcontextprotocol/conformance, pinned in conformance/package.json).
func TestResources(t *testing.T) {
	cs := connect(t)
	for _, tc := range []struct {
		name, method, params, want string
	}{
		{"list", "resources/list", `{}`, `{"resources":[` +
			// The embedded skills (skills.go), then the conformance fixtures.
			`{"uri":"skill://code-review/SKILL.md","name":"code-review","description":"Review a change to an mcpkit server the way its maintainers do, from the wire bytes to the tests.","mimeType":"text/markdown","size":551},` +
			`{"uri":"skill://code-review/checklist.md","name":"checklist.md","mimeType":"text/markdown","size":228},` +
			`{"uri":"skill://code-review/security/SKILL.md","name":"security","description":"A security pass over a change to an MCP server, nested in code-review.","mimeType":"text/markdown","size":205},` +
			`{"uri":"skill://code-review/security/rules.md","name":"rules.md","mimeType":"text/markdown","size":230},` +
			`{"uri":"skill://release-notes/SKILL.md","name":"release-notes","description":"Draft release notes for the changes since the last tag, with a script that lists them.","mimeType":"text/markdown","size":416},` +
			`{"uri":"skill://release-notes/scripts/collect.sh","name":"collect.sh","mimeType":"text/x-shellscript","size":225},` +
			`{"uri":"test://static-binary","name":"static-binary","title":"Static binary","description":"A static binary resource, a 1x1 PNG image (conformance fixture).","mimeType":"image/png"},` +
			`{"uri":"test://static-text","name":"static-text","title":"Static text","description":"A static text resource (conformance fixture).","mimeType":"text/plain"},` +
			`{"uri":"test://watched-resource","name":"watched-resource","title":"Watched resource","description":"A resource clients may subscribe to (conformance fixture).","mimeType":"text/plain"}]}`},
		{"templates", "resources/templates/list", `{}`, `{"resourceTemplates":[` +
			`{"uriTemplate":"test://template/{id}/data","name":"template","title":"Data by id","description":"JSON data for any id (conformance fixture).","mimeType":"application/json"}]}`},
		{"static-text", "resources/read", `{"uri":"test://static-text"}`,
			`{"contents":[{"uri":"test://static-text","mimeType":"text/plain","text":"This is the content of the static text resource."}]}`},
		{"static-binary", "resources/read", `{"uri":"test://static-binary"}`,
			`{"contents":[{"uri":"test://static-binary","mimeType":"image/png","blob":"` + png + `"}]}`},
		{"watched", "resources/read", `{"uri":"test://watched-resource"}`,
			`{"contents":[{"uri":"test://watched-resource","mimeType":"text/plain","text":"Watched resource content"}]}`},
		{"template 123", "resources/read", `{"uri":"test://template/123/data"}`,
			`{"contents":[{"uri":"test://template/123/data","mimeType":"application/json","text":"{\"id\":\"123\",\"templateTest\":true,\"data\":\"Data for ID: 123\"}"}]}`},
		{"template with a quote", "resources/read", `{"uri":"test://template/a%22b/data"}`,
			`{"contents":[{"uri":"test://template/a%22b/data","mimeType":"application/json","text":"{\"id\":\"a\\\"b\",\"templateTest\":true,\"data\":\"Data for ID: a\\\"b\"}"}]}`},
		{"subscribe", "resources/subscribe", `{"uri":"test://watched-resource"}`, `{}`},
		{"unsubscribe", "resources/unsubscribe", `{"uri":"test://watched-resource"}`, `{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := call(t, cs, tc.method, tc.params); !sameJSON(t, got, []byte(tc.want)) {
				t.Errorf("result =\n\t%s\nwant\n\t%s", got, tc.want)
			}
		})
	}
	_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "test://nope"})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32002 || string(rpcErr.Data) != `{"uri":"test://nope"}` {
		t.Errorf("reading an unknown URI: %v", err)
	}
}

// TestWatchedResourceUpdates checks that a subscribed session hears about
// the watched resource.
func TestWatchedResourceUpdates(t *testing.T) {
	ctx := context.Background()
	s := everything.NewServer(nil)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	updated := make(chan string, 1)
	cs, err := mcp.NewClient(mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ProtocolEra:            mcp.EraSession,
		ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedParams) { updated <- p.URI },
	}).Connect(ctx, ct)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		cs.Close()
		ss.Wait()
	}()
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: everything.WatchedURI}); err != nil {
		t.Fatal(err)
	}
	if err := s.ResourceUpdated(ctx, everything.WatchedURI); err != nil {
		t.Fatal(err)
	}
	if got := <-updated; got != everything.WatchedURI {
		t.Errorf("updated %q", got)
	}
}

// TestPrompts checks the conformance prompts exactly, raw.
func TestPrompts(t *testing.T) {
	cs := connect(t)
	for _, tc := range []struct {
		name, params, want string
	}{
		{"test_simple_prompt", `{"name":"test_simple_prompt"}`,
			`{"messages":[{"role":"user","content":{"type":"text","text":"This is a simple prompt for testing."}}]}`},
		{"test_prompt_with_arguments", `{"name":"test_prompt_with_arguments","arguments":{"arg1":"testValue1","arg2":"testValue2"}}`,
			`{"messages":[{"role":"user","content":{"type":"text","text":"Prompt with arguments: arg1='testValue1', arg2='testValue2'"}}]}`},
		{"test_prompt_with_embedded_resource", `{"name":"test_prompt_with_embedded_resource","arguments":{"resourceUri":"test://example-resource"}}`,
			`{"messages":[` +
				`{"role":"user","content":{"type":"resource","resource":{"uri":"test://example-resource","mimeType":"text/plain","text":"Embedded resource content for testing."}}},` +
				`{"role":"user","content":{"type":"text","text":"Please process the embedded resource above."}}]}`},
		{"test_prompt_with_image", `{"name":"test_prompt_with_image"}`,
			`{"messages":[` +
				`{"role":"user","content":{"type":"image","data":"` + png + `","mimeType":"image/png"}},` +
				`{"role":"user","content":{"type":"text","text":"Please analyze the image above."}}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := call(t, cs, "prompts/get", tc.params); !sameJSON(t, got, []byte(tc.want)) {
				t.Errorf("result =\n\t%s\nwant\n\t%s", got, tc.want)
			}
		})
	}
	want := `{"prompts":[` +
		`{"name":"test_input_required_result_prompt","title":"Prompt that asks for its context","description":"Asks the user for the context to use (elicitation under user_context), then returns a prompt with it (SEP-2322 conformance fixture)."},` +
		`{"name":"test_prompt_with_arguments","title":"Prompt with arguments","description":"A prompt with two required arguments (conformance fixture).","arguments":[{"name":"arg1","description":"First test argument","required":true},{"name":"arg2","description":"Second test argument","required":true}]},` +
		`{"name":"test_prompt_with_embedded_resource","title":"Prompt with an embedded resource","description":"A prompt that embeds the resource it is given (conformance fixture).","arguments":[{"name":"resourceUri","description":"URI of the resource to embed","required":true}]},` +
		`{"name":"test_prompt_with_image","title":"Prompt with an image","description":"A prompt with an image (conformance fixture)."},` +
		`{"name":"test_simple_prompt","title":"Simple prompt","description":"A simple prompt without arguments (conformance fixture)."}]}`
	if got := call(t, cs, "prompts/list", `{}`); !sameJSON(t, got, []byte(want)) {
		t.Errorf("prompts/list =\n\t%s\nwant\n\t%s", got, want)
	}
	_, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "test_prompt_with_arguments", Arguments: map[string]string{"arg1": "x"}})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32602 || string(rpcErr.Data) != `"Missing required argument for prompt test_prompt_with_arguments: arg2"` {
		t.Errorf("a missing arg2: %v", err)
	}
}

// TestCompletion checks what the completion-complete scenario asks, and
// the completions of arg2 and the template's id.
func TestCompletion(t *testing.T) {
	cs := connect(t)
	for _, tc := range []struct {
		name, params, want string
	}{
		{"arg1 test", `{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":"test"}}`,
			`{"completion":{"values":["test","testValue1","testValue2","testing"],"total":4}}`},
		{"arg2 after arg1", `{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg2","value":""},"context":{"arguments":{"arg1":"testValue1"}}}`,
			`{"completion":{"values":["testValue1-a","testValue1-b","testValue1-c"],"total":3}}`},
		{"template id", `{"ref":{"type":"ref/resource","uri":"test://template/{id}/data"},"argument":{"name":"id","value":"1"}}`,
			`{"completion":{"values":["1","123"],"total":2}}`},
		{"an argument with nothing to offer", `{"ref":{"type":"ref/prompt","name":"test_prompt_with_embedded_resource"},"argument":{"name":"resourceUri","value":""}}`,
			`{"completion":{"values":[]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := call(t, cs, "completion/complete", tc.params); !sameJSON(t, got, []byte(tc.want)) {
				t.Errorf("result =\n\t%s\nwant\n\t%s", got, tc.want)
			}
		})
	}
}
