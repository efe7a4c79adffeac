package redisstore

import (
	"context"
	"time"

	"github.com/mcpkit/mcpkit/mcphttp"
	"github.com/redis/go-redis/v9"
)

// The GET stream lease of a session: one string holding the holder, with
// the session's hash tag (the slot of its events on Redis Cluster), which
// expires by itself when its holder stops renewing it.
func streamLeaseKey(prefix, sessionID string) string { return prefix + "getl:{" + sessionID + "}" }

var _ mcphttp.StreamLeaser = (*EventStore)(nil)

// LeaseStream implements mcphttp.StreamLeaser, so that the replicas
// sharing a session serve at most one GET stream for it between them
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server):
// SET NX PX, or a plain SET PX for a takeover. The lease lapses ttl after
// it was taken or last renewed, by Redis's clock, so a replica that died
// holding it keeps it no longer. Errors wrap ErrUnavailable when Redis
// cannot answer.
func (e *EventStore) LeaseStream(ctx context.Context, sessionID, holder string, ttl time.Duration, takeover bool) (bool, error) {
	ttl = max(ttl, time.Millisecond)
	var ok bool
	err := e.call(ctx, "leasing a GET stream", func(ctx context.Context) error {
		args := redis.SetArgs{TTL: ttl}
		if !takeover {
			args.Mode = "NX"
		}
		res, err := e.rdb.SetArgs(ctx, streamLeaseKey(e.prefix, sessionID), holder, args).Result()
		switch {
		case err == redis.Nil: // NX: held by another
			return nil
		case err != nil:
			return err
		}
		ok = res == "OK"
		return nil
	})
	return ok, err
}

// leaseRenew extends KEYS[1] by ARGV[2] ms if it holds ARGV[1].
var leaseRenew = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
	return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
`)

// leaseRelease deletes KEYS[1] if it holds ARGV[1].
var leaseRelease = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
	return redis.call('DEL', KEYS[1])
end
return 0
`)

// RenewStream implements mcphttp.StreamLeaser: compare and extend, in
// one script.
func (e *EventStore) RenewStream(ctx context.Context, sessionID, holder string, ttl time.Duration) (bool, error) {
	ttl = max(ttl, time.Millisecond)
	var n int64
	err := e.call(ctx, "renewing a GET stream lease", func(ctx context.Context) error {
		var err error
		n, err = leaseRenew.Run(ctx, e.rdb, []string{streamLeaseKey(e.prefix, sessionID)}, holder, ms(ttl)).Int64()
		return err
	})
	return n == 1, err
}

// ReleaseStream implements mcphttp.StreamLeaser: compare and delete, in
// one script, so that a holder whose lease was taken over deletes
// nothing.
func (e *EventStore) ReleaseStream(ctx context.Context, sessionID, holder string) error {
	return e.call(ctx, "releasing a GET stream lease", func(ctx context.Context) error {
		return leaseRelease.Run(ctx, e.rdb, []string{streamLeaseKey(e.prefix, sessionID)}, holder).Err()
	})
}
