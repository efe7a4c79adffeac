package examples_test

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// startHTTPServer runs the http-server example on a free port of
// 127.0.0.1 and returns its MCP endpoint, read from the line the server
// logs on stderr. At the end of the test the server gets SIGINT (Ctrl-C),
// and must exit 0 after logging that it stopped.
func startHTTPServer(t *testing.T) string {
	t.Helper()
	return startServer(t, binary(t, "./http-server"), "-addr", "127.0.0.1:0")
}

// startServer runs an example HTTP server, the executable bin with args,
// as startHTTPServer describes.
func startServer(t *testing.T, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stderr)
	var (
		mu   sync.Mutex
		logs strings.Builder
		url  string
	)
	for url == "" && lines.Scan() {
		logs.WriteString(lines.Text() + "\n")
		_, url, _ = strings.Cut(lines.Text(), "listening on ")
	}
	// Keep reading, so that the server never blocks on a full pipe; the
	// loop ends when the server exits.
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for lines.Scan() {
			mu.Lock()
			logs.WriteString(lines.Text() + "\n")
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		if err := cmd.Process.Signal(os.Interrupt); err != nil && !errors.Is(err, os.ErrProcessDone) {
			t.Error(err)
		}
		<-drained
		err := cmd.Wait()
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			t.Errorf("%s: %v; its stderr:\n%s", bin, err, logs.String())
		} else if !strings.HasSuffix(logs.String(), " stopped\n") {
			t.Errorf("%s did not log that it stopped; its stderr:\n%s", bin, logs.String())
		}
	})
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
		t.Fatalf("%s did not log a URL on 127.0.0.1; its stderr:\n%s", bin, logs.String())
	}
	return url
}

// run runs a program to the end and returns its exit code, stdout and
// stderr.
func run(t *testing.T, name string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return code, out.String(), errOut.String()
}

// readmeShows fails the test unless the README shows command, so that
// what the tests run is what the README tells people to run.
func readmeShows(t *testing.T, command string) {
	t.Helper()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), command) {
		t.Errorf("README.md does not show the command %q", command)
	}
}

// TestProgressClientOverHTTP runs the two examples as the README says,
// each in its own process: the server on a free port instead of 8080.
func TestProgressClientOverHTTP(t *testing.T) {
	readmeShows(t, "go run ./examples/http-server   # serves http://127.0.0.1:8080/mcp\n")
	readmeShows(t, "go run ./examples/progress-client -url http://127.0.0.1:8080/mcp\n")
	url := startHTTPServer(t)
	client := binary(t, "./progress-client")

	code, out, errOut := run(t, client, "-url", url)
	want := `log info countdown: "counting down from 3"
progress 1/3: 2 left
progress 2/3: 1 left
progress 3/3: 0 left
Liftoff!
`
	if code != 0 || out != want || errOut != "" {
		t.Errorf("progress-client -url %s: exit %d, stdout\n%s\nstderr\n%s\nwant exit 0, stdout\n%s", url, code, out, errOut, want)
	}

	// A tool error: the tool's message on stderr, exit 1, no progress.
	readmeShows(t, `go run ./examples/progress-client -url http://127.0.0.1:8080/mcp -args '{"from":11}'`)
	code, out, errOut = run(t, client, "-url", url, "-args", `{"from":11}`)
	if wantErr := "from must be between 1 and 10, not 11\n"; code != 1 || out != "" || errOut != wantErr {
		t.Errorf("progress-client -args {\"from\":11}: exit %d, stdout %q, stderr %q; want exit 1, stdout \"\", stderr %q", code, out, errOut, wantErr)
	}
}

// TestHTTPServerResourcesAndPrompts reads the example's resources and
// gets its prompt with the mcpkit CLI, as the README says.
func TestHTTPServerResourcesAndPrompts(t *testing.T) {
	url := startHTTPServer(t)
	mcpkit := binary(t, "../cmd/mcpkit")
	for _, c := range []struct {
		readme string   // the command as the README shows it
		args   []string // the same, run by the test
		want   string
	}{{
		readme: "mcpkit resources list --url http://127.0.0.1:8080/mcp\n",
		args:   []string{"resources", "list", "--url", url},
		want: "example://about             text/plain  What this server is.\n" +
			"example://greetings/{name}  text/plain  A greeting for anyone.\n",
	}, {
		readme: "mcpkit resources read example://about --url http://127.0.0.1:8080/mcp\n",
		args:   []string{"resources", "read", "example://about", "--url", url},
		want:   "An example MCP server built with mcpkit.\n",
	}, {
		readme: "mcpkit resources read example://greetings/Ada --url http://127.0.0.1:8080/mcp\n",
		args:   []string{"resources", "read", "example://greetings/Ada", "--url", url},
		want:   "Hello, Ada!\n",
	}, {
		readme: "mcpkit prompts list --url http://127.0.0.1:8080/mcp\n",
		args:   []string{"prompts", "list", "--url", url},
		want:   "review  code [language]  Asks for a code review.\n",
	}, {
		readme: `mcpkit prompts get review --args '{"code":"x := 1","language":"Go"}' --url http://127.0.0.1:8080/mcp` + "\n",
		args:   []string{"prompts", "get", "review", "--args", `{"code":"x := 1","language":"Go"}`, "--url", url},
		want:   "user: Please review this Go:\n\nx := 1\n",
	}} {
		readmeShows(t, c.readme)
		code, out, errOut := run(t, mcpkit, c.args...)
		if code != 0 || out != c.want || errOut != "" {
			t.Errorf("mcpkit %s: exit %d, stdout\n%s\nstderr\n%s\nwant exit 0, stdout\n%s", strings.Join(c.args, " "), code, out, errOut, c.want)
		}
	}
}

// TestProgressClientStartsCommand runs the single-process form of the
// README: the client starts the reference server after -- and speaks to
// it over stdio.
func TestProgressClientStartsCommand(t *testing.T) {
	readmeShows(t, "go run ./examples/progress-client -tool test_tool_with_progress -args '{}' -- mcpkit serve\n")
	client, mcpkit := binary(t, "./progress-client"), binary(t, "../cmd/mcpkit")
	code, out, _ := run(t, client, "-tool", "test_tool_with_progress", "-args", "{}", "--", mcpkit, "serve")
	want := `progress 0/100
progress 50/100
progress 100/100
Progress test completed: progress 0, 50 and 100 of 100 sent for progressToken "progress-client-1"
`
	if code != 0 || out != want {
		t.Errorf("progress-client -- mcpkit serve: exit %d, stdout\n%s\nwant exit 0, stdout\n%s", code, out, want)
	}
}

// TestProgressClientNeedsAServer: without -url or a command, or with both,
// the client says what it wants and exits 1.
func TestProgressClientNeedsAServer(t *testing.T) {
	client := binary(t, "./progress-client")
	for _, args := range [][]string{nil, {"-url", "http://127.0.0.1:1/mcp", "--", "true"}} {
		code, out, errOut := run(t, client, args...)
		if code != 1 || out != "" || !strings.HasSuffix(errOut, "give either -url URL, or the server command after --\n") {
			t.Errorf("progress-client %q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}
