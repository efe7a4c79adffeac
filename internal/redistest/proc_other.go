//go:build !linux

package redistest

import "syscall"

// sysProcAttr sets nothing: the parent-death signal is Linux's.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// exited reports false: without /proc a server that dies at start is seen
// only when its start times out.
func exited(int) bool { return false }
