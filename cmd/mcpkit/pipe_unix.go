//go:build !windows

package main

import (
	"errors"
	"syscall"
)

// brokenPipe reports whether err is a write to a pipe whose reader has
// closed it (EPIPE).
func brokenPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }
