package redisstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/redis/go-redis/v9"
)

// DefaultPrefix starts every key of a store whose Prefix is empty.
const DefaultPrefix = "mcpkit:"

// DefaultTimeout bounds each call to Redis of a store whose Timeout is
// zero: a store never waits on Redis longer than this, so that a request
// needing Redis while it is unreachable fails fast with ErrUnavailable.
const DefaultTimeout = 2 * time.Second

// DefaultIdleTimeout is how long a session, and the events kept for it,
// live after the last request that touched them, when IdleTimeout is zero.
const DefaultIdleTimeout = 30 * time.Minute

// ErrUnavailable is wrapped by every error a store returns because Redis
// could not be reached or could not serve the call in time: a network
// error, the store's Timeout, a server that is loading, read-only, out of
// memory, or a Redis Cluster that is down. It never means that the thing
// looked up does not exist. The HTTP layer answers it with 503 and
// Retry-After, because answering 404 would make session-era clients start
// a new session
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).
// It matches mcp.ErrStoreUnavailable (errors.Is), the sentinel the
// transports look for whatever the store.
var ErrUnavailable error = &sentinel{msg: "redisstore: redis unavailable", is: mcp.ErrStoreUnavailable}

// sentinel is an error of this package that errors.Is also matches to
// the sentinel of package mcp it stands for.
type sentinel struct {
	msg string
	is  error
}

func (e *sentinel) Error() string        { return e.msg }
func (e *sentinel) Is(target error) bool { return target == e.is }

// ErrBadPrefix is returned by the constructors for a Prefix holding a
// brace: the stores put a hash tag ({…}) in every key so that the keys of
// one session or owner share a Redis Cluster slot, and a brace in the
// prefix would take the tag's place.
var ErrBadPrefix = errors.New("redisstore: Prefix must not contain '{' or '}'")

// ErrNilClient is returned by the constructors for a nil client.
var ErrNilClient = errors.New("redisstore: nil redis client")

// ErrNoContextTimeout is returned by the constructors for a client whose
// options leave ContextTimeoutEnabled false: go-redis then ignores the
// deadline of a call's context, so no call could be bounded by the
// store's Timeout and a stalled Redis would hold requests for the
// client's own read timeout and retries instead.
var ErrNoContextTimeout = errors.New("redisstore: the redis client must be made with ContextTimeoutEnabled: true")

// base is what every store shares: the client, the key prefix and the
// per-call timeout.
type base struct {
	rdb     redis.UniversalClient
	prefix  string
	timeout time.Duration
}

// Prefix reports the prefix of the store's keys.
func (b *base) Prefix() string { return b.prefix }

func newBase(rdb redis.UniversalClient, prefix string, timeout time.Duration) (base, error) {
	if rdb == nil {
		return base{}, ErrNilClient
	}
	if !contextTimeouts(rdb) {
		return base{}, ErrNoContextTimeout
	}
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if strings.ContainsAny(prefix, "{}") {
		return base{}, fmt.Errorf("%w: %q", ErrBadPrefix, prefix)
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return base{rdb: rdb, prefix: prefix, timeout: timeout}, nil
}

// contextTimeouts reports whether rdb honours context deadlines, as far as
// its type tells.
func contextTimeouts(rdb redis.UniversalClient) bool {
	switch c := rdb.(type) {
	case *redis.Client:
		return c.Options().ContextTimeoutEnabled
	case *redis.ClusterClient:
		return c.Options().ContextTimeoutEnabled
	case *redis.Ring:
		return c.Options().ContextTimeoutEnabled
	}
	return true
}

// call runs fn with the store's timeout and classifies its error.
func (b *base) call(ctx context.Context, op string, fn func(ctx context.Context) error) error {
	cctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	err := fn(cctx)
	if err == nil {
		return nil
	}
	// The store's own deadline passed (go-redis reports it as the
	// connection's i/o timeout, or as the context's error).
	if deadline, _ := cctx.Deadline(); ctx.Err() == nil && !time.Now().Before(deadline) {
		return fmt.Errorf("redisstore: %s: %w: no answer within %v (%v): %w", op, ErrUnavailable, b.timeout, err, context.DeadlineExceeded)
	}
	return classify(ctx, op, err)
}

// classify turns an error from go-redis into one of ours: the caller's own
// cancellation stays what it is; anything that says Redis cannot serve now
// wraps ErrUnavailable; other errors (a bug in a script, a wrong type) are
// wrapped as they are.
func classify(ctx context.Context, op string, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("redisstore: %s: %w", op, cerr)
	}
	if unavailable(err) {
		return fmt.Errorf("redisstore: %s: %w: %w", op, ErrUnavailable, err)
	}
	return fmt.Errorf("redisstore: %s: %w", op, err)
}

func unavailable(err error) bool {
	var rerr redis.Error
	if errors.As(err, &rerr) && !errors.Is(err, redis.ErrClosed) && !errors.Is(err, redis.ErrPoolTimeout) {
		// A reply from the server: only these say it cannot serve now.
		return redis.IsLoadingError(err) || redis.IsReadOnlyError(err) ||
			redis.IsClusterDownError(err) || redis.IsTryAgainError(err) ||
			redis.IsMasterDownError(err) || redis.IsOOMError(err) ||
			redis.HasErrorPrefix(err, "BUSY") || redis.HasErrorPrefix(err, "NOREPLICAS")
	}
	// No reply: the network, a timeout, a closed client or pool.
	return true
}

// ownerTag is the part of a key that names an owner: a digest, so that
// an owner string of any length or content makes a short key without
// braces. The stored state keeps the owner itself, and every lookup
// compares it, so a digest collision opens nothing.
func ownerTag(owner string) string {
	sum := sha256.Sum256([]byte(owner))
	return hex.EncodeToString(sum[:16])
}

// redisNow is the Lua prelude that reads Redis's clock in milliseconds.
const redisNow = `
local tm = redis.call('TIME')
local now = tonumber(tm[1]) * 1000 + math.floor(tonumber(tm[2]) / 1000)
`

// replyStrings reads a script's array reply of strings.
func replyStrings(v any) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("redisstore: unexpected script reply %T", v)
	}
	out := make([]string, len(arr))
	for i, e := range arr {
		switch e := e.(type) {
		case string:
			out[i] = e
		case int64:
			out[i] = fmt.Sprint(e)
		case nil:
			out[i] = ""
		default:
			return nil, fmt.Errorf("redisstore: unexpected script reply element %T", e)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("redisstore: empty script reply")
	}
	return out, nil
}

// The keys of a session's events. They share the session's hash tag, so
// that the SessionStore's scripts can extend and delete them with the
// session's own key.
func eventsKey(prefix, sessionID string) string { return prefix + "ev:{" + sessionID + "}" }
func eventBytesKey(prefix, sessionID string) string {
	return prefix + "evb:{" + sessionID + "}"
}
func eventChannel(prefix, sessionID string) string { return prefix + "evn:{" + sessionID + "}" }

func eventOnceKey(prefix, sessionID, key string) string {
	return prefix + "evo:{" + sessionID + "}:" + key
}
