package main

// The logins of auth login run as a user runs them (issue 29, item 2):
// the built mcpkit as the authorization server (dev-auth-server), as the
// protected server (serve --auth-issuer) and as the client.

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// loginSetup runs `mcpkit dev-auth-server --device-interval 1s` and
// `mcpkit serve --http 127.0.0.1:0 --auth-issuer ISSUER`, and returns the
// issuer, the server's URL and the environment of a user with an empty
// config directory and no display.
func loginSetup(t *testing.T) (issuer, serverURL string, env []string) {
	t.Helper()
	bin := builtMcpkit(t)
	home := t.TempDir()
	env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "DISPLAY=", "WAYLAND_DISPLAY=", autoApproveEnv + "="}
	start := func(args ...string) (stdout, stderr *bufio.Reader) {
		cmd := exec.Command(bin, args...)
		cmd.Env = userEnv(env...)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		errPipe, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Kill()
			cmd.Wait()
		})
		return bufio.NewReader(out), bufio.NewReader(errPipe)
	}
	out, errs := start("dev-auth-server", "--device-interval", "1s")
	go io.Copy(io.Discard, errs)
	line, err := out.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "http://127.0.0.1:") {
		t.Fatalf("dev-auth-server's first line %q, %v", line, err)
	}
	issuer = strings.TrimSpace(line)
	_, errs = start("serve", "--http", "127.0.0.1:0", "--auth-issuer", issuer)
	urlPattern := regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+/mcp)`)
	for serverURL == "" {
		line, err := errs.ReadString('\n')
		if err != nil {
			t.Fatalf("serve --auth-issuer ended: %v", err)
		}
		if m := urlPattern.FindStringSubmatch(line); m != nil {
			serverURL = m[1]
		}
	}
	go io.Copy(io.Discard, errs)
	return issuer, serverURL, env
}

// deviceLogin runs `mcpkit auth login --device --url URL`, reads the
// code it prints, decides it on the dev server's page (action approve or
// deny), and returns the exit status and output of the login.
func deviceLogin(t *testing.T, issuer, serverURL string, env []string, action string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(builtMcpkit(t), "auth", "login", "--device", "--url", serverURL)
	cmd.Env = userEnv(env...)
	var out bytes.Buffer
	cmd.Stdout = &out
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	r := bufio.NewReader(errPipe)
	var shown strings.Builder
	for !strings.Contains(shown.String(), "for the approval") {
		line, err := r.ReadString('\n')
		shown.WriteString(line)
		if err != nil {
			t.Fatalf("auth login --device printed %q, then %v", shown.String(), err)
		}
	}
	prompt := regexp.MustCompile(`^mcpkit: to authorize mcpkit, visit\n  ` + regexp.QuoteMeta(issuer) + `/device\non any device and enter the code\n  ([B-Z]{4}-[B-Z]{4})\n` +
		`\(or open ` + regexp.QuoteMeta(issuer) + `/device\?user_code=([B-Z]{4}-[B-Z]{4}), which carries the code\)\n` +
		`mcpkit: waiting up to (5m0s|4m59s) \(see --timeout\) for the approval; the code expires in (10m0s|9m59s)\n$`)
	m := prompt.FindStringSubmatch(shown.String())
	if m == nil || m[1] != m[2] {
		t.Fatalf("auth login --device printed\n%s\nwant it to match\n%s", shown.String(), prompt)
	}
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	resp, err := hc.PostForm(issuer+"/device", url.Values{"user_code": {m[1]}, "action": {action}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s on the dev server's page: HTTP %d", action, resp.StatusCode)
	}
	rest, _ := io.ReadAll(r)
	code = waitExit(t, cmd)
	return code, out.String(), string(rest)
}

// auth login --device against the dev server: the user code is printed
// with where to enter it, the login ends once it is approved, and the
// token kept serves the next command without a login.
func TestDeviceLogin(t *testing.T) {
	issuer, serverURL, env := loginSetup(t)
	code, out, rest := deviceLogin(t, issuer, serverURL, env, "approve")
	if want := "logged in to " + serverURL + " (authorization server " + issuer + `, scope "offline_access")` + "\n"; code != 0 || out != want || rest != "" {
		t.Fatalf("auth login --device: exit %d, stdout %q, rest of stderr %q; want 0, %q, \"\"", code, out, rest, want)
	}
	code, out, errOut := runBuilt(t, env, "tools", "call", "echo", "--args", `{"text":"hi"}`, "--url", serverURL)
	if code != 0 || out != "hi\n" || errOut != "" {
		t.Errorf("tools call after the login: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	code, out, rest = deviceLogin(t, issuer, serverURL, env, "deny")
	if want := "the user code "; code != exitError || out != "" || !strings.Contains(rest, want) || !strings.Contains(rest, " was refused: auth: "+issuer+"/token answered HTTP 400: access_denied: the user denied the authorization\n") {
		t.Errorf("denied: exit %d, stdout %q, rest of stderr %q", code, out, rest)
	}
}

// A browser login that is not completed says what it waits for and for
// how long, prints one URL, and says what timed out: the login, not the
// server.
func TestBrowserLoginTimeout(t *testing.T) {
	issuer, serverURL, env := loginSetup(t)
	code, out, errOut := runBuilt(t, env, "auth", "login", "--url", serverURL, "--timeout", "2s")
	want := regexp.MustCompile(`^mcpkit: to authorize mcpkit, open this URL in a browser:\n  ` + regexp.QuoteMeta(issuer) + `/authorize\?\S+\n` +
		`mcpkit: waiting up to [12]s \(see --timeout\) for the browser to come back to http://127\.0\.0\.1:\d+/callback once you logged in and approved;\n` +
		`  with no browser on this machine, use: mcpkit auth login --device --url ` + regexp.QuoteMeta(serverURL) + `\n` +
		`mcpkit: timed out: the browser login was not completed within 2s \(see --timeout\)\n$`)
	if code != exitError || out != "" || !want.MatchString(errOut) {
		t.Errorf("exit %d, stdout %q, stderr\n%s\nwant 1, \"\", and stderr matching\n%s", code, out, errOut, want)
	}
}
