package mcphttp

import "context"

var _ EventWatcher = (*MemoryEventStore)(nil)

// Watch implements EventWatcher; in memory no wake-up is lost, so it needs
// no polling
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery).
func (m *MemoryEventStore) Watch(ctx context.Context, sessionID string) (<-chan struct{}, error) {
	ch := make(chan struct{}, 1)
	m.mu.Lock()
	if m.watchers == nil {
		m.watchers = make(map[string]map[chan struct{}]struct{})
	}
	set := m.watchers[sessionID]
	if set == nil {
		set = make(map[chan struct{}]struct{})
		m.watchers[sessionID] = set
	}
	set[ch] = struct{}{}
	m.mu.Unlock()
	context.AfterFunc(ctx, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		set := m.watchers[sessionID]
		if _, ok := set[ch]; !ok {
			return
		}
		delete(set, ch)
		if len(set) == 0 {
			delete(m.watchers, sessionID)
		}
		close(ch)
	})
	return ch, nil
}

// ringLocked wakes the watchers of a session. m.mu is held.
func (m *MemoryEventStore) ringLocked(sessionID string) {
	for ch := range m.watchers[sessionID] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}
