package mcphttp

import "time"

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
	dueList[*stream]
}

// add starts watching st: its first tick is due after the watch's delay.
func (iw *inlineWatch) add(st *stream) {
	st.watch.owner = st
	iw.push(&st.watch, iw.delay, iw)
}

// remove stops watching st, if it still is.
func (iw *inlineWatch) remove(st *stream) {
	iw.mu.Lock()
	iw.unlinkLocked(&st.watch)
	iw.mu.Unlock()
}

// fire ticks every stream whose first tick is due, and sets the timer for
// the next one. The ticks run after the watch's lock is let go: a tick
// takes its stream's lock, and may write to a slow connection.
func (iw *inlineWatch) fire() {
	now := monoNanos()
	var due []*stream
	iw.mu.Lock()
	for l := iw.popDueLocked(now); l != nil; l = iw.popDueLocked(now) {
		due = append(due, l.owner)
	}
	iw.rearmLocked(now)
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
