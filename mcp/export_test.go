package mcp

// Test hooks: what a NewMemoryTaskStore store and a Server's task ledger
// hold, for tests that check that tasks are freed (task_leak_test.go).

// MemoryTaskStoreHeld returns how many task states s, a
// NewMemoryTaskStore store, keeps reachable, by id or in its owners'
// lists, and how many owner lists it keeps.
func MemoryTaskStoreHeld(s TaskStore) (states, owners int) {
	m := s.(*memoryTaskStore)
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

// MemoryTaskStoreLen is the Len of s, a NewMemoryTaskStore store.
func MemoryTaskStoreLen(s TaskStore) int { return s.(*memoryTaskStore).Len() }
