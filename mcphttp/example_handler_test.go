package mcphttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// This example mounts a Handler on an http.Server with the limits a
// public server wants, on both sides of the handler: the http.Server's own
// timeouts and header cap (which the Handler cannot set), and the
// Handler's Options. A client then calls a tool over HTTP, and the server
// shuts down gracefully: the Handler first, as it ends the streams that
// http.Server.Shutdown would otherwise wait for.
func ExampleNewHandler() {
	server := mcp.NewServer(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	type greetArgs struct {
		Name string `json:"name"`
	}
	err := mcp.AddTool(server, &mcp.Tool{Name: "greet"}, func(_ context.Context, _ *mcp.Request, in greetArgs) (string, error) {
		return "Hello, " + in.Name + "!", nil
	})
	if err != nil {
		log.Fatal(err)
	}

	h := mcphttp.NewHandler(server, &mcphttp.Options{
		MaxSessions:     1000,             // one more initialize: 503 with Retry-After
		IdleTimeout:     10 * time.Minute, // a session without requests for that long is closed
		MaxBodyBytes:    1 << 20,          // a larger POST body: 413
		BodyReadTimeout: 10 * time.Second, // a body slower than that: 408
		WriteTimeout:    10 * time.Second, // a client that stops reading is cut off
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second, // slow headers (Slowloris)
		IdleTimeout:       2 * time.Minute,  // idle keep-alive connections
		MaxHeaderBytes:    256 << 10,
		// No ReadTimeout or WriteTimeout: they would cut SSE streams,
		// which the Handler bounds itself (BodyReadTimeout, WriteTimeout).
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	ctx := context.Background()
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	client := mcp.NewClient(mcp.Implementation{Name: "example-client", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, &mcphttp.ClientTransport{URL: "http://" + ln.Addr().String() + "/mcp", HTTPClient: hc})
	if err != nil {
		log.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: json.RawMessage(`{"name":"Ada"}`)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	cs.Close()

	// On SIGTERM, say: stop taking work, let requests in flight finish
	// for up to 10 seconds, then stop the http.Server.
	shutdownCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := errors.Join(h.Shutdown(shutdownCtx), srv.Shutdown(shutdownCtx)); err != nil {
		log.Fatal(err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
	fmt.Println("stopped")
	// Output:
	// Hello, Ada!
	// stopped
}
