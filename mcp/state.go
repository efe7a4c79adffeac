package mcp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// The values of SessionState.Lifecycle: where a session is in the MCP
// lifecycle
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle).
const (
	// stateNew: no initialize answered yet; only ping is served.
	stateNew = "new"
	// stateInitialized: initialize answered; requests are served, but the
	// server sends no requests of its own (other than ping).
	stateInitialized = "initialized"
	// stateReady: notifications/initialized received; everything is allowed.
	stateReady = "ready"
	// stateClosed: the session has ended.
	stateClosed = "closed"
)

// LoggingLevel is a syslog severity as MCP names it
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging#log-levels).
type LoggingLevel string

// SessionState is the protocol state of one session: plain, serializable
// data that a SessionStore keeps, from which a transport whose store is
// shared rebuilds the session on another replica. Streams, pending requests
// and cancel functions live beside it in the ServerSession.
type SessionState struct {
	ID                 string             `json:"id"`
	ProtocolVersion    string             `json:"protocolVersion,omitempty"`
	ClientInfo         Implementation     `json:"clientInfo"`
	ClientCapabilities ClientCapabilities `json:"clientCapabilities"`
	// Lifecycle is where the session is in the MCP lifecycle
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle):
	// "new" (initialize not yet answered), "initialized" (answered; the
	// server sends no requests yet), "ready" (notifications/initialized
	// received) or "closed".
	Lifecycle     string       `json:"lifecycle"`
	LogLevel      LoggingLevel `json:"logLevel,omitempty"`
	Subscriptions []string     `json:"subscriptions,omitempty"`
	// Owner is the user the session belongs to (TokenInfo.OwnerKey of the
	// token that initialized it), "" if unauthenticated; a transport serves
	// the session to that user only.
	Owner      string    `json:"owner,omitempty"`
	CreatedAt  time.Time `json:"createdAt"`
	LastActive time.Time `json:"lastActive"`
}

// ErrSessionNotFound is returned by a SessionStore that has no state for
// an id, or none for the owner asking: a session of another owner is
// not found.
var ErrSessionNotFound = errors.New("mcp: session not found")

// ErrSessionLimit is wrapped by the error of SessionStore.Create when the
// store holds as many sessions as it may (MemorySessionStoreOptions.MaxSessions,
// or a shared store's cap across every replica). Streamable HTTP answers
// it as it answers its own cap: 503 with Retry-After
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).
var ErrSessionLimit = errors.New("mcp: session limit reached")

// ErrOwnerSessionLimit is wrapped by the error of SessionStore.Create when
// the session's owner holds as many sessions as the store lets one owner
// hold (MemorySessionStoreOptions.MaxSessionsPerOwner, or a shared store's quota).
// Streamable HTTP answers it 429 with Retry-After; an error with a method
// RetryAfter() time.Duration says when a session of the owner may next end
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).
var ErrOwnerSessionLimit = errors.New("mcp: session limit per owner reached")

// ErrStoreUnavailable is matched (errors.Is) by every error a SessionStore
// returns because it could not be reached or answer in time; it never means
// the session does not exist, so Streamable HTTP answers it 503 with
// Retry-After, never 404
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).
var ErrStoreUnavailable = errors.New("mcp: session store unavailable")

// errSessionExists is the memory store's Create's error for an id in use.
var errSessionExists = errors.New("mcp: session id already in use")

// A SessionStore keeps SessionState by session id and owner
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).
// Implementations must be safe for concurrent use. A method that takes an
// owner treats another owner's session as unknown (ErrSessionNotFound,
// possibly wrapped, and no change), so that a session id alone opens
// nothing
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices#session-hijacking).
// State passed in and returned is a copy. [NewMemorySessionStore]'s is the
// default; redisstore's is shared by replicas (docs/scaling.md, and
// docs/design.md for how the transports use it). A shared store may also
// have a method RequestStateKey(ctx context.Context) ([]byte, error) that
// hands every replica the same key to sign the requestState of
// input_required results with
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr):
// at least 32 random bytes, made once for the whole cluster and the same
// on every call (see ServerOptions.RequestStateKey).
type SessionStore interface {
	// Create stores a new session, or fails: with an error wrapping
	// ErrSessionLimit when the store is full, or another error for an id
	// in use. It is atomic, so that a cap shared by replicas holds.
	Create(ctx context.Context, state *SessionState) error
	// Load returns a session's state.
	Load(ctx context.Context, owner, id string) (*SessionState, error)
	// Touch is Load that also restarts the session's idle expiry, as every
	// request of the session does. A store that expires sessions does so
	// by its own clock, so that every replica agrees.
	Touch(ctx context.Context, owner, id string) (*SessionState, error)
	// Update applies fn to the stored state and stores the result, losing
	// no concurrent change (fn may run more than once); fn's error is
	// returned as is and nothing is stored. It returns the state stored.
	Update(ctx context.Context, owner, id string, fn func(*SessionState) error) (*SessionState, error)
	// Delete ends a session for everyone who uses the store.
	Delete(ctx context.Context, owner, id string) error
	// Shared reports whether other Handlers or processes (replicas) serve
	// sessions from this store too.
	Shared() bool
}

// MemorySessionStoreOptions configures NewMemorySessionStore. The zero
// value means no cap, no expiry, not shared.
type MemorySessionStoreOptions struct {
	// MaxSessions caps the sessions the store holds; Create past it
	// fails with an error wrapping ErrSessionLimit. Zero or negative: no
	// cap.
	MaxSessions int
	// MaxSessionsPerOwner caps the sessions of one owner (SessionState.
	// Owner, an authenticated principal; sessions without an owner are
	// not counted); Create past it fails with an error wrapping
	// ErrOwnerSessionLimit. Zero or negative: no cap.
	MaxSessionsPerOwner int
	// IdleTimeout is how long a session lives after it was created,
	// touched or updated; past it the store forgets it, by the store's
	// clock. Zero or negative: sessions never expire here. Unshared, the
	// Handler's own idle timeout ends them anyway; with Share, set it,
	// since the Handlers' idle timeouts then drop only their local copies.
	IdleTimeout time.Duration
	// Share makes Shared report true: set it when several Handlers in
	// one process (replicas in tests, or several listeners) serve the
	// same sessions from this store.
	Share bool
	// Now is the store's clock; if nil, time.Now.
	Now func() time.Time
}

// NewMemorySessionStore returns an in-process SessionStore: the one a
// Server uses when ServerOptions.SessionStore is nil (with no options), or,
// given to several Servers with Share set, one their Handlers share
// within a process. It also has the methods RequestStateKey (see
// SessionStore) and Len() int, how many sessions it holds (including any
// that have idled out but were not looked at since). A nil opts is the
// zero options.
func NewMemorySessionStore(opts *MemorySessionStoreOptions) SessionStore {
	m := &memorySessionStore{}
	if opts != nil {
		m.MemorySessionStoreOptions = *opts
	}
	return m
}

// memorySessionStore is NewMemorySessionStore's store. The zero value is
// ready to use.
type memorySessionStore struct {
	MemorySessionStoreOptions

	mu     sync.Mutex
	states map[string]SessionState
	// stateKey is what RequestStateKey returns (state_key.go).
	stateKey []byte
}

func (m *memorySessionStore) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

// live returns the state of owner's session id, dropping it if it has
// idled out. Caller holds mu.
func (m *memorySessionStore) live(owner, id string, now time.Time) (SessionState, bool) {
	st, ok := m.states[id]
	if !ok {
		return st, false
	}
	if m.IdleTimeout > 0 && now.Sub(st.LastActive) > m.IdleTimeout {
		delete(m.states, id)
		return st, false
	}
	if st.Owner != owner {
		return st, false
	}
	return st, true
}

func copyState(st SessionState) *SessionState {
	st.Subscriptions = append([]string(nil), st.Subscriptions...)
	return &st
}

// Create implements SessionStore. CreatedAt and LastActive become the
// store's clock.
func (m *memorySessionStore) Create(_ context.Context, state *SessionState) error {
	if state == nil || state.ID == "" {
		return errors.New("mcp: SessionStore.Create needs a session id")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if m.states == nil {
		m.states = make(map[string]SessionState)
	}
	if old, ok := m.states[state.ID]; ok {
		if _, live := m.live(old.Owner, state.ID, now); live {
			return fmt.Errorf("%w: %q", errSessionExists, state.ID)
		}
	}
	if m.MaxSessions > 0 && len(m.states) >= m.MaxSessions && m.IdleTimeout > 0 {
		for id, st := range m.states {
			if now.Sub(st.LastActive) > m.IdleTimeout {
				delete(m.states, id)
			}
		}
	}
	if m.MaxSessions > 0 && len(m.states) >= m.MaxSessions {
		return fmt.Errorf("%w (MaxSessions %d)", ErrSessionLimit, m.MaxSessions)
	}
	if m.MaxSessionsPerOwner > 0 && state.Owner != "" {
		n := 0
		for _, st := range m.states {
			if st.Owner == state.Owner && (m.IdleTimeout <= 0 || now.Sub(st.LastActive) <= m.IdleTimeout) {
				n++
			}
		}
		if n >= m.MaxSessionsPerOwner {
			return fmt.Errorf("%w (MaxSessionsPerOwner %d)", ErrOwnerSessionLimit, m.MaxSessionsPerOwner)
		}
	}
	st := *copyState(*state)
	st.CreatedAt, st.LastActive = now, now
	m.states[st.ID] = st
	return nil
}

// Load implements SessionStore.
func (m *memorySessionStore) Load(_ context.Context, owner, id string) (*SessionState, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.live(owner, id, m.now())
	if !ok {
		return nil, ErrSessionNotFound
	}
	return copyState(st), nil
}

// Touch implements SessionStore: LastActive becomes the store's now.
func (m *memorySessionStore) Touch(_ context.Context, owner, id string) (*SessionState, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	st, ok := m.live(owner, id, now)
	if !ok {
		return nil, ErrSessionNotFound
	}
	st.LastActive = now
	m.states[id] = st
	return copyState(st), nil
}

// Update implements SessionStore. fn runs under the store's lock, once.
func (m *memorySessionStore) Update(_ context.Context, owner, id string, fn func(*SessionState) error) (*SessionState, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	st, ok := m.live(owner, id, now)
	if !ok {
		return nil, ErrSessionNotFound
	}
	next := copyState(st)
	if err := fn(next); err != nil {
		return nil, err
	}
	next.ID, next.Owner, next.CreatedAt, next.LastActive = id, owner, st.CreatedAt, now
	m.states[id] = *copyState(*next)
	return next, nil
}

// Delete implements SessionStore.
func (m *memorySessionStore) Delete(_ context.Context, owner, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.live(owner, id, m.now()); !ok {
		return ErrSessionNotFound
	}
	delete(m.states, id)
	return nil
}

// Shared implements SessionStore: the value of Share.
func (m *memorySessionStore) Shared() bool { return m.Share }

// Len reports how many sessions the store holds (including any that have
// idled out but were not looked at since).
func (m *memorySessionStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.states)
}
