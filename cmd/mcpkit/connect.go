package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os/exec"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// clientFlags are the options every client verb shares: how to reach the
// server and how to print. transport builds the mcp.Transport from them,
// so that another way to reach a server (--url for Streamable HTTP) is one
// more flag and one more case there.
type clientFlags struct {
	json       bool
	url        string
	era        string
	timeout    time.Duration
	maxTimeout time.Duration
	auth       authFlags
}

// Defaults of --timeout and --max-timeout.
const (
	defaultTimeout    = 60 * time.Second
	defaultMaxTimeout = 10 * time.Minute
)

func (f *clientFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.json, "json", false, "print the server's JSON result instead of a human-readable summary")
	fs.StringVar(&f.url, "url", "", "talk to the Streamable HTTP server at `URL` (such as http://127.0.0.1:8080/mcp)")
	fs.DurationVar(&f.timeout, "timeout", defaultTimeout, "how long each request waits for the server's answer (connecting included); a progress notification restarts the wait; 0: no limit")
	fs.DurationVar(&f.maxTimeout, "max-timeout", defaultMaxTimeout, "the most a request may wait however much progress it reports; 0: no bound but --timeout")
	f.auth.register(fs)
	fs.StringVar(&f.era, "era", "auto", "the protocol era: auto (probe with server/discover, fall back to initialize), legacy (initialize, 2025-11-25 and older) or modern (2026-07-28, no handshake)")
}

// protocolEra parses --era.
func (f *clientFlags) protocolEra() (mcp.ProtocolEra, error) {
	switch f.era {
	case "auto", "":
		return mcp.EraAuto, nil
	case "legacy":
		return mcp.EraSession, nil
	case "modern":
		return mcp.EraStateless, nil
	}
	return 0, usagef("--era %q: want auto, legacy or modern", f.era)
}

// transport returns the transport to the server: Streamable HTTP with
// --url, otherwise a child process started from the command after "--",
// spoken to over stdio. Its stderr (the server's logs) goes to ours.
//
// Over HTTP, a server that asks for OAuth authorization gets it: see
// authFlags.authorizer.
func (f *clientFlags) transport(e *env, command []string) (mcp.Transport, error) {
	if err := f.auth.check(f.url); err != nil {
		return nil, err
	}
	if f.url != "" {
		if len(command) > 0 {
			return nil, usagef("give either --url or a command after --, not both")
		}
		if _, err := storeKey(f.url); err != nil {
			return nil, err
		}
		a, err := f.auth.authorizer(e)
		if err != nil {
			return nil, err
		}
		return &mcphttp.ClientTransport{URL: f.url, Authorizer: &onceAuthorizer{Authorizer: a}}, nil
	}
	if len(command) == 0 {
		return nil, usagef("no server to talk to: give --url URL, or the command that starts it after --, as in\n\tmcpkit tools list -- mcpkit serve")
	}
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stderr = e.stderr
	return &mcp.CommandTransport{Command: cmd}, nil
}

// describe names the server for error messages.
func (f *clientFlags) describe(command []string) string {
	if f.url != "" {
		return f.url
	}
	return strings.Join(command, " ")
}

// connect starts a client session with the server the flags and command
// name. The caller closes it with closeSession.
func (f *clientFlags) connect(ctx context.Context, e *env, command []string) (*mcp.ClientSession, error) {
	era, err := f.protocolEra()
	if err != nil {
		return nil, err
	}
	t, err := f.transport(e, command)
	if err != nil {
		return nil, err
	}
	timeout, maxTimeout := max(f.timeout, 0), max(f.maxTimeout, 0)
	switch {
	case timeout == 0:
		maxTimeout = 0 // no limit at all
	case maxTimeout == 0:
		// No bound but --timeout: progress extends a request for ever.
		maxTimeout = time.Duration(math.MaxInt64)
	}
	e.timeout = timeout
	client := mcp.NewClient(mcp.Implementation{Name: "mcpkit", Version: version}, &mcp.ClientOptions{
		ProtocolEra: era,
		// The library's timeouts: each request, connecting included,
		// waits --timeout, restarted by progress up to --max-timeout.
		RequestTimeout:    timeout,
		MaxRequestTimeout: maxTimeout,
		// Stateless-era servers send log messages only to requests
		// that ask for them.
		LogLevel: mcp.LevelInfo,
		// The server's log messages are for the person at the terminal.
		LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.LoggingMessageParams) {
			fmt.Fprintf(e.stderr, "server log [%s] %s\n", p.Level, p.Data)
		},
	})
	cs, err := client.Connect(ctx, t)
	if authErr, ok := errors.AsType[*mcphttp.AuthError](err); ok {
		// The refusal itself, without the handshake steps that met it.
		return nil, fmt.Errorf("%s: not authorized: %w", f.describe(command), authErr)
	}
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", f.describe(command), err)
	}
	return cs, nil
}

// closeSession ends the session and shuts the server down; a server that
// had to be signalled is worth a warning, not a failure.
func closeSession(e *env, cs *mcp.ClientSession) {
	if err := cs.Close(); err != nil {
		fmt.Fprintf(e.stderr, "mcpkit: warning: %v\n", err)
	}
}

// connectForList parses the flags of a list verb, which takes no
// positional arguments, and connects to the server the flags or the
// command after -- name. The caller closes the session with closeSession.
func connectForList(ctx context.Context, e *env, verb string, args []string) (*mcp.ClientSession, *clientFlags, error) {
	own, command := splitCommand(args)
	f := &clientFlags{}
	fs := newFlagSet(verb)
	f.register(fs)
	positional, err := parseFlags(fs, own)
	if err != nil {
		return nil, nil, err
	}
	if len(positional) > 0 {
		return nil, nil, usagef("%s: unexpected argument %q (the server command goes after --)", verb, positional[0])
	}
	cs, err := f.connect(ctx, e, command)
	if err != nil {
		return nil, nil, err
	}
	return cs, f, nil
}

// listOffered lists the items of a feature the server may not offer:
// when the server declared no such capability, or answers -32601, the
// list is empty (none), not an error.
func listOffered(ctx context.Context, cs *mcp.ClientSession, declared bool, method, member string) ([]json.RawMessage, error) {
	if !declared {
		return []json.RawMessage{}, nil
	}
	items, err := listAll(ctx, cs, method, member)
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc.CodeMethodNotFound {
		return []json.RawMessage{}, nil
	}
	return items, err
}
