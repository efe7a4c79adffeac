//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// setChildProcessGroup starts cmd in a process group of its own: a
// terminal's Ctrl-C (SIGINT to the foreground group) reaches mcpkit
// alone, and stopping the server reaches every process it started.
func setChildProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// terminateChild sends SIGTERM to the child's process group.
func terminateChild(cmd *exec.Cmd) { signalGroup(cmd, syscall.SIGTERM) }

// killChild sends SIGKILL to the child's process group.
func killChild(cmd *exec.Cmd) { signalGroup(cmd, syscall.SIGKILL) }

func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
		// No group (it is gone already): the process itself, which
		// os.Process signals safely even once it was waited for.
		_ = cmd.Process.Signal(sig)
	}
}
