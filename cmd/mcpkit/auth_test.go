package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/auth/devserver"
	"github.com/mcpkit/mcpkit/internal/everything"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// grantCounter counts the dev server's log lines by message.
type grantCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *grantCounter) Enabled(context.Context, slog.Level) bool { return true }
func (c *grantCounter) Handle(_ context.Context, r slog.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = make(map[string]int)
	}
	c.n[r.Message]++
	return nil
}
func (c *grantCounter) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c *grantCounter) WithGroup(string) slog.Handler      { return c }
func (c *grantCounter) count(msg string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[msg]
}

// protectedServer is the reference server over Streamable HTTP at /mcp,
// protected as `mcpkit serve --auth-issuer` protects it: auth's JWT
// verifier with the dev server's JWKS (signature, iss, exp, aud = this
// endpoint), the scope "mcp" required, and the protected resource metadata
// naming the dev server. It counts the requests it refused with 401.
type protectedServer struct {
	*httptest.Server
	h       *mcphttp.Handler
	mu      sync.Mutex
	refused int
}

func (p *protectedServer) refusals() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refused
}

// statusRecorder notes the status a handler answered with.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func newProtectedServer(t *testing.T, issuer string) *protectedServer {
	t.Helper()
	mux := http.NewServeMux()
	p := &protectedServer{Server: httptest.NewServer(mux)}
	resource := p.URL + "/mcp"
	server := everything.NewServer(nil)
	verifier, err := auth.NewJWTVerifier(auth.JWTConfig{Issuer: issuer, Resource: resource})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := auth.NewResourceServer(auth.ResourceServerConfig{Resource: resource, AuthorizationServers: []string{issuer}, Verifier: verifier, Scopes: []string{"mcp"}, Server: server})
	if err != nil {
		t.Fatal(err)
	}
	opts := &mcphttp.Options{Stateless: true, JSONResponse: true}
	auth.Protect(opts, rs)
	p.h = mcphttp.NewHandler(server, opts)
	for _, path := range rs.MetadataPaths() {
		mux.Handle(path, rs.MetadataHandler())
	}
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w}
		p.h.ServeHTTP(rec, r)
		if rec.status == http.StatusUnauthorized {
			p.mu.Lock()
			p.refused++
			p.mu.Unlock()
		}
	}))
	return p
}

func (p *protectedServer) close() {
	p.Server.Close()
	p.h.Close()
}

// authEnv points the CLI's config directory at a temporary one, with no
// display (no browser is ever opened) and no auto-approval from the
// environment. It returns the credentials directory.
func authEnv(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	t.Setenv(autoApproveEnv, "")
	return filepath.Join(home, "config", "mcpkit", "auth")
}

// credentialFiles lists the files in dir with their modes.
func credentialFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %v", e.Name(), info.Mode()))
	}
	return out
}

// TestClientVerbAuthorizes: a client verb against a protected server
// authorizes once with the dev server (registration, PKCE, auto-approve
// through the loopback listener), keeps the token in a 0600 file, and
// reuses it on the next run without authorizing again; auth status lists
// it, auth login authorizes again with the same client, auth logout
// forgets it.
func TestClientVerbAuthorizes(t *testing.T) {
	dir := authEnv(t)
	logs := &grantCounter{}
	ds, err := devserver.Start(devserver.Options{Logger: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	ps := newProtectedServer(t, ds.Issuer())
	defer ps.close()
	url := ps.URL + "/mcp"

	code, out, errOut := runCLI(t, "", "auth", "status")
	if code != 0 || out != "not logged in to any server\n" || errOut != "" {
		t.Errorf("auth status before: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	code, out, errOut = runCLI(t, "", "tools", "list", "--url", url, "--auth-auto-approve")
	prompt := regexp.MustCompile(`^mcpkit: to authorize mcpkit, open this URL in a browser:\n  ` + regexp.QuoteMeta(ds.Issuer()) + `/authorize\?\S+\n$`)
	if code != 0 || !strings.Contains(out, "echo") || !prompt.MatchString(errOut) {
		t.Fatalf("first tools list: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if n := logs.count("devserver: authorization granted"); n != 1 {
		t.Errorf("%d authorizations after the first run, want 1", n)
	}
	if n := logs.count("devserver: registered a client"); n != 1 {
		t.Errorf("%d registrations after the first run, want 1", n)
	}
	files := credentialFiles(t, dir)
	if len(files) != 1 || !strings.HasSuffix(files[0], ".json -rw-------") {
		t.Errorf("credential files %q, want one of mode 0600", files)
	}
	refused := ps.refusals()

	// The next run presents the kept token: no authorization (it would
	// wait for a browser: there is no auto-approval here), no refusal.
	code, out, errOut = runCLI(t, "", "tools", "call", "echo", "--args", `{"text":"hi"}`, "--url", url)
	if code != 0 || out != "hi\n" || errOut != "" {
		t.Errorf("second run: exit %d, stdout %q, stderr %q; want 0, \"hi\\n\", \"\"", code, out, errOut)
	}
	if n := logs.count("devserver: authorization granted"); n != 1 {
		t.Errorf("%d authorizations after the second run, want still 1", n)
	}
	if n := ps.refusals(); n != refused {
		t.Errorf("the server refused %d requests of the second run, want none", n-refused)
	}

	code, out, errOut = runCLI(t, "", "auth", "status")
	status := regexp.MustCompile(`^SERVER +AUTHORIZATION SERVER +SCOPE +TOKEN\n` + regexp.QuoteMeta(url) + ` +` + regexp.QuoteMeta(ds.Issuer()) + ` +mcp offline_access +valid until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$`)
	if code != 0 || !status.MatchString(out) || errOut != "" {
		t.Errorf("auth status: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	// login authorizes again, with the client already registered.
	code, out, errOut = runCLI(t, "", "auth", "login", "--url", url, "--auth-auto-approve")
	want := fmt.Sprintf("logged in to %s (authorization server %s, scope \"mcp offline_access\")\n", url, ds.Issuer())
	if code != 0 || out != want || !prompt.MatchString(errOut) {
		t.Errorf("auth login: exit %d, stdout %q, stderr %q; want 0, %q", code, out, errOut, want)
	}
	if n := logs.count("devserver: authorization granted"); n != 2 {
		t.Errorf("%d authorizations after auth login, want 2", n)
	}
	if n := logs.count("devserver: registered a client"); n != 1 {
		t.Errorf("%d registrations after auth login, want still 1", n)
	}

	code, out, errOut = runCLI(t, "", "auth", "logout", "--url", url)
	if code != 0 || out != "logged out of "+url+"\n" || errOut != "" {
		t.Errorf("auth logout: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if files := credentialFiles(t, dir); len(files) != 0 {
		t.Errorf("credential files after logout: %q", files)
	}
	code, out, _ = runCLI(t, "", "auth", "logout", "--url", url)
	if code != 0 || out != "not logged in to "+url+"\n" {
		t.Errorf("second auth logout: exit %d, stdout %q", code, out)
	}
	code, out, _ = runCLI(t, "", "auth", "status")
	if code != 0 || out != "not logged in to any server\n" {
		t.Errorf("auth status after logout: exit %d, stdout %q", code, out)
	}
}

// TestClientVerbAuthorizationFails: an authorization that cannot
// complete without a person ends with exit status 1 and says why.
func TestClientVerbAuthorizationFails(t *testing.T) {
	dir := authEnv(t)
	ds, err := devserver.Start(devserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	ps := newProtectedServer(t, ds.Issuer())
	defer ps.close()
	url := ps.URL + "/mcp"

	code, out, errOut := runCLI(t, "", "tools", "list", "--url", url, "--auth-auto-approve", "--client-id", "nobody")
	lines := strings.Split(errOut, "\n")
	want := url + `: not authorized: mcphttp: HTTP 401: unauthorized: authorization failed after 1 attempt(s): auth: authorization denied: --auth-auto-approve: the authorization server answered 400 Bad Request, not a redirect: "devserver: unknown client_id \"nobody\""`
	if code != 1 || out != "" || len(lines) != 4 || lines[2] != "mcpkit: "+want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1, \"\", the prompt and %q", code, out, errOut, want)
	}
	if files := credentialFiles(t, dir); len(files) != 0 {
		t.Errorf("credential files after a failure: %q", files)
	}
}

func TestAuthUsageErrors(t *testing.T) {
	authEnv(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"auth"}, "auth: want a subcommand: login, logout or status"},
		{[]string{"auth", "whoami"}, `auth: unknown subcommand "whoami": want login, logout or status`},
		{[]string{"auth", "login"}, "auth login: --url is required"},
		{[]string{"auth", "logout"}, "auth logout: --url is required"},
		{[]string{"auth", "logout", "--url", "ftp://x/"}, `--url "ftp://x/": want an http or https URL`},
		{[]string{"auth", "status", "extra"}, `auth status: unexpected argument "extra"`},
		{[]string{"tools", "list", "--client-id", "x", "--", "true"}, "--client-id and --client-secret go with --url"},
		{[]string{"tools", "list", "--client-secret", "x", "--url", "http://127.0.0.1:1/mcp"}, "--client-secret needs --client-id"},
		{[]string{"dev-auth-server", "extra"}, `dev-auth-server: unexpected argument "extra"`},
	} {
		code, out, errOut := runCLI(t, "", tc.args...)
		// The hint names the help of the command given.
		if want := "mcpkit: " + tc.want + "\nRun 'mcpkit help" + helpTopicOf(tc.args) + "' for usage.\n"; code != exitUsage || out != "" || errOut != want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2, %q", tc.args, code, out, errOut, want)
		}
	}
}

// TestDevAuthServerCommand runs `mcpkit dev-auth-server` as a process:
// it prints its issuer, serves the metadata, and stops on SIGINT.
func TestDevAuthServerCommand(t *testing.T) {
	cmd, stdin, stdout, stderr := startCLI(t, "dev-auth-server", "--subject", "bob")
	defer stdin.Close()
	issuer, err := stdout.ReadString('\n')
	if err != nil || !regexp.MustCompile(`^http://127\.0\.0\.1:\d+\n$`).MatchString(issuer) {
		t.Fatalf("first stdout line %q, %v; want the issuer URL", issuer, err)
	}
	issuer = strings.TrimSuffix(issuer, "\n")
	line, _ := stderr.ReadString('\n')
	if want := "mcpkit dev-auth-server: issuer " + issuer + `, subject "bob": approves every request; for development only, never in production` + "\n"; line != want {
		t.Errorf("stderr %q, want %q", line, want)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get(issuer + "/.well-known/oauth-authorization-server")
	if err != nil {
		t.Fatal(err)
	}
	var md struct {
		Issuer string   `json:"issuer"`
		PKCE   []string `json:"code_challenge_methods_supported"`
	}
	json.NewDecoder(resp.Body).Decode(&md)
	resp.Body.Close()
	if md.Issuer != issuer || !slices.Equal(md.PKCE, []string{"S256"}) {
		t.Errorf("metadata %+v", md)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd); code != 0 {
		t.Errorf("exit %d after SIGINT, want 0", code)
	}

	code, _, errOut := runCLI(t, "", "dev-auth-server", "--addr", "0.0.0.0:0")
	if want := "mcpkit: dev-auth-server: devserver: address \"0.0.0.0:0\": the development server listens only on a loopback IP address such as 127.0.0.1\n"; code != 1 || errOut != want {
		t.Errorf("--addr 0.0.0.0:0: exit %d, stderr %q; want 1, %q", code, errOut, want)
	}
}

// TestClientVerbPreRegistered: --client-id and --client-secret are used
// (HTTP Basic at the token endpoint) instead of a registration.
func TestClientVerbPreRegistered(t *testing.T) {
	authEnv(t)
	logs := &grantCounter{}
	ds, err := devserver.Start(devserver.Options{Logger: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	ps := newProtectedServer(t, ds.Issuer())
	defer ps.close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Post(ds.Issuer()+"/register", "application/json", strings.NewReader(`{"redirect_uris":["http://127.0.0.1/callback"],"token_endpoint_auth_method":"client_secret_basic"}`))
	if err != nil {
		t.Fatal(err)
	}
	var reg struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	json.NewDecoder(resp.Body).Decode(&reg)
	resp.Body.Close()

	code, out, errOut := runCLI(t, "", "tools", "call", "echo", "--args", `{"text":"hi"}`, "--url", ps.URL+"/mcp", "--auth-auto-approve", "--client-id", reg.ClientID, "--client-secret", "wrong")
	want := "mcpkit: " + ps.URL + "/mcp: not authorized: mcphttp: HTTP 401: unauthorized: authorization failed after 1 attempt(s): auth: " + ds.Issuer() + "/token answered HTTP 401: invalid_client: client authentication failed: the client is registered with client_secret_basic\n"
	if code != 1 || out != "" || !strings.HasSuffix(errOut, want) {
		t.Errorf("wrong secret: exit %d, stdout %q, stderr %q; want 1, \"\", ending %q", code, out, errOut, want)
	}
	code, out, errOut = runCLI(t, "", "tools", "call", "echo", "--args", `{"text":"hi"}`, "--url", ps.URL+"/mcp", "--auth-auto-approve", "--client-id", reg.ClientID, "--client-secret", reg.ClientSecret)
	if code != 0 || out != "hi\n" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0, \"hi\\n\"", code, out, errOut)
	}
	if n := logs.count("devserver: registered a client"); n != 1 {
		t.Errorf("%d registrations, want only the test's", n)
	}
	if n := logs.count("devserver: token issued"); n != 1 {
		t.Errorf("%d tokens issued, want 1", n)
	}
}
