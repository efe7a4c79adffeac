// Package broadcast carries, on a context, what a server broadcast
// (list_changed, resources/updated) tells the transports of this module
// (mcphttp) that deliver it to many sessions: the broadcast's key, so
// that an event store shared by replicas keeps it once, and the one
// notification every writer receives, so that it is encoded once.
package broadcast

import (
	"context"
	"sync"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// keyKey is the context key of Key.
type keyKey struct{}

// WithKey returns ctx carrying key, the id of one server
// broadcast (list_changed, resources/updated) that several replicas may
// each deliver to the same session. A transport that stores the session's
// events where every replica appends them keeps the event once per key.
func WithKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, keyKey{}, key)
}

// Key returns the key WithKey put in ctx, or "".
func Key(ctx context.Context) string {
	k, _ := ctx.Value(keyKey{}).(string)
	return k
}

// Shared is one notification a server sends to many writers at once (a
// broadcast of list_changed or resources/updated to every session): the
// same *jsonrpc.Notification goes to each, and a transport may encode it
// once for all of them with Encoded instead of once per writer.
type Shared struct {
	Msg *jsonrpc.Notification
	enc [2]sharedEncoding
}

type sharedEncoding struct {
	once sync.Once
	b    []byte
	err  error
}

// Encoded returns the encoding of s.Msg that encode makes, made by the
// first caller with the same kind (0 or 1: a transport's two forms). The
// bytes are shared by every caller and must not be modified.
func (s *Shared) Encoded(kind int, encode func(*jsonrpc.Notification) ([]byte, error)) ([]byte, error) {
	e := &s.enc[kind]
	e.once.Do(func() { e.b, e.err = encode(s.Msg) })
	return e.b, e.err
}

// sharedCtx is a context carrying a Shared. It is a type of its own, not
// a context.WithValue, so that SharedIn finds it without walking the
// chain of a context that has none (every notification a stream sends
// asks).
type sharedCtx struct {
	context.Context
	s *Shared
}

func (c *sharedCtx) Value(key any) any {
	if key == (sharedKey{}) {
		return c.s
	}
	return c.Context.Value(key)
}

// sharedKey is the context key of a Shared.
type sharedKey struct{}

// WithShared returns ctx carrying s, for the writers s.Msg is sent to.
func WithShared(ctx context.Context, s *Shared) context.Context {
	return &sharedCtx{ctx, s}
}

// SharedIn returns the Shared that WithShared put in ctx, or nil; only
// the Shared of ctx itself counts, not that of a context ctx derives
// from.
func SharedIn(ctx context.Context) *Shared {
	if c, ok := ctx.(*sharedCtx); ok {
		return c.s
	}
	return nil
}

// SharedOf returns the Shared that WithShared put in ctx if msg is its
// message, else nil.
func SharedOf(ctx context.Context, msg jsonrpc.Message) *Shared {
	if s := SharedIn(ctx); s != nil && jsonrpc.Message(s.Msg) == msg {
		return s
	}
	return nil
}
