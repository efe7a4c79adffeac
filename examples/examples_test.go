// Package examples_test checks that the examples the README shows are the
// ones in this directory, and that they work together.
package examples_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
	for _, path := range []string{"echo-server/main.go", "echo-client/main.go", "http-client/main.go"} {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(readme), "```go\n"+string(src)+"```\n") {
			t.Errorf("README.md does not quote examples/%s verbatim in a ```go block", path)
		}
	}
}

// TestEchoClientAndServer runs the echo client with the echo server as its
// child, as the README says.
func TestEchoClientAndServer(t *testing.T) {
	client, server := binary(t, "./echo-client"), binary(t, "./echo-server")
	out, err := exec.Command(client, server).CombinedOutput()
	if err != nil {
		t.Fatalf("echo-client: %v\n%s", err, out)
	}
	want := "tool echo: Sends the text back.\n{\"text\":\"hello\",\"length\":5}\n"
	if string(out) != want {
		t.Errorf("echo-client printed\n%s\nwant\n%s", out, want)
	}
}

// TestREADMEQuotesOnlyExampleCode: every ```go block in the README is
// taken verbatim from one of the examples, so that an excerpt cannot drift
// from the code the tests run.
func TestREADMEQuotesOnlyExampleCode(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("*/main.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	var sources []string
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, string(src))
	}
	rest := string(readme)
	for {
		_, after, ok := strings.Cut(rest, "```go\n")
		if !ok {
			break
		}
		block, after, ok := strings.Cut(after, "```\n")
		if !ok {
			t.Fatal("README.md: a ```go block is not closed")
		}
		rest = after
		if !slices.ContainsFunc(sources, func(src string) bool { return strings.Contains(src, block) }) {
			t.Errorf("README.md quotes code that no example holds verbatim:\n%s", block)
		}
	}
}
