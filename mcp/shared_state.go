package mcp

import (
	"context"
	"errors"
	"fmt"
)

// refreshShared brings the session's state up to date with its shared
// SessionStore (one whose Shared reports true) before the server acts on
// it outside any request: another replica may have changed it, for
// example subscribed to a resource
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#subscriptions).
// It does nothing for a store that is not shared. It reports false, with
// no error, when the store no longer has the session (ended on another
// replica); a store that cannot answer is an error, and the local state
// is then left as it was.
func (ss *ServerSession) refreshShared(ctx context.Context) (live bool, err error) {
	store := ss.server.store
	if ss.state.ID == "" || store == nil || !store.Shared() {
		return true, nil
	}
	defer func() {
		if p := recover(); p != nil {
			recovered(p, ss.server.logger, "SessionStore.Load", "")
			live, err = true, fmt.Errorf("mcp: SessionStore.Load panicked: %v", p)
		}
	}()
	ss.mu.Lock()
	owner, id := ss.state.Owner, ss.state.ID
	ss.mu.Unlock()
	st, err := store.Load(ctx, owner, id)
	switch {
	case errors.Is(err, ErrSessionNotFound):
		return false, nil
	case err != nil:
		return true, fmt.Errorf("mcp: loading session %q: %w", id, err)
	}
	ss.syncState(st)
	return true, nil
}
