//go:build windows

package main

import (
	"os/exec"
	"strconv"
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

// terminateChild stops the child and every process it started: Windows
// has no SIGTERM to send a console program outside our console's group.
func terminateChild(cmd *exec.Cmd) { killTree(cmd) }

// killChild stops the child and every process it started.
func killChild(cmd *exec.Cmd) { killTree(cmd) }

// killTree ends the child's process tree with the system's taskkill
// (/T: the processes it started, as npx, uvx and cmd /c wrappers start
// the server itself; /F: at once), and the child alone where taskkill
// fails (it is gone already, or the system has none).
func killTree(cmd *exec.Cmd) {
	tk := exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(cmd.Process.Pid))
	if tk.Run() != nil {
		_ = cmd.Process.Kill()
	}
}
