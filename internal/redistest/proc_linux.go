package redistest

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// sysProcAttr has Linux kill a server when the test binary dies without
// stopping it (a panic, a -timeout), so that no redis-server outlives it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// exited reports whether the process pid has exited (a zombie, not yet
// reaped, or gone), without reaping it, so that no goroutine has to wait
// for it.
func exited(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// The state follows the command name, which is in parentheses.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	return b[i+2] == 'Z' || b[i+2] == 'X'
}
