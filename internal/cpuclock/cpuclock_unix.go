//go:build unix

package cpuclock

import (
	"syscall"
	"time"
)

// Now reports the process's user+system CPU time so far (getrusage).
func Now() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
