// Command client is mcpkit's client under the official MCP conformance
// suite (https://github.com/modelcontextprotocol/conformance). The suite
// starts a mock server for one scenario and runs
//
//	client <serverURL>
//
// with MCP_CONFORMANCE_SCENARIO naming the scenario; the client connects
// with mcp.Client over mcphttp.ClientTransport, does what the scenario
// asks, and exits 0. conformance/run.sh passes it to `conformance client
// --command`. An unknown scenario, or one the client cannot perform yet,
// exits 1 with the reason on stderr, so the suite records a failure that
// conformance/baseline.yml must list.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// scenario performs one conformance scenario against the mock server at
// url.
type scenario func(ctx context.Context, url string) error

// scenarios are the client scenarios of the suite's 2025-11-25 and
// 2026-07-28 revisions that need no authorization
// (`conformance list --client --spec-version 2025-11-25`, and
// 2026-07-28; the 2026-07-28 ones are in modern.go).
var scenarios = map[string]scenario{
	"initialize":                          initialize,
	"tools_call":                          toolsCall,
	"sse-retry":                           sseRetry,
	"json-schema-2020-12-preservation":    schemaPreservation,
	"elicitation-sep1034-client-defaults": elicitationDefaults,
	"request-metadata":                    requestMetadata,
	"sep-2322-client-request-state":       requestState,
	"http-standard-headers":               standardHeaders,
	"http-custom-headers":                 customHeaders,
	"http-invalid-tool-headers":           invalidToolHeaders,
	"json-schema-ref-no-deref":            refNoDeref,
}

func main() {
	name := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	if len(os.Args) < 2 || name == "" {
		fmt.Fprintln(os.Stderr, "usage: MCP_CONFORMANCE_SCENARIO=<name> client [args...] <serverURL>")
		os.Exit(2)
	}
	url := os.Args[len(os.Args)-1] // the suite always appends the URL last
	run, ok := scenarios[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "client: scenario %q is not implemented\n", name)
		os.Exit(1)
	}
	// The suite's own timeout is 30 s per scenario; stay well inside it.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := run(ctx, url); err != nil {
		fmt.Fprintf(os.Stderr, "client: %s: %v\n", name, err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "client: %s: done\n", name)
}

// logger writes the transport's and client's diagnostics to stderr, which
// the suite keeps with the scenario's results.
var logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))

// connect opens a session with the mock server and, when it is a
// session-era session and the server gave a session id, waits until the
// server has answered the transport's standalone GET stream.
//
// mcphttp's client transport opens that stream once
// notifications/initialized has been accepted and itself waits, at most
// 2 s, for the server to answer the GET before sending
// notifications/initialized returns, so Client.Connect usually returns
// after the GET was answered. This wait (at most 5 s) covers a mock that
// takes longer to answer it: if a request reached the server before the
// GET, two mocks of the suite would misbehave: the TypeScript SDK server
// of elicitation-sep1034-client-defaults drops the elicitation/create it
// sends outside the tools/call (it has no stream to put it on yet), and
// the sse-retry mock takes the late standalone GET for the reconnection it
// waits for (and answers the tool call on it). Waiting makes the order the
// one the TypeScript client produces in practice: GET first, then the
// scenario's requests.
//
// The era is the one the run is about: MCP_CONFORMANCE_PROTOCOL_VERSION
// 2026-07-28 leaves ClientOptions.ProtocolEra at EraAuto (the mocks of
// that revision answer server/discover, so the session is stateless);
// any other version pins EraSession, since the mocks of the session-era
// scenarios answer server/discover too.
func connect(ctx context.Context, url string, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	if opts == nil {
		opts = &mcp.ClientOptions{}
	}
	opts.Logger = logger
	if opts.ProtocolEra == mcp.EraAuto && os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION") != mcp.Version20260728 {
		opts.ProtocolEra = mcp.EraSession
	}
	rt := &getWatcher{next: http.DefaultTransport, answered: make(chan struct{})}
	c := mcp.NewClient(mcp.Implementation{Name: "mcpkit-conformance-client", Version: "0.1.0"}, opts)
	cs, err := c.Connect(ctx, &mcphttp.ClientTransport{URL: url, Logger: logger, HTTPClient: &http.Client{Transport: rt}})
	if err != nil {
		return nil, err
	}
	if !cs.Stateless() && rt.session.Load() {
		// A stateless-era session opens no GET stream (the 2026-07-28
		// mocks send Mcp-Session-Id all the same). Bounded: if no GET
		// is ever answered, go on after 5 s.
		t := time.NewTimer(5 * time.Second)
		defer t.Stop()
		select {
		case <-rt.answered:
		case <-t.C:
			logger.Warn("the standalone GET stream was not answered within 5 s")
		case <-ctx.Done():
			cs.Close()
			return nil, ctx.Err()
		}
	}
	return cs, nil
}

// getWatcher is an http.RoundTripper that notes whether the server issued
// a session id (only then does the transport open the GET stream) and when
// the first GET is answered, with any status.
type getWatcher struct {
	next     http.RoundTripper
	session  atomic.Bool
	once     sync.Once
	answered chan struct{}
}

func (w *getWatcher) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := w.next.RoundTrip(req)
	if err == nil && resp.Header.Get("Mcp-Session-Id") != "" {
		w.session.Store(true)
	}
	if req.Method == http.MethodGet {
		w.once.Do(func() { close(w.answered) })
	}
	return resp, err
}

// initialize: the handshake, then tools/list. The mock answers
// notifications/initialized with a body and refuses the GET stream; both
// must be tolerated.
func initialize(ctx context.Context, url string) error {
	cs, err := connect(ctx, url, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	return nil
}

// tools_call: call add_numbers on a stateless mock server.
func toolsCall(ctx context.Context, url string) error {
	cs, err := connect(ctx, url, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add_numbers", Arguments: json.RawMessage(`{"a":5,"b":3}`)})
	if err != nil {
		return fmt.Errorf("tools/call add_numbers: %w", err)
	}
	if res.IsError {
		return errors.New("tools/call add_numbers: the tool reported an error")
	}
	return nil
}

// sse-retry: the mock closes the POST's SSE stream after a priming event
// with retry: 500; the transport must wait that long, resume with GET and
// Last-Event-ID, and receive the result there.
func sseRetry(ctx context.Context, url string) error {
	cs, err := connect(ctx, url, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_reconnection", Arguments: json.RawMessage(`{}`)}); err != nil {
		return fmt.Errorf("tools/call test_reconnection: %w", err)
	}
	return nil
}

// json-schema-2020-12-preservation: the input schema of
// json_schema_2020_12_tool, as received, is sent back to json_schema_echo;
// the suite checks that no keyword was lost. mcp.Tool keeps schemas as
// raw JSON, so nothing is.
func schemaPreservation(ctx context.Context, url string) error {
	cs, err := connect(ctx, url, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	var schema json.RawMessage
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		if tool.Name == "json_schema_2020_12_tool" {
			schema = tool.InputSchema
		}
	}
	if schema == nil {
		return errors.New("tools/list: no json_schema_2020_12_tool")
	}
	args, err := json.Marshal(map[string]json.RawMessage{"schema": schema})
	if err != nil {
		return err
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "json_schema_echo", Arguments: args}); err != nil {
		return fmt.Errorf("tools/call json_schema_echo: %w", err)
	}
	return nil
}
