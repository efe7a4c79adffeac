package redisstore

import (
	"context"
	"crypto/rand"

	"github.com/redis/go-redis/v9"
)

// The method a shared mcp.SessionStore may have to share the requestState
// key (see mcp.SessionStore).
var _ interface {
	RequestStateKey(context.Context) ([]byte, error)
} = (*SessionStore)(nil)

// StateKeyName is the key that holds the requestState key of the
// servers using this store.
func (s *SessionStore) StateKeyName() string { return s.prefix + "statekey" }

// RequestStateKey hands mcp.Server the requestState key: every replica gets
// the same 32 random bytes, made by the first replica that asks (SET NX,
// so that two first askers agree) and kept without expiry, so that a
// requestState one replica issued is accepted by all
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).
// Deleting the key invalidates every outstanding requestState once the
// servers restart. Errors wrap ErrUnavailable when Redis cannot answer.
func (s *SessionStore) RequestStateKey(ctx context.Context) ([]byte, error) {
	var key []byte
	err := s.call(ctx, "reading the requestState key", func(ctx context.Context) error {
		fresh := make([]byte, 32)
		_, _ = rand.Read(fresh)
		v, err := s.rdb.SetArgs(ctx, s.StateKeyName(), fresh, redis.SetArgs{Mode: "NX", Get: true}).Bytes()
		switch {
		case err == redis.Nil: // set now: ours
			key = fresh
			return nil
		case err != nil:
			return err
		}
		key = v
		return nil
	})
	return key, err
}
