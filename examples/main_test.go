package examples_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

// binDir holds the example binaries the tests build, once each.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpkit-examples-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) { os.RemoveAll(dir) }))
}

// build is one package built for the tests.
type build struct {
	once sync.Once
	path string
	err  error
}

var builds sync.Map // package path → *build

// binary builds the package pkg (a path relative to examples/, such as
// "./http-server") the first time a test asks for it and returns the
// executable's path. It skips the test in -short mode or without a go
// command.
func binary(t *testing.T, pkg string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the examples")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	v, _ := builds.LoadOrStore(pkg, new(build))
	b := v.(*build)
	b.once.Do(func() {
		b.path = filepath.Join(binDir, filepath.Base(pkg))
		if out, err := exec.Command(gobin, "build", "-o", b.path, pkg).CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}
