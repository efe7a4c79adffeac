package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/mcpkit/mcpkit/internal/sessquota"
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
	// most once per IdleTimeout. A Create that finds the cap full checks
	// the sessions whose place may have outlived them against their own
	// keys (Redis's clock) and frees the places of those that idled out,
	// so a slot is free once its session has idled out, as on one
	// server. A deleted session is uncounted at once.
	MaxSessions int
	// MaxSessionsPerOwner caps the live sessions of one owner (an
	// authenticated principal, SessionState.Owner) across every store on
	// this Redis and Prefix, in the same atomic step as MaxSessions: one
	// user cannot take the sessions every user shares. Create past it
	// fails with an error wrapping mcp.ErrOwnerSessionLimit (Streamable
	// HTTP answers 429 with Retry-After). Sessions without an owner are
	// not counted. If zero, a quarter of MaxSessions, at least 1 and at
	// most 100 (mcphttp.Options.MaxSessionsPerPrincipal's default); if
	// negative, no cap.
	MaxSessionsPerOwner int
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
	idle     time.Duration
	max      int
	maxOwner int
	retries  int
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
	s.maxOwner = opts.MaxSessionsPerOwner
	if s.maxOwner == 0 {
		s.maxOwner = sessquota.DefaultPerPrincipal(s.max)
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

// capKey is the sorted set that counts live sessions for MaxSessions:
// member the session id, score until when it counts (ms of Redis's
// clock).
func (s *SessionStore) capKey() string { return s.prefix + "sessions" }

// CapKeys returns the keys of the session cap: the sorted set of every
// live session, the hash of the sessions whose score there is their exact
// idle expiry, and owner's sorted set for MaxSessionsPerOwner ("" without
// an owner). The latter two carry the first as hash tag, so that in a
// Redis Cluster one script updates all three atomically. For tests and
// operators' inspection.
func (s *SessionStore) CapKeys(owner string) (sessions, exact, ofOwner string) {
	if owner != "" {
		ofOwner = s.ownerCapKey(owner)
	}
	return s.capKey(), s.exactKey(), ofOwner
}

func (s *SessionStore) exactKey() string { return "{" + s.capKey() + "}x" }

func (s *SessionStore) ownerCapKey(owner string) string {
	return "{" + s.capKey() + "}o:" + ownerTag(owner)
}

// capped reports whether sessions hold a place in the cap's sets: under
// MaxSessions or MaxSessionsPerOwner.
func (s *SessionStore) capped() bool { return s.max > 0 || s.maxOwner > 0 }

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
// Replies {"missing"} | {"renew", now, own} | {"ok", st, own, la, ca, rev}.
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
	if cd < now + idle then return {'renew', tostring(now), h[2]} end
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
// Replies {1, owner} (deleted), {0} (nothing there), {-1} (another
// owner's).
var sessDelete = redis.NewScript(`
local h = redis.call('HMGET', KEYS[1], 'own', 'gone', 'st')
if h[2] or not h[3] then return {0} end
if ARGV[2] == '1' and h[1] ~= ARGV[1] then return {-1} end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('HSET', KEYS[1], 'gone', 1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1, h[1] or ''}
`)

// capReserve takes (or renews) a session's place under the caps.
// KEYS: the cap's set, the exact-score hash, the owner's set (any key of
// the tag if none), then the owners' sets the verdicts name. ARGV: id,
// cap (<= 0: none), idle ms, renew only ("1": the session exists, count it
// whatever the caps), the owner's cap (<= 0: none), the number of
// verdicts, then per verdict: a session id, the score it had when it was
// offered for checking, its exact expiry or "gone", the index in KEYS of
// its owner's set (0: none).
//
// A verdict is applied only if the member's score is still what it was
// when offered: a renewal in between raised it, and the session is live.
// A session gone from the cap's set is gone from its owner's too (a
// member of an owner's set is always in the cap's set while it lives).
// A member whose expiry is exact (in the hash) is counted until then; one
// that is not is counted until its renewal deadline, which may be up to
// one IdleTimeout after its session idled out: at a full cap those are
// offered for checking ({"limit"|"olimit", retry ms, id, score, ...}).
// Replies {"ok", deadline} | {"limit", ...} | {"olimit", ...}.
var capReserve = redis.NewScript(redisNow + `
local cap, exact, own = KEYS[1], KEYS[2], KEYS[3]
local max, idle, omax = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[5])
local n = tonumber(ARGV[6])
for i = 0, n - 1 do
	local m, old, v, ki = ARGV[7+4*i], ARGV[8+4*i], ARGV[9+4*i], tonumber(ARGV[10+4*i])
	local cur = redis.call('ZSCORE', cap, m)
	if v == 'gone' then
		if not cur or tonumber(cur) == tonumber(old) then
			redis.call('ZREM', cap, m)
			redis.call('HDEL', exact, m)
			if ki > 0 then redis.call('ZREM', KEYS[ki], m) end
		end
	elseif cur and tonumber(cur) == tonumber(old) then
		redis.call('ZADD', cap, 'XX', v, m)
		redis.call('HSET', exact, m, 1)
		if ki > 0 then redis.call('ZADD', KEYS[ki], 'XX', v, m) end
	end
end
local dead = redis.call('ZRANGEBYSCORE', cap, '-inf', '(' .. now)
for _, m in ipairs(dead) do redis.call('HDEL', exact, m) end
redis.call('ZREMRANGEBYSCORE', cap, '-inf', '(' .. now)
if omax > 0 then redis.call('ZREMRANGEBYSCORE', own, '-inf', '(' .. now) end
local function full(k, kind)
	local out = {kind, '1000'}
	local first = redis.call('ZRANGE', k, 0, 0, 'WITHSCORES')
	if first[2] then out[2] = tostring(math.max(tonumber(first[2]) - now, 0)) end
	local r = redis.call('ZRANGEBYSCORE', k, now, '(' .. (now + idle), 'WITHSCORES')
	for i = 1, #r, 2 do
		if #out >= 2 + 2 * 64 then break end
		if redis.call('HEXISTS', exact, r[i]) == 0 then
			out[#out+1] = r[i]
			out[#out+1] = r[i+1]
		end
	end
	return out
end
local dl = now + 2 * idle
if ARGV[4] ~= '1' and not redis.call('ZSCORE', cap, ARGV[1]) then
	if omax > 0 and redis.call('ZCARD', own) >= omax then return full(own, 'olimit') end
	if max > 0 and redis.call('ZCARD', cap) >= max then return full(cap, 'limit') end
end
redis.call('ZADD', cap, 'GT', dl, ARGV[1])
redis.call('HDEL', exact, ARGV[1])
if omax > 0 then
	redis.call('ZADD', own, 'GT', dl, ARGV[1])
	redis.call('PEXPIRE', own, 2 * idle)
end
return {'ok', tostring(dl)}
`)

// capCheckSrc: KEYS[1] a session's hash; ARGV: idle ms. A session offered
// for checking at a full cap: {"gone"} if it idled out or was deleted;
// otherwise its cap deadline becomes its exact idle expiry (last activity
// plus IdleTimeout), so that its next touch renews its place under the
// cap before it goes on, and the reply is {"live", expiry, owner}.
// A pipeline sends it with EVAL.
const capCheckSrc = `
local h = redis.call('HMGET', KEYS[1], 'st', 'gone', 'la', 'cd', 'own')
if h[2] or not h[1] then return {'gone'} end
local e = tonumber(h[3]) + tonumber(ARGV[1])
local cd = tonumber(h[4]) or 0
if cd > e then redis.call('HSET', KEYS[1], 'cd', e) else e = cd end
return {'live', tostring(e), h[5] or ''}
`

// capVerdict is what checking one session offered at a full cap found.
type capVerdict struct {
	id, score, expiry, owner string // expiry "gone" for a session that has ended
}

// maxCapChecks bounds the sessions one Create checks at a full cap (the
// script offers at most 64): a full cluster costs each refused Create at
// most this many small scripts.
const maxCapChecks = 64

func ms(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }

// noCapDeadline is the cap deadline of a session when there is no cap: it
// never needs renewing.
var noCapDeadline = strconv.FormatInt(math.MaxInt64/2, 10)

// reserve takes (or renews) the place of session id of owner under the
// caps and returns its deadline. At a full cap it checks the sessions
// whose place may have outlived them, and tries once more with what it
// found.
func (s *SessionStore) reserve(ctx context.Context, id, owner string, renew bool) (string, error) {
	if !s.capped() {
		return noCapDeadline, nil
	}
	flag := "0"
	if renew {
		flag = "1"
	}
	omax := s.maxOwner
	if owner == "" {
		omax = 0
	}
	var verdicts []capVerdict
	for try := 0; ; try++ {
		cap, exact, own := s.CapKeys(owner)
		if own == "" {
			own = exact
		}
		keys := []string{cap, exact, own}
		args := []any{id, s.max, ms(s.idle), flag, omax, len(verdicts)}
		for _, v := range verdicts {
			ki := 0
			if v.owner != "" && s.maxOwner > 0 {
				keys = append(keys, s.ownerCapKey(v.owner))
				ki = len(keys)
			}
			args = append(args, v.id, v.score, v.expiry, ki)
		}
		var rep []string
		err := s.call(ctx, "reserving a session", func(ctx context.Context) error {
			v, err := capReserve.Run(ctx, s.rdb, keys, args...).Result()
			if err != nil {
				return err
			}
			rep, err = replyStrings(v)
			return err
		})
		if err != nil {
			return "", err
		}
		if rep[0] == "ok" {
			return rep[1], nil
		}
		offered := rep[2:]
		if try == 0 && len(offered) >= 2 {
			// The sessions offered by the owner's set are the owner's,
			// gone or not; those of the cap's set name their owner when
			// they live (a gone one stays in its owner's set until the
			// owner's next full quota checks it, or its deadline).
			offeredBy := ""
			if rep[0] == "olimit" {
				offeredBy = owner
			}
			if verdicts, err = s.check(ctx, offered, offeredBy); err != nil {
				return "", err
			}
			continue
		}
		retry, _ := strconv.ParseInt(rep[1], 10, 64)
		if rep[0] == "olimit" {
			return "", &OwnerLimitError{Max: s.maxOwner, Retry: time.Duration(retry) * time.Millisecond}
		}
		return "", fmt.Errorf("%w (MaxSessions %d)", ErrSessionLimit, s.max)
	}
}

// check runs capCheckSrc on each session offered (id, score pairs), of
// owner if known.
func (s *SessionStore) check(ctx context.Context, offered []string, owner string) ([]capVerdict, error) {
	n := min(len(offered)/2, maxCapChecks)
	cmds := make([]*redis.Cmd, n)
	err := s.call(ctx, "checking sessions at the cap", func(ctx context.Context) error {
		pipe := s.rdb.Pipeline()
		for i := range n {
			cmds[i] = pipe.Eval(ctx, capCheckSrc, []string{s.SessionKey(offered[2*i])}, ms(s.idle))
		}
		_, err := pipe.Exec(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]capVerdict, 0, n)
	for i, c := range cmds {
		rep, err := replyStrings(c.Val())
		if err != nil {
			return nil, err
		}
		v := capVerdict{id: offered[2*i], score: offered[2*i+1], expiry: "gone", owner: owner}
		if rep[0] == "live" && len(rep) == 3 {
			v.expiry, v.owner = rep[1], rep[2]
		}
		out = append(out, v)
	}
	return out, nil
}

// OwnerLimitError is the error of Create when the session's owner holds
// MaxSessionsPerOwner live sessions in the cluster. It matches
// mcp.ErrOwnerSessionLimit (errors.Is), which Streamable HTTP answers 429.
type OwnerLimitError struct {
	// Max is MaxSessionsPerOwner.
	Max int
	// Retry is when the owner's soonest session stops counting, at the
	// latest (by Redis's clock).
	Retry time.Duration
}

func (e *OwnerLimitError) Error() string {
	return fmt.Sprintf("redisstore: session limit per owner reached (MaxSessionsPerOwner %d)", e.Max)
}

// Is makes the error match mcp.ErrOwnerSessionLimit.
func (e *OwnerLimitError) Is(target error) bool { return target == mcp.ErrOwnerSessionLimit }

// RetryAfter is when a session of the owner may next end: Retry.
func (e *OwnerLimitError) RetryAfter() time.Duration { return e.Retry }

// Quota is the owner's cap: Max.
func (e *OwnerLimitError) Quota() int { return e.Max }

// unreserve gives the place of session id of owner under the caps back.
func (s *SessionStore) unreserve(ctx context.Context, id, owner string) error {
	if !s.capped() {
		return nil
	}
	return s.call(ctx, "releasing a session", func(ctx context.Context) error {
		cap, exact, own := s.CapKeys(owner)
		keys := []string{cap, exact}
		if own != "" {
			keys = append(keys, own)
		}
		return capRelease.Run(ctx, s.rdb, keys, id).Err()
	})
}

// capRelease: KEYS the cap's set, the exact-score hash and, if any, the
// owner's set; ARGV[1] the session id.
var capRelease = redis.NewScript(`
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
if KEYS[3] then redis.call('ZREM', KEYS[3], ARGV[1]) end
return 1
`)

func (s *SessionStore) put(ctx context.Context, mode string, st *mcp.SessionState, rev string) (string, error) {
	raw, err := json.Marshal(st)
	if err != nil {
		return "", fmt.Errorf("redisstore: encoding session state: %w", err)
	}
	deadline := ""
	if mode == "create" {
		if deadline, err = s.reserve(ctx, st.ID, st.Owner, false); err != nil {
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
				_ = s.unreserve(context.WithoutCancel(ctx), st.ID, st.Owner)
			}
			return "", err
		}
		if rep[0] == "gone" && mode == "create" {
			// A deleted session's place was given back; give back the
			// one just taken for it too.
			if err := s.unreserve(ctx, st.ID, st.Owner); err != nil {
				return "", err
			}
		}
		if rep[0] != "renew" {
			return rep[0], nil
		}
		if deadline, err = s.reserve(ctx, st.ID, st.Owner, true); err != nil {
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
			if len(rep) != 3 {
				return nil, "", errors.New("redisstore: malformed session reply")
			}
			if deadline, err = s.reserve(ctx, id, rep[2], true); err != nil {
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
	stored := ""
	err := s.call(ctx, "deleting a session", func(ctx context.Context) error {
		v, err := sessDelete.Run(ctx, s.rdb, s.keys(id), owner, check, ms(s.idle)).Slice()
		if err != nil {
			return err
		}
		if len(v) == 0 {
			return errors.New("redisstore: empty script reply")
		}
		n, _ = v[0].(int64)
		if len(v) > 1 {
			stored, _ = v[1].(string)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if n == 1 {
		if err := s.unreserve(ctx, id, stored); err != nil {
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
