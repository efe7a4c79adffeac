package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"net/http"
	"net/url"
	"os/exec"
	"slices"
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
	headers    stringList
	timeout    time.Duration
	maxTimeout time.Duration
	auth       authFlags
	// maxMessageBytes, if not zero, is the transport's MaxMessageBytes:
	// skills pull reads files as large as a whole skill.
	maxMessageBytes int
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
	fs.StringVar(&f.era, "era", "auto", "the protocol era to speak:\n"+
		"  auto: ask with server/discover (2026-07-28) and fall back to initialize, so any server works\n"+
		"  session: initialize a session first, as servers of 2025-11-25 and older expect\n"+
		"  stateless: 2026-07-28 only, no handshake: every request stands alone")
	fs.Var(&f.headers, "header", "with --url, send the HTTP header `NAME:VALUE` on every request (repeatable); an Authorization header turns off mcpkit's own OAuth login")
}

// protocolEra parses --era.
func (f *clientFlags) protocolEra() (mcp.ProtocolEra, error) {
	switch f.era {
	case "auto", "":
		return mcp.EraAuto, nil
	case "session", "legacy": // legacy and modern: the names of old
		return mcp.EraSession, nil
	case "stateless", "modern":
		return mcp.EraStateless, nil
	}
	return 0, usagef("--era %q: want auto, session or stateless", f.era)
}

// transport returns the transport to the server: Streamable HTTP with
// --url, otherwise a child process started from the command after "--",
// spoken to over stdio. Its stderr (the server's logs) goes to ours,
// through e.status.
//
// Over HTTP, a server that asks for OAuth authorization gets it: see
// authFlags.authorizer.
func (f *clientFlags) transport(e *env, command []string) (mcp.Transport, error) {
	if err := f.auth.check(f.url); err != nil {
		return nil, err
	}
	header, err := parseHeaders(f.headers)
	if err != nil {
		return nil, err
	}
	if f.url != "" {
		if len(command) > 0 {
			return nil, usagef("give either --url or a command after --, not both")
		}
		if _, err := storeKey(f.url); err != nil {
			return nil, err
		}
		t := &mcphttp.ClientTransport{URL: f.url, Header: header, MaxMessageBytes: f.maxMessageBytes}
		if header.Get("Authorization") != "" {
			// The caller authorizes: a 401 is an answer, not a reason
			// to log in.
			if f.auth.clientID != "" || f.auth.autoApprove {
				return nil, usagef("--header Authorization: mcpkit does not log in then, so --client-id and --auth-auto-approve have no use")
			}
			return t, nil
		}
		a, err := f.auth.authorizer(e, f.url)
		if err != nil {
			return nil, err
		}
		t.Authorizer = &onceAuthorizer{Authorizer: a}
		return t, nil
	}
	if len(header) > 0 {
		return nil, usagef("--header goes with --url: a server started after -- gets no HTTP headers")
	}
	if len(command) == 0 {
		return nil, usagef("no server to talk to: give --url URL, or the command that starts it after --, as in\n\tmcpkit tools list -- mcpkit serve")
	}
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stderr = e.status
	ct := newChildTransport(cmd)
	ct.MaxMessageBytes = f.maxMessageBytes
	return ct, nil
}

// transportHeaders are the headers the Streamable HTTP transport sets
// itself (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http),
// in canonical form: --header cannot set them, nor any Mcp-Param-*
// header (the transport derives those from a tool's arguments).
var transportHeaders = []string{"Accept", "Content-Type", "Content-Length", "Host", "Last-Event-Id", "Mcp-Method", "Mcp-Name", "Mcp-Protocol-Version", "Mcp-Session-Id"}

// parseHeaders parses the --header values, each NAME:VALUE: NAME an HTTP
// field name (https://www.rfc-editor.org/rfc/rfc9110#section-5.1), VALUE
// without line breaks or NUL, the blanks around it dropped.
func parseHeaders(list []string) (http.Header, error) {
	header := http.Header{}
	for _, kv := range list {
		name, value, ok := strings.Cut(kv, ":")
		if !ok {
			return nil, usagef("--header %q: want NAME:VALUE, such as 'Authorization: Bearer TOKEN'", kv)
		}
		if name == "" || strings.IndexFunc(name, func(r rune) bool { return !isTokenChar(r) }) >= 0 {
			return nil, usagef("--header %q: %q is not an HTTP header name (letters, digits and !#$%%&'*+-.^_`|~ only)", kv, name)
		}
		value = strings.Trim(value, " \t")
		if strings.ContainsAny(value, "\r\n\x00") {
			return nil, usagef("--header %q: the value of %s holds a line break or NUL", kv, name)
		}
		name = http.CanonicalHeaderKey(name)
		if slices.Contains(transportHeaders, name) || strings.HasPrefix(name, "Mcp-Param-") {
			return nil, usagef("--header %q: mcpkit sets %s itself", kv, name)
		}
		header.Add(name, value)
	}
	return header, nil
}

// isTokenChar reports whether r may be in an HTTP token
// (https://www.rfc-editor.org/rfc/rfc9110#section-5.6.2).
func isTokenChar(r rune) bool {
	return r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r))
}

// describe names the server for error messages: its URL, or its command
// as a shell would take it, in backquotes.
func (f *clientFlags) describe(command []string) string {
	if f.url != "" {
		return f.url
	}
	quoted := make([]string, len(command))
	for i, arg := range command {
		quoted[i] = shellQuote(arg)
	}
	return "`" + strings.Join(quoted, " ") + "`"
}

// shellQuote quotes arg for a POSIX shell when it needs it.
func shellQuote(arg string) string {
	if arg != "" && strings.IndexFunc(arg, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return arg
	}
	return "'" + strings.ReplaceAll(arg, "'", `'\''`) + "'"
}

// connect starts a client session with the server the flags and command
// name. The caller closes it with closeSession.
func (f *clientFlags) connect(ctx context.Context, e *env, command []string) (*mcp.ClientSession, error) {
	era, err := f.protocolEra()
	if err != nil {
		return nil, err
	}
	status := newStatusLine(e.stderr)
	e.status = status
	e.closers = append(e.closers, status.clear)
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
			status.println(fmt.Sprintf("server log [%s] %s", p.Level, p.Data))
		},
		// So is the progress of the calls that asked for it.
		ProgressHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ProgressParams) {
			status.progress(p)
		},
	})
	cs, err := client.Connect(ctx, t)
	if err != nil {
		return nil, f.connectFailed(t, command, era, err)
	}
	return cs, nil
}

// connectFailed says why connecting failed, each thing once: the server,
// then the cause, without the layers of the handshake it went through;
// with a hint when the cause is a common mistake (a URL that is not an
// MCP endpoint, a command that does not speak MCP on its stdout).
func (f *clientFlags) connectFailed(t mcp.Transport, command []string, era mcp.ProtocolEra, err error) error {
	who := f.describe(command)
	method := "initialize"
	if era == mcp.EraStateless {
		method = "server/discover"
	}
	if authErr, ok := errors.AsType[*mcphttp.AuthError](err); ok {
		// The refusal itself, without the handshake steps that met it.
		return fmt.Errorf("%s: not authorized: %w", who, authErr)
	}
	if execErr, ok := errors.AsType[*exec.Error](err); ok {
		return fmt.Errorf("cannot start %s: %w", who, execErr.Err)
	}
	if pathErr, ok := errors.AsType[*fs.PathError](err); ok && pathErr.Op == "fork/exec" {
		return fmt.Errorf("cannot start %s: %w", who, pathErr.Err)
	}
	if urlErr, ok := errors.AsType[*url.Error](err); ok {
		return fmt.Errorf("connecting to %s: %w", who, urlErr.Err)
	}
	if statusErr, ok := errors.AsType[*mcphttp.StatusError](err); ok {
		msg := fmt.Sprintf("the server answered HTTP %d (%s) to %s", statusErr.StatusCode, http.StatusText(statusErr.StatusCode), method)
		switch {
		case statusErr.RPCError != nil:
			msg += ": " + statusErr.RPCError.Error()
		case statusErr.StatusCode == http.StatusUnauthorized:
			msg += ": not authorized by the --header Authorization given"
		case statusErr.StatusCode == http.StatusNotFound || statusErr.StatusCode == http.StatusMethodNotAllowed:
			msg += ": is this the URL of its MCP endpoint?"
		}
		return &explainedError{msg: fmt.Sprintf("connecting to %s: %s", who, msg), err: err}
	}
	if ct, ok := t.(*childTransport); ok && (errors.Is(err, mcp.ErrSessionClosed) || brokenPipe(err)) {
		// The child closed its stdout (the session ended), or its stdin
		// (the request could not be written): a program that does not
		// speak MCP. Connect closed the connection, which waits for the
		// child to exit (or stops it): how it ended is known.
		ended := "closed its stdout"
		if ps := ct.Command.ProcessState; ps != nil && ps.Exited() {
			ended = fmt.Sprintf("exited with status %d", ps.ExitCode())
		}
		if bad := ct.badLine(); bad != "" {
			// What it printed says more than how it ended.
			return &explainedError{msg: fmt.Sprintf("%s wrote something that is not JSON-RPC on its stdout, where only MCP messages may go: %s (the start of its first such line); it then %s before answering %s: is it an MCP server on stdio?", who, bad, ended, method), err: err}
		}
		return &explainedError{msg: fmt.Sprintf("%s %s before answering %s: is it an MCP server on stdio?", who, ended, method), err: err}
	}
	return fmt.Errorf("connecting to %s: %w", who, err)
}

// serverArgs is how the flags and command name the server on a command
// line that could be run as it is: --url URL (with each --header's name,
// its value elided, and a --era other than auto), or -- COMMAND.
func (f *clientFlags) serverArgs(command []string) string {
	var b strings.Builder
	if f.url != "" {
		b.WriteString("--url " + shellQuote(f.url))
		for _, h := range f.headers {
			name, _, _ := strings.Cut(h, ":")
			b.WriteString(" --header " + shellQuote(name+": ..."))
		}
	}
	if f.era != "" && f.era != "auto" {
		b.WriteString(" --era " + shellQuote(f.era))
	}
	if f.url == "" {
		b.WriteString(" --")
		for _, arg := range command {
			b.WriteString(" " + shellQuote(arg))
		}
	}
	return strings.TrimPrefix(b.String(), " ")
}

// callFailed is the error of a call of method, said as what failed: the
// library's own naming of the method, when it did not come from the
// server, is not said twice.
func callFailed(what, method string, err error) error {
	msg := err.Error()
	for _, prefix := range []string{"mcp: " + method + ": ", "mcp: sending " + method + ": "} {
		if rest, ok := strings.CutPrefix(msg, prefix); ok {
			return &explainedError{msg: what + ": " + rest, err: err}
		}
	}
	return fmt.Errorf("%s: %w", what, err)
}

// explainedError is an error the CLI says in its own words, msg; err
// is what it explains, for errors.Is and errors.As.
type explainedError struct {
	msg string
	err error
}

func (e *explainedError) Error() string { return e.msg }
func (e *explainedError) Unwrap() error { return e.err }

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
