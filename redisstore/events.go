package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/mcphttp"
	"github.com/redis/go-redis/v9"
)

// DefaultEventSessionBytes is the per-session byte cap of an EventStore
// whose MaxSessionBytes is zero (as mcphttp.DefaultEventStoreSessionBytes).
const DefaultEventSessionBytes = mcphttp.DefaultEventStoreSessionBytes

// DefaultEventBytes is the total byte cap of an EventStore whose MaxBytes
// is zero.
const DefaultEventBytes = 256 << 20

// DefaultEventSessionEvents is the per-session event cap of an EventStore
// whose MaxSessionEvents is zero.
const DefaultEventSessionEvents = 10000

// DefaultPollInterval is how often an EventStore whose PollInterval is
// zero looks for new events of a watched session, in case a publish was
// lost.
const DefaultPollInterval = time.Second

// eventOverhead is what one stored event costs beyond its id and data, for
// the byte cap (as in mcphttp.MemoryEventStore).
const eventOverhead = 64

// EventOptions configures an EventStore. The zero value is useful.
type EventOptions struct {
	// Prefix starts every key; as SessionOptions.Prefix, and the same as
	// the SessionStore's so that a session's events expire and are deleted
	// with it.
	Prefix string
	// Timeout bounds each call to Redis; past it the call fails with an
	// error wrapping ErrUnavailable. If zero, DefaultTimeout (2s).
	Timeout time.Duration
	// TTL is how long a session's events live after its last Append (the
	// SessionStore with the same Prefix also extends them on every touch
	// of the session, and deletes them with it). Set it to the
	// SessionStore's IdleTimeout. If zero, DefaultIdleTimeout (30
	// minutes).
	TTL time.Duration
	// MaxSessionBytes caps the bytes kept for one session (ids, data and
	// 64 bytes an event): an Append past it drops the session's oldest
	// events, whose streams can then no longer be resumed from before the
	// drop (Replay answers mcphttp.ErrEventNotFound rather than a stream
	// with a gap). If zero, DefaultEventSessionBytes (4 MiB); if negative,
	// only MaxSessionEvents bounds a session.
	//
	// Run Redis with maxmemory-policy noeviction so that Redis's own
	// eviction never drops a session silently.
	MaxSessionBytes int64
	// MaxBytes caps the bytes kept for all sessions together, counted as
	// for MaxSessionBytes: past it, Append drops the oldest events of the
	// session holding the most bytes, so a session that sends a lot never
	// costs a quieter one its events (as mcphttp.MemoryEventStore does).
	// The count lives in one key that every Append visits (in the same
	// script on one Redis; a second round trip on a Cluster, where that
	// key has a slot of its own); a session counts from its last Append for TTL. If zero,
	// DefaultEventBytes (256 MiB); if negative, no total cap and no
	// global key.
	MaxBytes int64
	// MaxSessionEvents caps the events kept for one session, as
	// MaxSessionBytes does bytes. If zero, DefaultEventSessionEvents
	// (10000).
	MaxSessionEvents int64
	// PollInterval is how often Watch looks in Redis for new events of the
	// sessions watched, so that a lost pub/sub message costs at most this
	// much latency, never an event. If zero, DefaultPollInterval (1s).
	PollInterval time.Duration
	// OnceTTL is how long AppendOnce remembers, for a session, the key of
	// a broadcast it stored: the replicas that hold the session and
	// deliver the same broadcast within it store it once; one that
	// delivers it later stores it again. Each key is one small Redis
	// string of the session's slot, expiring after OnceTTL. If zero,
	// DefaultOnceTTL (1 minute).
	OnceTTL time.Duration
}

// DefaultOnceTTL is the EventOptions.OnceTTL of an EventStore whose
// OnceTTL is zero: far longer than the replicas of a server take to
// deliver one broadcast.
const DefaultOnceTTL = time.Minute

// EventStore keeps the SSE events of sessions in Redis Streams, so that
// a client whose stream broke resumes it on any replica with GET and
// Last-Event-ID and gets exactly the events it missed, in order
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery).
// It implements mcphttp.EventStore.
//
// All streams of a session share one Redis stream (one key), whose
// entries name the SSE stream they belong to; event ids are unique across
// a session's streams, as the spec requires, so an event id names one
// entry. Append and Replay are one Lua script each. Watch tells a replica
// that holds a session's GET stream open about events appended anywhere:
// a pub/sub message is the doorbell, and polling backs it up.
//
// It is safe for concurrent use.
type EventStore struct {
	base
	ttl       time.Duration
	maxBytes  int64
	maxTotal  int64
	maxEvents int64
	poll      time.Duration
	onceTTL   time.Duration

	mu      sync.Mutex
	watched map[string]*watchedSession
	hub     *watchHub // nil while nothing is watched
}

// watchHub is the pub/sub connection and the two goroutines that serve
// every Watch of a store.
type watchHub struct {
	ps   *redis.PubSub
	stop context.CancelFunc
	done sync.WaitGroup
}

var _ mcphttp.EventStore = (*EventStore)(nil)

// NewEventStore returns an EventStore on rdb. opts may be nil. The caller
// keeps rdb and closes it, after every Watch has ended.
func NewEventStore(rdb redis.UniversalClient, opts *EventOptions) (*EventStore, error) {
	if opts == nil {
		opts = &EventOptions{}
	}
	b, err := newBase(rdb, opts.Prefix, opts.Timeout)
	if err != nil {
		return nil, err
	}
	e := &EventStore{base: b, ttl: opts.TTL, maxBytes: opts.MaxSessionBytes, maxEvents: opts.MaxSessionEvents, poll: opts.PollInterval}
	if e.ttl <= 0 {
		e.ttl = DefaultIdleTimeout
	}
	switch {
	case e.maxBytes == 0:
		e.maxBytes = DefaultEventSessionBytes
	case e.maxBytes < 0:
		e.maxBytes = 0
	}
	switch {
	case opts.MaxBytes == 0:
		e.maxTotal = DefaultEventBytes
	case opts.MaxBytes > 0:
		e.maxTotal = opts.MaxBytes
	}
	if e.maxEvents <= 0 {
		e.maxEvents = DefaultEventSessionEvents
	}
	if e.poll <= 0 {
		e.poll = DefaultPollInterval
	}
	if e.onceTTL = opts.OnceTTL; e.onceTTL <= 0 {
		e.onceTTL = DefaultOnceTTL
	}
	return e, nil
}

// Each entry of a session's Redis stream has the fields s (the SSE
// stream id), e (the event id), d (the data) and n (its cost for the
// byte cap), in that order.

// evTrimLua drops a session's oldest entries while it holds more than
// maxb bytes (if maxb > 0) or more than maxe entries, with one XTRIM
// MINID; it deletes both keys when nothing is left. It expects the locals
// bytes, count, maxb and maxe, and leaves bytes as what is kept.
const evTrimLua = `
if (maxb > 0 and bytes > maxb) or count > maxe then
	local from = '-'
	local keep = nil
	while not keep do
		local es = redis.call('XRANGE', KEYS[1], from, '+', 'COUNT', 64)
		if #es == 0 then break end
		for _, e in ipairs(es) do
			if not ((maxb > 0 and bytes > maxb) or count > maxe) then
				keep = e[1]
				break
			end
			bytes = bytes - tonumber(e[2][8])
			count = count - 1
		end
		from = '(' .. es[#es][1]
	end
	if keep then
		redis.call('XTRIM', KEYS[1], 'MINID', keep)
		redis.call('SET', KEYS[2], bytes, 'KEEPTTL')
	else
		redis.call('DEL', KEYS[1], KEYS[2])
		bytes = 0
	end
end
`

// evAppendOnce: KEYS[1] events, KEYS[2] bytes, KEYS[3] the key of a
// broadcast for the session; ARGV: stream id, event id, data, cost, max
// bytes (0: none), max events, ttl ms, channel, how long to keep KEYS[3]
// (ms). When KEYS[3] exists it appends nothing and replies -1; else it
// adds the entry, trims the session to its caps, rings the doorbell and
// replies the bytes kept.
var evAppendOnce = redis.NewScript(`
if not redis.call('SET', KEYS[3], '1', 'NX', 'PX', ARGV[9]) then return -1 end
` + evAppendLua)

const evAppendLua = `
redis.call('XADD', KEYS[1], '*', 's', ARGV[1], 'e', ARGV[2], 'd', ARGV[3], 'n', ARGV[4])
local bytes = redis.call('INCRBY', KEYS[2], ARGV[4])
local maxb = tonumber(ARGV[5])
local maxe = tonumber(ARGV[6])
local count = redis.call('XLEN', KEYS[1])
` + evTrimLua + `
if bytes > 0 then
	redis.call('PEXPIRE', KEYS[1], ARGV[7])
	redis.call('PEXPIRE', KEYS[2], ARGV[7])
end
redis.call('PUBLISH', ARGV[8], ARGV[2])
return bytes
`

// evShrink: KEYS[1] events, KEYS[2] bytes; ARGV: bytes to keep at most.
// Drops the session's oldest entries to get there, for the total cap.
// Replies the bytes kept.
var evShrink = redis.NewScript(`
local bytes = tonumber(redis.call('GET', KEYS[2]) or '0')
local count = redis.call('XLEN', KEYS[1])
local maxb = math.max(tonumber(ARGV[1]), 0)
local maxe = count
if maxb == 0 then
	redis.call('DEL', KEYS[1], KEYS[2])
	return 0
end
` + evTrimLua + `
return bytes
`)

// evAccount: KEYS[1] sizes (sorted set: session -> bytes), KEYS[2]
// deadlines (sorted set: session -> when its events expire, ms), KEYS[3]
// total; ARGV: session, its bytes now, ttl ms, max total (0: none). It
// first forgets sessions whose events have expired, then records the
// session's size. Replies {total} or, over the cap, {total, biggest
// session, its bytes}.
var evAccount = redis.NewScript(`
local sizes, deadlines, totalk = KEYS[1], KEYS[2], KEYS[3]
local sid, new, ttl, max = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
` + evAccountLua)

// evAccountLua is evAccount's body, which evAppendBatchAccount shares. It
// expects the locals sizes, deadlines and totalk (the keys), sid, new
// (the session's bytes), ttl (ms) and max (0: none), and returns.
const evAccountLua = redisNow + `
for _, d in ipairs(redis.call('ZRANGEBYSCORE', deadlines, '-inf', now, 'LIMIT', 0, 100)) do
	local b = redis.call('ZSCORE', sizes, d)
	if b then redis.call('DECRBY', totalk, b) end
	redis.call('ZREM', sizes, d)
	redis.call('ZREM', deadlines, d)
end
local old = tonumber(redis.call('ZSCORE', sizes, sid) or '0')
if new > 0 then
	redis.call('ZADD', sizes, new, sid)
	redis.call('ZADD', deadlines, now + ttl, sid)
else
	redis.call('ZREM', sizes, sid)
	redis.call('ZREM', deadlines, sid)
end
local total = redis.call('INCRBY', totalk, new - old)
if total < 0 then
	redis.call('SET', totalk, 0)
	total = 0
end
if max > 0 and total > max then
	local top = redis.call('ZREVRANGE', sizes, 0, 0, 'WITHSCORES')
	if #top == 2 then return {tostring(total), top[1], top[2]} end
end
return {tostring(total)}
`

// evReplay: KEYS[1] events; ARGV: stream id, event id. Looks for the
// event from the newest entry back, then returns the entries of that
// stream after it: {"missing"} | {"ok", id1, data1, id2, data2, ...}.
var evReplay = redis.NewScript(`
local hi = '+'
local found = nil
while not found do
	local es = redis.call('XREVRANGE', KEYS[1], hi, '-', 'COUNT', 64)
	if #es == 0 then break end
	for _, e in ipairs(es) do
		if e[2][4] == ARGV[2] then
			found = e
			break
		end
	end
	hi = '(' .. es[#es][1]
end
if not found or found[2][2] ~= ARGV[1] then return {'missing'} end
local out = {'ok'}
for _, e in ipairs(redis.call('XRANGE', KEYS[1], '(' .. found[1], '+')) do
	if e[2][2] == ARGV[1] then
		out[#out + 1] = e[2][4]
		out[#out + 1] = e[2][6]
	end
end
return out
`)

// Append implements mcphttp.EventStore. It trims the session to its own
// caps in the same step; then, unless MaxBytes is negative, it records
// the session's size for the total cap and, past that cap, drops the
// oldest events of the session holding the most. On one Redis (a
// *redis.Client) the append and the count are one script, one round
// trip; on a Cluster, where the count's keys live in a slot of their own,
// two.
func (e *EventStore) Append(ctx context.Context, sessionID, streamID, eventID string, data []byte) error {
	return e.AppendBatch(ctx, sessionID, streamID, []mcphttp.StoredEvent{{ID: eventID, Data: data}})
}

// AppendOnce implements mcphttp.EventOnceAppender: Append, in the same
// script, unless an event with key was appended for the session within
// OnceTTL, in which case it appends nothing and reports false.
func (e *EventStore) AppendOnce(ctx context.Context, sessionID, streamID, eventID, key string, data []byte) (bool, error) {
	cost := len(eventID) + len(data) + eventOverhead
	var kept int64
	err := e.call(ctx, "appending an event once", func(ctx context.Context) error {
		var err error
		kept, err = evAppendOnce.Run(ctx, e.rdb,
			[]string{eventsKey(e.prefix, sessionID), eventBytesKey(e.prefix, sessionID), eventOnceKey(e.prefix, sessionID, key)},
			streamID, eventID, data, cost, e.maxBytes, e.maxEvents, ms(e.ttl), eventChannel(e.prefix, sessionID), ms(e.onceTTL)).Int64()
		return err
	})
	if err != nil {
		return false, err
	}
	if kept < 0 {
		return false, nil
	}
	return true, e.account(ctx, sessionID, kept)
}

var _ mcphttp.EventOnceAppender = (*EventStore)(nil)

// The keys of the total cap: one slot for all sessions, visited once per
// Append.
func (e *EventStore) totalKeys() []string {
	return []string{e.prefix + "evsize:{events}", e.prefix + "evdeadline:{events}", e.prefix + "evtotal:{events}"}
}

// account records that sessionID holds bytes, then shrinks the biggest
// sessions while the total is over MaxBytes, at most maxShrinks times.
func (e *EventStore) account(ctx context.Context, sessionID string, bytes int64) error {
	return e.accountN(ctx, sessionID, bytes, maxShrinks)
}

// accountN is account with at most n shrinks.
func (e *EventStore) accountN(ctx context.Context, sessionID string, bytes int64, n int) error {
	if e.maxTotal <= 0 {
		return nil
	}
	for range n {
		var rep []string
		err := e.call(ctx, "counting events", func(ctx context.Context) error {
			v, err := evAccount.Run(ctx, e.rdb, e.totalKeys(), sessionID, bytes, ms(e.ttl), e.maxTotal).Result()
			if err != nil {
				return err
			}
			rep, err = replyStrings(v)
			return err
		})
		if err != nil {
			return err
		}
		if len(rep) != 3 {
			return nil
		}
		if sessionID, bytes, err = e.shrink(ctx, rep); err != nil {
			return err
		}
	}
	return nil
}

// shrink, for evAccount's reply rep over the cap ({total, biggest
// session, its bytes}), drops the oldest events of that session to bring
// the total under MaxBytes, and returns the session and the bytes it
// keeps, to be accounted next.
func (e *EventStore) shrink(ctx context.Context, rep []string) (sessionID string, bytes int64, err error) {
	total, _ := strconv.ParseInt(rep[0], 10, 64)
	top, _ := strconv.ParseInt(rep[2], 10, 64)
	sessionID = rep[1]
	err = e.call(ctx, "dropping events", func(ctx context.Context) error {
		var err error
		bytes, err = evShrink.Run(ctx, e.rdb,
			[]string{eventsKey(e.prefix, sessionID), eventBytesKey(e.prefix, sessionID)},
			top-(total-e.maxTotal)).Int64()
		return err
	})
	return sessionID, bytes, err
}

// shrinkOver goes on from evAccount's reply rep as account does, with up
// to n shrinks.
func (e *EventStore) shrinkOver(ctx context.Context, rep []string, n int) error {
	if len(rep) != 3 || n <= 0 {
		return nil
	}
	sessionID, bytes, err := e.shrink(ctx, rep)
	if err != nil {
		return err
	}
	return e.accountN(ctx, sessionID, bytes, n-1)
}

// maxShrinks bounds the sessions one Append shrinks for the total cap;
// the next Append goes on where it stopped.
const maxShrinks = 8

// Replay implements mcphttp.EventStore: it reads, in one step, every
// event of the stream after afterID, then calls fn for each in order. An
// afterID it does not hold for that stream (never stored, dropped by a
// cap, expired, or an event of another stream) gets an error wrapping
// mcphttp.ErrEventNotFound before fn is called.
func (e *EventStore) Replay(ctx context.Context, sessionID, streamID, afterID string, fn func(eventID string, data []byte) error) error {
	var rep []string
	err := e.call(ctx, "replaying events", func(ctx context.Context) error {
		v, err := evReplay.Run(ctx, e.rdb, []string{eventsKey(e.prefix, sessionID)}, streamID, afterID).Result()
		if err != nil {
			return err
		}
		rep, err = replyStrings(v)
		return err
	})
	if err != nil {
		return err
	}
	if rep[0] != "ok" || len(rep)%2 != 1 {
		return fmt.Errorf("%w: %q on stream %q", mcphttp.ErrEventNotFound, afterID, streamID)
	}
	for i := 1; i < len(rep); i += 2 {
		if err := fn(rep[i], []byte(rep[i+1])); err != nil {
			return err
		}
	}
	return nil
}

// DeleteSession implements mcphttp.EventStore: it frees every event of
// the session at once. (SessionStore.Delete does too, for a store with
// the same Prefix; the total cap then forgets the session's bytes when
// its TTL passes.)
func (e *EventStore) DeleteSession(ctx context.Context, sessionID string) error {
	err := e.call(ctx, "deleting events", func(ctx context.Context) error {
		return e.rdb.Del(ctx, eventsKey(e.prefix, sessionID), eventBytesKey(e.prefix, sessionID), streamLeaseKey(e.prefix, sessionID)).Err()
	})
	if err != nil {
		return err
	}
	return e.account(ctx, sessionID, 0)
}

// TotalSize reports the bytes the total cap counts: those of the sessions
// that appended events within TTL.
func (e *EventStore) TotalSize(ctx context.Context) (int64, error) {
	var n int64
	err := e.call(ctx, "sizing events", func(ctx context.Context) error {
		var err error
		n, err = e.rdb.Get(ctx, e.totalKeys()[2]).Int64()
		if errors.Is(err, redis.Nil) {
			n, err = 0, nil
		}
		return err
	})
	return n, err
}

// SessionSize reports the bytes kept for a session, as counted against
// MaxSessionBytes.
func (e *EventStore) SessionSize(ctx context.Context, sessionID string) (int64, error) {
	var n int64
	err := e.call(ctx, "sizing events", func(ctx context.Context) error {
		var err error
		n, err = e.rdb.Get(ctx, eventBytesKey(e.prefix, sessionID)).Int64()
		if errors.Is(err, redis.Nil) {
			n, err = 0, nil
		}
		return err
	})
	return n, err
}

// watchedSession is what Watch keeps for one session: its watchers and
// the newest entry id the poller saw.
type watchedSession struct {
	watchers map[chan struct{}]struct{}
	last     string
}

// Watch returns a channel that receives a value soon after an event of
// the session is appended, by any replica, until ctx ends; then it is
// closed. Values are coalesced: after a receive, the caller replays from
// the last event it sent, and may find nothing new. A pub/sub message
// from Append is the fast path; the store also polls Redis every
// PollInterval, so a message lost (pub/sub is at most once) costs that
// much latency and never an event. Watching holds one pub/sub connection
// and two goroutines for the whole store while anything is watched, and
// none otherwise.
func (e *EventStore) Watch(ctx context.Context, sessionID string) (<-chan struct{}, error) {
	ch := make(chan struct{}, 1)
	e.mu.Lock()
	if e.hub == nil {
		e.startHub()
	}
	ws := e.watched[sessionID]
	first := ws == nil
	if first {
		ws = &watchedSession{watchers: make(map[chan struct{}]struct{})}
		e.watched[sessionID] = ws
	}
	ws.watchers[ch] = struct{}{}
	ps := e.hub.ps
	e.mu.Unlock()
	if first {
		err := e.call(ctx, "watching events", func(ctx context.Context) error {
			return ps.Subscribe(ctx, eventChannel(e.prefix, sessionID))
		})
		if err != nil {
			e.unwatch(sessionID, ch)
			return nil, err
		}
	}
	// The newest entry now, for the poller to compare with; reading it
	// also tells a caller at once that Redis is not answering (a
	// subscription is only written, never answered, until a message).
	var last []redis.XMessage
	err := e.call(ctx, "watching events", func(ctx context.Context) error {
		var err error
		last, err = e.rdb.XRevRangeN(ctx, eventsKey(e.prefix, sessionID), "+", "-", 1).Result()
		return err
	})
	if err != nil {
		e.unwatch(sessionID, ch)
		return nil, err
	}
	if first && len(last) > 0 {
		e.mu.Lock()
		if ws.last == "" {
			ws.last = last[0].ID
		}
		e.mu.Unlock()
	}
	go func() {
		<-ctx.Done()
		e.unwatch(sessionID, ch)
	}()
	return ch, nil
}

// unwatch removes a watcher and closes its channel; the last one out
// stops the hub.
func (e *EventStore) unwatch(sessionID string, ch chan struct{}) {
	e.mu.Lock()
	ws := e.watched[sessionID]
	if ws == nil {
		e.mu.Unlock()
		return
	}
	if _, ok := ws.watchers[ch]; !ok {
		e.mu.Unlock()
		return
	}
	delete(ws.watchers, ch)
	close(ch)
	var ps *redis.PubSub
	if len(ws.watchers) == 0 {
		delete(e.watched, sessionID)
		ps = e.hub.ps
	}
	var stopped *watchHub
	if len(e.watched) == 0 {
		stopped = e.hub
		e.hub = nil
		stopped.stop()
	}
	e.mu.Unlock()
	if stopped != nil {
		_ = stopped.ps.Close()
		stopped.done.Wait()
		return
	}
	if ps != nil {
		ctx, cancel := context.WithTimeout(context.Background(), e.timeout)
		_ = ps.Unsubscribe(ctx, eventChannel(e.prefix, sessionID))
		cancel()
	}
}

// startHub opens the pub/sub connection and starts the receiver and the
// poller. e.mu is held.
func (e *EventStore) startHub() {
	// A hub stopped a moment ago may still be finishing: its goroutines
	// use only their own pub/sub, and e.mu, so it is not waited for here.
	if e.watched == nil {
		e.watched = make(map[string]*watchedSession)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &watchHub{ps: e.rdb.Subscribe(ctx), stop: cancel}
	h.done.Add(2)
	e.hub = h
	go e.receive(ctx, h)
	go e.pollLoop(ctx, h)
}

// ring wakes every watcher of a session. e.mu is held.
func (e *EventStore) ring(sessionID string) {
	ws := e.watched[sessionID]
	if ws == nil {
		return
	}
	for ch := range ws.watchers {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// receive rings the watchers of each session named by a pub/sub message.
func (e *EventStore) receive(ctx context.Context, h *watchHub) {
	defer h.done.Done()
	ps := h.ps
	head := e.prefix + "evn:{"
	for {
		msg, err := ps.ReceiveMessage(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			// The connection broke: go-redis reconnects and
			// resubscribes; the poller covers the gap.
			t := time.NewTimer(e.poll)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			continue
		}
		sid, ok := strings.CutPrefix(msg.Channel, head)
		if !ok {
			continue
		}
		sid = strings.TrimSuffix(sid, "}")
		e.mu.Lock()
		e.ring(sid)
		e.mu.Unlock()
	}
}

// pollLoop looks at the newest entry of every watched session each
// PollInterval, and rings the watchers of a session whose newest entry
// changed.
func (e *EventStore) pollLoop(ctx context.Context, h *watchHub) {
	defer h.done.Done()
	t := time.NewTicker(e.poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		e.pollOnce(ctx)
	}
}

func (e *EventStore) pollOnce(ctx context.Context) {
	e.mu.Lock()
	ids := make([]string, 0, len(e.watched))
	for id := range e.watched {
		ids = append(ids, id)
	}
	e.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	cmds := make([]*redis.XMessageSliceCmd, len(ids))
	_ = e.call(ctx, "polling events", func(ctx context.Context) error {
		_, err := e.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, id := range ids {
				cmds[i] = p.XRevRangeN(ctx, eventsKey(e.prefix, id), "+", "-", 1)
			}
			return nil
		})
		return err
	})
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, id := range ids {
		if cmds[i] == nil {
			continue
		}
		msgs, err := cmds[i].Result()
		if err != nil {
			continue
		}
		last := ""
		if len(msgs) > 0 {
			last = msgs[0].ID
		}
		ws := e.watched[id]
		if ws == nil || ws.last == last {
			continue
		}
		ws.last = last
		e.ring(id)
	}
}
