//go:build windows

package main

import (
	"os/exec"
	"syscall"
)

// setChildProcessGroup starts cmd in a process group of its own, so that
// a console's Ctrl-C reaches mcpkit alone, which then ends the session
// (and the server) itself.
func setChildProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= syscall.CREATE_NEW_PROCESS_GROUP
}

// terminateChild stops the child: Windows has no SIGTERM to send a
// console program that is not attached to our console's group, so it is
// killed.
func terminateChild(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

// killChild kills the child.
func killChild(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
