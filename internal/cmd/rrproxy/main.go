// Command rrproxy serves a round-robin reverse proxy (package rrproxy) in
// front of replicas of an MCP server, for the conformance suite and the
// benchmarks: every request goes to the next backend in turn.
//
//	rrproxy -listen 127.0.0.1:0 http://127.0.0.1:8081 http://127.0.0.1:8082 ...
//
// It prints "rrproxy: listening on http://ADDR" once it accepts connections,
// and serves until SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpkit/mcpkit/internal/rrproxy"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "the `ADDR` to listen on")
	flag.Parse()
	if err := run(*listen, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "rrproxy:", err)
		os.Exit(1)
	}
}

func run(listen string, backends []string) error {
	p, err := rrproxy.New(backends...)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	fmt.Printf("rrproxy: listening on http://%s\n", ln.Addr())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
