package mcp

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

// exampleServerEnv, set to 1, makes the test binary a stdio MCP server
// with one tool, echo, instead of running the tests: the child process of
// ExampleCommandTransport.
const exampleServerEnv = "MCPKIT_EXAMPLE_STDIO_SERVER"

// TestMain fails the package's tests if any goroutine outlives them: every
// session, read loop and handler started by a test must end with it.
func TestMain(m *testing.M) {
	if os.Getenv(exampleServerEnv) == "1" {
		os.Exit(runExampleServer())
	}
	goleak.VerifyTestMain(m)
}

// runExampleServer serves echo on stdin and stdout until stdin ends.
func runExampleServer() int {
	s := NewServer(Implementation{Name: "echo-server", Version: "1.0.0"}, nil)
	type echoArgs struct {
		Text string `json:"text"`
	}
	err := AddTool(s, &Tool{Name: "echo", Description: "Sends the text back."}, func(_ context.Context, _ *Request, in echoArgs) (string, error) {
		return in.Text, nil
	})
	if err == nil {
		err = s.Run(context.Background(), &StdioTransport{})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// leakChecked holds the tests that already have a leak check.
var leakChecked sync.Map // testing.TB -> struct{}

// checkLeaks snapshots the goroutines alive now and, once the test and all
// its later cleanups are done, fails it if any goroutine started since is
// still alive. Call it before anything that starts goroutines or registers
// the cleanups that end them: cleanups run last-in first-out, so the check
// runs after those. Calls after the first in the same test do nothing, so
// that helpers may each call it: a second check, registered after the
// first helper's cleanups, would run before them and see their goroutines.
func checkLeaks(t testing.TB) {
	t.Helper()
	if _, dup := leakChecked.LoadOrStore(t, struct{}{}); dup {
		return
	}
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() {
		leakChecked.Delete(t)
		goleak.VerifyNone(t, before)
	})
}

// CheckLeaks is checkLeaks for the external tests (package mcp_test).
var CheckLeaks = checkLeaks
