package mcphttp

import "context"

// An EventBatchAppender is an EventStore that appends several events of
// one stream in one call (one round trip), used for the event pairs that
// start and end a shared session's POST stream
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery).
type EventBatchAppender interface {
	// AppendBatch is Append of each event in turn, in order, as one
	// step: Replay never sees some of them without the ones before. On
	// an error, none or only a leading part of the events may be
	// stored.
	AppendBatch(ctx context.Context, sessionID, streamID string, events []StoredEvent) error
}

// StoredEvent is one event given to EventBatchAppender.AppendBatch: its
// id and its data, as Append takes them (empty data for a priming
// event). The store may keep Data, which the caller does not modify
// afterwards.
type StoredEvent struct {
	ID   string
	Data []byte
}

// AppendBatch implements EventBatchAppender.
func (m *MemoryEventStore) AppendBatch(_ context.Context, sessionID, streamID string, events []StoredEvent) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, ev := range events {
		m.appendLocked(sessionID, streamID, ev.ID, ev.Data)
	}
	return nil
}

var _ EventBatchAppender = (*MemoryEventStore)(nil)

// appendBatchLocked stores events of stream st in order: in one call when
// its EventStore is an EventBatchAppender, one Append each otherwise
// (stopping at the first error). st.mu is held.
func (st *stream) appendBatchLocked(ctx context.Context, events []StoredEvent) error {
	switch len(events) {
	case 0:
		return nil
	case 1:
		return st.store.Append(ctx, st.session, st.streamID(), events[0].ID, events[0].Data)
	}
	if b, ok := st.store.(EventBatchAppender); ok {
		return b.AppendBatch(ctx, st.session, st.streamID(), events)
	}
	for _, ev := range events {
		if err := st.store.Append(ctx, st.session, st.streamID(), ev.ID, ev.Data); err != nil {
			return err
		}
	}
	return nil
}
