// Command server is the MCP server the interop tests drive with the
// TypeScript SDK's clients: mcpkit's reference server (the one `mcpkit
// serve` runs, internal/everything) plus a few tools that only the interop
// checks need:
//
//   - interop_structured returns structuredContent under an inferred
//     outputSchema, which the TypeScript client validates;
//   - interop_slow reports progress once it runs, then blocks until the
//     client cancels it (or 30 s pass), and
//     interop_cancelled reports how a given interop_slow call ended, so a
//     client can see that its notifications/cancelled reached the handler;
//   - interop_touch_watched announces a change of test://watched-resource
//     (notifications/resources/updated to the sessions subscribed to it,
//     and to the subscriptions/listen streams that asked for it);
//   - interop_rounds asks the client for input in two rounds, an
//     elicitation, then a sampling request and the roots together: three
//     server-to-client requests in the session era, two input_required
//     results in the 2026-07-28 era;
//   - interop_region echoes an argument marked x-mcp-header, and the
//     Mcp-Param-Region header in which an HTTP client of the 2026-07-28
//     era mirrors it.
//
// It serves stdio by default, or Streamable HTTP with --http ADDR (ADDR
// may use port 0), logging "url=http://HOST:PORT/mcp" on stderr once it
// listens, like `mcpkit serve --http`; the 2024-11-05 HTTP+SSE transport
// is served beside it at /sse and /messages, logged on the same line as
// "sse=http://HOST:PORT/sse".
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpkit/mcpkit/internal/everything"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
	"github.com/mcpkit/mcpkit/mcpsse"
)

func main() {
	httpAddr := flag.String("http", "", "serve Streamable HTTP on `ADDR` instead of stdio")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	s := everything.NewServer(&everything.Options{ServerOptions: &mcp.ServerOptions{Logger: logger}})
	addInteropTools(s)
	addTouchTool(s)
	addModernTools(s)

	var err error
	if *httpAddr != "" {
		err = serveHTTP(ctx, s, *httpAddr, logger)
	} else {
		err = s.Run(ctx, &mcp.StdioTransport{})
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "interop server:", err)
		os.Exit(1)
	}
}

// serveHTTP serves s as `mcpkit serve --http` does (sessions, SSE replies,
// resumable streams) until ctx ends.
func serveHTTP(ctx context.Context, s *mcp.Server, addr string, logger *slog.Logger) error {
	h := mcphttp.NewHandler(s, &mcphttp.Options{EventStore: &mcphttp.MemoryEventStore{}, Logger: logger})
	defer h.Close()
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	sse := mcpsse.NewHandler(s, &mcpsse.Options{MessagePath: "/messages", Logger: logger})
	defer sse.Close()
	mux.Handle("/sse", sse)
	mux.Handle("/messages", sse)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(os.Stderr, "interop server: url=http://%s/mcp sse=http://%s/sse\n", ln.Addr(), ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	h.Close()
	sse.Close()
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdown)
	<-done
	return nil
}

// StructuredArgs is the input of interop_structured.
type StructuredArgs struct {
	A int `json:"a" jsonschema:"first operand"`
	B int `json:"b" jsonschema:"second operand"`
}

// StructuredResult is the output of interop_structured: structuredContent,
// with an outputSchema inferred from the type.
type StructuredResult struct {
	Sum     int `json:"sum"`
	Product int `json:"product"`
}

// SlowArgs names one interop_slow call, so that interop_cancelled can ask
// about it.
type SlowArgs struct {
	ID string `json:"id" jsonschema:"a name for this call"`
}

// slowCalls records how each interop_slow call ended.
type slowCalls struct {
	mu    sync.Mutex
	calls map[string]*slowCall
}

type slowCall struct {
	done    chan struct{} // closed when the handler returns
	outcome string
}

func (c *slowCalls) get(id string) *slowCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	sc := c.calls[id]
	if sc == nil {
		sc = &slowCall{done: make(chan struct{})}
		c.calls[id] = sc
	}
	return sc
}

func addInteropTools(s *mcp.Server) {
	must(mcp.AddTool(s, &mcp.Tool{
		Name:        "interop_structured",
		Description: "Adds and multiplies two integers; the result is structuredContent (interop fixture).",
	}, func(_ context.Context, _ *mcp.Request, in StructuredArgs) (StructuredResult, error) {
		return StructuredResult{Sum: in.A + in.B, Product: in.A * in.B}, nil
	}))

	slow := &slowCalls{calls: map[string]*slowCall{}}
	must(mcp.AddTool(s, &mcp.Tool{
		Name:        "interop_slow",
		Description: "Reports progress 0 once it runs, then waits until the call is cancelled, or 30 seconds (interop fixture).",
	}, func(ctx context.Context, req *mcp.Request, in SlowArgs) (string, error) {
		sc := slow.get(in.ID)
		defer close(sc.done)
		// Tells the client the handler runs, so it can cancel now.
		if err := req.ReportProgress(ctx, 0, 0, "started"); err != nil {
			return "", err
		}
		t := time.NewTimer(30 * time.Second)
		defer t.Stop()
		select {
		case <-ctx.Done():
			sc.outcome = "cancelled"
			return "", ctx.Err()
		case <-t.C:
			sc.outcome = "finished"
			return "finished", nil
		}
	}))
	must(mcp.AddTool(s, &mcp.Tool{
		Name:        "interop_cancelled",
		Description: "Waits (up to 10 seconds) for the interop_slow call with this id to end and says how it ended: cancelled or finished (interop fixture).",
	}, func(ctx context.Context, _ *mcp.Request, in SlowArgs) (string, error) {
		sc := slow.get(in.ID)
		t := time.NewTimer(10 * time.Second)
		defer t.Stop()
		select {
		case <-sc.done:
			return sc.outcome, nil
		case <-t.C:
			return "still running", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}))
}

// TouchArgs is the (empty) input of interop_touch_watched.
type TouchArgs struct{}

func addTouchTool(s *mcp.Server) {
	must(mcp.AddTool(s, &mcp.Tool{
		Name:        "interop_touch_watched",
		Description: "Announces that test://watched-resource changed, to the sessions subscribed to it (interop fixture).",
	}, func(ctx context.Context, _ *mcp.Request, _ TouchArgs) (string, error) {
		if err := s.ResourceUpdated(ctx, everything.WatchedURI); err != nil {
			return "", err
		}
		return "touched", nil
	}))
}

// RoundsArgs is the (empty) input of interop_rounds.
type RoundsArgs struct{}

func addModernTools(s *mcp.Server) {
	must(mcp.AddTool(s, &mcp.Tool{
		Name:        "interop_rounds",
		Description: "Asks for a name (elicitation), then for a sampled greeting and the roots together, and reports all three answers (interop fixture).",
	}, func(ctx context.Context, req *mcp.Request, _ RoundsArgs) (string, error) {
		// Round one. In the stateless era the handler runs again from the
		// top with each retry, and finds this answer in the requestState.
		first, err := req.Input(ctx, map[string]*mcp.InputRequest{
			"name": mcp.ElicitationInput(&mcp.ElicitParams{
				Message: "Your name?",
				RequestedSchema: &mcp.ElicitSchema{
					Properties: []mcp.ElicitProperty{{Name: "name", Schema: &mcp.PrimitiveSchema{Type: "string"}}},
					Required:   []string{"name"},
				},
			}),
		})
		if err != nil {
			return "", err
		}
		answer, err := first.Elicitation("name")
		if err != nil {
			return "", err
		}
		var form struct {
			Name string `json:"name"`
		}
		if answer.Action != mcp.ElicitActionAccept || json.Unmarshal(answer.Content, &form) != nil {
			return "elicitation " + answer.Action, nil
		}
		// Round two: two requests at once.
		second, err := req.Input(ctx, map[string]*mcp.InputRequest{
			"greeting": mcp.SamplingInput(&mcp.CreateMessageParams{
				Messages: []*mcp.SamplingMessage{{
					Role:    mcp.RoleUser,
					Content: mcp.SamplingContents{&mcp.TextContent{Text: "Greet " + form.Name}},
				}},
				MaxTokens: 20,
			}),
			"roots": mcp.RootsInput(),
		})
		if err != nil {
			return "", err
		}
		sampled, err := second.Sampling("greeting")
		if err != nil {
			return "", err
		}
		text := ""
		for _, c := range sampled.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				text = t.Text
			}
		}
		roots, err := second.Roots("roots")
		if err != nil {
			return "", err
		}
		uris := make([]string, len(roots.Roots))
		for i, r := range roots.Roots {
			uris[i] = r.URI
		}
		return fmt.Sprintf("name=%s; greeting=%s; roots=%s", form.Name, text, strings.Join(uris, ",")), nil
	}))

	must(s.AddTool(&mcp.Tool{
		Name:        "interop_region",
		Description: "Returns its region argument and, over HTTP, the Mcp-Param-Region header that clients of the 2026-07-28 era send with it (interop fixture).",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]}`),
	}, func(_ context.Context, req *mcp.Request, args json.RawMessage) (*mcp.CallToolResult, error) {
		var in struct {
			Region string `json:"region"`
		}
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, err
		}
		text := "region=" + in.Region
		if req.Extra != nil {
			if h, ok := req.Extra.Header["Mcp-Param-Region"]; ok {
				text += "; header=" + strings.Join(h, ",")
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	}))
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
