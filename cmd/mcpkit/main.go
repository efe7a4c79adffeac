// Command mcpkit is the command-line tool of the mcpkit MCP SDK: it runs
// the reference server and speaks to any MCP server as a client.
//
//	mcpkit serve [--http ADDR]                    run the reference server
//	mcpkit tools list [--json] SERVER
//	mcpkit tools call NAME [--args JSON] [--json] SERVER
//	mcpkit resources list [--json] SERVER
//	mcpkit resources read URI [--json] SERVER
//	mcpkit prompts list [--json] SERVER
//	mcpkit prompts get NAME [--args JSON] [--json] SERVER
//	mcpkit skills list [--json] SERVER
//	mcpkit skills get URI [--json] SERVER
//	mcpkit skills pull URI [--dir DIR] [--label LABEL] SERVER
//	mcpkit card [--json] URL                      a server's Server Card
//	mcpkit auth login|logout --url URL            OAuth login and logout
//	mcpkit auth status                            the servers logged in to
//	mcpkit dev-auth-server [--addr ADDR]          a development OAuth server
//	mcpkit version                                mcpkit's version
//	mcpkit help [COMMAND [SUBCOMMAND]]            the help of a command
//
// SERVER is --url URL [--header NAME:VALUE]... for a Streamable HTTP
// server, or -- COMMAND [ARG...] for a server on stdio.
//
// The client verbs start the server as COMMAND and speak MCP over its stdin
// and stdout (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio).
// Output is for people unless --json is given. Errors go to stderr with a
// non-zero exit status: 1 when the server or the tool failed (or did not
// answer within --timeout), 2 for a mistake on the command line, and
// 128+N when signal N (SIGINT: 130, SIGTERM: 143) stopped a client verb.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
)

// version is what mcpkit says about itself to servers.
const version = "0.1.0"

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1 // the server, the tool or the connection failed
	exitUsage = 2 // the command line is wrong
)

func main() {
	os.Exit(runProcess())
}

// runProcess is main without os.Exit: run with the process's arguments
// and streams, and a context that SIGINT or SIGTERM ends with a
// *signalError cause. A second signal kills the process the usual way.
func runProcess() int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		select {
		case sig := <-sigs:
			signal.Reset(os.Interrupt, syscall.SIGTERM)
			if s, ok := sig.(syscall.Signal); ok {
				cancel(&signalError{sig: s})
			}
		case <-ctx.Done():
		}
	}()
	return run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// signalError is the cause of the run context's end when a signal
// stopped the program.
type signalError struct{ sig syscall.Signal }

func (e *signalError) Error() string { return "stopped by " + e.sig.String() }

// exitStatus is the conventional status of a process a signal stopped.
func (e *signalError) exitStatus() int { return 128 + int(e.sig) }

// message is what the person who sent the signal is told.
func (e *signalError) message() string {
	if e.sig == syscall.SIGINT {
		return "interrupted"
	}
	return e.Error()
}

// usageError is a mistake on the command line: reported with the usage
// hint and exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// exitCodeError ends the program with a status, after its message (if
// any) was printed.
type exitCodeError struct {
	code int
	msg  string
}

func (e *exitCodeError) Error() string { return e.msg }

// env is what a command reads and writes: the process's streams, or a
// test's.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// timeout is the --timeout of the client verb being run, once its
	// flags are parsed.
	timeout time.Duration
	// status shows the server's progress and log messages on stderr,
	// once a client verb connected.
	status *statusLine
	// closers release what the command opened (such as the OAuth
	// redirect listener) when it ends, in reverse order.
	closers []func()

	// loginTimedOut, when a login ran out of --timeout, says what did
	// not happen in time ("the browser login was not completed").
	mu            sync.Mutex
	loginTimedOut string
}

func (e *env) setLoginTimedOut(what string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.loginTimedOut = what
}

func (e *env) loginTimeout() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.loginTimedOut
}

const usage = `mcpkit is a command-line tool for the Model Context Protocol.

Usage:
  mcpkit serve [--http ADDR] [flags]
        run the reference server (internal/everything) on stdin/stdout,
        or over Streamable HTTP at http://ADDR/mcp and the 2024-11-05
        HTTP+SSE transport at http://ADDR/sse (+ /messages)
  mcpkit tools list [--json] SERVER
        list the tools of the server, each with its arguments
  mcpkit tools call NAME [--args JSON] [--json] SERVER
        call tool NAME with the JSON object ARGS as arguments
  mcpkit resources list [--json] SERVER
        list the resources and resource templates of the server
  mcpkit resources read URI [--json] SERVER
        read the resource at URI
  mcpkit prompts list [--json] SERVER
        list the prompts of the server
  mcpkit prompts get NAME [--args JSON] [--json] SERVER
        get prompt NAME with the JSON object of strings ARGS as arguments
  mcpkit skills list|get|pull [URI] SERVER
        list the skills of the server, get the entry of one, or pull one
        into a directory, every file verified against its digest
  mcpkit inspect [SERVER]
        serve the MCP Inspector, a page in the browser to drive a server
        by hand, on 127.0.0.1, and print its URL
  mcpkit card [--json] [--header NAME:VALUE]... URL
        print the Server Card of the MCP endpoint URL (URL/server-card)
  mcpkit auth login|logout|status [--url URL]
        manage the OAuth credentials mcpkit keeps for servers
  mcpkit dev-auth-server [--addr 127.0.0.1:0]
        run a development OAuth authorization server (NOT FOR PRODUCTION)
  mcpkit version
        print mcpkit's version
  mcpkit help [COMMAND [SUBCOMMAND]]
        show the help of a command, with all its flags (also COMMAND --help)

  SERVER is the server to talk to, either
    --url URL [--header NAME:VALUE]...   a Streamable HTTP server; each
                                         --header is sent on every request
    -- COMMAND [ARG...]                  a server COMMAND starts, spoken to
                                         on its stdin and stdout
  --era auto|session|stateless picks the protocol era (default auto: ask
  with server/discover, fall back to initialize). --timeout D (default 60s)
  is how long a request waits for its answer, restarted by each progress
  notification up to --max-timeout D (default 10m).

  With --url, a server that answers 401 is authorized with OAuth 2.1 (see
  'mcpkit help auth'), unless --header gives an Authorization header.

Exit status: 0 on success, 1 when the server, the tool or the connection
failed, 2 for a mistake on the command line, 128+N when signal N stopped it.

Examples:
  mcpkit tools call echo --args '{"text":"hi"}' -- mcpkit serve
  mcpkit serve --http 127.0.0.1:8080 &
  mcpkit tools list --url http://127.0.0.1:8080/mcp --header 'Authorization: Bearer TOKEN'
`

// run is main without the process: it returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	err := dispatch(ctx, e, args)
	for i := len(e.closers) - 1; i >= 0; i-- {
		e.closers[i]()
	}
	var usageErr *usageError
	var exitErr *exitCodeError
	var sigErr *signalError
	var helpReq *helpRequest
	switch {
	case err == nil:
		return exitOK
	case errors.As(context.Cause(ctx), &sigErr):
		fmt.Fprintf(stderr, "mcpkit: %s\n", sigErr.message())
		return sigErr.exitStatus()
	case e.loginTimeout() != "":
		fmt.Fprintf(stderr, "mcpkit: timed out: %s within %v (see --timeout)\n", e.loginTimeout(), e.timeout)
		return exitError
	case errors.Is(err, mcp.ErrRequestTimeout) && e.timeout > 0:
		fmt.Fprintf(stderr, "mcpkit: timed out: the server did not answer within %v (see --timeout)\n", e.timeout)
		return exitError
	case errors.As(err, &helpReq):
		writeHelp(stdout, helpReq)
		return exitOK
	case errors.As(err, &usageErr):
		fmt.Fprintf(stderr, "mcpkit: %v\nRun 'mcpkit help%s' for usage.\n", err, helpTopicOf(args))
		return exitUsage
	case errors.As(err, &exitErr):
		if exitErr.msg != "" {
			fmt.Fprintf(stderr, "mcpkit: %s\n", exitErr.msg)
		}
		return exitErr.code
	default:
		fmt.Fprintf(stderr, "mcpkit: %v\n", err)
		return exitError
	}
}

func dispatch(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return usagef("no command given")
	}
	if len(args) > 1 && isHelpFlag(args[1]) {
		if _, group := helpTopics[args[0]+" list"]; group || args[0] == "auth" {
			return &helpRequest{topic: args[0]}
		}
	}
	switch args[0] {
	case "-h", "-help", "--help":
		return &helpRequest{}
	case "help":
		cmd, err := helpCommand(args[1:])
		if err != nil {
			return err
		}
		return dispatch(ctx, e, cmd)
	case "version":
		return versionCommand(ctx, e, args[1:])
	case "serve":
		return serve(ctx, e, args[1:])
	case "dev-auth-server":
		return devAuthServer(ctx, e, args[1:])
	case "auth":
		return authCommand(ctx, e, args[1:])
	case "inspect":
		return inspectCommand(ctx, e, args[1:])
	case "card":
		return cardCommand(ctx, e, args[1:])
	case "tools":
		if len(args) < 2 {
			return usagef("tools: want a subcommand: list or call")
		}
		switch args[1] {
		case "list":
			return toolsList(ctx, e, args[2:])
		case "call":
			return toolsCall(ctx, e, args[2:])
		}
		return usagef("tools: unknown subcommand %q: want list or call", args[1])
	case "resources":
		if len(args) < 2 {
			return usagef("resources: want a subcommand: list or read")
		}
		switch args[1] {
		case "list":
			return resourcesList(ctx, e, args[2:])
		case "read":
			return resourcesRead(ctx, e, args[2:])
		}
		return usagef("resources: unknown subcommand %q: want list or read", args[1])
	case "skills":
		if len(args) < 2 {
			return usagef("skills: want a subcommand: list, get or pull")
		}
		switch args[1] {
		case "list":
			return skillsList(ctx, e, args[2:])
		case "get":
			return skillsGet(ctx, e, args[2:])
		case "pull":
			return skillsPull(ctx, e, args[2:])
		}
		return usagef("skills: unknown subcommand %q: want list, get or pull", args[1])
	case "prompts":
		if len(args) < 2 {
			return usagef("prompts: want a subcommand: list or get")
		}
		switch args[1] {
		case "list":
			return promptsList(ctx, e, args[2:])
		case "get":
			return promptsGet(ctx, e, args[2:])
		}
		return usagef("prompts: unknown subcommand %q: want list or get", args[1])
	}
	return usagef("unknown command %q", args[0])
}
