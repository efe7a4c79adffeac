package mcphttp

import (
	"testing"
	"testing/synctest"
	"time"
)

// watched lists the streams an inlineWatch holds, oldest first.
func watched(iw *inlineWatch) []*stream {
	iw.mu.Lock()
	defer iw.mu.Unlock()
	var out []*stream
	for l := iw.head; l != nil; l = l.next {
		out = append(out, l.owner)
	}
	return out
}

func sameStreams(t *testing.T, step string, got []*stream, want ...*stream) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d streams watched, want %d", step, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: stream %d is not the one expected", step, i)
		}
	}
}

// The watch lets go of each stream when its delay has passed (ticking it)
// or when it is removed, and its one timer follows the oldest stream left.
func TestInlineWatchFollowsOldestStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		iw := &inlineWatch{delay: 100 * time.Millisecond}
		// Streams with no attachment: their ticks do nothing.
		s1, s2, s3, s4 := &stream{}, &stream{}, &stream{}, &stream{}
		iw.add(s1)
		time.Sleep(50 * time.Millisecond)
		iw.add(s2)
		iw.add(s3)
		iw.remove(s2)
		sameStreams(t, "after removing the middle one", watched(iw), s1, s3)
		iw.remove(s2) // removing twice is harmless
		time.Sleep(60 * time.Millisecond)
		synctest.Wait()
		sameStreams(t, "at 110ms", watched(iw), s3)
		time.Sleep(50 * time.Millisecond)
		synctest.Wait()
		sameStreams(t, "at 160ms", watched(iw))
		iw.mu.Lock()
		armed := iw.armed
		iw.mu.Unlock()
		if armed {
			t.Fatal("the timer is armed with nothing to watch")
		}
		iw.add(s4)
		iw.remove(s4)
		time.Sleep(200 * time.Millisecond)
		synctest.Wait()
		iw.mu.Lock()
		armed = iw.armed
		iw.mu.Unlock()
		if armed || iw.head != nil || iw.tail != nil {
			t.Fatalf("armed %v, head %p, tail %p after the last stream left", armed, iw.head, iw.tail)
		}
		iw.add(s1) // the stopped timer is set again
		sameStreams(t, "re-added", watched(iw), s1)
		time.Sleep(100 * time.Millisecond)
		synctest.Wait()
		sameStreams(t, "after its delay", watched(iw))
	})
}
