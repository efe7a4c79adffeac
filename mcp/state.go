package mcp

import (
	"context"
	"errors"
	"sync"
	"time"
)

// LifecycleState is where a session is in the MCP lifecycle
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle).
type LifecycleState string

const (
	// StateNew: no initialize answered yet; only ping is served.
	StateNew LifecycleState = "new"
	// StateInitialized: initialize answered; requests are served, but the
	// server sends no requests of its own (other than ping).
	StateInitialized LifecycleState = "initialized"
	// StateReady: notifications/initialized received; everything is allowed.
	StateReady LifecycleState = "ready"
	// StateClosed: the session has ended.
	StateClosed LifecycleState = "closed"
)

// LoggingLevel is a syslog severity as MCP names it
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging#log-levels).
type LoggingLevel string

// SessionState is the protocol state of one session: plain, serializable
// data and nothing else. Open streams, pending requests and cancel
// functions live beside it in the ServerSession, never inside it, so that a
// SessionStore can keep it anywhere (in memory, or in Redis for many
// replicas) and any replica can load it.
type SessionState struct {
	ID                 string             `json:"id"`
	ProtocolVersion    string             `json:"protocolVersion,omitempty"`
	ClientInfo         Implementation     `json:"clientInfo"`
	ClientCapabilities ClientCapabilities `json:"clientCapabilities"`
	Lifecycle          LifecycleState     `json:"lifecycle"`
	LogLevel           LoggingLevel       `json:"logLevel,omitempty"`
	Subscriptions      []string           `json:"subscriptions,omitempty"`
	// Owner is the user the session belongs to (TokenInfo.OwnerKey of the
	// token that initialized it), "" if unauthenticated; a transport serves
	// the session to that user only.
	Owner      string    `json:"owner,omitempty"`
	CreatedAt  time.Time `json:"createdAt"`
	LastActive time.Time `json:"lastActive"`
}

// ErrSessionNotFound is returned by a SessionStore that has no state for
// an id.
var ErrSessionNotFound = errors.New("mcp: session not found")

// A SessionStore keeps SessionState by session id. Implementations must be
// safe for concurrent use. Load returns ErrSessionNotFound (possibly
// wrapped) for an unknown id; Delete of an unknown id is not an error.
// The state passed to Save and returned by Load is a copy: neither side
// keeps a reference to the other's value.
type SessionStore interface {
	Load(ctx context.Context, id string) (*SessionState, error)
	Save(ctx context.Context, state *SessionState) error
	Delete(ctx context.Context, id string) error
}

// MemorySessionStore is the in-process SessionStore, and the default.
// The zero value is ready to use.
type MemorySessionStore struct {
	mu     sync.Mutex
	states map[string]SessionState
}

// Load implements SessionStore.
func (m *MemorySessionStore) Load(_ context.Context, id string) (*SessionState, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.states[id]
	if !ok {
		return nil, ErrSessionNotFound
	}
	st.Subscriptions = append([]string(nil), st.Subscriptions...)
	return &st, nil
}

// Save implements SessionStore.
func (m *MemorySessionStore) Save(_ context.Context, state *SessionState) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.states == nil {
		m.states = make(map[string]SessionState)
	}
	st := *state
	st.Subscriptions = append([]string(nil), st.Subscriptions...)
	m.states[st.ID] = st
	return nil
}

// Delete implements SessionStore.
func (m *MemorySessionStore) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.states, id)
	return nil
}

// Len reports how many sessions the store holds.
func (m *MemorySessionStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.states)
}
