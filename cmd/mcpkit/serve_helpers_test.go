package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
)

// servedHTTP is `mcpkit serve --http 127.0.0.1:0 ARGS…` run in-process:
// its first log line (which names its URLs), the log lines after it, and
// its exit code once stopped.
type servedHTTP struct {
	first string
	logs  *lineWriter
	code  chan int
	stop  context.CancelFunc
}

// startServeHTTP starts the server and waits for its first log line; the
// server is stopped when the test ends, if the test has not stopped it.
func startServeHTTP(t *testing.T, args ...string) *servedHTTP {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s := &servedHTTP{logs: &lineWriter{lines: make(chan string, 64)}, code: make(chan int, 1), stop: cancel}
	go func() {
		s.code <- run(ctx, append([]string{"serve", "--http", "127.0.0.1:0"}, args...), strings.NewReader(""), &lineWriter{lines: make(chan string, 1)}, s.logs)
	}()
	select {
	case s.first = <-s.logs.lines:
	case <-time.After(30 * time.Second):
		t.Fatal("serve --http logged nothing")
	}
	return s
}

// find returns the first submatch of pattern in the first log line.
func (s *servedHTTP) find(t *testing.T, pattern string) string {
	t.Helper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(s.first)
	if m == nil {
		t.Fatalf("first log line %q does not match %s", s.first, pattern)
	}
	return m[1]
}

// end stops the server and checks that it exits 0.
func (s *servedHTTP) end(t *testing.T) {
	t.Helper()
	s.stop()
	select {
	case c := <-s.code:
		if c != 0 {
			t.Errorf("serve --http exit %d, logs %q", c, s.logs.rest())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve --http did not stop when its context ended")
	}
}
