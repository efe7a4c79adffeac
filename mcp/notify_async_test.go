package mcp

import (
	"fmt"
	"testing"
	"time"
)

// A stream client that stops reading (its frames pile up unread, then its
// pipe is full) delays no one: AddTool and RemoveTools return, and another
// session still hears list_changed (issue 15, item 1). Before, the
// broadcast wrote to each session in turn on the caller's goroutine, and
// blocked for ever on the first that did not read.
func TestBroadcastDoesNotWaitForAStalledClient(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(nil)
		stalled := connect(s)
		stalled.handshake("2025-11-25", lcInitResult(0, "2025-11-25"))
		reader := connect(s)
		reader.handshake("2025-11-25", lcInitResult(0, "2025-11-25"))

		done := make(chan struct{})
		go func() {
			defer close(done)
			for i := range 500 {
				name := fmt.Sprintf("t%d", i)
				if err := s.AddTool(&Tool{Name: name}, nil); err != nil {
					t.Errorf("AddTool: %v", err)
				}
				s.RemoveTools(name)
			}
		}()
		select {
		case <-done:
		case <-time.After(lcWatchdog):
			t.Fatalf("AddTool and RemoveTools did not return after %v: a stalled client holds them up", lcWatchdog)
		}
		reader.expect(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}`)
		reader.end()
		stalled.end()
	})
}

// Identical notifications queued for a client that has not taken them are
// one, and the queue is bounded.
func TestNoticeQueueCoalescesAndBounds(t *testing.T) {
	var q noticeQueue
	start, err := q.push("notifications/tools/list_changed", []byte(`{}`), defaultMaxQueuedNotifications)
	if !start || err != nil {
		t.Fatalf("first push = %v, %v; want true, nil", start, err)
	}
	if start, err := q.push("notifications/tools/list_changed", []byte(`{}`), defaultMaxQueuedNotifications); start || err != nil {
		t.Fatalf("second push = %v, %v; want false, nil", start, err)
	}
	for i := 1; i < defaultMaxQueuedNotifications; i++ {
		if _, err := q.push("notifications/resources/updated", fmt.Appendf(nil, `{"uri":"r%d"}`, i), defaultMaxQueuedNotifications); err != nil {
			t.Fatalf("push %d: %v", i, err)
		}
	}
	if _, err := q.push("notifications/resources/updated", []byte(`{"uri":"over"}`), defaultMaxQueuedNotifications); err != ErrNotificationQueueFull {
		t.Fatalf("push past the bound = %v, want ErrNotificationQueueFull", err)
	}
	n := 0
	for {
		if _, ok := q.pop(); !ok {
			break
		}
		n++
	}
	if n != defaultMaxQueuedNotifications {
		t.Errorf("popped %d, want %d", n, defaultMaxQueuedNotifications)
	}
	if start, _ := q.push("x", nil, 1); !start {
		t.Error("a push after the queue drained must start a new delivery")
	}
}
