package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/redis/go-redis/v9"
)

// DefaultMaxSessions is the cluster-wide session cap of a SessionStore
// whose MaxSessions is zero.
const DefaultMaxSessions = 10000

// DefaultUpdateRetries is how many times Update and TaskStore.Update try
// again after another replica changed the same record in between, when
// UpdateRetries is zero.
const DefaultUpdateRetries = 16

// ErrSessionLimit is returned by SessionStore.Create when the cluster
// holds MaxSessions live sessions. It matches mcp.ErrSessionLimit
// (errors.Is), which the transports answer with 503.
var ErrSessionLimit error = &sentinel{msg: "redisstore: session limit reached", is: mcp.ErrSessionLimit}

// ErrSessionExists is returned by SessionStore.Create for an id that is
// in use, or that was deleted less than IdleTimeout ago.
var ErrSessionExists = errors.New("redisstore: session id already in use")

// ErrConflict is returned by Update when the record kept changing under
// it UpdateRetries times in a row.
var ErrConflict = errors.New("redisstore: too many concurrent updates")

// SessionOptions configures a SessionStore. The zero value is useful.
type SessionOptions struct {
	// Prefix starts every key. If empty, DefaultPrefix ("mcpkit:"). It
	// must not contain '{' or '}'. Stores that share a Redis and a
	// Prefix share their sessions: that is how replicas see each other's.
	Prefix string
	// Timeout bounds each call to Redis; past it the call fails with an
	// error wrapping ErrUnavailable. If zero, DefaultTimeout (2s).
	Timeout time.Duration
	// IdleTimeout is how long a session lives after it was last created,
	// saved or touched, measured by Redis's clock (the key's TTL), so
	// every replica agrees on when a session expired. It is also how long
	// a deleted session's id stays refused. If zero, DefaultIdleTimeout
	// (30 minutes).
	IdleTimeout time.Duration
	// MaxSessions caps the live sessions of every store on this Redis and
	// Prefix together. Create past it fails with ErrSessionLimit. If zero,
	// DefaultMaxSessions (10000); if negative, no cap (and no global key).
	//
	// The count lives in one sorted set, the only key sessions share; to
	// keep that key off the hot path a session renews its place in it at
	// most once per IdleTimeout, so a session that idled out is counted
	// for up to one more IdleTimeout. A deleted session is uncounted at
	// once.
	MaxSessions int
	// UpdateRetries bounds how often Update retries after a concurrent
	// change by another replica; past it Update fails with ErrConflict.
	// If zero, DefaultUpdateRetries (16).
	UpdateRetries int
}

// SessionStore keeps the state of sessions of the session era in Redis,
// so that every replica of a server sees every session: a replica that
// gets a request for a session another one created loads its state from
// here, and a DELETE on one replica ends the session on all of them
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).
//
// It implements mcp.SessionStore, and its Shared reports true, so that a
// Streamable HTTP Handler serves any session from it: Create under a
// cluster-wide cap, Touch (load, check the owner and restart the idle
// expiry in one step), Update (a read-modify-write that loses no
// concurrent change) and Delete. Every method answers
// mcp.ErrSessionNotFound for a session of another owner, so a session id
// presented under another identity finds nothing
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices#session-hijacking).
//
// Every operation is one Lua script on the session's keys, timed by
// Redis's clock; only Create, Delete, and a touch once per IdleTimeout
// also visit the cap's sorted set. It is safe for concurrent use.
type SessionStore struct {
	base
	idle    time.Duration
	max     int
	retries int
}

var _ mcp.SessionStore = (*SessionStore)(nil)

// NewSessionStore returns a SessionStore on rdb (a *redis.Client,
// *redis.ClusterClient or failover client). opts may be nil. The caller
// keeps rdb and closes it.
func NewSessionStore(rdb redis.UniversalClient, opts *SessionOptions) (*SessionStore, error) {
	if opts == nil {
		opts = &SessionOptions{}
	}
	b, err := newBase(rdb, opts.Prefix, opts.Timeout)
	if err != nil {
		return nil, err
	}
	s := &SessionStore{base: b, idle: opts.IdleTimeout, max: opts.MaxSessions, retries: opts.UpdateRetries}
	if s.idle <= 0 {
		s.idle = DefaultIdleTimeout
	}
	if s.max == 0 {
		s.max = DefaultMaxSessions
	}
	if s.retries <= 0 {
		s.retries = DefaultUpdateRetries
	}
	return s, nil
}

// SessionKey is the key of a session's hash. The session id is its hash
// tag, so in a Redis Cluster the keys of one session (its state, its
// events) share a slot.
func (s *SessionStore) SessionKey(id string) string { return s.prefix + "s:{" + id + "}" }

// capKey is the sorted set that counts live sessions for MaxSessions.
func (s *SessionStore) capKey() string { return s.prefix + "sessions" }

func (s *SessionStore) capped() bool { return s.max > 0 }

// keys are the keys of a session, for its scripts: all under its hash tag.
func (s *SessionStore) keys(id string) []string {
	return []string{s.SessionKey(id), eventsKey(s.prefix, id), eventBytesKey(s.prefix, id)}
}

// A session's hash holds: st (the SessionState as JSON), own (the owner),
// ca and la (created and last active, ms of Redis's clock), cd (until when
// the cap's sorted set counts it), rev (bumped by every write). A deleted
// session's hash holds only gone=1, until IdleTimeout.

// The scripts' KEYS are the session's keys (SessionStore.keys): its hash,
// then its events and their byte count, whose expiry a touch extends and
// which a delete deletes.

// sessGet: KEYS[1] session; ARGV: owner, check owner ("1"/"0"), idle ms,
// touch ("1"/"0"), cap deadline given by a renewal ("" if none).
// Replies {"missing"} | {"renew", now} | {"ok", st, own, la, ca, rev}.
var sessGet = redis.NewScript(redisNow + `
local h = redis.call('HMGET', KEYS[1], 'st', 'own', 'la', 'ca', 'cd', 'rev', 'gone')
if h[7] or not h[1] then return {'missing'} end
if ARGV[2] == '1' and h[2] ~= ARGV[1] then return {'missing'} end
if ARGV[4] == '1' then
	local idle = tonumber(ARGV[3])
	local cd = tonumber(h[5]) or 0
	if ARGV[5] ~= '' and tonumber(ARGV[5]) > cd then
		cd = tonumber(ARGV[5])
		redis.call('HSET', KEYS[1], 'cd', ARGV[5])
	end
	if cd < now + idle then return {'renew', tostring(now)} end
	redis.call('HSET', KEYS[1], 'la', now)
	redis.call('PEXPIRE', KEYS[1], idle)
	redis.call('PEXPIRE', KEYS[2], idle)
	redis.call('PEXPIRE', KEYS[3], idle)
	h[3] = tostring(now)
end
return {'ok', h[1], h[2], h[3], h[4], h[6]}
`)

// sessPut: KEYS[1] session; ARGV: mode ("create": the caller reserved
// a place under the cap; "save": an existing session only), state JSON,
// owner, idle ms, cap deadline ("" if none), expected rev ("" for any).
// Replies {"ok"} | {"missing"} | {"gone"} | {"exists"} | {"owner"} |
// {"conflict"} | {"renew"}.
var sessPut = redis.NewScript(redisNow + `
local h = redis.call('HMGET', KEYS[1], 'own', 'gone', 'rev', 'cd', 'st')
if h[2] then return {'gone'} end
local idle = tonumber(ARGV[4])
if not h[5] then
	if ARGV[1] ~= 'create' then return {'missing'} end
	redis.call('HSET', KEYS[1], 'st', ARGV[2], 'own', ARGV[3], 'la', now, 'ca', now, 'cd', ARGV[5], 'rev', 1)
	redis.call('PEXPIRE', KEYS[1], idle)
	return {'ok'}
end
if ARGV[1] == 'create' then return {'exists'} end
if h[1] ~= ARGV[3] then return {'owner'} end
if ARGV[6] ~= '' and h[3] ~= ARGV[6] then return {'conflict'} end
local cd = tonumber(h[4]) or 0
if ARGV[5] ~= '' and tonumber(ARGV[5]) > cd then
	cd = tonumber(ARGV[5])
	redis.call('HSET', KEYS[1], 'cd', ARGV[5])
end
if cd < now + idle then return {'renew'} end
redis.call('HSET', KEYS[1], 'st', ARGV[2], 'la', now, 'rev', tonumber(h[3]) + 1)
redis.call('PEXPIRE', KEYS[1], idle)
redis.call('PEXPIRE', KEYS[2], idle)
redis.call('PEXPIRE', KEYS[3], idle)
return {'ok'}
`)

// sessDelete: KEYS[1] session; ARGV: owner, check owner, tombstone ms.
// Replies 1 (deleted), 0 (nothing there), -1 (another owner's).
var sessDelete = redis.NewScript(`
local h = redis.call('HMGET', KEYS[1], 'own', 'gone', 'st')
if h[2] or not h[3] then return 0 end
if ARGV[2] == '1' and h[1] ~= ARGV[1] then return -1 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('HSET', KEYS[1], 'gone', 1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`)

// capReserve: KEYS[1] the cap's set; ARGV: id, cap, idle ms, renew only
// ("1": the session exists, count it whatever the cap). Drops the members
// whose time has passed first. Replies {"ok", deadline} | {"limit"}.
var capReserve = redis.NewScript(redisNow + `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local dl = now + 2 * tonumber(ARGV[3])
if ARGV[4] ~= '1' and not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
	if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return {'limit'} end
end
redis.call('ZADD', KEYS[1], 'GT', dl, ARGV[1])
return {'ok', tostring(dl)}
`)

func ms(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }

// noCapDeadline is the cap deadline of a session when there is no cap: it
// never needs renewing.
var noCapDeadline = strconv.FormatInt(math.MaxInt64/2, 10)

// reserve takes (or renews) the session's place under the cap and returns
// its deadline.
func (s *SessionStore) reserve(ctx context.Context, id string, renew bool) (string, error) {
	if !s.capped() {
		return noCapDeadline, nil
	}
	flag := "0"
	if renew {
		flag = "1"
	}
	var rep []string
	err := s.call(ctx, "reserving a session", func(ctx context.Context) error {
		v, err := capReserve.Run(ctx, s.rdb, []string{s.capKey()}, id, s.max, ms(s.idle), flag).Result()
		if err != nil {
			return err
		}
		rep, err = replyStrings(v)
		return err
	})
	if err != nil {
		return "", err
	}
	if rep[0] == "limit" {
		return "", fmt.Errorf("%w (MaxSessions %d)", ErrSessionLimit, s.max)
	}
	return rep[1], nil
}

// unreserve gives the session's place under the cap back.
func (s *SessionStore) unreserve(ctx context.Context, id string) error {
	if !s.capped() {
		return nil
	}
	return s.call(ctx, "releasing a session", func(ctx context.Context) error {
		return s.rdb.ZRem(ctx, s.capKey(), id).Err()
	})
}

func (s *SessionStore) put(ctx context.Context, mode string, st *mcp.SessionState, rev string) (string, error) {
	raw, err := json.Marshal(st)
	if err != nil {
		return "", fmt.Errorf("redisstore: encoding session state: %w", err)
	}
	deadline := ""
	if mode == "create" {
		if deadline, err = s.reserve(ctx, st.ID, false); err != nil {
			return "", err
		}
	}
	for range 2 {
		var rep []string
		err = s.call(ctx, "saving a session", func(ctx context.Context) error {
			v, err := sessPut.Run(ctx, s.rdb, s.keys(st.ID), mode, raw, st.Owner, ms(s.idle), deadline, rev).Result()
			if err != nil {
				return err
			}
			rep, err = replyStrings(v)
			return err
		})
		if err != nil {
			if mode == "create" {
				_ = s.unreserve(context.WithoutCancel(ctx), st.ID)
			}
			return "", err
		}
		if rep[0] == "gone" && mode == "create" {
			// A deleted session's place was given back; give back the
			// one just taken for it too.
			if err := s.unreserve(ctx, st.ID); err != nil {
				return "", err
			}
		}
		if rep[0] != "renew" {
			return rep[0], nil
		}
		if deadline, err = s.reserve(ctx, st.ID, true); err != nil {
			return "", err
		}
	}
	return "", errors.New("redisstore: session cap deadline did not renew")
}

// Create stores a new session, if the cluster holds fewer than
// MaxSessions: the atomic create-if-under-cap that keeps the cap
// cluster-wide. Its created and last-active times become Redis's clock.
// An id in use, or deleted less than IdleTimeout ago, gets
// ErrSessionExists.
func (s *SessionStore) Create(ctx context.Context, st *mcp.SessionState) error {
	if st == nil || st.ID == "" {
		return errors.New("redisstore: Create needs a session id")
	}
	rep, err := s.put(ctx, "create", st, "")
	if err != nil {
		return err
	}
	switch rep {
	case "ok":
		return nil
	case "gone", "exists":
		// A live session keeps its place under the cap; put gave back
		// the one taken for a deleted id.
		return fmt.Errorf("%w: %q", ErrSessionExists, st.ID)
	}
	return fmt.Errorf("redisstore: unexpected reply %q", rep)
}

// get runs sessGet and decodes the state; rev is the record's revision.
func (s *SessionStore) get(ctx context.Context, owner, id string, checkOwner, touch bool) (st *mcp.SessionState, rev string, err error) {
	check, tch := "0", "0"
	if checkOwner {
		check = "1"
	}
	if touch {
		tch = "1"
	}
	deadline := ""
	for range 2 {
		var rep []string
		err := s.call(ctx, "loading a session", func(ctx context.Context) error {
			v, err := sessGet.Run(ctx, s.rdb, s.keys(id), owner, check, ms(s.idle), tch, deadline).Result()
			if err != nil {
				return err
			}
			rep, err = replyStrings(v)
			return err
		})
		if err != nil {
			return nil, "", err
		}
		switch rep[0] {
		case "missing":
			return nil, "", fmt.Errorf("%w: %q", mcp.ErrSessionNotFound, id)
		case "renew":
			if deadline, err = s.reserve(ctx, id, true); err != nil {
				return nil, "", err
			}
			continue
		}
		if len(rep) != 6 {
			return nil, "", errors.New("redisstore: malformed session reply")
		}
		st = new(mcp.SessionState)
		if err := json.Unmarshal([]byte(rep[1]), st); err != nil {
			return nil, "", fmt.Errorf("redisstore: decoding session %q: %w", id, err)
		}
		st.ID, st.Owner = id, rep[2]
		if la, err := strconv.ParseInt(rep[3], 10, 64); err == nil {
			st.LastActive = time.UnixMilli(la)
		}
		if ca, err := strconv.ParseInt(rep[4], 10, 64); err == nil {
			st.CreatedAt = time.UnixMilli(ca)
		}
		return st, rep[5], nil
	}
	return nil, "", errors.New("redisstore: session cap deadline did not renew")
}

// Load implements mcp.SessionStore: the state of owner's session id,
// without restarting its idle expiry (a replica serving a request uses
// Touch). CreatedAt and LastActive are Redis's clock.
func (s *SessionStore) Load(ctx context.Context, owner, id string) (*mcp.SessionState, error) {
	st, _, err := s.get(ctx, owner, id, true, false)
	return st, err
}

// Shared implements mcp.SessionStore: true, since every store on the
// same Redis and Prefix sees the same sessions.
func (s *SessionStore) Shared() bool { return true }

// Touch loads the state of owner's session id and restarts its idle
// expiry (LastActive becomes Redis's now), in one step: what a replica
// does for each request of the session. A session that expired, was
// deleted or belongs to another owner gets mcp.ErrSessionNotFound.
func (s *SessionStore) Touch(ctx context.Context, owner, id string) (*mcp.SessionState, error) {
	st, _, err := s.get(ctx, owner, id, true, true)
	return st, err
}

// Update changes owner's session id with fn and stores the result, unless
// another replica changed the session in between, in which case it loads
// the new state and calls fn again (at most UpdateRetries times, then
// ErrConflict): no concurrent change is lost. fn must change only the
// state it is given; its error is returned as is and nothing is stored.
// fn may not change the id or the owner.
func (s *SessionStore) Update(ctx context.Context, owner, id string, fn func(*mcp.SessionState) error) (*mcp.SessionState, error) {
	for range s.retries {
		st, rev, err := s.get(ctx, owner, id, true, false)
		if err != nil {
			return nil, err
		}
		if err := fn(st); err != nil {
			return nil, err
		}
		st.ID, st.Owner = id, owner
		rep, err := s.put(ctx, "save", st, rev)
		if err != nil {
			return nil, err
		}
		switch rep {
		case "ok":
			return st, nil
		case "conflict":
			continue
		case "gone", "owner", "missing":
			return nil, fmt.Errorf("%w: %q", mcp.ErrSessionNotFound, id)
		default:
			return nil, fmt.Errorf("redisstore: unexpected reply %q", rep)
		}
	}
	return nil, fmt.Errorf("%w: session %q, %d tries", ErrConflict, id, s.retries)
}

// Delete implements mcp.SessionStore: it ends owner's session id for
// every replica at once. The id stays refused for IdleTimeout, so that a
// replica still finishing one of its requests cannot update it back, nor
// Create reuse it. A session of another owner is left alone and answered
// with mcp.ErrSessionNotFound, as an unknown or expired id is.
func (s *SessionStore) Delete(ctx context.Context, owner, id string) error {
	n, err := s.del(ctx, owner, id, true)
	if err != nil {
		return err
	}
	if n != 1 {
		return fmt.Errorf("%w: %q", mcp.ErrSessionNotFound, id)
	}
	return nil
}

func (s *SessionStore) del(ctx context.Context, owner, id string, checkOwner bool) (int64, error) {
	check := "0"
	if checkOwner {
		check = "1"
	}
	var n int64
	err := s.call(ctx, "deleting a session", func(ctx context.Context) error {
		var err error
		n, err = sessDelete.Run(ctx, s.rdb, s.keys(id), owner, check, ms(s.idle)).Int64()
		return err
	})
	if err != nil {
		return 0, err
	}
	if n == 1 {
		if err := s.unreserve(ctx, id); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// Count reports how many sessions the cap counts now (live sessions,
// plus those that idled out less than IdleTimeout ago); 0 without a cap.
func (s *SessionStore) Count(ctx context.Context) (int64, error) {
	if !s.capped() {
		return 0, nil
	}
	var n int64
	err := s.call(ctx, "counting sessions", func(ctx context.Context) error {
		t, err := s.rdb.Time(ctx).Result()
		if err != nil {
			return err
		}
		n, err = s.rdb.ZCount(ctx, s.capKey(), "("+strconv.FormatInt(t.UnixMilli(), 10), "+inf").Result()
		return err
	})
	return n, err
}
