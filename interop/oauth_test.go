package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/auth/devserver"
)

// TestOAuthTypeScriptServer: mcpkit's CLI (issue 12) against a TypeScript
// SDK (v1) server protected by the SDK's own bearer middleware
// (ts/server-auth.mjs: requireBearerAuth with a jose verifier of the dev
// authorization server's JWTs, and mcpAuthMetadataRouter naming that
// server). The first `tools list --url … --auth-auto-approve` is refused
// with 401, discovers the dev server, registers, authorizes once and
// lists the tools; the next runs present the cached token: no
// authorization, no refusal.
func TestOAuthTypeScriptServer(t *testing.T) {
	node := requireNode(t)
	if testing.Short() {
		t.Skip("builds the mcpkit CLI and runs a TypeScript server")
	}
	cli := buildCLI(t)
	grants := &devLog{}
	ds, err := devserver.Start(devserver.Options{Logger: slog.New(grants)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ds.Close() })
	url := startHTTPServer(t, node, "ts/server-auth.mjs", ds.Issuer())
	base := strings.TrimSuffix(url, "/mcp")
	env := cliEnv(t)
	run := func(args ...string) (code int, stdout, stderr string) {
		var out, errOut bytes.Buffer
		cmd := exec.CommandContext(ctxFor(t), cli, args...)
		cmd.Env, cmd.Stdout, cmd.Stderr = env, &out, &errOut
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("mcpkit %v: %v", args, err)
		}
		return code, out.String(), errOut.String()
	}
	refusals := func(t *testing.T) (n int, last string) {
		resp, err := http.Get(base + "/interop/refusals")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r struct {
			Count int    `json:"count"`
			Last  string `json:"last"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			t.Fatal(err)
		}
		return r.Count, r.Last
	}
	const test = "TestOAuthTypeScriptServer"
	runChecks(t, test, nil, []check{
		{"first tools list: 401, discovery, registration, one authorization, the tools", func(t *testing.T, _ *session) {
			code, out, errOut := run("tools", "list", "--url", url, "--auth-auto-approve")
			want := "echo                       Echoes the text back (interop fixture).\n" +
				"  text (string, required)\n" +
				"whoami                     Says who the bearer token belongs to (interop fixture).\n"
			prompt := regexp.MustCompile(`^mcpkit: to authorize mcpkit, open this URL in a browser:\n  ` + regexp.QuoteMeta(ds.Issuer()) +
				`/authorize\?client_id=dev-[A-Z0-9]+&code_challenge=[A-Za-z0-9_-]{43}&code_challenge_method=S256&redirect_uri=http%3A%2F%2F127\.0\.0\.1%3A\d+%2Fcallback&resource=` +
				regexp.QuoteMeta(strings.NewReplacer(":", "%3A", "/", "%2F").Replace(url)) + `&response_type=code&scope=mcp\+offline_access&state=\S+\n$`)
			if code != 0 || out != want || !prompt.MatchString(errOut) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 0, %q and the authorization prompt", code, out, errOut, want)
			}
			if n := grants.count("devserver: registered a client"); n != 1 {
				t.Errorf("%d client registrations, want 1", n)
			}
			if n := grants.count("devserver: authorization granted"); n != 1 {
				t.Errorf("%d authorizations, want 1", n)
			}
			if n := grants.count("devserver: token issued"); n != 1 {
				t.Errorf("%d tokens issued, want 1", n)
			}
			n, last := refusals(t)
			wantLast := `401 Bearer error="invalid_token", error_description="Missing Authorization header", scope="mcp", resource_metadata="` + base + `/.well-known/oauth-protected-resource/mcp"`
			if n != 1 || last != wantLast {
				t.Errorf("the TypeScript server refused %d requests, the last with %q; want 1, %q", n, last, wantLast)
			}
		}},
		{"second run: tools call echo with the cached token, no authorization", func(t *testing.T, _ *session) {
			// No --auth-auto-approve: an authorization would wait for a
			// browser and fail the check by its timeout.
			code, out, errOut := run("tools", "call", "echo", "--args", `{"text":"hi from mcpkit"}`, "--url", url)
			if code != 0 || out != "hi from mcpkit\n" || errOut != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want 0, %q, \"\"", code, out, errOut, "hi from mcpkit\n")
			}
			if n := grants.count("devserver: authorization granted"); n != 1 {
				t.Errorf("%d authorizations after the second run, want still 1", n)
			}
			if n := grants.count("devserver: token issued"); n != 1 {
				t.Errorf("%d tokens issued after the second run, want still 1", n)
			}
			if n, last := refusals(t); n != 1 {
				t.Errorf("the TypeScript server refused %d requests (the last with %q), want still 1", n, last)
			}
		}},
		{"the bearer middleware's auth info reaches the TypeScript tool", func(t *testing.T, _ *session) {
			code, out, errOut := run("tools", "call", "whoami", "--url", url)
			want := "sub=dev-user client=registered scopes=mcp offline_access resource=" + url + "\n"
			if code != 0 || out != want || errOut != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want 0, %q, \"\"", code, out, errOut, want)
			}
			if n := grants.count("devserver: authorization granted"); n != 1 {
				t.Errorf("%d authorizations, want still 1", n)
			}
			if n, _ := refusals(t); n != 1 {
				t.Errorf("the TypeScript server refused %d requests, want still 1", n)
			}
		}},
		{"auth status lists the TypeScript server", func(t *testing.T, _ *session) {
			code, out, errOut := run("auth", "status")
			status := regexp.MustCompile(`^SERVER +AUTHORIZATION SERVER +SCOPE +TOKEN\n` + regexp.QuoteMeta(url) + ` +` +
				regexp.QuoteMeta(ds.Issuer()) + ` +mcp offline_access +valid until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$`)
			if code != 0 || !status.MatchString(out) || errOut != "" {
				t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
			}
		}},
	})
}

// buildCLI builds the mcpkit CLI into a temporary directory.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mcpkit")
	cmd := exec.Command("go", "build", "-o", bin, "../cmd/mcpkit")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/mcpkit: %v\n%s", err, out)
	}
	return bin
}

// cliEnv is the environment of the CLI: its config directory (and so its
// token cache) in a temporary one, no display (no browser is opened) and
// no auto-approval from the environment.
func cliEnv(t *testing.T) []string {
	t.Helper()
	home := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "HOME", "XDG_CONFIG_HOME", "DISPLAY", "WAYLAND_DISPLAY", "MCPKIT_AUTH_AUTO_APPROVE":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"))
}

// devLog counts the dev authorization server's log lines by message.
type devLog struct {
	mu sync.Mutex
	n  map[string]int
}

func (l *devLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *devLog) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == nil {
		l.n = make(map[string]int)
	}
	l.n[r.Message]++
	return nil
}
func (l *devLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *devLog) WithGroup(string) slog.Handler      { return l }
func (l *devLog) count(msg string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n[msg]
}
