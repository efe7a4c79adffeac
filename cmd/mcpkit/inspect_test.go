package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/auth/devserver"
	"github.com/mcpkit/mcpkit/cmd/mcpkit/internal/inspect"
	"github.com/mcpkit/mcpkit/ext/skills"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// `mcpkit inspect -- mcpkit serve` prints the page's URL, connects to the
// server at once and serves the page only with the token; the context's
// end stops it, and the server, with exit status 0.
func TestInspectCommand(t *testing.T) {
	server := serverCommand(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &lineWriter{lines: make(chan string, 16)}
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, append([]string{"inspect", "--era", "session", "--"}, server...), strings.NewReader(""), out, io.Discard)
	}()
	var pageURL string
	select {
	case line := <-out.lines:
		m := regexp.MustCompile(`^mcpkit inspect: open (http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{64})$`).FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("first line %q", line)
		}
		pageURL = m[1]
	case c := <-code:
		t.Fatalf("inspect exited with %d before printing its URL", c)
	}
	base, token, _ := strings.Cut(pageURL, "/?token=")

	resp, err := http.Get(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Security-Policy") == "" {
		t.Errorf("page: %s, CSP %q", resp.Status, resp.Header.Get("Content-Security-Policy"))
	}
	resp, err = http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Errorf("page without the token: %s", resp.Status)
	}

	// The connection's state, as the page sees it: connected at once.
	resp, err = http.Get(base + "/api/events?token=" + token)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	var st inspect.State
	for st.Status != "connected" && sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.HasPrefix(data, `{"status":`) {
			if err := json.Unmarshal([]byte(data), &st); err != nil {
				t.Fatal(err)
			}
			if st.Status == "failed" {
				t.Fatalf("connecting: %+v", st)
			}
		}
	}
	wantArgs := "--era session -- " + strings.Join(server, " ")
	if st.Status != "connected" || st.ProtocolVersion != "2025-11-25" || st.Args != wantArgs {
		t.Errorf("state %+v, want connected in 2025-11-25 with args %q", st, wantArgs)
	}
	resp.Body.Close()

	cancel()
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("exit status %d", c)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("inspect did not stop when its context ended")
	}
}

func TestInspectUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"inspect", "--addr", "0.0.0.0:0"}, "mcpkit: inspect: --addr: inspect: listen address \"0.0.0.0:0\": want a loopback IPv4 address such as 127.0.0.1:0\nRun 'mcpkit help inspect' for usage.\n"},
		{[]string{"inspect", "extra"}, "mcpkit: inspect: unexpected argument \"extra\" (the server command goes after --)\nRun 'mcpkit help inspect' for usage.\n"},
		{[]string{"inspect", "--era", "modernish"}, "mcpkit: --era \"modernish\": want auto, session or stateless\nRun 'mcpkit help inspect' for usage.\n"},
		{[]string{"inspect", "--header", "X-A: 1", "--", "mcpkit", "serve"}, "mcpkit: --header goes with --url: a server started after -- gets no HTTP headers\nRun 'mcpkit help inspect' for usage.\n"},
	} {
		code, out, errOut := runCLI(t, "", tc.args...)
		if code != exitUsage || out != "" || errOut != tc.want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2, %q", tc.args, code, out, errOut, tc.want)
		}
	}
	code, out, _ := runCLI(t, "", "help", "inspect")
	if code != 0 || !strings.HasPrefix(out, "Usage:\n  mcpkit inspect [--addr 127.0.0.1:0] [--open] [") || !strings.Contains(out, "--open") {
		t.Errorf("help inspect: exit %d, %q", code, out)
	}
}

// cliServerArgs quotes what a shell would split.
func TestCLIServerArgs(t *testing.T) {
	f := &clientFlags{url: "http://127.0.0.1:8080/mcp", headers: stringList{"Authorization: Bearer x y"}, era: "stateless"}
	if got, want := cliServerArgs(f, nil), `--url http://127.0.0.1:8080/mcp --header 'Authorization: Bearer x y' --era stateless`; got != want {
		t.Errorf("url: %q, want %q", got, want)
	}
	f = &clientFlags{era: "auto"}
	if got, want := cliServerArgs(f, []string{"my server", "--flag=it's"}), `-- 'my server' '--flag=it'\''s'`; got != want {
		t.Errorf("command: %q, want %q", got, want)
	}
}

// `mcpkit inspect --url` to a server behind OAuth logs in through the
// page: the authorization URL comes as the page's login (its redirect URI
// the inspector's own /oauth/callback), the browser following it comes
// back there, and the connection shows the token's scope and expiry; the
// credentials are kept in the CLI's store.
func TestInspectOAuthLogin(t *testing.T) {
	dir := authEnv(t)
	// The inspector is the redirect target: the CLI opens no redirect
	// listener of its own.
	listened := make(chan string, 4)
	defer func(l func(string, string) (net.Listener, error)) { listenRedirect = l }(listenRedirect)
	listenRedirect = func(network, addr string) (net.Listener, error) {
		listened <- addr
		return net.Listen(network, addr)
	}
	ds, err := devserver.Start(devserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	ps := newProtectedServer(t, ds.Issuer())
	defer ps.close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &lineWriter{lines: make(chan string, 16)}
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"inspect", "--url", ps.URL + "/mcp"}, strings.NewReader(""), out, io.Discard)
	}()
	var pageURL string
	select {
	case line := <-out.lines:
		pageURL = strings.TrimPrefix(line, "mcpkit inspect: open ")
	case c := <-code:
		t.Fatalf("inspect exited with %d before printing its URL", c)
	}
	base, token, _ := strings.Cut(pageURL, "/?token=")
	resp, err := http.Get(base + "/api/events?token=" + token)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	var event string
	var st inspect.State
	followed := false
	for st.Status != "connected" && sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "event: "); ok {
			event = rest
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		login := ""
		switch event {
		case "reset", "state":
			st = inspect.State{}
			if err := json.Unmarshal([]byte(data), &st); err != nil {
				t.Fatal(err)
			}
			if st.Status == "failed" {
				t.Fatalf("connecting: %+v", st)
			}
			login = st.Login
		case "login":
			var l inspect.Login
			if err := json.Unmarshal([]byte(data), &l); err != nil {
				t.Fatal(err)
			}
			login = l.URL
		}
		if login == "" || followed {
			continue
		}
		followed = true
		if !strings.Contains(login, "redirect_uri="+url.QueryEscape(base+"/oauth/callback")) {
			t.Fatalf("authorization URL %q: not the inspector's redirect URI", login)
		}
		// The browser: the development server approves at once and
		// redirects to the inspector.
		back, err := http.Get(login)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(back.Body)
		back.Body.Close()
		if back.StatusCode != 200 || back.Request.URL.Host != strings.TrimPrefix(base, "http://") || string(b) != "mcpkit inspect: the authorization server answered; close this tab and go back to the inspector.\n" {
			t.Fatalf("following the login: %s at %s: %q", back.Status, back.Request.URL.Redacted(), b)
		}
	}
	if !followed || st.Status != "connected" || st.Token == nil || st.Token.Scope != "mcp offline_access" || !st.Token.Refreshable || st.Token.TokenType != "Bearer" || st.Token.Issuer != ds.Issuer() {
		t.Fatalf("state %+v token %+v after the login (followed %v)", st, st.Token, followed)
	}
	if left := time.Until(st.Token.Expiry); left < 50*time.Minute || left > time.Hour {
		t.Errorf("token expiry %v, in %v; want about an hour", st.Token.Expiry, left)
	}
	if files := credentialFiles(t, dir); len(files) != 1 {
		t.Errorf("credentials kept: %q, want one file", files)
	}
	resp.Body.Close()
	cancel()
	if c := <-code; c != 0 {
		t.Errorf("exit status %d", c)
	}
	if n := len(listened); n != 0 {
		t.Errorf("the CLI opened %d OAuth redirect listeners of its own, want 0", n)
	}
}

// The inspector's transports read messages up to skills.MessageBytes, so
// that the page opens any file of a skill, over HTTP and over stdio.
func TestInspectDialMessageBytes(t *testing.T) {
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	dial := inspectDial(e, &clientFlags{}, func() *inspect.Inspector { return nil })
	for _, target := range []inspect.Target{
		{URL: "http://127.0.0.1:1/mcp", Headers: stringList{"Authorization: Bearer x"}},
		{Command: []string{"mcpkit", "serve"}},
	} {
		d, err := dial(context.Background(), target, io.Discard)
		if err != nil {
			t.Fatalf("%+v: %v", target, err)
		}
		var got int
		switch tr := d.Transport.(type) {
		case *mcphttp.ClientTransport:
			got = tr.MaxMessageBytes
		case *childTransport:
			got = tr.MaxMessageBytes
		default:
			t.Fatalf("%+v: transport %T", target, tr)
		}
		if got != skills.MessageBytes {
			t.Errorf("%+v: MaxMessageBytes %d, want %d", target, got, skills.MessageBytes)
		}
		d.Release()
	}
}
