package mcp

// Test hooks: what a MemoryTaskStore and a Server's task ledger hold, for
// tests that check that tasks are freed (task_leak_test.go).

// Held returns how many task states the store keeps reachable, by id or
// in its owners' lists, and how many owner lists it keeps.
func (m *MemoryTaskStore) Held() (states, owners int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	seen := make(map[*memTask]bool)
	for _, t := range m.byID {
		seen[t] = true
	}
	for _, ts := range m.byOwner {
		for _, t := range ts {
			seen[t] = true
		}
	}
	return len(seen), len(m.byOwner)
}

// TaskLedger returns what the server's task ledger counts: tasks, their
// bytes, accounts, the sessions it would free at their end and the tasks
// whose work runs.
func TaskLedger(s *Server) (tasks int, bytes int64, accounts, sessions, runs int) {
	rt := s.taskRT()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.ledger.count, rt.ledger.bytes, len(rt.ledger.owners), len(rt.sessionOwners), len(rt.runs)
}
