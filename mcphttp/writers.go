package mcphttp

import "sync"

// writerPool runs the writes of a Handler's streams: each stream with
// events queued is drained by one of a few goroutines that live only
// while some stream has something to write, instead of a goroutine of its
// own per event. A fan-out to thousands of streams (a broadcast of
// list_changed, resources/updated, a listen notification) then starts a
// handful of goroutines, not one per stream, and writes from warm stacks
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server).
//
// A client that does not read must delay no other: a worker whose write
// waits for its client holds up only that stream. So whenever a worker
// starts on a stream while others wait, and every worker is already
// writing, it starts one more: while streams wait there is always a
// worker not inside a write, and a write blocked on a client costs no
// other stream more than a goroutine switch. With clients that read, the
// number of workers stays near GOMAXPROCS; with blocked ones, it is one
// more than the writes blocked at once (each of them bounded by
// Options.WriteTimeout).
type writerPool struct {
	mu sync.Mutex
	// queue[head:] holds the streams waiting for a worker, each at most
	// once (a stream's draining flag).
	queue []*stream
	head  int
	// workers is the number of worker goroutines; busy, those draining a
	// stream.
	workers int
	busy    int
}

// schedule queues st, whose outbox has events and which no worker
// drains, and starts a worker when none is free to take it.
func (p *writerPool) schedule(st *stream) {
	p.mu.Lock()
	p.queue = append(p.queue, st)
	start := p.workers == p.busy
	if start {
		p.workers++
	}
	p.mu.Unlock()
	if start {
		go p.work()
	}
}

// work drains queued streams until none is left.
func (p *writerPool) work() {
	p.mu.Lock()
	for p.head < len(p.queue) {
		st := p.queue[p.head]
		p.queue[p.head] = nil
		p.head++
		p.busy++
		if p.head < len(p.queue) && p.workers == p.busy {
			// Streams wait and every worker is writing: one more,
			// in case this write waits for its client.
			p.workers++
			go p.work()
		}
		if p.head >= 256 && p.head*2 >= len(p.queue) {
			// Under steady load the queue may never empty: reuse
			// its front.
			n := copy(p.queue, p.queue[p.head:])
			clear(p.queue[n:])
			p.queue, p.head = p.queue[:n], 0
		}
		p.mu.Unlock()
		st.drain()
		p.mu.Lock()
		p.busy--
	}
	p.queue, p.head = p.queue[:0], 0
	p.workers--
	p.mu.Unlock()
}
