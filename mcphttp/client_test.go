package mcphttp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

type clientEchoIn struct {
	Text string `json:"text"`
}

// clientTestServer serves an mcp.Server with an echo tool, a tool that
// reports progress, and a tool that calls back into the client.
func clientTestServer(t *testing.T, opts *Options) (*mcp.Server, *Handler, *httptest.Server) {
	t.Helper()
	s := mcp.NewServer(mcp.Implementation{Name: "http-client-test", Version: "1"}, nil)
	if err := mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo"}, func(_ context.Context, _ *mcp.Request, in clientEchoIn) (string, error) {
		return in.Text, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := mcp.AddTool(s, &mcp.Tool{Name: "progress", Description: "reports progress"}, func(ctx context.Context, r *mcp.Request, _ struct{}) (string, error) {
		for i := range 3 {
			if err := r.ReportProgress(ctx, float64(i), 3, ""); err != nil {
				return "", err
			}
		}
		return "done", nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := mcp.AddTool(s, &mcp.Tool{Name: "pingback", Description: "pings the client"}, func(ctx context.Context, r *mcp.Request, _ struct{}) (string, error) {
		if err := r.Session.Ping(ctx); err != nil {
			return "", err
		}
		return "pinged", nil
	}); err != nil {
		t.Fatal(err)
	}
	h := NewHandler(s, opts)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		h.Close()
	})
	return s, h, ts
}

// sessionEra returns opts (nil for the zero options) pinned to the session
// era unless they name an era: the tests that use it are about sessions.
func sessionEra(opts *mcp.ClientOptions) *mcp.ClientOptions {
	var o mcp.ClientOptions
	if opts != nil {
		o = *opts
	}
	if o.ProtocolEra == mcp.EraAuto {
		o.ProtocolEra = mcp.EraSession
	}
	return &o
}

func connectHTTP(t *testing.T, url string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(mcp.Implementation{Name: "test-client", Version: "1"}, sessionEra(opts))
	cs, err := c.Connect(context.Background(), &ClientTransport{URL: url})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	return cs
}

func callEcho(t *testing.T, cs *mcp.ClientSession, text string) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: []byte(`{"text":"` + text + `"}`)})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("CallTool result = %+v", res)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

func TestClientTransportModes(t *testing.T) {
	for _, mode := range []struct {
		name string
		opts *Options
	}{
		{"sse", nil},
		{"json", &Options{JSONResponse: true}},
		{"stateless", &Options{Stateless: true}},
		{"resumable", &Options{EventStore: &MemoryEventStore{}}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			_, h, ts := clientTestServer(t, mode.opts)
			cs := connectHTTP(t, ts.URL, nil)
			if got := cs.ProtocolVersion(); got != mcp.LatestVersion {
				t.Errorf("negotiated %q, want %q", got, mcp.LatestVersion)
			}
			if got := callEcho(t, cs, "hi"); got != "hi" {
				t.Errorf("echo = %q, want hi", got)
			}
			var tools []string
			for tool, err := range cs.Tools(context.Background(), nil) {
				if err != nil {
					t.Fatal(err)
				}
				tools = append(tools, tool.Name)
			}
			if len(tools) != 3 {
				t.Errorf("tools = %v, want 3", tools)
			}
			if err := cs.Ping(context.Background()); err != nil {
				t.Errorf("Ping: %v", err)
			}
			wantSessions := 1
			if mode.opts != nil && mode.opts.Stateless {
				wantSessions = 0
			}
			if n := h.SessionCount(); n != wantSessions {
				t.Errorf("sessions before Close = %d, want %d", n, wantSessions)
			}
			if err := cs.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if n := h.SessionCount(); n != 0 {
				t.Errorf("sessions after Close (DELETE) = %d, want 0", n)
			}
		})
	}
}

func TestClientTransportProgressArrivesBeforeResult(t *testing.T) {
	_, _, ts := clientTestServer(t, nil)
	var mu sync.Mutex
	var got []float64
	cs := connectHTTP(t, ts.URL, &mcp.ClientOptions{
		ProgressHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ProgressParams) {
			mu.Lock()
			got = append(got, p.Progress)
			mu.Unlock()
		},
	})
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{
		Meta: &mcp.RequestMeta{ProgressToken: jsonrpc.StringID("tok")},
		Name: "progress",
	})
	if err != nil || res.IsError {
		t.Fatalf("CallTool: %v %+v", err, res)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 || got[0] != 0 || got[2] != 2 {
		t.Errorf("progress seen before the result = %v, want [0 1 2]", got)
	}
}

func TestClientTransportAnswersServerRequests(t *testing.T) {
	_, _, ts := clientTestServer(t, nil)
	cs := connectHTTP(t, ts.URL, nil)
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "pingback"})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || res.Content[0].(*mcp.TextContent).Text != "pinged" {
		t.Errorf("pingback = %+v", res)
	}
}

func TestClientTransportSessionExpired(t *testing.T) {
	s, _, ts := clientTestServer(t, nil)
	cs := connectHTTP(t, ts.URL, nil)
	defer cs.Close()
	// Someone else ends the session, as the reaper or an operator would.
	sessions := s.Sessions()
	if len(sessions) != 1 {
		t.Fatalf("server has %d sessions, want 1", len(sessions))
	}
	req, _ := http.NewRequest(http.MethodDelete, ts.URL, nil)
	req.Header.Set("Mcp-Session-Id", sessions[0].ID())
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %v %v", err, resp)
	}
	resp.Body.Close()
	_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: []byte(`{"text":"x"}`)})
	if !errors.Is(err, ErrSessionExpired) {
		t.Fatalf("CallTool after the session ended: %v, want ErrSessionExpired", err)
	}
	var se *StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusNotFound || se.RPCError == nil || se.RPCError.Code != jsonrpc.CodeSessionNotFound {
		t.Errorf("error = %#v, want a 404 StatusError with -32001", err)
	}
}

func TestClientTransportRefusedInitialize(t *testing.T) {
	_, _, ts := clientTestServer(t, &Options{MaxSessions: 1})
	cs := connectHTTP(t, ts.URL, nil)
	defer cs.Close()
	c := mcp.NewClient(mcp.Implementation{Name: "second", Version: "1"}, sessionEra(nil))
	_, err := c.Connect(context.Background(), &ClientTransport{URL: ts.URL})
	var se *StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("second Connect = %v, want a 503 StatusError", err)
	}
}
