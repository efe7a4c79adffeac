package mcphttp

import "sync"

// writerPool runs the writes of a Handler's streams: a stream with events
// queued is drained by one of a few goroutines that live only while some
// stream has something to write, and one more starts whenever all are
// inside a write, so a client that does not read delays no other
// (docs/design.md, "Stream writes").
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
