package gopeers

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The counts of the summary line TestMain prints.
var passed, failed atomic.Int64

// The binaries the tests run, built once by TestMain: the mcpkit CLI and
// cmd/peerserver. buildErr fails every check that needs them.
var (
	mcpkitBin, peerBin string
	buildErr           error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gopeers-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	mcpkitBin, peerBin = filepath.Join(dir, "mcpkit"), filepath.Join(dir, "peerserver")
	buildErr = errors.Join(
		goBuild(filepath.Join("..", ".."), mcpkitBin, "./cmd/mcpkit"),
		goBuild(".", peerBin, "./cmd/peerserver"),
	)
	code := m.Run()
	os.RemoveAll(dir)
	fmt.Printf("interop go-peers: %d passed, %d failed, 0 skipped\n", passed.Load(), failed.Load())
	if failed.Load() > 0 && code == 0 {
		code = 1
	}
	os.Exit(code)
}

// goBuild builds pkg, in the module at dir, into out.
func goBuild(dir, out, pkg string) error {
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
	}
	return nil
}

// checkTimeout bounds every check: a hang is a failure, never a stuck test.
const checkTimeout = 20 * time.Second

// check runs one named check with its own bounded context, prints
// "ok  NAME" or "FAIL NAME: why", counts it, and fails t on failure. A
// panic in f is a failure of the check. It reports whether f succeeded.
func check(t *testing.T, name string, f func(ctx context.Context) error) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), checkTimeout)
	defer cancel()
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		return f(ctx)
	}()
	if err == nil {
		passed.Add(1)
		fmt.Printf("ok  %s\n", name)
		return true
	}
	failed.Add(1)
	fmt.Printf("FAIL %s: %v\n", name, err)
	t.Errorf("FAIL %s: %v", name, err)
	return false
}

// errNotConnected fails the checks of a session that could not start.
var errNotConnected = errors.New("not connected (see the connect check above)")

// want returns an error when got != wanted.
func want[T comparable](what string, got, wanted T) error {
	if got != wanted {
		return fmt.Errorf("%s: got %v, want %v", what, got, wanted)
	}
	return nil
}

// httpServer is a `mcpkit serve --http 127.0.0.1:0` process.
type httpServer struct {
	url  string
	cmd  *exec.Cmd
	done chan struct{} // closed when its stderr ends
	mu   sync.Mutex
	log  strings.Builder
}

var urlRE = regexp.MustCompile(`url=(http://\S+)`)

// startServe starts `mcpkit serve --http 127.0.0.1:0` with the extra
// flags, and returns once it printed its URL. t's cleanup stops it.
func startServe(t *testing.T, flags ...string) (*httpServer, error) {
	if buildErr != nil {
		return nil, buildErr
	}
	s := &httpServer{done: make(chan struct{})}
	s.cmd = exec.Command(mcpkitBin, append([]string{"serve", "--http", "127.0.0.1:0"}, flags...)...)
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	urlCh := make(chan string, 1)
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.log.WriteString(line + "\n")
			s.mu.Unlock()
			if m := urlRE.FindStringSubmatch(line); m != nil {
				select {
				case urlCh <- m[1]:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	t.Cleanup(func() {
		_ = s.cmd.Process.Signal(os.Interrupt)
		<-s.done
		_ = s.cmd.Wait()
	})
	select {
	case s.url = <-urlCh:
		return s, nil
	case <-s.done:
		return nil, fmt.Errorf("mcpkit serve %s exited before printing its URL:\n%s", strings.Join(flags, " "), s.logText())
	case <-time.After(checkTimeout):
		return nil, fmt.Errorf("mcpkit serve %s printed no URL in %v", strings.Join(flags, " "), checkTimeout)
	}
}

func (s *httpServer) logText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}
