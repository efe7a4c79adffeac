package mcp_test

// The client side of resources, prompts and completion: a real Client
// against a real Server over the in-memory transport.

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// newFeatureServer returns a server with static resources test://a,
// test://b and test://c, a template test://items/{id}, prompts p1..p3 (p1
// typed with a required argument "topic"), and a completion handler.
func newFeatureServer(t *testing.T, opts *mcp.ServerOptions) *mcp.Server {
	t.Helper()
	if opts == nil {
		opts = &mcp.ServerOptions{}
	}
	opts.CompletionHandler = func(_ context.Context, _ *mcp.Request, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
		prefix := p.Argument.Value
		if p.Context != nil && p.Context.Arguments["style"] == "loud" {
			prefix = strings.ToUpper(prefix)
		}
		return mcp.CompletionValues([]string{"go", "gopher", "GO", "GOPHER", "rust"}, prefix), nil
	}
	s := mcp.NewServer(serverTestInfo, opts)
	for _, n := range []string{"c", "a", "b"} {
		if err := s.AddResource(&mcp.Resource{URI: "test://" + n, Name: n, MIMEType: "text/plain"},
			func(_ context.Context, _ *mcp.Request, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{Text: "contents of " + p.URI}}}, nil
			}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://items/{id}", Name: "item"},
		func(_ context.Context, _ *mcp.Request, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{MIMEType: "application/octet-stream", Blob: "aWQ=", Meta: mcp.Meta{"id": []byte(`"` + p.Variables["id"] + `"`)}}}}, nil
		}); err != nil {
		t.Fatal(err)
	}
	type topicArgs struct {
		Topic string `json:"topic" description:"what to write about"`
		Style string `json:"style,omitempty"`
	}
	if err := mcp.AddPrompt(s, &mcp.Prompt{Name: "p1", Description: "Writes about a topic."},
		func(_ context.Context, _ *mcp.Request, in topicArgs) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Description: "p1 for " + in.Topic, Messages: []*mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "Write about " + in.Topic}},
				{Role: mcp.RoleAssistant, Content: &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://a", MIMEType: "text/plain", Text: "a"}}},
				{Role: mcp.RoleUser, Content: &mcp.ResourceLink{URI: "test://b", Name: "b"}},
				{Role: mcp.RoleUser, Content: &mcp.AudioContent{Data: "AA==", MIMEType: "audio/wav"}},
			}}, nil
		}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"p3", "p2"} {
		if err := s.AddPrompt(&mcp.Prompt{Name: n}, func(context.Context, *mcp.Request, *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
			return nil, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestClientResources(t *testing.T) {
	p := connectClient(t, newFeatureServer(t, &mcp.ServerOptions{PageSize: 2}), nil)
	ctx := context.Background()
	jsonEqual(t, "capabilities", p.cs.ServerCapabilities(),
		`{"completions":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true}}`)

	page, err := p.cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Resources) != 2 || page.Resources[0].URI != "test://a" || page.NextCursor == "" {
		t.Fatalf("first page = %+v", page)
	}
	page, err = p.cs.ListResources(ctx, &mcp.PaginatedParams{Cursor: page.NextCursor})
	if err != nil || len(page.Resources) != 1 || page.Resources[0].URI != "test://c" || page.NextCursor != "" {
		t.Fatalf("second page = %+v, %v", page, err)
	}
	var uris []string
	for r, err := range p.cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		uris = append(uris, r.URI)
	}
	if got := strings.Join(uris, " "); got != "test://a test://b test://c" {
		t.Errorf("Resources = %s", got)
	}
	var templates []string
	for rt, err := range p.cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		templates = append(templates, rt.URITemplate)
	}
	if got := strings.Join(templates, " "); got != "test://items/{id}" {
		t.Errorf("ResourceTemplates = %s", got)
	}
	if res, err := p.cs.ListResourceTemplates(ctx, nil); err != nil || len(res.ResourceTemplates) != 1 || res.ResourceTemplates[0].Name != "item" {
		t.Errorf("ListResourceTemplates = %+v, %v", res, err)
	}

	res, err := p.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://b"})
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "text read", res, `{"contents":[{"uri":"test://b","mimeType":"text/plain","text":"contents of test://b"}]}`)
	res, err = p.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://items/9"})
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "blob read", res, `{"contents":[{"uri":"test://items/9","mimeType":"application/octet-stream","blob":"aWQ=","_meta":{"id":"9"}}]}`)

	_, err = p.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://zzz"})
	wantRPCError(t, err, jsonrpc.CodeResourceNotFound, "Resource not found", `{"uri":"test://zzz"}`)
	if !errors.Is(err, &jsonrpc.Error{Code: jsonrpc.CodeResourceNotFound}) {
		t.Errorf("errors.Is(err, -32002) = false for %v", err)
	}
	for name, err := range map[string]error{
		"ReadResource(nil)": func() error { _, err := p.cs.ReadResource(ctx, nil); return err }(),
		"Subscribe(nil)":    p.cs.Subscribe(ctx, nil),
		"Unsubscribe(nil)":  p.cs.Unsubscribe(ctx, &mcp.SubscribeParams{}),
	} {
		if err == nil || !strings.Contains(err.Error(), "URI are required") {
			t.Errorf("%s = %v, want an error asking for the URI", name, err)
		}
	}
}

func TestClientResourceNotifications(t *testing.T) {
	s := newFeatureServer(t, nil)
	type event struct{ kind, uri string }
	events := make(chan event, 16)
	p := connectClient(t, s, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedParams) {
			events <- event{"updated", p.URI}
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ClientSession) { events <- event{"resources", ""} },
		PromptListChangedHandler:   func(context.Context, *mcp.ClientSession) { events <- event{"prompts", ""} },
	})
	other := connectClient(t, s, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedParams) {
			events <- event{"other updated", p.URI}
		},
	})
	ctx := context.Background()
	if err := p.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://a"}); err != nil {
		t.Fatal(err)
	}
	if err := p.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://items/1"}); err != nil {
		t.Fatal(err)
	}
	if got := p.ss.State().Subscriptions; !slices.Equal(got, []string{"test://a", "test://items/1"}) {
		t.Errorf("server-side subscriptions = %q", got)
	}
	if err := s.ResourceUpdated(ctx, "test://a"); err != nil {
		t.Fatal(err)
	}
	if e := recvWithin(t, events, "resources/updated"); e != (event{"updated", "test://a"}) {
		t.Errorf("event = %v", e)
	}
	if err := p.cs.Unsubscribe(ctx, &mcp.SubscribeParams{URI: "test://a"}); err != nil {
		t.Fatal(err)
	}
	if err := s.ResourceUpdated(ctx, "test://a"); err != nil {
		t.Fatal(err)
	}
	if err := s.ResourceUpdated(ctx, "test://items/1"); err != nil {
		t.Fatal(err)
	}
	// Notifications arrive in order: test://a is not announced again.
	if e := recvWithin(t, events, "resources/updated"); e != (event{"updated", "test://items/1"}) {
		t.Errorf("event = %v", e)
	}
	// An unknown URI cannot be subscribed to.
	err := p.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://zzz"})
	wantRPCError(t, err, jsonrpc.CodeResourceNotFound, "Resource not found", `{"uri":"test://zzz"}`)

	s.RemoveResources("test://c")
	if e := recvWithin(t, events, "resources/list_changed"); e != (event{"resources", ""}) {
		t.Errorf("event = %v", e)
	}
	s.RemovePrompts("p3")
	if e := recvWithin(t, events, "prompts/list_changed"); e != (event{"prompts", ""}) {
		t.Errorf("event = %v", e)
	}
	// The other session subscribed to nothing and heard nothing.
	if err := other.cs.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if got := drain(events); len(got) != 0 {
		t.Errorf("unexpected events %v", got)
	}
}

func TestClientPrompts(t *testing.T) {
	p := connectClient(t, newFeatureServer(t, &mcp.ServerOptions{PageSize: 2}), nil)
	ctx := context.Background()
	var names []string
	for pr, err := range p.cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, pr.Name)
	}
	if got := strings.Join(names, " "); got != "p1 p2 p3" {
		t.Errorf("Prompts = %s", got)
	}
	page, err := p.cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "first page's p1", page.Prompts[0], `{"name":"p1","description":"Writes about a topic.","arguments":[{"name":"topic","description":"what to write about","required":true},{"name":"style"}]}`)

	res, err := p.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "p1", Arguments: map[string]string{"topic": "gophers"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 4 {
		t.Fatalf("messages = %+v", res.Messages)
	}
	// Content blocks decode to their types.
	if c, ok := res.Messages[0].Content.(*mcp.TextContent); !ok || c.Text != "Write about gophers" || res.Messages[0].Role != mcp.RoleUser {
		t.Errorf("message 0 = %+v", res.Messages[0])
	}
	if c, ok := res.Messages[1].Content.(*mcp.EmbeddedResource); !ok || c.Resource.URI != "test://a" || res.Messages[1].Role != mcp.RoleAssistant {
		t.Errorf("message 1 = %+v", res.Messages[1])
	}
	if _, ok := res.Messages[2].Content.(*mcp.ResourceLink); !ok {
		t.Errorf("message 2 = %+v", res.Messages[2])
	}
	if _, ok := res.Messages[3].Content.(*mcp.AudioContent); !ok {
		t.Errorf("message 3 = %+v", res.Messages[3])
	}
	jsonEqual(t, "GetPrompt result", res, `{"description":"p1 for gophers","messages":[`+
		`{"role":"user","content":{"type":"text","text":"Write about gophers"}},`+
		`{"role":"assistant","content":{"type":"resource","resource":{"uri":"test://a","mimeType":"text/plain","text":"a"}}},`+
		`{"role":"user","content":{"type":"resource_link","uri":"test://b","name":"b"}},`+
		`{"role":"user","content":{"type":"audio","data":"AA==","mimeType":"audio/wav"}}]}`)

	_, err = p.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "p1"})
	wantRPCError(t, err, jsonrpc.CodeInvalidParams, "Invalid params", `"Missing required argument for prompt p1: topic"`)
	_, err = p.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "zzz"})
	wantRPCError(t, err, jsonrpc.CodeInvalidParams, "Invalid params", `"Unknown prompt: zzz"`)
	if _, err := p.cs.GetPrompt(ctx, nil); err == nil {
		t.Error("GetPrompt(nil) succeeded")
	}
}

func TestClientComplete(t *testing.T) {
	p := connectClient(t, newFeatureServer(t, nil), nil)
	ctx := context.Background()
	res, err := p.cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "p1"},
		Argument: mcp.CompleteArgument{Name: "topic", Value: "go"},
	})
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "completion", res, `{"completion":{"values":["go","gopher"],"total":2}}`)
	res, err = p.cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "p1"},
		Argument: mcp.CompleteArgument{Name: "topic", Value: "go"},
		Context:  &mcp.CompleteContext{Arguments: map[string]string{"style": "loud"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "completion with context", res, `{"completion":{"values":["GO","GOPHER"],"total":2}}`)
	res, err = p.cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "test://items/{id}"},
		Argument: mcp.CompleteArgument{Name: "id", Value: "r"},
	})
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "template completion", res, `{"completion":{"values":["rust"],"total":1}}`)
	_, err = p.cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/other"},
		Argument: mcp.CompleteArgument{Name: "x"},
	})
	wantRPCError(t, err, jsonrpc.CodeInvalidParams, "Invalid params", `"unknown ref type \"ref/other\": want ref/prompt or ref/resource"`)
	if _, err := p.cs.Complete(ctx, nil); err == nil {
		t.Error("Complete(nil) succeeded")
	}
}
