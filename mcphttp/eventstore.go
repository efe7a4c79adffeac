package mcphttp

import (
	"context"
	"errors"
	"sync"
)

// An EventStore keeps the events of a session's SSE streams so that a
// client whose connection broke can ask for what it missed with GET and
// Last-Event-ID
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery).
// The Handler chooses the event ids (they name their stream) and calls
// Append for every event, in order, before sending it; it calls Replay when
// a client resumes, and DeleteSession when a session ends.
//
// Implementations must be safe for concurrent use. The in-memory
// [MemoryEventStore] is the embedded default; a shared store (for example
// on Redis) lets any replica resume any stream.
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

// ErrEventNotFound is returned by EventStore.Replay for an event id it does
// not hold.
var ErrEventNotFound = errors.New("mcphttp: event not found")

// DefaultEventStoreBytes is the byte cap of a MemoryEventStore whose
// MaxBytes is zero.
const DefaultEventStoreBytes = 16 << 20

// eventOverhead is what one stored event costs beyond its id and data, for
// the byte cap.
const eventOverhead = 64

// MemoryEventStore is the in-process EventStore. It holds at most MaxBytes
// of events across all sessions and evicts the oldest events first, so a
// client that stays away too long cannot resume (it is told so rather than
// given a stream with a gap). The zero value is ready to use.
type MemoryEventStore struct {
	// MaxBytes caps the bytes kept (ids, data and a small per-event
	// overhead). If zero, DefaultEventStoreBytes.
	MaxBytes int64

	mu       sync.Mutex
	sessions map[string]map[string]*eventLog
	// fifo names, for every stored event in append order, the log it
	// belongs to: eviction pops the front and drops that log's first event.
	fifo     []*eventLog
	head     int
	deadRefs int
	size     int64
}

type eventLog struct {
	session, stream string
	events          []storedEvent
	dead            bool
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
	if m.sessions == nil {
		m.sessions = make(map[string]map[string]*eventLog)
	}
	streams := m.sessions[sessionID]
	if streams == nil {
		streams = make(map[string]*eventLog)
		m.sessions[sessionID] = streams
	}
	lg := streams[streamID]
	if lg == nil {
		lg = &eventLog{session: sessionID, stream: streamID}
		streams[streamID] = lg
	}
	lg.events = append(lg.events, storedEvent{id: eventID, data: data})
	m.fifo = append(m.fifo, lg)
	m.size += eventCost(eventID, data)
	m.evict()
	return nil
}

// evict drops the oldest events until the store fits its cap.
func (m *MemoryEventStore) evict() {
	limit := m.MaxBytes
	if limit <= 0 {
		limit = DefaultEventStoreBytes
	}
	for m.size > limit && m.head < len(m.fifo) {
		lg := m.fifo[m.head]
		m.fifo[m.head] = nil
		m.head++
		if lg.dead {
			m.deadRefs--
			continue
		}
		ev := lg.events[0]
		lg.events[0] = storedEvent{}
		lg.events = lg.events[1:]
		m.size -= eventCost(ev.id, ev.data)
		if len(lg.events) == 0 {
			m.dropLog(lg)
		}
	}
	m.compact()
}

// dropLog removes an empty or deleted log from the index.
func (m *MemoryEventStore) dropLog(lg *eventLog) {
	lg.dead = true
	streams := m.sessions[lg.session]
	delete(streams, lg.stream)
	if len(streams) == 0 {
		delete(m.sessions, lg.session)
	}
}

// compact reclaims the fifo's consumed front and its references to deleted
// logs once they are the larger part of it.
func (m *MemoryEventStore) compact() {
	live := len(m.fifo) - m.head
	if m.head < 1024 && m.deadRefs < 1024 {
		return
	}
	if m.head*2 < len(m.fifo) && m.deadRefs*2 < live {
		return
	}
	out := make([]*eventLog, 0, live-m.deadRefs)
	for _, lg := range m.fifo[m.head:] {
		if !lg.dead {
			out = append(out, lg)
		}
	}
	m.fifo, m.head, m.deadRefs = out, 0, 0
}

// Replay implements EventStore.
func (m *MemoryEventStore) Replay(_ context.Context, sessionID, streamID, afterID string, fn func(eventID string, data []byte) error) error {
	m.mu.Lock()
	lg := m.sessions[sessionID][streamID]
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

// DeleteSession implements EventStore.
func (m *MemoryEventStore) DeleteSession(_ context.Context, sessionID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, lg := range m.sessions[sessionID] {
		for _, ev := range lg.events {
			m.size -= eventCost(ev.id, ev.data)
		}
		m.deadRefs += len(lg.events)
		lg.events = nil
		lg.dead = true
	}
	delete(m.sessions, sessionID)
	m.compact()
	return nil
}

// Size reports the bytes the store holds, as counted against MaxBytes.
func (m *MemoryEventStore) Size() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.size
}
