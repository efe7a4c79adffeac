package mcp

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// workers counts the goroutines running workPool.work in the caller's
// synctest bubble: other tests' workers (parallel tests, or a test's
// session still closing) are not counted.
func workers() int {
	self := make([]byte, 256)
	self = self[:runtime.Stack(self, false)]
	header, _, _ := strings.Cut(string(self), "\n")
	_, bubble, ok := strings.Cut(header, ", synctest bubble ")
	if !ok {
		panic("workers must be called inside a synctest bubble")
	}
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		header, _, _ := strings.Cut(g, "\n")
		if strings.HasSuffix(header, ", synctest bubble "+bubble) && strings.Contains(g, "mcp.(*workPool).work(") {
			n++
		}
	}
	return n
}

// A stream session reuses its workers while busy and keeps none once idle
// for workerIdle: an idle session holds no goroutine for its requests.
func TestServeWorkersEndWhenIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := lcNewServer(nil)
		lcAddEcho(t, s)
		c := lcConnectMemory(t, s)
		c.handshake("2025-11-25", lcInitResultTools(0, "2025-11-25"))
		for range 3 {
			c.run(`
				-> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}}
				<- {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a"}]}}
			`)
			// The response is written before its worker goes idle: wait
			// for that, or the next call may rightly start a second one.
			synctest.Wait()
		}
		if n := workers(); n != 1 {
			t.Errorf("%d workers after three calls in a row, want 1 (reused)", n)
		}
		time.Sleep(workerIdle - time.Millisecond)
		synctest.Wait()
		if n := workers(); n != 1 {
			t.Errorf("%d workers before workerIdle has passed, want 1", n)
		}
		time.Sleep(2 * time.Millisecond)
		synctest.Wait()
		if n := workers(); n != 0 {
			t.Errorf("%d workers after workerIdle, want 0", n)
		}
		// A new request starts a new worker.
		c.run(`
			-> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"b"}}}
			<- {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"b"}]}}
		`)
		c.finish()
	})
}

// A queue that is never empty (a client that always has requests waiting)
// stays within the bound on outstanding jobs instead of growing.
func TestWorkPoolQueueStaysBounded(t *testing.T) {
	var wg sync.WaitGroup
	gate := make(chan struct{})
	ran := make(chan struct{}, 1024)
	p := newWorkPool(context.Background(), 2, &wg, func(job) {
		<-gate
		ran <- struct{}{}
	})
	for range 4 { // two run (blocked on the gate), two wait
		p.submit(job{})
	}
	for range 1000 {
		gate <- struct{}{} // one job ends, the next starts
		<-ran
		p.submit(job{})
	}
	p.mu.Lock()
	n, c := p.pending(), cap(p.queue)
	p.mu.Unlock()
	// Two or three wait (a worker may not have taken its next job yet).
	if n < 2 || n > 3 || c > 8 {
		t.Errorf("%d queued in a queue of capacity %d, want 2 or 3 in a small one", n, c)
	}
	close(gate)
	p.close()
	wg.Wait()
}

// Two jobs submitted back to back while one worker is idle both start at
// once: the second starts another worker rather than signalling the idle
// one a second time, which would leave it queued behind the first.
func TestWorkPoolSecondJobDoesNotWaitForTheFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var wg sync.WaitGroup
		started := make(chan string, 8)
		release := make(chan struct{})
		p := newWorkPool(context.Background(), 4, &wg, func(j job) {
			started <- string(j.batch)
			if string(j.batch) == "block" {
				<-release
			}
		})
		p.submit(job{batch: []byte("warm")})
		synctest.Wait() // its worker is now idle
		if got := <-started; got != "warm" {
			t.Fatalf("started %q, want warm", got)
		}
		p.submit(job{batch: []byte("block")})
		p.submit(job{batch: []byte("second")})
		synctest.Wait()
		if n := len(started); n != 2 {
			t.Errorf("%d jobs started while the first blocks, want 2", n)
		}
		if q := p.queued(); q != 0 {
			t.Errorf("%d jobs still queued with free slots, want 0", q)
		}
		if n := workers(); n != 2 {
			t.Errorf("%d workers, want 2", n)
		}
		close(release)
		synctest.Wait()
		p.mu.Lock()
		idle, woken := p.idle, p.woken
		p.mu.Unlock()
		if idle != 2 || woken != 0 {
			t.Errorf("once both are done: %d idle, %d wake-ups owed; want 2 and 0", idle, woken)
		}
		p.close()
		wg.Wait()
	})
}

// A request written in the same write as a slow one (so that both are
// read and submitted before any worker wakes) is answered while the slow
// one still runs. The synctest bubble turns a request left waiting into a
// failure at once: every goroutine blocks, and the watchdog fires.
func TestStdioPipelinedRequestDoesNotWaitForASlowOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := lcNewServer(nil)
		b := lcAddBlocker(t, s, "slow")
		lcAddEcho(t, s)
		c := lcConnectStdio(t, s, 0)
		c.handshake("2025-11-25", lcInitResultTools(0, "2025-11-25"))
		c.run(`
			-> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"warm"}}}
			<- {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"warm"}]}}
		`)
		synctest.Wait() // the session's one worker is idle
		if err := c.write([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}` + "\n" +
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"meanwhile"}}}`)); err != nil {
			t.Fatal(err)
		}
		c.expect(`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"meanwhile"}]}}`)
		// The slow one is still held (it may start after echo's answer).
		lcWait(t, b.started, "the slow tool to start")
		close(b.release)
		c.expect(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"released 2"}]}}`)
		c.finish()
	})
}

// The idle timer is set once, not for each idle spell: the workers end
// workerIdle after the last spell began, however many spells came before
// within the timer's time.
func TestWorkPoolIdleTimerSetOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var wg sync.WaitGroup
		p := newWorkPool(context.Background(), 4, &wg, func(job) {})
		p.submit(job{batch: []byte("a")})
		synctest.Wait() // idle: the timer is set for workerIdle from now
		time.Sleep(workerIdle / 2)
		p.submit(job{batch: []byte("b")})
		synctest.Wait() // a second idle spell
		p.mu.Lock()
		armed, gen := p.armed, p.gen
		p.mu.Unlock()
		if !armed || gen != 2 {
			t.Errorf("after two idle spells: armed %t, generation %d; want armed, 2", armed, gen)
		}
		// The timer fires for the first spell, and is set again for the
		// rest of the second's time.
		time.Sleep(workerIdle/2 + time.Millisecond)
		synctest.Wait()
		if n := workers(); n != 1 {
			t.Errorf("%d workers %v into the second idle spell, want 1", n, workerIdle/2+time.Millisecond)
		}
		time.Sleep(workerIdle/2 - 2*time.Millisecond)
		synctest.Wait()
		if n := workers(); n != 1 {
			t.Errorf("%d workers just before workerIdle into the second idle spell, want 1", n)
		}
		time.Sleep(2 * time.Millisecond)
		synctest.Wait()
		if n := workers(); n != 0 {
			t.Errorf("%d workers workerIdle after the second idle spell began, want 0", n)
		}
		p.close()
		wg.Wait()
	})
}
