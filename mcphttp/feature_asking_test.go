package mcphttp_test

// Sampling, elicitation and roots over Streamable HTTP: the server's
// request goes out on the SSE stream of the POST whose handler sends it,
// and the client's answer comes back in a POST of its own
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server).

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// askHTTPServer returns a server with one tool, "ask", that runs f and
// answers its text (an error becomes a tool error).
func askHTTPServer(t *testing.T, opts *mcp.ServerOptions, f func(ctx context.Context, req *mcp.Request) (string, error)) *mcp.Server {
	t.Helper()
	s := mcp.NewServer(mcp.Implementation{Name: "asking", Version: "1"}, opts)
	if err := s.AddTool(&mcp.Tool{Name: "ask", Description: "Asks the client."}, func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		text, err := f(ctx, req)
		if err != nil {
			return nil, errors.New(err.Error()) // always a tool error
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	return s
}

// askHTTPServe serves s over Streamable HTTP with opts until the test
// ends, and connects a client with copts to it.
func askHTTPServe(t *testing.T, s *mcp.Server, opts *mcphttp.Options, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	h := mcphttp.NewHandler(s, opts)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		h.Close()
	})
	cs, err := mcp.NewClient(mcp.Implementation{Name: "asking-client", Version: "1"}, legacyEra(copts)).
		Connect(context.Background(), &mcphttp.ClientTransport{URL: ts.URL})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// askHTTPCall calls "ask" and returns its text and whether it failed.
func askHTTPCall(t *testing.T, cs *mcp.ClientSession) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask"})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("CallTool = %+v", res)
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

func TestSamplingOverHTTP(t *testing.T) {
	s := askHTTPServer(t, nil, func(ctx context.Context, req *mcp.Request) (string, error) {
		res, err := req.CreateMessage(ctx, &mcp.CreateMessageParams{
			Messages:  []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.TextContent{Text: "What is 2+2?"}}}},
			MaxTokens: 10,
		})
		if err != nil {
			return "", err
		}
		return res.Model + ": " + res.Content[0].(*mcp.TextContent).Text, nil
	})
	for _, mode := range []struct {
		name string
		opts *mcphttp.Options
	}{
		{"sse", nil},
		{"resumable", &mcphttp.Options{EventStore: &mcphttp.MemoryEventStore{}}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			cs := askHTTPServe(t, s, mode.opts, &mcp.ClientOptions{
				CreateMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
					return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: mcp.SamplingContents{&mcp.TextContent{Text: "4"}}, Model: "m-1"}, nil
				},
			})
			if text, isErr := askHTTPCall(t, cs); isErr || text != "m-1: 4" {
				t.Errorf("tool = %q (isError %v), want %q", text, isErr, "m-1: 4")
			}
		})
	}
}

// TestSamplingOverHTTPRefused: in JSON response mode no server-to-client
// request can be answered, and a stateless session knows no client
// capabilities; a client without sampling gets nothing.
func TestSamplingOverHTTPRefused(t *testing.T) {
	hi := &mcp.CreateMessageParams{
		Messages:  []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.TextContent{Text: "hi"}}}},
		MaxTokens: 10,
	}
	handler := func(context.Context, *mcp.ClientSession, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: mcp.SamplingContents{&mcp.TextContent{Text: "x"}}, Model: "m"}, nil
	}
	for _, tc := range []struct {
		name  string
		opts  *mcphttp.Options
		copts *mcp.ClientOptions
		want  string
	}{
		{"json response mode", &mcphttp.Options{JSONResponse: true}, &mcp.ClientOptions{CreateMessageHandler: handler},
			"mcp: sending sampling/createMessage: mcphttp: server-to-client requests cannot be answered on this reply (stateless mode, JSON response mode, or initialize)"},
		{"stateless", &mcphttp.Options{Stateless: true}, &mcp.ClientOptions{CreateMessageHandler: handler},
			"mcp: sampling/createMessage not sent: the client did not declare the sampling capability"},
		{"client without sampling", nil, nil,
			"mcp: sampling/createMessage not sent: the client did not declare the sampling capability"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := askHTTPServer(t, nil, func(ctx context.Context, req *mcp.Request) (string, error) {
				_, err := req.CreateMessage(ctx, hi)
				return "", err
			})
			cs := askHTTPServe(t, s, tc.opts, tc.copts)
			if text, isErr := askHTTPCall(t, cs); !isErr || text != tc.want {
				t.Errorf("tool = %q (isError %v), want the error %q", text, isErr, tc.want)
			}
		})
	}
}

func TestElicitationOverHTTP(t *testing.T) {
	sessions := make(chan *mcp.ServerSession, 1)
	s := askHTTPServer(t, nil, func(ctx context.Context, req *mcp.Request) (string, error) {
		sessions <- req.Session
		form, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "Your name?", RequestedSchema: &mcp.ElicitSchema{
			Properties: []mcp.ElicitProperty{{Name: "name", Schema: &mcp.PrimitiveSchema{Type: "string"}}},
			Required:   []string{"name"},
		}})
		if err != nil {
			return "", err
		}
		url, err := req.Elicit(ctx, &mcp.ElicitParams{Mode: mcp.ElicitationModeURL, Message: "Connect.", ElicitationID: "e-1", URL: "https://example.com/connect?id=e-1"})
		if err != nil {
			return "", err
		}
		return form.Action + " " + string(form.Content) + ", " + url.Action, nil
	})
	completed := make(chan string, 1)
	cs := askHTTPServe(t, s, nil, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ClientSession, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: json.RawMessage(`{"name":"Ada"}`)}, nil
		},
		URLElicitationHandler: func(context.Context, *mcp.ClientSession, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept}, nil
		},
		ElicitationCompleteHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ElicitationCompleteParams) {
			completed <- p.ElicitationID
		},
	})
	if text, isErr := askHTTPCall(t, cs); isErr || text != `accept {"name":"Ada"}, accept` {
		t.Fatalf("tool = %q (isError %v)", text, isErr)
	}
	// Outside any request, the completion goes on the GET stream.
	if err := (<-sessions).NotifyElicitationComplete(context.Background(), "e-1"); err != nil {
		t.Fatal(err)
	}
	if id := <-completed; id != "e-1" {
		t.Errorf("completed %q, want e-1", id)
	}
}

func TestRootsOverHTTP(t *testing.T) {
	listed := make(chan string, 1)
	s := askHTTPServer(t, &mcp.ServerOptions{
		RootsListChangedHandler: func(_ context.Context, ss *mcp.ServerSession) {
			go func() {
				// Outside a handler, roots/list goes on the GET stream.
				res, err := ss.ListRoots(context.Background(), nil)
				if err != nil {
					listed <- err.Error()
					return
				}
				listed <- res.Roots[0].URI
			}()
		},
	}, func(ctx context.Context, req *mcp.Request) (string, error) {
		res, err := req.ListRoots(ctx, nil)
		if err != nil {
			return "", err
		}
		return res.Roots[0].URI + " " + res.Roots[0].Name, nil
	})
	client := mcp.NewClient(mcp.Implementation{Name: "roots-client", Version: "1"}, &mcp.ClientOptions{
		ProtocolEra: mcp.EraSession,
		Roots:       []*mcp.Root{{URI: "file:///project", Name: "Project"}},
	})
	h := mcphttp.NewHandler(s, nil)
	// Outside a request the server can reach the client only on the GET
	// stream, which the client opens after initialization: wait for it.
	watch := &rpGetStarted{Handler: h, started: make(chan struct{}, 4)}
	ts := httptest.NewServer(watch)
	t.Cleanup(func() {
		ts.Close()
		h.Close()
	})
	cs, err := client.Connect(context.Background(), &mcphttp.ClientTransport{URL: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	select {
	case <-watch.started:
	case <-time.After(rpWatchdog):
		t.Fatal("the client opened no GET stream")
	}
	if text, isErr := askHTTPCall(t, cs); isErr || text != "file:///project Project" {
		t.Fatalf("tool = %q (isError %v)", text, isErr)
	}
	if err := client.SetRoots(context.Background(), &mcp.Root{URI: "file:///other"}); err != nil {
		t.Fatal(err)
	}
	if got := <-listed; got != "file:///other" {
		t.Errorf("after list_changed the server listed %q, want file:///other", got)
	}
}

// TestSamplingOnThePOSTStream follows the bytes: the sampling request is
// an SSE event of the tools/call POST, the client's answer is a POST of
// its own (202), and the tool's result then ends the first stream.
func TestSamplingOnThePOSTStream(t *testing.T) {
	s := askHTTPServer(t, nil, func(ctx context.Context, req *mcp.Request) (string, error) {
		res, err := req.CreateMessage(ctx, &mcp.CreateMessageParams{
			Messages:  []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.TextContent{Text: "hi"}}}},
			MaxTokens: 7,
		})
		if err != nil {
			return "", err
		}
		return res.Content[0].(*mcp.TextContent).Text, nil
	})
	h := mcphttp.NewHandler(s, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		h.Close()
	})
	post := func(sid, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"raw","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if sid == "" {
		t.Fatalf("initialize: no session id (status %d)", resp.StatusCode)
	}
	resp = post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: status %d, want 202", resp.StatusCode)
	}

	call := post(sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask"}}`)
	defer call.Body.Close()
	if ct := call.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("tools/call Content-Type %q, want text/event-stream", ct)
	}
	events := bufio.NewReader(call.Body)
	first := askSSEData(t, events)
	if want := `{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":7}}`; first != want {
		t.Fatalf("first event on the POST stream:\n\t%s\nwant\n\t%s", first, want)
	}
	answer := post(sid, `{"jsonrpc":"2.0","id":1,"result":{"role":"assistant","content":{"type":"text","text":"hello back"},"model":"raw-model"}}`)
	answer.Body.Close()
	if answer.StatusCode != http.StatusAccepted {
		t.Errorf("the client's answer: status %d, want 202", answer.StatusCode)
	}
	if got, want := askSSEData(t, events), `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hello back"}]}}`; got != want {
		t.Errorf("second event:\n\t%s\nwant\n\t%s", got, want)
	}
	if rest, _ := io.ReadAll(events); strings.TrimSpace(string(rest)) != "" {
		t.Errorf("the stream went on after the result: %q", rest)
	}
	del, _ := http.NewRequest(http.MethodDelete, ts.URL, nil)
	del.Header.Set("Mcp-Session-Id", sid)
	if resp, err := http.DefaultClient.Do(del); err == nil {
		resp.Body.Close()
	}
}

// askSSEData returns the data of the next SSE event that has some.
func askSSEData(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	var data []string
	for {
		line, err := r.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		case line == "" && len(data) > 0:
			return strings.Join(data, "\n")
		}
		if err != nil {
			t.Fatalf("the SSE stream ended (%v) before an event with data", err)
		}
	}
}
