package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/internal/everything"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// serveFlags are the options of `mcpkit serve`: stdio by default, or
// Streamable HTTP with --http ADDR.
type serveFlags struct {
	logLevel       slog.Level
	httpAddr       string
	path           string
	stateless      bool
	jsonResponse   bool
	maxSessions    int
	idleTimeout    time.Duration
	allowedOrigins stringList
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func (f *serveFlags) flagSet() *flag.FlagSet {
	fs := newFlagSet("serve")
	fs.TextVar(&f.logLevel, "log-level", slog.LevelInfo, "log `LEVEL` on stderr: debug, info, warn or error")
	fs.StringVar(&f.httpAddr, "http", "", "serve Streamable HTTP on `ADDR` (such as 127.0.0.1:8080) instead of stdio")
	fs.StringVar(&f.path, "path", "/mcp", "with --http, the `PATH` of the MCP endpoint")
	fs.BoolVar(&f.stateless, "stateless", false, "with --http, keep no sessions: every POST stands alone")
	fs.BoolVar(&f.jsonResponse, "json-response", false, "with --http, answer POSTs with one JSON body instead of an SSE stream")
	fs.IntVar(&f.maxSessions, "max-sessions", mcphttp.DefaultMaxSessions, "with --http, the most sessions open at once")
	fs.DurationVar(&f.idleTimeout, "idle-timeout", mcphttp.DefaultIdleTimeout, "with --http, close sessions idle this long (negative: never)")
	fs.Var(&f.allowedOrigins, "allowed-origin", "with --http, also accept requests with this Origin `URL` (repeatable)")
	return fs
}

// serve runs the reference server until its input ends or ctx is done.
// Logs go to stderr through slog: stdout belongs to the protocol.
func serve(ctx context.Context, e *env, args []string) error {
	var f serveFlags
	positional, err := parseFlags(f.flagSet(), args)
	if err != nil {
		return err
	}
	if len(positional) > 0 {
		return usagef("serve: unexpected argument %q", positional[0])
	}
	logger := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: f.logLevel}))
	s := everything.NewServer(&everything.Options{ServerOptions: &mcp.ServerOptions{Logger: logger}})
	if f.httpAddr != "" {
		return serveHTTP(ctx, s, &f, logger)
	}
	t := &mcp.StdioTransport{In: e.stdin, Out: e.stdout}
	logger.Info("mcpkit serve: serving the reference server", "transport", "stdio", "server", everything.Name, "version", everything.Version)

	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, t) }()
	select {
	case err = <-done:
	case <-ctx.Done():
		// A read from the process's stdin cannot be interrupted; the
		// process is about to exit anyway.
		logger.Info("mcpkit serve: stopping", "reason", context.Cause(ctx))
		return nil
	}
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	logger.Info("mcpkit serve: input closed, exiting")
	return nil
}

// serveHTTP serves s over Streamable HTTP until ctx is done (SIGINT or
// SIGTERM), then shuts down gracefully: the listener closes, sessions end,
// and requests in flight get a few seconds to finish.
func serveHTTP(ctx context.Context, s *mcp.Server, f *serveFlags, logger *slog.Logger) error {
	h := mcphttp.NewHandler(s, &mcphttp.Options{
		Stateless:      f.stateless,
		JSONResponse:   f.jsonResponse,
		MaxSessions:    f.maxSessions,
		IdleTimeout:    f.idleTimeout,
		AllowedOrigins: f.allowedOrigins,
		EventStore:     &mcphttp.MemoryEventStore{},
		Logger:         logger,
	})
	mux := http.NewServeMux()
	mux.Handle(f.path, h)
	ln, err := net.Listen("tcp", f.httpAddr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	logger.Info("mcpkit serve: serving the reference server", "transport", "http",
		"url", "http://"+ln.Addr().String()+f.path, "stateless", f.stateless, "json_response", f.jsonResponse,
		"server", everything.Name, "version", everything.Version)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		h.Close()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	logger.Info("mcpkit serve: shutting down", "reason", context.Cause(ctx))
	h.Close() // ends sessions, so their SSE streams finish
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	<-done
	logger.Info("mcpkit serve: stopped")
	return nil
}
