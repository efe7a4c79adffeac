package mcphttp

import (
	"context"
	"time"
)

// streamLease is a session's GET stream lease in a MemoryEventStore.
type streamLease struct {
	holder   string
	deadline time.Time
}

var _ StreamLeaser = (*MemoryEventStore)(nil)

// LeaseStream implements StreamLeaser
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server).
// A lease is forgotten when released, taken over, or by DeleteSession.
func (m *MemoryEventStore) LeaseStream(_ context.Context, sessionID, holder string, ttl time.Duration, takeover bool) (bool, error) {
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if l, ok := m.leases[sessionID]; ok && !takeover && l.holder != holder && now.Before(l.deadline) {
		return false, nil
	}
	if m.leases == nil {
		m.leases = make(map[string]streamLease)
	}
	m.leases[sessionID] = streamLease{holder: holder, deadline: now.Add(ttl)}
	return true, nil
}

// RenewStream implements StreamLeaser.
func (m *MemoryEventStore) RenewStream(_ context.Context, sessionID, holder string, ttl time.Duration) (bool, error) {
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	l, ok := m.leases[sessionID]
	if !ok || l.holder != holder || !now.Before(l.deadline) {
		return false, nil
	}
	m.leases[sessionID] = streamLease{holder: holder, deadline: now.Add(ttl)}
	return true, nil
}

// ReleaseStream implements StreamLeaser.
func (m *MemoryEventStore) ReleaseStream(_ context.Context, sessionID, holder string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if l, ok := m.leases[sessionID]; ok && l.holder == holder {
		delete(m.leases, sessionID)
	}
	return nil
}
