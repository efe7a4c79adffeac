//go:build unix

package main

// The issue-29 tests that send signals to process groups and read /proc.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// processGone reports whether process pid has ended (it does not exist,
// or it is a zombie no one has reaped yet).
func processGone(t *testing.T, pid int) bool {
	t.Helper()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if errors.Is(err, os.ErrNotExist) {
		return true
	}
	if err != nil {
		t.Fatal(err)
	}
	// pid (comm) STATE ...: comm may hold spaces, not ")".
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

// A server that does not answer within --timeout is stopped, with every
// process it started, when mcpkit gives up on it: here a shell whose
// child, a sleep, is not the one mcpkit started.
func TestTimedOutServerStopped(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	cmd := exec.Command(builtMcpkit(t), "tools", "list", "--era", "session", "--timeout", "1s", "--", "sh", "-c", "sleep 30 & echo $! >&2; wait")
	cmd.Env = userEnv()
	stderr, err := cmd.StderrPipe()
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
	r := bufio.NewReader(stderr)
	line, err := r.ReadString('\n')
	pid, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		t.Fatalf("first line of stderr %q, %v: want the pid of the sleep", line, err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	rest, _ := io.ReadAll(r)
	code := waitExit(t, cmd)
	if want := "mcpkit: timed out: the server did not answer within 1s (see --timeout)\n"; code != exitError || string(rest) != want {
		t.Errorf("exit %d, rest of stderr %q; want 1, %q", code, rest, want)
	}
	if !processGone(t, pid) {
		t.Errorf("the server's child (pid %d) still runs after mcpkit exited", pid)
	}
}

// A Ctrl-C at a terminal sends SIGINT to the whole foreground process
// group: mcpkit and the server it started. mcpkit exits 130 saying
// "interrupted", every time, and not with the error the server answers
// the interrupted call with when it sees the signal first.
func TestGroupInterrupt(t *testing.T) {
	bin := builtMcpkit(t)
	for i := range 20 {
		cmd := exec.Command(bin, "tools", "call", "countdown", "--args", `{"seconds":60}`, "--", bin, "serve", "--log-level", "warn")
		cmd.Env = userEnv()
		// A group of its own, as a shell gives a job.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(stderr)
		// The call is running once its first progress shows.
		if line, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(line, "progress 0/60") {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("run %d: first line of stderr %q, %v; want the progress", i, line, err)
		}
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		rest, _ := io.ReadAll(r)
		code := waitExit(t, cmd)
		if code != 130 || !strings.HasSuffix(string(rest), "mcpkit: interrupted\n") || strings.Contains(string(rest), "context canceled") {
			t.Errorf("run %d: exit %d, rest of stderr %q; want 130 and %q last", i, code, rest, "mcpkit: interrupted\n")
		}
	}
}
