//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package main

// fileLimit reports that this system's limit on open files is not read
// (Windows has none on sockets that matters here).
func fileLimit() (uint64, bool) { return 0, false }
