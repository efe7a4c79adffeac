//go:build !unix && !windows

package cpuclock

import "time"

// start is when the process began, as far as this package knows.
var start = time.Now()

// Now reports the wall time since the package was loaded: the platform
// (js, wasip1, plan9) offers no CPU clock through the syscall package.
func Now() time.Duration { return time.Since(start) }
