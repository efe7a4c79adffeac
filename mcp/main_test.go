package mcp

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: every
// session, read loop and handler started by a test must end with it.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
