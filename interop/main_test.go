package interop

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
)

// tally counts leaf checks by outcome, per test, for the summary lines
// TestMain prints (interop/run.sh adds them up).
type tally struct{ passed, failed, skipped atomic.Int64 }

var (
	talliesMu sync.Mutex
	tallies   = map[string]*tally{}
)

// summaryNames are the summary lines' names of the tests.
var summaryNames = map[string]string{
	"TestTypeScriptServers": "interop mcpkit client vs TypeScript servers",
	"TestMcpkitBothEras":    "interop mcpkit client vs mcpkit",
}

func tallyFor(test string) *tally {
	talliesMu.Lock()
	defer talliesMu.Unlock()
	tl := tallies[test]
	if tl == nil {
		tl = &tally{}
		tallies[test] = tl
	}
	return tl
}

func TestMain(m *testing.M) {
	code := m.Run()
	names := make([]string, 0, len(tallies))
	for name := range tallies {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		tl := tallies[name]
		label := summaryNames[name]
		if label == "" {
			label = "interop " + name
		}
		fmt.Printf("%s: %d passed, %d failed, %d skipped\n", label, tl.passed.Load(), tl.failed.Load(), tl.skipped.Load())
	}
	os.Exit(code)
}

// check is one interop check against a connected session.
type check struct {
	name string
	run  func(t *testing.T, s *session)
}

// runChecks runs each check as a subtest of t and counts its outcome
// under test (the top-level test's name).
func runChecks(t *testing.T, test string, s *session, checks []check) {
	tl := tallyFor(test)
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			t.Cleanup(func() {
				switch {
				case t.Failed():
					tl.failed.Add(1)
				case t.Skipped():
					tl.skipped.Add(1)
				default:
					tl.passed.Add(1)
				}
			})
			c.run(t, s)
		})
	}
}

// requireNode skips the test unless node and the pinned packages are
// installed (`npm ci` in this directory).
func requireNode(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join("node_modules", "@modelcontextprotocol", "server-everything")); err != nil {
		t.Skip("interop/node_modules is missing: run `npm ci` in interop/ (interop/run.sh does)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	return node
}
