package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime/debug"
	"sync"
)

// A Bus carries short messages between the replicas of one server, for
// what the shared stores cannot do alone
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#multiple-connections).
// Delivery is at most once, like Redis pub/sub (docs/design.md, "The Bus is
// at most once").
// Implementations must be safe for concurrent use.
//
// # Experimental
//
// Part of the experimental scale-out API.
type Bus interface {
	// Publish sends msg to every current subscriber of channel, the
	// publisher's own included, and may return before they receive it.
	// msg is not kept after Publish returns.
	Publish(ctx context.Context, channel string, msg []byte) error
	// Subscribe calls fn for each message published on channel until stop
	// is called; fn is called from one goroutine at a time per
	// subscription, must not keep msg after it returns, must not block
	// for long, and must not call stop. After stop returns, fn is not
	// called again.
	Subscribe(ctx context.Context, channel string, fn func(msg []byte)) (stop func(), err error)
}

// errBusClosed is returned by Publish and Subscribe of a memory bus after
// Close.
var errBusClosed = errors.New("mcp: the bus is closed")

// NewMemoryBus returns an in-process Bus: every Server (and Streamable
// HTTP Handler) given the same one sees what the others publish, as
// replicas sharing a Redis bus do. It is meant for tests and for several
// servers in one process. Publish calls the subscribers' functions
// before it returns, in the publisher's goroutine; a panic in one is
// recovered and logged. The Bus is also an io.Closer: Close ends every
// subscription, and Publish and Subscribe fail after it.
//
// # Experimental
//
// Part of the experimental scale-out API.
func NewMemoryBus() Bus { return &memoryBus{} }

// memoryBus is NewMemoryBus's Bus. The zero value is ready to use.
type memoryBus struct {
	mu     sync.Mutex
	subs   map[string]map[*memSub]struct{}
	closed bool
}

type memSub struct {
	mu      sync.Mutex // one call of fn at a time; held by stop
	stopped bool
	fn      func([]byte)
}

// Publish implements Bus.
func (b *memoryBus) Publish(_ context.Context, channel string, msg []byte) error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return errBusClosed
	}
	subs := make([]*memSub, 0, len(b.subs[channel]))
	for s := range b.subs[channel] {
		subs = append(subs, s)
	}
	b.mu.Unlock()
	for _, s := range subs {
		s.call(channel, msg)
	}
	return nil
}

func (s *memSub) call(channel string, msg []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	defer func() {
		if p := recover(); p != nil {
			slog.Error("mcp: a memory Bus subscriber panicked", "channel", channel, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		}
	}()
	s.fn(append([]byte(nil), msg...))
}

// Subscribe implements Bus.
func (b *memoryBus) Subscribe(_ context.Context, channel string, fn func(msg []byte)) (func(), error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, errBusClosed
	}
	if b.subs == nil {
		b.subs = make(map[string]map[*memSub]struct{})
	}
	if b.subs[channel] == nil {
		b.subs[channel] = make(map[*memSub]struct{})
	}
	s := &memSub{fn: fn}
	b.subs[channel][s] = struct{}{}
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			delete(b.subs[channel], s)
			b.mu.Unlock()
			s.mu.Lock()
			s.stopped = true
			s.mu.Unlock()
		})
	}, nil
}

// Close ends every subscription; later calls fail with errBusClosed.
func (b *memoryBus) Close() error {
	b.mu.Lock()
	subs := b.subs
	b.subs, b.closed = nil, true
	b.mu.Unlock()
	for _, m := range subs {
		for s := range m {
			s.mu.Lock()
			s.stopped = true
			s.mu.Unlock()
		}
	}
	return nil
}

// sharedIDStart is where the server-to-client request ids of a session
// served by several replicas start: each replica's copy of the session
// numbers its requests from its own random point, so that ids stay
// unique within the session across the cluster
// (https://modelcontextprotocol.io/specification/2025-11-25/basic#requests)
// with odds of a collision near n/2^52 for n requests. Ids stay below
// 2^53, exact in every JSON number parser.
func sharedIDStart() int64 {
	return rand.Int64N(1<<52) + 1<<20
}
