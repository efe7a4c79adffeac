//go:build !unix

package mcp

import (
	"errors"
	"os"
)

// terminate reports that the platform has no signal that asks a child to
// stop: Windows delivers a console program no SIGTERM (os.Process.Signal
// supports only Kill there), so shutdown goes on to kill the server
// (TerminateProcess) rather than wait for a signal that never comes.
func terminate(*os.Process) error { return errors.ErrUnsupported }
