package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/cmd/mcpkit/internal/inspect"
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
