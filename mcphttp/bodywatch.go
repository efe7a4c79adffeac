package mcphttp

import (
	"sync"
	"time"
)

// bodyWatch stands in for a read deadline per POST body
// (Options.BodyReadTimeout): the reads in progress wait in a list in the
// order they fall due, and one timer, set for the oldest, serves them all;
// only a read still in progress when its time is up gets a deadline, one
// in the past (docs/design.md, "Body read deadlines").
type bodyWatch struct {
	dueList[*bodyRead]
}

// bodyRead is one body being read, in its Handler's bodyWatch while it
// is; its fields are guarded by the watch's lock.
type bodyRead struct {
	dl   readDeadliner
	link dueLink[*bodyRead]
	// fired says the watch found the read overdue and set the past
	// deadline on its connection (failed: and the setter failed, so the
	// read was not interrupted).
	fired, failed bool
}

// bodyReads recycles bodyRead values: one is needed per POST.
var bodyReads = sync.Pool{New: func() any { return new(bodyRead) }}

// pastDeadline is a read deadline that has passed: setting it ends a
// read in progress at once with os.ErrDeadlineExceeded.
var pastDeadline = time.Unix(1, 0)

// start watches a read of a body through dl that must end within d, and
// returns its place in the watch, for done.
func (bw *bodyWatch) start(dl readDeadliner, d time.Duration) *bodyRead {
	br := bodyReads.Get().(*bodyRead)
	br.dl, br.link.owner = dl, br
	bw.push(&br.link, d, bw)
	return br
}

// done stops watching br, whose read has ended, and gives it back. It
// reports whether the read's connection was given a deadline (set: the
// read was overdue; then, when ok, the read got its body all the same
// and the deadline is cleared) and whether setting it failed.
func (bw *bodyWatch) done(br *bodyRead, ok bool) (set, failed bool) {
	bw.mu.Lock()
	bw.unlinkLocked(&br.link)
	set, failed = br.fired, br.failed
	bw.mu.Unlock()
	if set && !failed && ok {
		_ = br.dl.SetReadDeadline(time.Time{})
	}
	*br = bodyRead{}
	bodyReads.Put(br)
	return set, failed
}

// fire ends the reads whose time is up and sets the timer for the next
// one. The deadline is set under the watch's lock, so that a read that
// done finds unfired is never given one afterwards (setting a deadline
// does not block).
func (bw *bodyWatch) fire() {
	now := monoNanos()
	bw.mu.Lock()
	for l := bw.popDueLocked(now); l != nil; l = bw.popDueLocked(now) {
		br := l.owner
		br.fired = true
		br.failed = !endRead(br.dl)
	}
	bw.rearmLocked(now)
	bw.mu.Unlock()
}

// endRead sets a past read deadline through dl, and reports whether it
// was set. A setter that panics (a middleware's writer) has not.
func endRead(dl readDeadliner) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return dl.SetReadDeadline(pastDeadline) == nil
}
