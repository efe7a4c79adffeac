package mcphttp_test

// Resources, prompts and completion over Streamable HTTP, mcpkit client
// against mcpkit server: reads, subscriptions whose updates arrive on the
// GET stream, prompts, completion and list_changed
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources,
// https://modelcontextprotocol.io/specification/2025-11-25/server/prompts,
// https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion).

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// rpWatchdog turns a hang into a failure; nothing asserts on time.
const rpWatchdog = 30 * time.Second

// rpGetStarted wraps a handler and signals, once per GET, when the GET's
// response has started: by then the session's standalone stream is set
// and carried, so that a message the server sends outside any request
// reaches the client.
type rpGetStarted struct {
	http.Handler
	started chan struct{}
}

func (g *rpGetStarted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		w = &rpStartedWriter{ResponseWriter: w, started: g.started}
	}
	g.Handler.ServeHTTP(w, r)
}

type rpStartedWriter struct {
	http.ResponseWriter
	once    sync.Once
	started chan<- struct{}
}

func (s *rpStartedWriter) signal() { s.once.Do(func() { s.started <- struct{}{} }) }

func (s *rpStartedWriter) WriteHeader(code int) {
	s.ResponseWriter.WriteHeader(code)
	s.signal()
}

func (s *rpStartedWriter) Write(b []byte) (int, error) {
	n, err := s.ResponseWriter.Write(b)
	s.signal()
	return n, err
}

func (s *rpStartedWriter) Flush() {
	_ = http.NewResponseController(s.ResponseWriter).Flush()
	s.signal()
}

func (s *rpStartedWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// rpServer has a text resource, a blob resource, a template, a typed
// prompt and a completion handler.
func rpServer(t *testing.T) *mcp.Server {
	t.Helper()
	s := mcp.NewServer(mcp.Implementation{Name: "http-features", Version: "1"}, &mcp.ServerOptions{
		CompletionHandler: func(_ context.Context, _ *mcp.Request, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
			candidates := []string{"north", "south", "east", "west"}
			if p.Context != nil && p.Context.Arguments["planet"] == "mars" {
				candidates = []string{"olympus", "valles"}
			}
			return mcp.CompletionValues(candidates, p.Argument.Value), nil
		},
	})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.AddResource(&mcp.Resource{URI: "test://text", Name: "text", MIMEType: "text/plain"},
		func(context.Context, *mcp.Request, *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{Text: "hello over http"}}}, nil
		}))
	must(s.AddResource(&mcp.Resource{URI: "test://blob", Name: "blob", MIMEType: "image/png"},
		func(context.Context, *mcp.Request, *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{Blob: "aGVsbG8="}}}, nil
		}))
	must(s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://weather/{planet}/{region}", Name: "weather"},
		func(_ context.Context, _ *mcp.Request, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{Text: "sunny in " + p.Variables["region"] + " of " + p.Variables["planet"]}}}, nil
		}))
	type forecastArgs struct {
		Planet string `json:"planet" description:"Which planet"`
		Region string `json:"region,omitempty"`
	}
	must(mcp.AddPrompt(s, &mcp.Prompt{Name: "forecast", Description: "Asks for a forecast."},
		func(_ context.Context, _ *mcp.Request, in forecastArgs) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "Forecast for " + in.Planet + "/" + in.Region}},
			}}, nil
		}))
	return s
}

// rpServe serves s over Streamable HTTP and connects a client with copts;
// it returns once the client's GET stream is open.
func rpServe(t *testing.T, s *mcp.Server, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	h := mcphttp.NewHandler(s, nil)
	watch := &rpGetStarted{Handler: h, started: make(chan struct{}, 4)}
	ts := httptest.NewServer(watch)
	cs, err := mcp.NewClient(mcp.Implementation{Name: "http-client", Version: "1"}, legacyEra(copts)).
		Connect(context.Background(), &mcphttp.ClientTransport{URL: ts.URL})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		ts.Close()
		h.Close()
	})
	select {
	case <-watch.started:
	case <-time.After(rpWatchdog):
		t.Fatal("the client opened no GET stream")
	}
	return cs
}

func rpRecv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(rpWatchdog):
		t.Fatalf("waiting for %s: nothing after %v", what, rpWatchdog)
	}
	var zero T
	return zero
}

func TestResourcesOverHTTP(t *testing.T) {
	s := rpServer(t)
	updates := make(chan string, 8)
	changed := make(chan string, 8)
	cs := rpServe(t, s, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedParams) {
			updates <- p.URI
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ClientSession) { changed <- "resources" },
	})
	ctx := context.Background()

	var uris []string
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		uris = append(uris, r.URI)
	}
	if len(uris) != 2 || uris[0] != "test://blob" || uris[1] != "test://text" {
		t.Errorf("resources = %v", uris)
	}
	tmpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate != "test://weather/{planet}/{region}" {
		t.Errorf("templates = %+v, %v", tmpl, err)
	}
	for uri, want := range map[string]mcp.ResourceContents{
		"test://text":                 {URI: "test://text", MIMEType: "text/plain", Text: "hello over http"},
		"test://blob":                 {URI: "test://blob", MIMEType: "image/png", Blob: "aGVsbG8="},
		"test://weather/mars/tharsis": {URI: "test://weather/mars/tharsis", Text: "sunny in tharsis of mars"},
	} {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("ReadResource %s: %v", uri, err)
		}
		if len(res.Contents) != 1 || !reflect.DeepEqual(*res.Contents[0], want) {
			t.Errorf("ReadResource %s = %+v, want %+v", uri, res.Contents, want)
		}
	}
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://nope"})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeResourceNotFound || rpcErr.Message != "Resource not found" || string(rpcErr.Data) != `{"uri":"test://nope"}` {
		t.Errorf("reading an unknown URI: %v", err)
	}

	// Updates of a subscribed resource arrive on the GET stream.
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://text"}); err != nil {
		t.Fatal(err)
	}
	if err := s.ResourceUpdated(ctx, "test://blob"); err != nil { // not subscribed
		t.Fatal(err)
	}
	if err := s.ResourceUpdated(ctx, "test://text"); err != nil {
		t.Fatal(err)
	}
	if got := rpRecv(t, updates, "resources/updated"); got != "test://text" {
		t.Errorf("updated %q, want test://text", got)
	}
	if err := cs.Unsubscribe(ctx, &mcp.SubscribeParams{URI: "test://text"}); err != nil {
		t.Fatal(err)
	}
	if err := s.ResourceUpdated(ctx, "test://text"); err != nil {
		t.Fatal(err)
	}
	// list_changed travels on the same stream, after anything sent before.
	s.RemoveResources("test://blob")
	if got := rpRecv(t, changed, "resources/list_changed"); got != "resources" {
		t.Errorf("changed %q", got)
	}
	select {
	case u := <-updates:
		t.Errorf("an update after unsubscribing: %s", u)
	default:
	}
}

func TestPromptsAndCompletionOverHTTP(t *testing.T) {
	s := rpServer(t)
	changed := make(chan string, 8)
	cs := rpServe(t, s, &mcp.ClientOptions{
		PromptListChangedHandler: func(context.Context, *mcp.ClientSession) { changed <- "prompts" },
	})
	ctx := context.Background()
	list, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(list.Prompts) != 1 || len(list.Prompts[0].Arguments) != 2 || !list.Prompts[0].Arguments[0].Required || list.Prompts[0].Arguments[1].Required {
		t.Fatalf("prompts = %+v, %v", list, err)
	}
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "forecast", Arguments: map[string]string{"planet": "mars", "region": "north"}})
	if err != nil {
		t.Fatal(err)
	}
	if text, ok := res.Messages[0].Content.(*mcp.TextContent); !ok || text.Text != "Forecast for mars/north" || res.Messages[0].Role != mcp.RoleUser {
		t.Errorf("messages = %+v", res.Messages)
	}
	_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "forecast"})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || string(rpcErr.Data) != `"Missing required argument for prompt forecast: planet"` {
		t.Errorf("a missing argument: %v", err)
	}

	comp, err := cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "forecast"},
		Argument: mcp.CompleteArgument{Name: "region", Value: "no"},
	})
	if err != nil || len(comp.Completion.Values) != 1 || comp.Completion.Values[0] != "north" {
		t.Errorf("prompt completion = %+v, %v", comp, err)
	}
	comp, err = cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "test://weather/{planet}/{region}"},
		Argument: mcp.CompleteArgument{Name: "region", Value: "o"},
		Context:  &mcp.CompleteContext{Arguments: map[string]string{"planet": "mars"}},
	})
	if err != nil || len(comp.Completion.Values) != 1 || comp.Completion.Values[0] != "olympus" {
		t.Errorf("template completion = %+v, %v", comp, err)
	}

	s.RemovePrompts("forecast")
	if got := rpRecv(t, changed, "prompts/list_changed"); got != "prompts" {
		t.Errorf("changed %q", got)
	}
}
