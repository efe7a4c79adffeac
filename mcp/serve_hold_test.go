package mcp

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// On stdio a reply that finishes while other requests are queued is held
// to go out in one write with theirs, and is written within holdDelay
// when they take longer; a reply with nothing queued behind it goes out at
// once.
func TestStdioHeldRepliesWrittenWithinHoldDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := lcNewServer(&ServerOptions{MaxConcurrentRequests: 2})
		b := lcAddBlocker(t, s, "slow")
		lcAddEcho(t, s)
		c := lcConnectStdio(t, s, 0)
		c.handshake("2025-11-25", lcInitResultTools(0, "2025-11-25"))
		c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`)
		c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}`)
		synctest.Wait()
		<-b.started
		<-b.started
		// Both wait for a slot.
		c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"three"}}}`)
		c.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"slow"}}`)
		synctest.Wait()
		// One of 1 and 2 ends with 3 and 4 queued; 3 ends with 4 queued;
		// 4 blocks.
		b.release <- struct{}{}
		synctest.Wait()
		<-b.started
		if n := len(c.frames); n != 0 {
			t.Fatalf("%d replies written at once, want them held", n)
		}
		time.Sleep(holdDelay)
		synctest.Wait()
		if n := len(c.frames); n != 2 {
			t.Fatalf("%d replies written after holdDelay, want 2", n)
		}
		first := c.recv()
		if !slices.Contains([]string{
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"released 1"}]}}`,
			`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"released 2"}]}}`,
		}, first) {
			t.Errorf("first reply %s", first)
		}
		c.expect(`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"three"}]}}`)
		// The last two end with nothing queued: written at once.
		close(b.release)
		synctest.Wait()
		if n := len(c.frames); n != 2 {
			t.Fatalf("%d replies written when the last requests ended, want 2", n)
		}
		c.recv()
		c.recv()
		c.finish()
	})
}
