package mcp

import (
	"sync"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: every
// session, read loop and handler started by a test must end with it.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// leakChecked holds the tests that already have a leak check.
var leakChecked sync.Map // testing.TB -> struct{}

// checkLeaks snapshots the goroutines alive now and, once the test and all
// its later cleanups are done, fails it if any goroutine started since is
// still alive. Call it before anything that starts goroutines or registers
// the cleanups that end them: cleanups run last-in first-out, so the check
// runs after those. Calls after the first in the same test do nothing, so
// that helpers may each call it: a second check, registered after the
// first helper's cleanups, would run before them and see their goroutines.
func checkLeaks(t testing.TB) {
	t.Helper()
	if _, dup := leakChecked.LoadOrStore(t, struct{}{}); dup {
		return
	}
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() {
		leakChecked.Delete(t)
		goleak.VerifyNone(t, before)
	})
}

// CheckLeaks is checkLeaks for the external tests (package mcp_test).
var CheckLeaks = checkLeaks
