package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The mcpkit binary the tests of the issue-29 items run as a user runs
// it: built once per test process with `go build`, in a directory
// removed when the tests end.
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
	out  []byte
}

// builtMcpkit returns the path of the built mcpkit, building it on
// first use; a test is skipped when there is no go command.
func builtMcpkit(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "mcpkit-built-"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "mcpkit")
		built.out, built.err = exec.Command(gobin, "build", "-o", built.bin, ".").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.bin
}

// removeBuilt runs the tests, then removes the built binary.
type removeBuilt struct{ m interface{ Run() int } }

func (r removeBuilt) Run() int {
	defer func() {
		if built.dir != "" {
			os.RemoveAll(built.dir)
		}
	}()
	return r.m.Run()
}

// userEnv is the environment a user's shell would give mcpkit: the
// test's, without the variable that makes the test binary play mcpkit,
// with the given variables set (NAME=VALUE) or removed (NAME=).
func userEnv(vars ...string) []string {
	drop := map[string]bool{asMcpkitEnv: true}
	var set []string
	for _, v := range vars {
		name, value, _ := strings.Cut(v, "=")
		drop[name] = true
		if value != "" {
			set = append(set, v)
		}
	}
	var env []string
	for _, v := range os.Environ() {
		if name, _, _ := strings.Cut(v, "="); !drop[name] {
			env = append(env, v)
		}
	}
	return append(env, set...)
}
