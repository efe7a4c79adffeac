package mcp_test

// Schema rows (see schema_test.go) for resources, resource templates,
// prompts and completion: every message these features make a Server or a
// Client send.

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// schemaFeatureServer returns a server whose resources, templates and
// prompts use every optional field, with a completion handler:
//
//   - resources test://text (all fields), test://blob, test://bare;
//   - template test://items/{id} (all fields); id "many" returns text and
//     blob contents with _meta;
//   - prompt "everything" (all fields, hand-written arguments) whose
//     messages hold every kind of content, and typed prompt "typed";
//   - completion: 150 values for the argument "many", else a few.
func schemaFeatureServer(t *testing.T, opts *mcp.ServerOptions) *mcp.Server {
	t.Helper()
	if opts == nil {
		opts = &mcp.ServerOptions{}
	}
	opts.CompletionHandler = func(_ context.Context, _ *mcp.Request, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
		if p.Argument.Name == "topic" && p.Argument.Value == "many" {
			values := make([]string, 150)
			for i := range values {
				values[i] = "v" + strconv.Itoa(i)
			}
			return &mcp.CompleteResult{Completion: mcp.Completion{Values: values}}, nil
		}
		return mcp.CompletionValues([]string{"alpha", "beta"}, p.Argument.Value), nil
	}
	srv := schemaFixture(t, opts)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	priority := 0.25
	size := int64(5)
	ann := &mcp.Annotations{Audience: []string{"user", "assistant"}, Priority: &priority, LastModified: "2025-01-12T15:00:58Z"}
	meta := mcp.Meta{"example.com/owner": json.RawMessage(`"docs-team"`)}
	icons := []mcp.Icon{{Src: "https://example.com/file.png", MIMEType: "image/png", Sizes: []string{"48x48"}, Theme: "dark"}}
	text := func(_ context.Context, _ *mcp.Request, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{Text: "hello"}}}, nil
	}
	must(srv.AddResource(&mcp.Resource{
		Meta: meta, URI: "test://text", Name: "text", Title: "Text", Description: "Some text.",
		MIMEType: "text/plain", Size: &size, Icons: icons, Annotations: ann,
	}, text))
	must(srv.AddResource(&mcp.Resource{URI: "test://blob", Name: "blob", MIMEType: "image/png"},
		func(_ context.Context, _ *mcp.Request, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{Blob: schemaPNG}}}, nil
		}))
	must(srv.AddResource(&mcp.Resource{URI: "test://bare", Name: "bare"}, text))
	must(srv.AddResourceTemplate(&mcp.ResourceTemplate{
		Meta: meta, URITemplate: "test://items/{id}", Name: "item", Title: "Item", Description: "An item by id.",
		MIMEType: "application/json", Icons: icons, Annotations: ann,
	}, func(_ context.Context, _ *mcp.Request, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		if p.Variables["id"] != "many" {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{Text: `{"id":"` + p.Variables["id"] + `"}`}}}, nil
		}
		return &mcp.ReadResourceResult{Meta: meta, Contents: []*mcp.ResourceContents{
			{Text: "", Meta: meta},
			{URI: "test://items/many/raw", MIMEType: "application/octet-stream", Blob: schemaBlob},
		}}, nil
	}))
	must(srv.AddPrompt(&mcp.Prompt{
		Meta: meta, Name: "everything", Title: "Everything", Description: "Every kind of message.", Icons: icons,
		Arguments: []*mcp.PromptArgument{
			{Name: "topic", Title: "Topic", Description: "What about.", Required: true},
			{Name: "tone"},
		},
	}, func(_ context.Context, _ *mcp.Request, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
		all, err := schemaContent("all")
		if err != nil {
			return nil, err
		}
		res := &mcp.GetPromptResult{Meta: meta, Description: "Everything about " + p.Arguments["topic"]}
		for i, c := range all.Content {
			role := mcp.RoleUser
			if i%2 == 1 {
				role = mcp.RoleAssistant
			}
			res.Messages = append(res.Messages, &mcp.PromptMessage{Role: role, Content: c})
		}
		return res, nil
	}))
	type typedArgs struct {
		Name string `json:"name" description:"Who to greet."`
	}
	must(mcp.AddPrompt(srv, &mcp.Prompt{Name: "typed"}, func(_ context.Context, _ *mcp.Request, in typedArgs) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "Hello " + in.Name}}}}, nil
	}))
	return srv
}

// schemaFeatures returns a produce func that runs f on an initialized
// session of schemaFeatureServer.
func schemaFeatures(f func(c *schemaConn) []byte) func(t *testing.T) []byte {
	return func(t *testing.T) []byte { return f(schemaReady(t, schemaFeatureServer(t, nil))) }
}

// schemaFeatureCall returns a produce func that sends one request to
// schemaFeatureServer and returns its response.
func schemaFeatureCall(method, params string) func(t *testing.T) []byte {
	return schemaFeatures(func(c *schemaConn) []byte { return c.call(method, params) })
}

func init() {
	schemaCases = append(schemaCases,
		schemaCase{name: "initialize with resources, prompts and completions", message: "JSONRPCResultResponse", result: "InitializeResult",
			produce: func(t *testing.T) []byte {
				frame := schemaConnect(t, schemaFeatureServer(t, nil)).initialize(mcp.LatestVersion)
				for _, want := range []string{`"completions":{}`, `"prompts":{"listChanged":true}`, `"resources":{"subscribe":true,"listChanged":true}`} {
					if !strings.Contains(string(frame), want) {
						t.Errorf("capabilities lack %s: %s", want, frame)
					}
				}
				return frame
			}},

		// Resources (https://modelcontextprotocol.io/specification/2025-11-25/server/resources).
		schemaCase{name: "resources/list with every field", message: "JSONRPCResultResponse", result: "ListResourcesResult",
			produce: schemaFeatureCall("resources/list", "")},
		schemaCase{name: "resources/list page with nextCursor", message: "JSONRPCResultResponse", result: "ListResourcesResult",
			produce: func(t *testing.T) []byte {
				frame := schemaReady(t, schemaFeatureServer(t, &mcp.ServerOptions{PageSize: 1})).call("resources/list", "")
				if !strings.Contains(string(frame), `"nextCursor":`) {
					t.Errorf("no nextCursor in %s", frame)
				}
				return frame
			}},
		schemaCase{name: "resources/templates/list with every field", message: "JSONRPCResultResponse", result: "ListResourceTemplatesResult",
			produce: schemaFeatureCall("resources/templates/list", `{"cursor":""}`)},
		schemaCase{name: "resources/read text", message: "JSONRPCResultResponse", result: "ReadResourceResult",
			produce: schemaFeatureCall("resources/read", `{"uri":"test://text"}`)},
		schemaCase{name: "resources/read blob", message: "JSONRPCResultResponse", result: "ReadResourceResult",
			produce: schemaFeatureCall("resources/read", `{"uri":"test://blob","_meta":{"progressToken":1}}`)},
		schemaCase{name: "resources/read through a template", message: "JSONRPCResultResponse", result: "ReadResourceResult",
			produce: schemaFeatureCall("resources/read", `{"uri":"test://items/42"}`)},
		schemaCase{name: "resources/read empty text and blob with _meta", message: "JSONRPCResultResponse", result: "ReadResourceResult",
			produce: schemaFeatureCall("resources/read", `{"uri":"test://items/many"}`)},
		schemaCase{name: "resources/read not found", message: "JSONRPCErrorResponse", code: jsonrpc.CodeResourceNotFound,
			produce: schemaFeatureCall("resources/read", `{"uri":"test://nope"}`)},
		schemaCase{name: "resources/read without uri", message: "JSONRPCErrorResponse", code: jsonrpc.CodeInvalidParams,
			produce: schemaFeatureCall("resources/read", `{}`)},
		schemaCase{name: "resources/subscribe", message: "JSONRPCResultResponse", result: "EmptyResult",
			produce: schemaFeatureCall("resources/subscribe", `{"uri":"test://text"}`)},
		schemaCase{name: "resources/subscribe to an unknown URI", message: "JSONRPCErrorResponse", code: jsonrpc.CodeResourceNotFound,
			produce: schemaFeatureCall("resources/subscribe", `{"uri":"test://nope"}`)},
		schemaCase{name: "resources/unsubscribe", message: "JSONRPCResultResponse", result: "EmptyResult",
			produce: schemaFeatureCall("resources/unsubscribe", `{"uri":"test://text"}`)},
		schemaCase{name: "notifications/resources/updated", message: "ResourceUpdatedNotification", method: "notifications/resources/updated",
			produce: func(t *testing.T) []byte {
				srv := schemaFeatureServer(t, nil)
				c := schemaReady(t, srv)
				c.call("resources/subscribe", `{"uri":"test://items/7"}`)
				if err := srv.ResourceUpdated(context.Background(), "test://items/7"); err != nil {
					t.Fatal(err)
				}
				return c.read()
			}},
		schemaCase{name: "notifications/resources/list_changed", message: "ResourceListChangedNotification", method: "notifications/resources/list_changed",
			produce: func(t *testing.T) []byte {
				srv := schemaFeatureServer(t, nil)
				c := schemaReady(t, srv)
				srv.RemoveResources("test://bare")
				return c.read()
			}},
		schemaCase{name: "notifications/resources/list_changed for a template", message: "ResourceListChangedNotification", method: "notifications/resources/list_changed",
			produce: func(t *testing.T) []byte {
				srv := schemaFeatureServer(t, nil)
				c := schemaReady(t, srv)
				srv.RemoveResourceTemplates("test://items/{id}")
				return c.read()
			}},

		// Prompts (https://modelcontextprotocol.io/specification/2025-11-25/server/prompts).
		schemaCase{name: "prompts/list with every field", message: "JSONRPCResultResponse", result: "ListPromptsResult",
			produce: schemaFeatureCall("prompts/list", "")},
		schemaCase{name: "prompts/list page with nextCursor", message: "JSONRPCResultResponse", result: "ListPromptsResult",
			produce: func(t *testing.T) []byte {
				frame := schemaReady(t, schemaFeatureServer(t, &mcp.ServerOptions{PageSize: 1})).call("prompts/list", "")
				if !strings.Contains(string(frame), `"nextCursor":`) {
					t.Errorf("no nextCursor in %s", frame)
				}
				return frame
			}},
		schemaCase{name: "prompts/get with every kind of content", message: "JSONRPCResultResponse", result: "GetPromptResult",
			produce: schemaFeatureCall("prompts/get", `{"name":"everything","arguments":{"topic":"tests"}}`)},
		schemaCase{name: "prompts/get typed", message: "JSONRPCResultResponse", result: "GetPromptResult",
			produce: schemaFeatureCall("prompts/get", `{"name":"typed","arguments":{"name":"Ada"},"_meta":{"progressToken":"p"}}`)},
		schemaCase{name: "prompts/get unknown prompt", message: "JSONRPCErrorResponse", code: jsonrpc.CodeInvalidParams,
			produce: schemaFeatureCall("prompts/get", `{"name":"nope"}`)},
		schemaCase{name: "prompts/get missing a required argument", message: "JSONRPCErrorResponse", code: jsonrpc.CodeInvalidParams,
			produce: schemaFeatureCall("prompts/get", `{"name":"everything","arguments":{"tone":"dry"}}`)},
		schemaCase{name: "notifications/prompts/list_changed", message: "PromptListChangedNotification", method: "notifications/prompts/list_changed",
			produce: func(t *testing.T) []byte {
				srv := schemaFeatureServer(t, nil)
				c := schemaReady(t, srv)
				srv.RemovePrompts("typed")
				return c.read()
			}},

		// Completion (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion).
		schemaCase{name: "completion/complete for a prompt argument", message: "JSONRPCResultResponse", result: "CompleteResult",
			produce: schemaFeatureCall("completion/complete", `{"ref":{"type":"ref/prompt","name":"everything"},"argument":{"name":"topic","value":"a"}}`)},
		schemaCase{name: "completion/complete with no values", message: "JSONRPCResultResponse", result: "CompleteResult",
			produce: schemaFeatureCall("completion/complete", `{"ref":{"type":"ref/prompt","name":"everything"},"argument":{"name":"tone","value":"zzz"},"context":{"arguments":{"topic":"x"}}}`)},
		schemaCase{name: "completion/complete cut at 100, with total and hasMore", message: "JSONRPCResultResponse", result: "CompleteResult",
			produce: func(t *testing.T) []byte {
				frame := schemaReady(t, schemaFeatureServer(t, nil)).call("completion/complete", `{"ref":{"type":"ref/prompt","name":"everything"},"argument":{"name":"topic","value":"many"}}`)
				if !strings.Contains(string(frame), `"total":150,"hasMore":true`) {
					t.Errorf("no total and hasMore in %s", frame)
				}
				return frame
			}},
		schemaCase{name: "completion/complete for a template variable", message: "JSONRPCResultResponse", result: "CompleteResult",
			produce: schemaFeatureCall("completion/complete", `{"ref":{"type":"ref/resource","uri":"test://items/{id}"},"argument":{"name":"id","value":"b"}}`)},
		schemaCase{name: "completion/complete unknown ref", message: "JSONRPCErrorResponse", code: jsonrpc.CodeInvalidParams,
			produce: schemaFeatureCall("completion/complete", `{"ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"x","value":""}}`)},
		schemaCase{name: "completion/complete without a handler", message: "JSONRPCErrorResponse", code: jsonrpc.CodeMethodNotFound,
			produce: schemaAfterInit(func(c *schemaConn) []byte {
				return c.call("completion/complete", `{"ref":{"type":"ref/prompt","name":"x"},"argument":{"name":"x","value":""}}`)
			})},

		// Messages the Client sends.
		schemaCase{name: "client resources/list", message: "ListResourcesRequest", method: "resources/list",
			produce: schemaClientCall(`{"resources":[]}`, func(ctx context.Context, cs *mcp.ClientSession) error {
				_, err := cs.ListResources(ctx, nil)
				return err
			})},
		schemaCase{name: "client resources/list with a cursor", message: "ListResourcesRequest", method: "resources/list",
			produce: schemaClientCall(`{"resources":[]}`, func(ctx context.Context, cs *mcp.ClientSession) error {
				_, err := cs.ListResources(ctx, &mcp.PaginatedParams{Cursor: "c2"})
				return err
			})},
		schemaCase{name: "client resources/templates/list", message: "ListResourceTemplatesRequest", method: "resources/templates/list",
			produce: schemaClientCall(`{"resourceTemplates":[]}`, func(ctx context.Context, cs *mcp.ClientSession) error {
				_, err := cs.ListResourceTemplates(ctx, &mcp.PaginatedParams{Cursor: "c2"})
				return err
			})},
		schemaCase{name: "client resources/read", message: "ReadResourceRequest", method: "resources/read",
			produce: schemaClientCall(`{"contents":[]}`, func(ctx context.Context, cs *mcp.ClientSession) error {
				_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://x", Variables: map[string]string{"never": "sent"}})
				return err
			})},
		schemaCase{name: "client resources/subscribe", message: "SubscribeRequest", method: "resources/subscribe",
			produce: schemaClientCall(`{}`, func(ctx context.Context, cs *mcp.ClientSession) error {
				return cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://x"})
			})},
		schemaCase{name: "client resources/unsubscribe", message: "UnsubscribeRequest", method: "resources/unsubscribe",
			produce: schemaClientCall(`{}`, func(ctx context.Context, cs *mcp.ClientSession) error {
				return cs.Unsubscribe(ctx, &mcp.SubscribeParams{URI: "test://x"})
			})},
		schemaCase{name: "client prompts/list", message: "ListPromptsRequest", method: "prompts/list",
			produce: schemaClientCall(`{"prompts":[]}`, func(ctx context.Context, cs *mcp.ClientSession) error {
				_, err := cs.ListPrompts(ctx, nil)
				return err
			})},
		schemaCase{name: "client prompts/get with arguments", message: "GetPromptRequest", method: "prompts/get",
			produce: schemaClientCall(`{"messages":[]}`, func(ctx context.Context, cs *mcp.ClientSession) error {
				_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "p", Arguments: map[string]string{"a": "1", "b": ""}})
				return err
			})},
		schemaCase{name: "client prompts/get without arguments", message: "GetPromptRequest", method: "prompts/get",
			produce: schemaClientCall(`{"messages":[]}`, func(ctx context.Context, cs *mcp.ClientSession) error {
				_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "p"})
				return err
			})},
		schemaCase{name: "client completion/complete for a prompt, with context", message: "CompleteRequest", method: "completion/complete",
			produce: schemaClientCall(`{"completion":{"values":[]}}`, func(ctx context.Context, cs *mcp.ClientSession) error {
				_, err := cs.Complete(ctx, &mcp.CompleteParams{
					Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "p", Title: "P"},
					Argument: mcp.CompleteArgument{Name: "a", Value: ""},
					Context:  &mcp.CompleteContext{Arguments: map[string]string{"b": "x"}},
				})
				return err
			})},
		schemaCase{name: "client completion/complete for a template", message: "CompleteRequest", method: "completion/complete",
			produce: schemaClientCall(`{"completion":{"values":[]}}`, func(ctx context.Context, cs *mcp.ClientSession) error {
				_, err := cs.Complete(ctx, &mcp.CompleteParams{
					Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "file:///{path}"},
					Argument: mcp.CompleteArgument{Name: "path", Value: "src/"},
				})
				return err
			})},
	)
}
