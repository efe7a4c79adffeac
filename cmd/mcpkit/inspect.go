package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/mcpkit/mcpkit/cmd/mcpkit/internal/inspect"
	"github.com/mcpkit/mcpkit/ext/skills"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// openEnv, set to 1, is --open for every run of mcpkit inspect.
const openEnv = "MCPKIT_INSPECT_OPEN"

func init() {
	helpTopics["inspect"] = helpTopic{
		usage:   "inspect [--addr 127.0.0.1:0] [--open] [" + serverUsage + "]",
		summary: "the MCP Inspector: a page in the browser to drive a server by hand",
		text: "Serve the MCP Inspector on 127.0.0.1 and print its URL: a page in the browser that connects to a server (over stdio, Streamable HTTP or HTTP+SSE, in either era), " +
			"shows its version and capabilities, lists its tools, resources, resource templates and prompts, calls a tool through a form made from its input schema, " +
			"shows every JSON-RPC message both ways with its timing, the progress of each request in flight with a button to cancel it, and the server's log. " +
			"With --url or a command after --, it connects at once; without, the page has a connect form. " +
			"A server that asks for OAuth is logged in to through the page: it shows the authorization URL, and the authorization server sends the browser back to the inspector's own address (/oauth/callback). " +
			"The URL holds a random token that every request from the page must carry; requests whose Host or Origin is not the inspector's are refused. " +
			"With --open (or " + openEnv + "=1) the page is opened in a browser where there is a display. SIGINT or SIGTERM stops it, and the server it started.",
	}
	// Listed before version and help.
	topLevel = slices.Insert(topLevel, max(len(topLevel)-2, 0), "inspect")
}

// inspectCommand implements `mcpkit inspect`.
func inspectCommand(ctx context.Context, e *env, args []string) error {
	own, command := splitCommand(args)
	var f clientFlags
	var addr string
	var open, tasksExt bool
	fs := newFlagSet("inspect")
	fs.StringVar(&f.url, "url", "", "connect at once to the Streamable HTTP (or HTTP+SSE) server at `URL`")
	fs.Var(&f.headers, "header", "with --url, send the HTTP header `NAME:VALUE` on every request (repeatable)")
	fs.StringVar(&f.era, "era", "auto", "the protocol era to connect in: auto, session or stateless (the page can change it)")
	fs.DurationVar(&f.timeout, "timeout", defaultTimeout, "how long each request waits for the server's answer; a progress notification restarts the wait; 0: no limit")
	fs.DurationVar(&f.maxTimeout, "max-timeout", defaultMaxTimeout, "the most a request may wait however much progress it reports; 0: no bound but --timeout")
	fs.BoolVar(&tasksExt, "tasks-extension", false, "declare the stateless era's tasks extension (io.modelcontextprotocol/tasks): task-capable tools answer with a task (the page can change it)")
	f.auth.register(fs)
	fs.StringVar(&addr, "addr", "127.0.0.1:0", "serve the page at `ADDR`, a loopback address (port 0: a free port)")
	fs.BoolVar(&open, "open", os.Getenv(openEnv) == "1", "open the page in a browser, where there is a display; also "+openEnv+"=1")
	positional, err := parseFlags(fs, own)
	if err != nil {
		return err
	}
	if len(positional) > 0 {
		return usagef("inspect: unexpected argument %q (the server command goes after --)", positional[0])
	}
	if _, err := f.protocolEra(); err != nil {
		return err
	}
	var initial *inspect.Target
	if f.url != "" || len(command) > 0 {
		initial = &inspect.Target{URL: f.url, Headers: f.headers, Command: command, Era: f.era, TasksExtension: tasksExt}
		// Mistakes on the command line are found now, not in the page.
		probe := f
		d, err := inspectDial(e, &probe, func() *inspect.Inspector { return nil })(ctx, *initial, io.Discard)
		if err != nil {
			return err
		}
		if d.Release != nil {
			d.Release()
		}
	}
	timeout, maxTimeout := f.timeout, f.maxTimeout
	if timeout == 0 {
		timeout, maxTimeout = -1, -1
	} else if maxTimeout == 0 {
		maxTimeout = -1
	}
	var page *inspect.Inspector // set once New returns, for the OAuth login in the page
	in, err := inspect.New(inspect.Options{
		Dial:              inspectDial(e, &f, func() *inspect.Inspector { return page }),
		ClientInfo:        mcp.Implementation{Name: "mcpkit-inspect", Version: version},
		RequestTimeout:    timeout,
		MaxRequestTimeout: maxTimeout,
		Initial:           initial,
	})
	if err != nil {
		return err
	}
	page = in
	ln, err := in.Listen(addr)
	if err != nil {
		return usagef("inspect: --addr: %v", err)
	}
	fmt.Fprintf(e.stdout, "mcpkit inspect: open %s\n", in.URL())
	if open && hasDisplay() {
		openBrowser(in.URL())
	}
	return in.Serve(ctx, ln)
}

// inspectDial builds the transport to a target the way the client verbs
// do (clientFlags.transport), with the OAuth flags of the command line.
// The server's stderr goes to the page and to ours.
//
// A server that asks for OAuth is logged in to through the page (unless
// --auth-auto-approve): the authorization URL is shown there and the
// redirect URI is the inspector's own address (inspect.Inspector's
// OAuthRedirectURL and AuthorizeInBrowser), with the client verbs' token
// store, so that a login of the CLI serves the inspector and the other
// way round. page is the inspector, nil while the command line is
// checked.
func inspectDial(e *env, base *clientFlags, page func() *inspect.Inspector) func(context.Context, inspect.Target, io.Writer) (*inspect.Dialed, error) {
	return func(_ context.Context, t inspect.Target, stderr io.Writer) (*inspect.Dialed, error) {
		f := *base
		f.url, f.headers, f.era = t.URL, t.Headers, t.Era
		// The page reads skills' files (/api/skill-read), each a
		// resources/read answer up to a 16 MiB file as base64: the
		// transports' default of 4 MiB would stop at about 3 MiB.
		f.maxMessageBytes = skills.MessageBytes
		era, err := f.protocolEra()
		if err != nil {
			return nil, err
		}
		ce := &env{stdin: e.stdin, stdout: e.stdout, stderr: e.stderr}
		ce.status = newStatusLine(io.MultiWriter(e.stderr, stderr))
		release := func() {
			for i := len(ce.closers) - 1; i >= 0; i-- {
				ce.closers[i]()
			}
		}
		switch in := page(); {
		case in == nil:
			// The command line's probe: its transport is never used, so
			// it gets no redirect listener either.
			f.auth.page = &pageRedirect{}
		case !f.auth.autoApprove:
			f.auth.page = &pageRedirect{url: in.OAuthRedirectURL(), redirect: in.AuthorizeInBrowser}
		}
		tr, err := f.transport(ce, t.Command)
		if err != nil {
			release()
			return nil, err
		}
		d := &inspect.Dialed{
			Transport: tr,
			Era:       era,
			Args:      cliServerArgs(&f, t.Command),
			Explain:   func(err error) error { return f.connectFailed(tr, t.Command, era, err) },
			Release:   release,
		}
		if ht, ok := tr.(*mcphttp.ClientTransport); ok {
			if once, ok := ht.Authorizer.(*onceAuthorizer); ok {
				d.Credentials = once.Credentials
			}
		}
		return d, nil
	}
}

// cliServerArgs names the server on an mcpkit command line: the flags
// before "--", then the command.
func cliServerArgs(f *clientFlags, command []string) string {
	var b strings.Builder
	add := func(s string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	if f.url != "" {
		add("--url " + shellQuote(f.url))
		for _, h := range f.headers {
			add("--header " + shellQuote(h))
		}
	}
	if f.era != "" && f.era != "auto" {
		add("--era " + shellQuote(f.era))
	}
	if len(command) > 0 {
		add("--")
		for _, a := range command {
			add(shellQuote(a))
		}
	}
	return b.String()
}
