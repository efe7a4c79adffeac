// Command http-server serves MCP over Streamable HTTP: a static resource,
// a resource template, a prompt with arguments, and a tool that logs and
// reports its progress. It listens on 127.0.0.1 only, logs its URL on
// stderr, and shuts down gracefully on Ctrl-C:
//
//	go run ./examples/http-server                 # serves http://127.0.0.1:8080/mcp
//	go run ./examples/progress-client -url http://127.0.0.1:8080/mcp
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// ReviewArgs are the prompt's arguments: each string field is one, and
// omitempty makes it optional.
type ReviewArgs struct {
	Code     string `json:"code" description:"the code to review"`
	Language string `json:"language,omitempty" description:"its programming language"`
}

// CountdownArgs is the tool's input; its JSON Schema is inferred from the type.
type CountdownArgs struct {
	From int `json:"from" jsonschema:"the number to count down from, 1 to 10"`
}

// countdown counts down one step at a time, telling the client how far it
// got. ReportProgress sends nothing unless the client asked for progress
// (a progressToken in the request); Log sends nothing unless the client's
// log level lets the message through.
func countdown(ctx context.Context, req *mcp.Request, in CountdownArgs) (string, error) {
	if in.From < 1 || in.From > 10 {
		return "", fmt.Errorf("from must be between 1 and 10, not %d", in.From)
	}
	if err := req.Log(ctx, mcp.LevelInfo, "countdown", fmt.Sprintf("counting down from %d", in.From)); err != nil {
		return "", err
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for i := 1; i <= in.From; i++ {
		select {
		case <-tick.C:
		case <-ctx.Done(): // the client cancelled, or the session ended
			return "", ctx.Err()
		}
		msg := fmt.Sprintf("%d left", in.From-i)
		if err := req.ReportProgress(ctx, float64(i), float64(in.From), msg); err != nil {
			return "", err
		}
	}
	return "Liftoff!", nil
}

func newServer() (*mcp.Server, error) {
	s := mcp.NewServer(mcp.Implementation{Name: "http-server", Version: "1.0.0"}, &mcp.ServerOptions{
		// Declares the logging capability, so that handlers may send logs.
		Logging: &mcp.LoggingOptions{},
	})

	// A static resource: one URI, one handler.
	err := s.AddResource(&mcp.Resource{
		URI: "example://about", Name: "about", MIMEType: "text/plain",
		Description: "What this server is.",
	}, func(_ context.Context, _ *mcp.Request, _ *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		// Contents without a URI or MIME type get the resource's.
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{Text: "An example MCP server built with mcpkit."},
		}}, nil
	})
	if err != nil {
		return nil, err
	}

	// A resource template: every URI it matches, with its variables.
	err = s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: "example://greetings/{name}", Name: "greeting", MIMEType: "text/plain",
		Description: "A greeting for anyone.",
	}, func(_ context.Context, _ *mcp.Request, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{Text: "Hello, " + p.Variables["name"] + "!"},
		}}, nil
	})
	if err != nil {
		return nil, err
	}

	// A prompt whose arguments are the fields of ReviewArgs. A missing
	// required argument is refused before the handler runs.
	err = mcp.AddPrompt(s, &mcp.Prompt{Name: "review", Description: "Asks for a code review."},
		func(_ context.Context, _ *mcp.Request, in ReviewArgs) (*mcp.GetPromptResult, error) {
			text := fmt.Sprintf("Please review this %s:\n\n%s", cmp.Or(in.Language, "code"), in.Code)
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: text}},
			}}, nil
		})
	if err != nil {
		return nil, err
	}

	err = mcp.AddTool(s, &mcp.Tool{Name: "countdown", Description: "Counts down, reporting its progress."}, countdown)
	return s, err
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen on `host:port` (port 0 picks a free port)")
	flag.Parse()

	s, err := newServer()
	if err != nil {
		log.Fatal(err)
	}
	// The handler serves any number of sessions; mount it on any path.
	h := mcphttp.NewHandler(s, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Printf("listening on http://%s/mcp", ln.Addr())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		log.Fatal(err)
	case <-ctx.Done(): // Ctrl-C
	}

	// Close ends the sessions (their open streams finish), then Shutdown
	// waits for the requests in flight.
	h.Close()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		log.Fatal(err)
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
	log.Print("stopped")
}
