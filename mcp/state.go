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
// SessionStore can keep it anywhere. Today the live ServerSession is what
// serves requests and the store holds a copy of its state (see
// SessionStore); serving one session from many replicas, each loading this
// state, is planned.
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

// A SessionStore keeps SessionState by session id
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).
// Implementations must be safe for concurrent use. Load returns
// ErrSessionNotFound (possibly wrapped) for an unknown id; Delete of an
// unknown id is not an error. The state passed to Save and returned by
// Load is a copy: neither side keeps a reference to the other's value.
//
// What holds today: the server calls Save when a session's state changes
// (initialize answered, notifications/initialized, logging/setLevel,
// resources/subscribe and unsubscribe) and Delete when the session ends; a
// failed Save is logged, never sent to the client. The server never calls
// Load: a session is served by its live ServerSession, which a transport
// keeps in its own process (mcphttp's registry is a map in the Handler),
// so a request that reaches another process does not find the session,
// whatever store both use. A store shared by replicas is therefore a
// record of the sessions, not yet a way to serve them anywhere; that
// (Redis-backed scale-out) is planned.
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
