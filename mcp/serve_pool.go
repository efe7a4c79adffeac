package mcp

import (
	"context"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// workerIdle is how long the workers of a stream session wait for more work
// once all of them are idle, before they exit: a busy session reuses them
// (and their grown stacks), an idle one keeps none.
const workerIdle = time.Second

// workPool runs the requests of one stream session (Server.Connect) on
// reused workers (docs/design.md, "Stream sessions"): an idle worker, or a
// new one while fewer than max run, picks a request up at once; past max it
// waits in the queue. Once every worker is idle, a timer (set once, not per
// idle spell) ends them after workerIdle; close ends them at once.
type workPool struct {
	ctx context.Context // jobs are dropped once it is done
	max int
	wg  *sync.WaitGroup
	run func(job) // serves one job
	// admitted bounds the jobs submitted and not yet finished (2 x max):
	// submit waits for room, which holds up the read loop.
	admitted chan struct{}

	mu      sync.Mutex
	cond    sync.Cond
	queue   []job
	head    int
	workers int // live workers
	idle    int // workers waiting for a job
	// woken counts the idle workers signalled for a job that have not yet
	// woken: they are still counted in idle, but spoken for, so that a
	// second job submitted before the first woken worker runs starts (or
	// wakes) another worker rather than signalling the same one twice.
	woken int
	// gen counts the times every worker went idle, so that a timer armed
	// for an earlier idle spell ends nothing.
	gen    uint64
	expire uint64 // workers idle since generation expire exit
	closed bool
	timer  *time.Timer
	armed  bool // timer is pending or firing
	// since is when the current idle spell began, as time since epoch
	// (the monotonic clock alone: one clock read, where time.Now makes two).
	since time.Duration
	epoch time.Time
}

// job is one unit of work read from the connection: a request, or a batch
// frame.
type job struct {
	req   *jsonrpc.Request
	batch []byte
}

func newWorkPool(ctx context.Context, max int, wg *sync.WaitGroup, run func(job)) *workPool {
	p := &workPool{ctx: ctx, max: max, wg: wg, run: run, admitted: make(chan struct{}, 2*max), epoch: time.Now()}
	p.cond.L = &p.mu
	return p
}

// submit queues j and makes sure a worker will run it, first waiting while
// 2 x max jobs are outstanding.
func (p *workPool) submit(j job) {
	p.admitted <- struct{}{}
	p.mu.Lock()
	if p.head > 0 && len(p.queue) == cap(p.queue) {
		// A queue that never drains would otherwise grow for ever: move
		// what is left to the front.
		n := copy(p.queue, p.queue[p.head:])
		clear(p.queue[n:])
		p.queue, p.head = p.queue[:n], 0
	}
	p.queue = append(p.queue, j)
	spawn := false
	switch {
	case p.idle > p.woken:
		p.woken++
		p.cond.Signal()
	case p.workers < p.max:
		p.workers++
		p.wg.Add(1)
		spawn = true
	}
	p.mu.Unlock()
	if spawn {
		go p.work()
	}
}

// queued reports the jobs queued and not yet started.
func (p *workPool) queued() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pending()
}

// pending is queued with mu held.
func (p *workPool) pending() int {
	return len(p.queue) - p.head
}

func (p *workPool) work() {
	defer p.wg.Done()
	p.mu.Lock()
	for {
		for p.pending() == 0 {
			if p.closed || (p.expire != 0 && p.expire == p.gen) {
				p.workers--
				p.mu.Unlock()
				return
			}
			p.idle++
			if p.idle == p.workers {
				p.gen++
				p.armLocked()
			}
			p.cond.Wait()
			p.idle--
			if p.woken > 0 {
				// Woken by submit's Signal, or by a Broadcast (close,
				// expiry), which leaves no signal owed to anyone.
				p.woken--
			}
		}
		j := p.queue[p.head]
		p.queue[p.head] = job{}
		p.head++
		if p.head == len(p.queue) {
			p.queue, p.head = p.queue[:0], 0
		}
		p.mu.Unlock()
		if p.ctx.Err() == nil {
			p.run(j)
		}
		<-p.admitted
		p.mu.Lock()
	}
}

// armLocked notes the start of an idle spell (the current generation) and
// makes sure the idle timer is set: a timer set for an earlier spell
// stays, and expireIdle sets it again for the rest of this one.
func (p *workPool) armLocked() {
	p.since = time.Since(p.epoch)
	if p.armed {
		return
	}
	p.armed = true
	if p.timer == nil {
		p.timer = time.AfterFunc(workerIdle, p.expireIdle)
		return
	}
	p.timer.Reset(workerIdle)
}

// expireIdle ends the workers if they have all stayed idle for workerIdle,
// or sets the timer for the rest of the current idle spell's time.
func (p *workPool) expireIdle() {
	p.mu.Lock()
	p.armed = false
	if !p.closed && p.idle == p.workers && p.pending() == 0 {
		if left := workerIdle - (time.Since(p.epoch) - p.since); left > 0 {
			p.armed = true
			p.timer.Reset(left)
		} else {
			p.expire = p.gen
			p.cond.Broadcast()
		}
	}
	p.mu.Unlock()
}

// close ends the workers once the queue is drained (jobs still run unless
// ctx is done).
func (p *workPool) close() {
	p.mu.Lock()
	p.closed = true
	if p.timer != nil {
		p.timer.Stop()
	}
	p.cond.Broadcast()
	p.mu.Unlock()
}
