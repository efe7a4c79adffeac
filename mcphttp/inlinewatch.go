package mcphttp

import "time"

// inlineWatch gives the inline reply streams of a Handler their first tick
// (after headerDelay) from one timer over a list in opening order; a
// stream that outlasts it gets a timer of its own (stream.tick).
// docs/design.md, "Stream writes", says why.
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
// monoEpoch. Readings may be negative (in a synctest bubble): the watches
// only compare them.
func monoNanos() int64 { return int64(time.Since(monoEpoch)) }
