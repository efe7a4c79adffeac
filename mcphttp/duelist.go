package mcphttp

import (
	"sync"
	"time"
)

// dueList stands in for a timer per waiter where every waiter of a
// Handler waits the same time: the order waiters join in is then the
// order they fall due, so the list keeps them in that order and one
// timer, set for the oldest, serves them all (inlineWatch, bodyWatch).
// Its owner's fire pops what is due and re-arms it, under mu.
type dueList[T any] struct {
	mu         sync.Mutex
	head, tail *dueLink[T]
	timer      *time.Timer // made on first use
	armed      bool        // timer is pending or firing
}

// dueLink is a waiter's place in a dueList, guarded by the list's lock;
// owner is the waiter.
type dueLink[T any] struct {
	owner      T
	due        int64 // monoNanos
	prev, next *dueLink[T]
	in         bool
}

// firer is a dueList's owner, whose fire the timer calls.
type firer interface{ fire() }

// push adds l, due after d, at the tail, arming the timer to call
// owner's fire if it is not armed.
func (q *dueList[T]) push(l *dueLink[T], d time.Duration, owner firer) {
	due := monoNanos() + int64(d)
	q.mu.Lock()
	l.due, l.in, l.prev, l.next = due, true, q.tail, nil
	if q.tail != nil {
		q.tail.next = l
	} else {
		q.head = l
	}
	q.tail = l
	if !q.armed {
		q.armed = true
		if q.timer == nil {
			q.timer = time.AfterFunc(d, owner.fire)
		} else {
			q.timer.Reset(d)
		}
	}
	q.mu.Unlock()
}

// unlinkLocked takes l out of the list, if it is in it.
func (q *dueList[T]) unlinkLocked(l *dueLink[T]) {
	if !l.in {
		return
	}
	if l.prev != nil {
		l.prev.next = l.next
	} else {
		q.head = l.next
	}
	if l.next != nil {
		l.next.prev = l.prev
	} else {
		q.tail = l.prev
	}
	l.prev, l.next, l.in = nil, nil, false
}

// popDueLocked takes out and returns the oldest waiter if it is due at
// now, or returns nil.
func (q *dueList[T]) popDueLocked(now int64) *dueLink[T] {
	l := q.head
	if l == nil || l.due > now {
		return nil
	}
	q.unlinkLocked(l)
	return l
}

// rearmLocked sets the timer for the oldest waiter left, or notes it
// unarmed when there is none: the end of a fire.
func (q *dueList[T]) rearmLocked(now int64) {
	if q.head != nil {
		q.timer.Reset(time.Duration(q.head.due - now))
	} else {
		q.armed = false
	}
}
