//go:build unix

package mcp

import (
	"os"
	"syscall"
)

// terminate asks the server process to stop: SIGTERM.
func terminate(p *os.Process) error { return p.Signal(syscall.SIGTERM) }
