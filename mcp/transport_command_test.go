package mcp_test

// CommandTransport tests run the test binary itself as the server: when
// the environment variable below is set, init (which runs before TestMain
// and the tests) serves MCP over stdio and exits instead. The package's
// TestMain (main_test.go) is left alone.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// childModeEnv selects what the child server does when its stdin closes:
//   - "serve": exit 0, as a well-behaved stdio server does;
//   - "linger": keep running until SIGTERM, then exit 3;
//   - "stubborn": catch and ignore SIGTERM, so only SIGKILL ends it.
const childModeEnv = "MCPKIT_COMMAND_TEST_CHILD"

func init() {
	mode := os.Getenv(childModeEnv)
	if mode == "" {
		return
	}
	os.Exit(runChildServer(mode))
}

func runChildServer(mode string) int {
	// Signal handling is in place before the server answers initialize, so
	// a client that got its answer can rely on it.
	sigs := make(chan os.Signal, 1)
	if mode == "linger" || mode == "stubborn" {
		signal.Notify(sigs, syscall.SIGTERM)
	}
	s := mcp.NewServer(mcp.Implementation{Name: "child", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes its text."},
		func(_ context.Context, _ *mcp.Request, in struct {
			Text string `json:"text"`
		}) (string, error) {
			return in.Text, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "exit", Description: "Ends the server process at once."},
		func(context.Context, *mcp.Request, struct{}) (string, error) {
			os.Exit(0)
			return "", nil
		})
	fmt.Fprintln(os.Stderr, "child server: started in mode", mode)
	err := s.Run(context.Background(), &mcp.StdioTransport{})
	fmt.Fprintln(os.Stderr, "child server: stdin closed:", err)
	switch mode {
	case "linger":
		<-sigs
		return 3
	case "stubborn":
		for range sigs {
			fmt.Fprintln(os.Stderr, "child server: ignoring SIGTERM")
		}
	}
	if err != nil {
		return 1
	}
	return 0
}

// childCommand returns a command that runs this test binary as a server in
// the given mode, with its stderr captured in the returned buffer.
func childCommand(t *testing.T, mode string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	// Under -race, a process sleeps 1s before exiting unless told not to.
	cmd.Env = append(os.Environ(), childModeEnv+"="+mode, "GORACE=atexit_sleep_ms=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	return cmd, &stderr
}

func connectChild(t *testing.T, tr *mcp.CommandTransport) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), clientWatchdog)
	defer cancel()
	cs, err := mcp.NewClient(clientTestInfo, legacy(nil)).Connect(ctx, tr)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	return cs
}

func TestCommandTransportCleanShutdown(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cmd, stderr := childCommand(t, "serve")
	tr := &mcp.CommandTransport{Command: cmd}
	cs := connectChild(t, tr)
	ctx := context.Background()

	if got := cs.ServerInfo().Name; got != "child" {
		t.Errorf("server name = %q, want child", got)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	if got := toolNames(tools.Tools); strings.Join(got, ",") != "echo,exit" {
		t.Errorf("tools = %v", got)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: []byte(`{"text":"over a pipe"}`)})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	jsonEqual(t, "result", res, `{"content":[{"type":"text","text":"over a pipe"}]}`)

	// Closing stdin is enough: the server exits on EOF, nothing is
	// signalled.
	if err := cs.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := cs.Wait(); err != nil {
		t.Errorf("Wait: %v", err)
	}
	if ps := cmd.ProcessState; ps == nil || !ps.Success() {
		t.Errorf("server ended with %v, want exit status 0", ps)
	}
	if want := "child server: stdin closed: <nil>\n"; !strings.Contains(stderr.String(), want) {
		t.Errorf("server stderr = %q, want it to contain %q (stderr passes through)", stderr.String(), want)
	}
}

func TestCommandTransportSIGTERM(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cmd, _ := childCommand(t, "linger")
	// Close waits the grace after closing stdin and again after SIGTERM:
	// 500 ms rather than a few, so that a loaded machine does not reach
	// SIGKILL before the child's SIGTERM handler has run.
	tr := &mcp.CommandTransport{Command: cmd, ShutdownGrace: 500 * time.Millisecond}
	cs := connectChild(t, tr)
	if err := cs.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	err := cs.Close()
	if err == nil || !strings.Contains(err.Error(), "SIGTERM") {
		t.Errorf("Close = %v, want an error saying the server needed SIGTERM", err)
	}
	if ps := cmd.ProcessState; ps == nil || ps.ExitCode() != 3 {
		t.Errorf("server ended with %v, want exit status 3 (its SIGTERM handler)", ps)
	}
}

func TestCommandTransportSIGKILL(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cmd, stderr := childCommand(t, "stubborn")
	// Long enough for the child to report the SIGTERM it ignores, even on
	// a loaded machine (Close waits it twice).
	tr := &mcp.CommandTransport{Command: cmd, ShutdownGrace: 500 * time.Millisecond}
	cs := connectChild(t, tr)
	err := cs.Close()
	if err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("Close = %v, want an error saying the server was killed", err)
	}
	ps := cmd.ProcessState
	if ps == nil {
		t.Fatal("no ProcessState after Close")
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("server ended with %v, want killed by SIGKILL", ps)
	}
	if !strings.Contains(stderr.String(), "child server: ignoring SIGTERM") {
		t.Errorf("server stderr = %q: SIGTERM was not sent before SIGKILL", stderr.String())
	}
	// A second Close reports the same.
	if err2 := cs.Close(); err2 != err {
		t.Errorf("second Close = %v, want %v", err2, err)
	}
}

func TestCommandTransportServerExits(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cmd, _ := childCommand(t, "serve")
	cs := connectChild(t, &mcp.CommandTransport{Command: cmd})
	// The server exits while answering: the call fails, the session ends
	// cleanly (EOF on the server's stdout).
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "exit"})
	if !errors.Is(err, mcp.ErrSessionClosed) {
		t.Errorf("CallTool(exit) = %v, want ErrSessionClosed", err)
	}
	if err := cs.Wait(); err != nil {
		t.Errorf("Wait = %v, want nil", err)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("Close = %v, want nil (the server had exited)", err)
	}
}

func TestCommandTransportErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := (&mcp.CommandTransport{}).Connect(ctx); err == nil {
		t.Error("Connect with no Command succeeded")
	}
	cmd := exec.Command("true")
	cmd.Stdout = os.Stdout
	if _, err := (&mcp.CommandTransport{Command: cmd}).Connect(ctx); err == nil {
		t.Error("Connect with Command.Stdout set succeeded")
	}
	missing := exec.Command("/nonexistent/mcp-server")
	_, err := mcp.NewClient(clientTestInfo, nil).Connect(ctx, &mcp.CommandTransport{Command: missing})
	if want := "mcp: connecting transport: starting server: fork/exec /nonexistent/mcp-server: no such file or directory"; err == nil || err.Error() != want {
		t.Errorf("Connect to a missing program = %v, want %q", err, want)
	}
}
