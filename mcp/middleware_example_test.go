package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// metrics counts messages by direction, method and outcome, and adds up
// how long they took: what a Prometheus or OpenTelemetry middleware would
// record, without touching any handler.
type metrics struct {
	mu      sync.Mutex
	counts  map[string]int
	elapsed map[string]time.Duration
}

func (m *metrics) record(key string, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.counts[key]++
	m.elapsed[key] += d
}

func outcome(err error) string {
	if err != nil {
		return "error"
	}
	return "ok"
}

// received measures every request and notification a server receives.
func (m *metrics) received(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, r *mcp.Request) (any, error) {
		start := time.Now()
		res, err := next(ctx, r)
		m.record("server received "+r.Method+" "+outcome(err), time.Since(start))
		return res, err
	}
}

// sent measures every request and notification a server or client sends;
// for a request, until its answer.
func (m *metrics) sent(next mcp.SendHandler) mcp.SendHandler {
	return func(ctx context.Context, msg *mcp.SentMessage) (json.RawMessage, error) {
		side := "server"
		if msg.ClientSession != nil {
			side = "client"
		}
		start := time.Now()
		res, err := next(ctx, msg)
		m.record(side+" sent "+msg.Method+" "+outcome(err), time.Since(start))
		return res, err
	}
}

// This example adds metrics to both sides with middleware: the server's
// Middleware and SendingMiddleware, and the client's SendingMiddleware.
func Example_metricsMiddleware() {
	m := &metrics{counts: map[string]int{}, elapsed: map[string]time.Duration{}}
	server := mcp.NewServer(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, &mcp.ServerOptions{
		Middleware:        []mcp.Middleware{m.received},
		SendingMiddleware: []mcp.SendingMiddleware{m.sent},
	})
	type args struct {
		Name string `json:"name"`
	}
	err := mcp.AddTool(server, &mcp.Tool{Name: "greet", Description: "Greets someone."},
		func(ctx context.Context, req *mcp.Request, in args) (string, error) {
			if err := req.ReportProgress(ctx, 1, 2, "thinking"); err != nil {
				return "", err
			}
			if err := req.ReportProgress(ctx, 2, 2, "done"); err != nil {
				return "", err
			}
			return "Hello, " + in.Name + "!", nil
		})
	if err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	clientT, serverT := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverT)
	if err != nil {
		log.Fatal(err)
	}
	client := mcp.NewClient(mcp.Implementation{Name: "client", Version: "1.0.0"}, &mcp.ClientOptions{
		ProtocolEra:       mcp.EraSession, // a session, as the counts below show
		SendingMiddleware: []mcp.SendingMiddleware{m.sent},
	})
	cs, err := client.Connect(ctx, clientT)
	if err != nil {
		log.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{
		Meta:      &mcp.RequestMeta{ProgressToken: jsonrpc.StringID("greet-1")},
		Name:      "greet",
		Arguments: json.RawMessage(`{"name":"Ada"}`),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "missing"}); err != nil {
		fmt.Println(err)
	}
	cs.Close()
	ss.Wait()

	keys := make([]string, 0, len(m.counts))
	for k := range m.counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	fmt.Println(strings.Repeat("-", 10))
	for _, k := range keys {
		fmt.Printf("%s: %d\n", k, m.counts[k])
	}
	// Output:
	// Hello, Ada!
	// jsonrpc error -32602: Invalid params: "Unknown tool: missing"
	// ----------
	// client sent initialize ok: 1
	// client sent notifications/initialized ok: 1
	// client sent tools/call error: 1
	// client sent tools/call ok: 1
	// server received initialize ok: 1
	// server received notifications/initialized ok: 1
	// server received tools/call error: 1
	// server received tools/call ok: 1
	// server sent notifications/progress ok: 2
}
