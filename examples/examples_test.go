// Package examples_test checks that the examples the README shows are the
// ones in this directory, and that they work together.
package examples_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADMEShowsExamples: the README quotes each example file whole, so
// the code a newcomer copies is code that compiles and is tested here.
func TestREADMEShowsExamples(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"echo-server/main.go", "echo-client/main.go"} {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(readme), "```go\n"+string(src)+"```\n") {
			t.Errorf("README.md does not quote examples/%s verbatim in a ```go block", path)
		}
	}
}

// TestEchoClientAndServer builds both examples and runs the client with the
// server as its child.
func TestEchoClientAndServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two binaries")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	for _, name := range []string{"echo-server", "echo-client"} {
		if out, err := exec.Command(gobin, "build", "-o", filepath.Join(dir, name), "./"+name).CombinedOutput(); err != nil {
			t.Fatalf("go build ./%s: %v\n%s", name, err, out)
		}
	}
	out, err := exec.Command(filepath.Join(dir, "echo-client"), filepath.Join(dir, "echo-server")).CombinedOutput()
	if err != nil {
		t.Fatalf("echo-client: %v\n%s", err, out)
	}
	want := "tool echo: Sends the text back.\n{\"text\":\"hello\",\"length\":5}\n"
	if string(out) != want {
		t.Errorf("echo-client printed\n%s\nwant\n%s", out, want)
	}
}
