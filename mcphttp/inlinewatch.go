package mcphttp

import (
	"sync"
	"time"
)

// inlineWatch stands in for a timer per inline reply stream. Almost every
// inline stream ends long before its first tick is due (see headerDelay),
// so arming and stopping a timer for each one costs a timer, a closure and
// two trips through the runtime's timer heap per request, for nothing.
// Every stream of a Handler waits the same delay before its first tick, so
// the order streams open in is the order their ticks fall due: the watch
// keeps them in a list in that order, and one timer, set for the oldest,
// serves them all. A stream that outlasts its first tick and needs
// keep-alives gets a timer of its own then (stream.tick).
type inlineWatch struct {
	delay time.Duration

	mu         sync.Mutex
	head, tail *stream
	timer      *time.Timer // made on first use
	armed      bool        // timer is pending or firing
}

// watchLink is a stream's place in an inlineWatch, guarded by the watch's
// lock.
type watchLink struct {
	prev, next *stream
	due        int64 // monoNanos
	in         bool
}

// add starts watching st: its first tick is due after the watch's delay.
func (iw *inlineWatch) add(st *stream) {
	due := monoNanos() + int64(iw.delay)
	iw.mu.Lock()
	l := &st.watch
	l.due, l.in, l.prev, l.next = due, true, iw.tail, nil
	if iw.tail != nil {
		iw.tail.watch.next = st
	} else {
		iw.head = st
	}
	iw.tail = st
	if !iw.armed {
		iw.armed = true
		if iw.timer == nil {
			iw.timer = time.AfterFunc(iw.delay, iw.fire)
		} else {
			iw.timer.Reset(iw.delay)
		}
	}
	iw.mu.Unlock()
}

// remove stops watching st, if it still is.
func (iw *inlineWatch) remove(st *stream) {
	iw.mu.Lock()
	iw.unlinkLocked(st)
	iw.mu.Unlock()
}

func (iw *inlineWatch) unlinkLocked(st *stream) {
	l := &st.watch
	if !l.in {
		return
	}
	if l.prev != nil {
		l.prev.watch.next = l.next
	} else {
		iw.head = l.next
	}
	if l.next != nil {
		l.next.watch.prev = l.prev
	} else {
		iw.tail = l.prev
	}
	*l = watchLink{}
}

// fire ticks every stream whose first tick is due, and sets the timer for
// the next one. The ticks run after the watch's lock is let go: a tick
// takes its stream's lock, and may write to a slow connection.
func (iw *inlineWatch) fire() {
	now := monoNanos()
	var due []*stream
	iw.mu.Lock()
	for st := iw.head; st != nil && st.watch.due <= now; st = iw.head {
		iw.unlinkLocked(st)
		due = append(due, st)
	}
	if iw.head != nil {
		iw.timer.Reset(time.Duration(iw.head.watch.due - now))
	} else {
		iw.armed = false
	}
	iw.mu.Unlock()
	for _, st := range due {
		st.tick()
	}
}

// monoEpoch is what monoNanos counts from.
var monoEpoch = time.Now()

// monoNanos reads the monotonic clock alone, in nanoseconds since
// monoEpoch: the inline and the body watches read a clock on every
// request, and time.Now reads the wall clock as well, which costs about
// as much again and which neither needs (a wall clock set back or
// forward would only skew their timeouts). Its readings may be negative
// (in a synctest bubble, whose clock is not monoEpoch's); the watches
// only compare them. The registry keeps Unix nanoseconds: it treats
// negative values as unset.
func monoNanos() int64 { return int64(time.Since(monoEpoch)) }
