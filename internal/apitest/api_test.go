package apitest

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/api from the packages' current exported API")

// packages are the importable packages of the module whose exported API
// is recorded, as paths from the module root.
var packages = []string{"mcp", "mcphttp", "jsonrpc", "auth", "auth/devserver", "mcpsse", "ext/servercard"}

// moduleRoot is the module root seen from this package's directory, where
// go test runs.
const moduleRoot = "../.."

// TestAPI compares each package's exported API with its golden listing in
// testdata/api. A difference fails the test with the lines that changed:
// the exported surface grows or changes only by a reviewed decision,
// recorded by rewriting the listing in the same commit.
func TestAPI(t *testing.T) {
	for _, pkg := range packages {
		t.Run(pkg, func(t *testing.T) {
			got, err := Listing(filepath.Join(moduleRoot, pkg))
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "api", pkg+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v\nrun: go test ./internal/apitest -run TestAPI -update", err)
			}
			if got != string(want) {
				added, removed := lineDiff(string(want), got)
				t.Errorf("the exported API of package %s differs from %s.\n"+
					"Growing or changing the exported API is a reviewed decision: if this change is intended,\n"+
					"run `go test ./internal/apitest -run TestAPI -update` and commit the listing with the change.\n"+
					"only in the code (+) and only in the listing (-):\n%s%s",
					pkg, golden, prefixLines("+ ", added), prefixLines("- ", removed))
			}
		})
	}
}

// plumbing are the names issue 16 took out of package mcp's exported API
// that stay out: what transports need is mcp.Host's (issue 26).
var plumbing = []string{
	"HandleRequestExtra", "HandleNotification", "HandleNotificationExtra", "HandleResponse",
	"HandleModernRequest", "ToolInputSchema", "ToolRequiredScopes", "MessageWriter", "OutgoingMessage",
	"NewStreamConnection", "ModernProtocolVersion", "StatelessProtocolVersion",
}

// TestNoPlumbingExported: no name of the transport plumbing, and no name
// of the era vocabulary issue 16 retired (Modern, Legacy), is exported by
// mcp, mcphttp or auth.
func TestNoPlumbingExported(t *testing.T) {
	for _, pkg := range []string{"mcp", "mcphttp", "auth"} {
		listing, err := Listing(filepath.Join(moduleRoot, pkg))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range plumbing {
			if regexp.MustCompile(`\b` + name + `\b`).MatchString(listing) {
				t.Errorf("package %s exports %s, which is transport plumbing", pkg, name)
			}
		}
		if m := regexp.MustCompile(`\b\w*(Modern|Legacy)\w*\b`).FindAllString(listing, -1); m != nil {
			t.Errorf("package %s exports %v: the eras are the session era and the stateless era", pkg, m)
		}
	}
}

// TestGodocNamesNoFiles: godoc is read by users who never see the source
// files, so no comment it shows names one.
func TestGodocNamesNoFiles(t *testing.T) {
	for _, pkg := range packages {
		found, err := DocsNamingFiles(filepath.Join(moduleRoot, pkg))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range found {
			t.Errorf("package %s: the godoc of %s", pkg, f)
		}
	}
}

// TestListingIsDeterministic: two listings of the same package are the
// same bytes, whatever the order the files are read in.
func TestListingIsDeterministic(t *testing.T) {
	a, err := Listing(filepath.Join(moduleRoot, "jsonrpc"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Listing(filepath.Join(moduleRoot, "jsonrpc"))
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Error("two listings of jsonrpc differ")
	}
}

// lineDiff returns the lines of got missing from want and those of want
// missing from got, counting repeats, each in its order.
func lineDiff(want, got string) (added, removed []string) {
	count := map[string]int{}
	for _, l := range strings.Split(want, "\n") {
		count[l]++
	}
	for _, l := range strings.Split(got, "\n") {
		if count[l] > 0 {
			count[l]--
		} else {
			added = append(added, l)
		}
	}
	for _, l := range strings.Split(want, "\n") {
		if count[l] > 0 {
			count[l]--
			removed = append(removed, l)
		}
	}
	return added, removed
}

// prefixLines returns lines, each prefixed and ended with a newline.
func prefixLines(prefix string, lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(prefix + l + "\n")
	}
	return b.String()
}

// TestNoInit: no package of the core or of the JSON-RPC layer has an init
// function, so nothing is registered across packages behind the reader's
// back (issue 26): what a transport calls is what go-to-definition finds.
func TestNoInit(t *testing.T) {
	for _, pkg := range []string{"mcp", "mcphttp", "mcpsse", "jsonrpc"} {
		files, err := filepath.Glob(filepath.Join(moduleRoot, pkg, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
					t.Errorf("%s has an init function", filepath.ToSlash(name))
				}
			}
		}
	}
}
