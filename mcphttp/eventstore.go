package mcphttp

import (
	"container/heap"
	"context"
	"errors"
	"sync"
)

// An EventStore keeps the events of a session's SSE streams so that a
// client whose connection broke can ask for what it missed with GET and
// Last-Event-ID
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery).
// The Handler chooses the ids and calls Append for every event, in order,
// before sending it. Implementations are safe for concurrent use; one
// shared by replicas should be an [EventWatcher] (docs/design.md, "Event
// stores shared by replicas"). See [MemoryEventStore].
type EventStore interface {
	// Append records the next event of the stream streamID of session
	// sessionID. data is the event's JSON-RPC message, empty for a priming
	// event; the store may keep data, which the caller does not modify
	// afterwards.
	Append(ctx context.Context, sessionID, streamID, eventID string, data []byte) error
	// Replay calls fn, in order, for every event of the stream stored after
	// the event afterID, and stops at fn's first error, returning it. It
	// returns an error wrapping ErrEventNotFound, before calling fn, when
	// afterID is not stored for that stream (never was, or was evicted): the
	// missed events cannot be replayed exactly.
	Replay(ctx context.Context, sessionID, streamID, afterID string, fn func(eventID string, data []byte) error) error
	// DeleteSession forgets every event of a session.
	DeleteSession(ctx context.Context, sessionID string) error
}

// An EventOnceAppender is an EventStore that appends an event once per key
// and session, whichever replica asks, so that a broadcast every replica
// delivers reaches a shared session's GET stream once
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#multiple-connections).
type EventOnceAppender interface {
	// AppendOnce is Append unless an event was already appended for the
	// session with key, in which case it appends nothing and reports
	// false.
	AppendOnce(ctx context.Context, sessionID, streamID, eventID, key string, data []byte) (appended bool, err error)
}

// ErrEventNotFound is returned by EventStore.Replay for an event id it does
// not hold.
var ErrEventNotFound = errors.New("mcphttp: event not found")

// DefaultEventStoreBytes is the byte cap of a MemoryEventStore whose
// MaxBytes is zero.
const DefaultEventStoreBytes = 16 << 20

// DefaultEventStoreSessionBytes is the per-session byte cap of a
// MemoryEventStore whose MaxSessionBytes is zero.
const DefaultEventStoreSessionBytes = 4 << 20

// eventOverhead is what one stored event costs beyond its id and data, for
// the byte caps.
const eventOverhead = 64

// MemoryEventStore is the in-process EventStore, also a StreamLeaser and
// an EventWatcher for Handlers in one process sharing it. It holds at most
// MaxSessionBytes per session and MaxBytes in all, evicting the oldest
// events of the session holding the most; a client whose events were
// evicted cannot resume. The zero value is ready to use.
type MemoryEventStore struct {
	// MaxBytes caps the bytes kept across all sessions (ids, data and a
	// small per-event overhead). If zero, DefaultEventStoreBytes (16 MiB).
	MaxBytes int64

	// MaxSessionBytes caps the bytes kept for one session, counted as for
	// MaxBytes: a session over it loses its own oldest events, whatever
	// the other sessions hold. If zero, DefaultEventStoreSessionBytes
	// (4 MiB); if negative, a session is bounded only by MaxBytes.
	MaxSessionBytes int64

	// MaxOnceKeys caps the broadcast keys AppendOnce remembers per
	// session; past it the oldest is forgotten. A key needs remembering
	// only while the replicas that hold the session deliver the same
	// broadcast, so a few suffice. If zero, DefaultEventStoreOnceKeys.
	MaxOnceKeys int

	mu sync.Mutex
	// once holds, by session, the keys AppendOnce has seen.
	once     map[string]*onceKeys
	sessions map[string]*sessionEvents
	// bySize orders the sessions holding events, the one holding the most
	// bytes first: where eviction takes from when the store is full.
	bySize sessionHeap
	size   int64
	// leases are the GET stream leases, by session (eventstore_lease.go).
	leases map[string]streamLease
	// watchers are the channels of Watch, by session (eventstore_watch.go).
	watchers map[string]map[chan struct{}]struct{}
}

// sessionEvents is what the store holds for one session.
type sessionEvents struct {
	id      string
	streams map[string]*eventLog
	// fifo names, for every stored event of the session in append order,
	// the log it belongs to: eviction pops the front and drops that log's
	// first event.
	fifo []*eventLog
	head int
	size int64
	// index is the session's position in bySize.
	index int
}

type eventLog struct {
	stream string
	events []storedEvent
}

type storedEvent struct {
	id   string
	data []byte
}

func eventCost(id string, data []byte) int64 {
	return int64(len(id) + len(data) + eventOverhead)
}

// Append implements EventStore.
func (m *MemoryEventStore) Append(_ context.Context, sessionID, streamID, eventID string, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.appendLocked(sessionID, streamID, eventID, data)
	return nil
}

// AppendOnce implements EventOnceAppender.
func (m *MemoryEventStore) AppendOnce(_ context.Context, sessionID, streamID, eventID, key string, data []byte) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.once == nil {
		m.once = make(map[string]*onceKeys)
	}
	ks := m.once[sessionID]
	if ks == nil {
		ks = &onceKeys{seen: make(map[string]struct{})}
		m.once[sessionID] = ks
	}
	if _, dup := ks.seen[key]; dup {
		return false, nil
	}
	limit := m.MaxOnceKeys
	if limit <= 0 {
		limit = DefaultEventStoreOnceKeys
	}
	for len(ks.order) >= limit {
		delete(ks.seen, ks.order[0])
		ks.order = ks.order[1:]
	}
	ks.seen[key] = struct{}{}
	ks.order = append(ks.order, key)
	m.appendLocked(sessionID, streamID, eventID, data)
	return true, nil
}

// DefaultEventStoreOnceKeys is the MaxOnceKeys of a MemoryEventStore
// whose MaxOnceKeys is zero.
const DefaultEventStoreOnceKeys = 1024

// onceKeys is what AppendOnce remembers of one session.
type onceKeys struct {
	seen  map[string]struct{}
	order []string
}

// appendLocked is Append with m.mu held.
func (m *MemoryEventStore) appendLocked(sessionID, streamID, eventID string, data []byte) {
	if m.sessions == nil {
		m.sessions = make(map[string]*sessionEvents)
	}
	s := m.sessions[sessionID]
	if s == nil {
		s = &sessionEvents{id: sessionID, streams: make(map[string]*eventLog)}
		m.sessions[sessionID] = s
		heap.Push(&m.bySize, s)
	}
	lg := s.streams[streamID]
	if lg == nil {
		lg = &eventLog{stream: streamID}
		s.streams[streamID] = lg
	}
	lg.events = append(lg.events, storedEvent{id: eventID, data: data})
	if m.watchers != nil {
		m.ringLocked(sessionID)
	}
	s.fifo = append(s.fifo, lg)
	cost := eventCost(eventID, data)
	s.size += cost
	m.size += cost
	if limit := m.sessionLimit(); limit > 0 {
		for s.size > limit {
			m.evictOldest(s)
		}
	}
	if m.sessions[sessionID] == s {
		heap.Fix(&m.bySize, s.index)
	}
	limit := m.MaxBytes
	if limit <= 0 {
		limit = DefaultEventStoreBytes
	}
	for m.size > limit && len(m.bySize) > 0 {
		big := m.bySize[0]
		m.evictOldest(big)
		if m.sessions[big.id] == big {
			heap.Fix(&m.bySize, 0)
		}
	}
}

func (m *MemoryEventStore) sessionLimit() int64 {
	switch {
	case m.MaxSessionBytes == 0:
		return DefaultEventStoreSessionBytes
	case m.MaxSessionBytes < 0:
		return 0
	}
	return m.MaxSessionBytes
}

// evictOldest drops the oldest event of session s, and s itself once it
// holds none. Callers fix s's place in bySize if it is still there.
func (m *MemoryEventStore) evictOldest(s *sessionEvents) {
	lg := s.fifo[s.head]
	s.fifo[s.head] = nil
	s.head++
	ev := lg.events[0]
	lg.events[0] = storedEvent{}
	lg.events = lg.events[1:]
	cost := eventCost(ev.id, ev.data)
	s.size -= cost
	m.size -= cost
	if len(lg.events) == 0 {
		delete(s.streams, lg.stream)
	}
	if len(s.streams) == 0 {
		m.removeSession(s)
		return
	}
	// Reclaim the fifo's consumed front once it is the larger part.
	if s.head >= 1024 && s.head*2 >= len(s.fifo) {
		s.fifo = append([]*eventLog(nil), s.fifo[s.head:]...)
		s.head = 0
	}
}

// removeSession forgets s and the bytes it holds.
func (m *MemoryEventStore) removeSession(s *sessionEvents) {
	m.size -= s.size
	s.size = 0
	delete(m.sessions, s.id)
	heap.Remove(&m.bySize, s.index)
}

// Replay implements EventStore.
func (m *MemoryEventStore) Replay(_ context.Context, sessionID, streamID, afterID string, fn func(eventID string, data []byte) error) error {
	m.mu.Lock()
	var lg *eventLog
	if s := m.sessions[sessionID]; s != nil {
		lg = s.streams[streamID]
	}
	var missed []storedEvent
	found := false
	if lg != nil {
		for i := len(lg.events) - 1; i >= 0; i-- {
			if lg.events[i].id == afterID {
				missed = append(missed, lg.events[i+1:]...)
				found = true
				break
			}
		}
	}
	m.mu.Unlock()
	if !found {
		return ErrEventNotFound
	}
	for _, ev := range missed {
		if err := fn(ev.id, ev.data); err != nil {
			return err
		}
	}
	return nil
}

// DeleteSession implements EventStore: it frees every event of the
// session.
func (m *MemoryEventStore) DeleteSession(_ context.Context, sessionID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.sessions[sessionID]; s != nil {
		m.removeSession(s)
	}
	delete(m.once, sessionID)
	delete(m.leases, sessionID)
	return nil
}

// Size reports the bytes the store holds, as counted against MaxBytes.
func (m *MemoryEventStore) Size() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.size
}

// SessionSize reports the bytes the store holds for one session, as
// counted against MaxSessionBytes.
func (m *MemoryEventStore) SessionSize(sessionID string) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.sessions[sessionID]; s != nil {
		return s.size
	}
	return 0
}

// sessionHeap is a max-heap of sessions by the bytes they hold
// (container/heap).
type sessionHeap []*sessionEvents

func (h sessionHeap) Len() int           { return len(h) }
func (h sessionHeap) Less(i, j int) bool { return h[i].size > h[j].size }
func (h sessionHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}
func (h *sessionHeap) Push(x any) {
	s := x.(*sessionEvents)
	s.index = len(*h)
	*h = append(*h, s)
}
func (h *sessionHeap) Pop() any {
	old := *h
	s := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	s.index = -1
	return s
}
