package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"

	"github.com/mcpkit/mcpkit/internal/everything"
	"github.com/mcpkit/mcpkit/mcp"
)

// serveFlags are the options of `mcpkit serve`. The transport is chosen
// from them by transport, so that an HTTP listener (--http ADDR) is one
// more flag and one more case there.
type serveFlags struct {
	logLevel slog.Level
}

func (f *serveFlags) flagSet() *flag.FlagSet {
	fs := newFlagSet("serve")
	fs.TextVar(&f.logLevel, "log-level", slog.LevelInfo, "log `LEVEL` on stderr: debug, info, warn or error")
	return fs
}

// transport returns the transport to serve on: stdio, on the command's own
// stdin and stdout. Nothing else may write to stdout.
func (f *serveFlags) transport(e *env) (mcp.Transport, string) {
	return &mcp.StdioTransport{In: e.stdin, Out: e.stdout}, "stdio"
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
	t, name := f.transport(e)
	logger.Info("mcpkit serve: serving the reference server", "transport", name, "server", everything.Name, "version", everything.Version)

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
