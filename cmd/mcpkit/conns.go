package main

import (
	"net"
	"sync"
	"sync/atomic"
)

// This file holds serve --max-conns: a bound on the connections the
// process holds open, so that clients cannot take every file descriptor
// (past RLIMIT_NOFILE, accept fails for everyone and Redis, log and OTLP
// connections cannot be opened). docs/limits.md gives the figures.

// connHeadroom is the part of the descriptor limit that --max-conns leaves
// to everything but client connections (the listener, stdio, Redis pools,
// the OTLP exporter, DNS lookups): an eighth of it, at least 64.
func connHeadroom(limit uint64) uint64 { return max(limit/8, 64) }

// fallbackMaxConns is the default of --max-conns where the descriptor
// limit cannot be read (Windows, or getrlimit failing).
const fallbackMaxConns = 10_000

// defaultMaxConns is --max-conns's default: the process's soft
// RLIMIT_NOFILE (which Go raises to the hard limit at start on Unix) less
// its headroom, at least 1; fallbackMaxConns when the limit is unknown or
// unlimited.
func defaultMaxConns() int {
	limit, ok := fileLimit()
	if !ok || limit > 1<<30 {
		return fallbackMaxConns
	}
	if h := connHeadroom(limit); limit > h {
		return int(limit - h)
	}
	return 1
}

// limitListener accepts at most max connections open at once; one
// accepted past it is closed at once, so the client sees its connection
// end (or reset) without a response, and the connections being served
// are not slowed.
type limitListener struct {
	net.Listener
	max     int64
	open    atomic.Int64
	refused atomic.Int64
	// onRefuse, if set, is told of each connection refused (it must not
	// block).
	onRefuse func(total int64)
}

func newLimitListener(ln net.Listener, max int, onRefuse func(total int64)) net.Listener {
	if max <= 0 {
		return ln
	}
	return &limitListener{Listener: ln, max: int64(max), onRefuse: onRefuse}
}

// Accept returns the next connection under the bound.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) <= l.max {
			return &limitConn{Conn: c, l: l}, nil
		}
		l.open.Add(-1)
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // a reset: nothing of it lingers in the kernel
		}
		_ = c.Close()
		n := l.refused.Add(1)
		if l.onRefuse != nil {
			l.onRefuse(n)
		}
	}
}

// limitConn gives its place back when it is closed, once.
type limitConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.open.Add(-1) })
	return err
}
