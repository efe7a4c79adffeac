package mcp

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// A requestStateKeyer is a shared SessionStore that hands every replica
// the same key to sign the requestState of input_required results with
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr),
// so that a retry may reach any replica without ServerOptions.
// RequestStateKey being configured (see SessionStore).
// NewMemorySessionStore's store and redisstore.SessionStore implement it.
type requestStateKeyer interface {
	RequestStateKey(ctx context.Context) ([]byte, error)
}

// errNoStateKey is wrapped by the error of a requestState that cannot be
// signed or checked because the server has no key its replicas share.
var errNoStateKey = errors.New("mcp: no requestState key shared by the replicas")

// stateKeyTimeout bounds the fetch of a store's key, its retries
// included.
const stateKeyTimeout = 5 * time.Second

// stateKeyAttempts is how many times a fetch asks the store when it answers
// with ErrStoreUnavailable, stateKeyBackoff apart, then twice that, and so
// on (docs/design.md, "The requestState key of a shared store").
const (
	stateKeyAttempts = 3
	stateKeyBackoff  = 50 * time.Millisecond
)

// stateKeyHolder is a server's requestState key: configured, random for
// one process, or fetched from a shared store on first use (and again
// after a failure).
type stateKeyHolder struct {
	key   atomic.Pointer[[]byte]
	mu    sync.Mutex // serializes fetches
	store SessionStore
}

func (h *stateKeyHolder) init(configured []byte, store SessionStore) {
	switch {
	case len(configured) > 0:
		k := configured
		h.key.Store(&k)
	case store.Shared():
		h.store = store
	default:
		k := randomKey()
		h.key.Store(&k)
	}
}

func (h *stateKeyHolder) get() ([]byte, error) {
	if k := h.key.Load(); k != nil {
		return *k, nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if k := h.key.Load(); k != nil {
		return *k, nil
	}
	keyer, ok := h.store.(requestStateKeyer)
	if !ok {
		return nil, fmt.Errorf("%w: the SessionStore is shared and has no RequestStateKey method; set ServerOptions.RequestStateKey on every replica", errNoStateKey)
	}
	ctx, cancel := context.WithTimeout(context.Background(), stateKeyTimeout)
	defer cancel()
	k, err := fetchStateKey(ctx, keyer)
	if err != nil {
		return nil, fmt.Errorf("%w: the SessionStore's: %w", errNoStateKey, err)
	}
	if len(k) < 32 {
		return nil, fmt.Errorf("%w: the SessionStore's key has %d bytes, fewer than 32", errNoStateKey, len(k))
	}
	k = append([]byte(nil), k...)
	h.key.Store(&k)
	return k, nil
}

// fetchStateKey asks keyer for its key, again after an error wrapping
// ErrStoreUnavailable (a store's first call may outlast its own timeout,
// or meet a cluster that is failing over), at most stateKeyAttempts times
// and while ctx lasts.
func fetchStateKey(ctx context.Context, keyer requestStateKeyer) (k []byte, err error) {
	wait := stateKeyBackoff
	for attempt := 1; ; attempt++ {
		k, err = askStateKey(ctx, keyer)
		if err == nil || !errors.Is(err, ErrStoreUnavailable) || attempt == stateKeyAttempts {
			return k, err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, err
		case <-t.C:
		}
		wait *= 2
	}
}

// askStateKey is keyer.RequestStateKey with a panic recovered.
func askStateKey(ctx context.Context, keyer requestStateKeyer) (k []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("SessionStore.RequestStateKey panicked: %v", p)
		}
	}()
	return keyer.RequestStateKey(ctx)
}

// RequestStateKey implements requestStateKeyer: a random key made on the
// first call, the same for every Server using this store.
func (m *memorySessionStore) RequestStateKey(context.Context) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stateKey == nil {
		m.stateKey = make([]byte, 32)
		_, _ = rand.Read(m.stateKey)
	}
	return append([]byte(nil), m.stateKey...), nil
}
