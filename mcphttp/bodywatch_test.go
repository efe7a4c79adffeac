package mcphttp

import (
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// deadlines records the read deadlines set through it.
type deadlines struct {
	mu  sync.Mutex
	set []time.Time
	err error
}

func (d *deadlines) SetReadDeadline(t time.Time) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.set = append(d.set, t)
	return d.err
}

func (d *deadlines) got() []time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.set)
}

// The watch sets a past deadline on a read still in progress when its
// time is up, and on no other; a read that ends after its deadline was
// set with its body all the same has the deadline cleared.
func TestBodyWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var bw bodyWatch
		const d = 10 * time.Millisecond
		var a, b, c deadlines
		ra := bw.start(&a, d)
		time.Sleep(5 * time.Millisecond)
		rb := bw.start(&b, d)
		rc := bw.start(&c, d)
		if set, failed := bw.done(rc, true); set || failed {
			t.Errorf("done in time: set %t failed %t", set, failed)
		}
		time.Sleep(6 * time.Millisecond) // a is due, b is not
		synctest.Wait()
		if got := a.got(); !slices.Equal(got, []time.Time{pastDeadline}) {
			t.Errorf("overdue read's deadlines %v, want [%v]", got, pastDeadline)
		}
		if got := b.got(); len(got) != 0 {
			t.Errorf("read in time: deadlines %v", got)
		}
		if set, failed := bw.done(rb, true); set || failed {
			t.Errorf("done in time: set %t failed %t", set, failed)
		}
		if set, failed := bw.done(ra, true); !set || failed {
			t.Errorf("done overdue: set %t failed %t, want set", set, failed)
		}
		if got := a.got(); !slices.Equal(got, []time.Time{pastDeadline, {}}) {
			t.Errorf("overdue read that got its body: deadlines %v, want the past one, then cleared", got)
		}
		if got := c.got(); len(got) != 0 {
			t.Errorf("read in time: deadlines %v", got)
		}
		// Nothing is watched: the timer is not set again.
		time.Sleep(time.Hour)
		synctest.Wait()
		if bw.armed || bw.head != nil || bw.tail != nil {
			t.Errorf("watch after the reads: armed %t head %p tail %p", bw.armed, bw.head, bw.tail)
		}

		// A read that fails past its deadline keeps it; a setter that
		// fails (or panics) is reported.
		var e deadlines
		e.err = errors.New("no deadlines here")
		re := bw.start(&e, d)
		rf := bw.start(panicker{}, d)
		time.Sleep(d)
		synctest.Wait()
		if set, failed := bw.done(re, false); !set || !failed {
			t.Errorf("failing setter: set %t failed %t, want both", set, failed)
		}
		if set, failed := bw.done(rf, false); !set || !failed {
			t.Errorf("panicking setter: set %t failed %t, want both", set, failed)
		}
		if got := e.got(); !slices.Equal(got, []time.Time{pastDeadline}) {
			t.Errorf("failing setter's deadlines %v", got)
		}
	})
}

type panicker struct{}

func (panicker) SetReadDeadline(time.Time) error { panic("no deadlines here") }
