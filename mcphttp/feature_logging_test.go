package mcphttp_test

// Logging over Streamable HTTP: logging/setLevel on the session, and log
// messages sent by a handler arriving on the request's SSE stream before
// its result
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging).

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"regexp"
	"slices"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// featureServe serves s over Streamable HTTP with opts until the test
// ends, and connects a client with copts to it.
func featureServe(t *testing.T, s *mcp.Server, opts *mcphttp.Options, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	h := mcphttp.NewHandler(s, opts)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		h.Close()
	})
	cs, err := mcp.NewClient(mcp.Implementation{Name: "feature-client", Version: "1"}, legacyEra(copts)).
		Connect(context.Background(), &mcphttp.ClientTransport{URL: ts.URL})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// timeMember matches the "time" member LoggingHandler puts first in its
// data, so that the rest can be compared exactly.
var timeMember = regexp.MustCompile(`"time":"[^"]*",`)

func TestLoggingOverHTTP(t *testing.T) {
	s := mcp.NewServer(mcp.Implementation{Name: "logging", Version: "1"}, &mcp.ServerOptions{Logging: &mcp.LoggingOptions{}})
	if err := mcp.AddTool(s, &mcp.Tool{Name: "work", Description: "Logs three times."},
		func(ctx context.Context, req *mcp.Request, _ struct{}) (string, error) {
			for i, l := range []mcp.LoggingLevel{mcp.LevelDebug, mcp.LevelInfo, mcp.LevelError} {
				if err := req.Log(ctx, l, "work", fmt.Sprintf("step %d", i)); err != nil {
					return "", err
				}
			}
			slog.New(mcp.NewLoggingHandler(req.Session, nil)).WarnContext(ctx, "via slog")
			return "done", nil
		}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []string
	cs := featureServe(t, s, nil, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, m *mcp.LoggingMessageParams) {
			mu.Lock()
			got = append(got, fmt.Sprintf("%s %s %s", m.Level, m.Logger, timeMember.ReplaceAll(m.Data, nil)))
			mu.Unlock()
		},
	})
	ctx := context.Background()
	if err := cs.SetLogLevel(ctx, &mcp.SetLevelParams{Level: mcp.LevelDebug}); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "work"})
	if err != nil || res.IsError {
		t.Fatalf("CallTool = %+v, %v", res, err)
	}
	// Every message came on the POST's SSE stream, before the result.
	mu.Lock()
	defer mu.Unlock()
	want := []string{`debug work "step 0"`, `info work "step 1"`, `error work "step 2"`, `warning  {"msg":"via slog"}`}
	if !slices.Equal(got, want) {
		t.Errorf("messages before the result = %q, want %q", got, want)
	}
}
