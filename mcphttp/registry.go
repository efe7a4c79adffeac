package mcphttp

import (
	"iter"
	"maps"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/internal/sessquota"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// The session registry: live sessions by id, the cap, idle expiry (one
// reaper plus eviction on access) and the requests in flight
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).

// entry is one live session. Its fields but ss and id are guarded by
// registry.mu.
type entry struct {
	id         string
	ss         *mcp.ServerSession
	lastActive int64  // Unix nanoseconds when it last finished serving
	active     int32  // requests, messages and GET connections holding it busy (never idle)
	nextStream uint64 // numbers its POST streams; 0 is the GET stream
	// inflight holds the ids of requests being served (409 for a duplicate),
	// with their reply streams once known (track), for Shutdown.
	inflight map[jsonrpc.ID]*stream
	streams  map[uint64]*stream // POST streams still running, with an EventStore
	get      *stream            // the standalone GET stream, made by the first GET
	owner    string             // mcp.TokenInfo.OwnerKey of its creator, "" without auth
	shared   bool               // its SessionStore is shared (shared.go)
	tailing  bool               // its GET stream is served here from the EventStore (shared_streams.go)
	quota    string             // the session quota key it counts against, "" for none
}

// host is the mcp.Host of e's session's server.
func (e *entry) host() mcp.Host { return e.ss.Server().Host() }

type registry struct {
	mu       sync.Mutex
	entries  map[string]*entry
	reserved int
	// quota counts the sessions of each quota key (Options.
	// MaxSessionsPerPrincipal, MaxSessionsPerAddress).
	quota  sessquota.Table[*entry]
	closed bool
	// draining refuses new requests while a Shutdown lets those in
	// flight finish.
	draining bool
	// nextExpiry is no later than the earliest time an entry can expire;
	// the cap check skips its scan for expired entries before then.
	nextExpiry int64

	max  int           // <= 0: no cap
	idle time.Duration // <= 0: no expiry
	now  func() time.Time

	// wg counts the requests being served, and their handler goroutines,
	// so that Close can wait for them.
	wg sync.WaitGroup

	// interval is the reaper's period (<= 0: no reaper); closeEntry ends
	// what it reaps.
	interval   time.Duration
	closeEntry func(*entry)
	reaperStop chan struct{}
	reaperDone chan struct{}
}

func (g *registry) nowNanos() int64 { return g.now().UnixNano() }

// expired reports whether e has been idle past the timeout. Caller holds mu.
func (g *registry) expired(e *entry, now int64) bool {
	return g.idle > 0 && e.active == 0 && now-e.lastActive > int64(g.idle)
}

// enter registers a request being served; false once the handler is
// closed. Each true enter is matched by a leave.
func (g *registry) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed || g.draining {
		return false
	}
	g.wg.Add(1)
	return true
}

func (g *registry) leave() { g.wg.Done() }

// reserve claims room for a session being initialized, under the quota
// of qkey (at most qmax sessions; "" for none) and the cap. At either it
// first reclaims idle-expired sessions (returned for the caller to close
// outside the lock). When there is still no room ok is false, quota
// reports whether it is qkey's quota (rather than the cap) that is full,
// and retryAfter says when a session holding it may next expire.
func (g *registry) reserve(qkey string, qmax int) (ok, quota bool, retryAfter time.Duration, reclaimed []*entry) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if qkey != "" && g.quota.Count(qkey) >= qmax {
		now := g.nowNanos()
		next := g.reclaimLocked(maps.Keys(g.quota.Members(qkey)), now, &reclaimed)
		if g.quota.Count(qkey) >= qmax {
			if g.idle > 0 {
				retryAfter = time.Duration(next - now)
			}
			return false, true, retryAfter, reclaimed
		}
	}
	if g.max > 0 && len(g.entries)+g.reserved >= g.max {
		now := g.nowNanos()
		if g.idle > 0 && now > g.nextExpiry {
			g.nextExpiry = g.reclaimLocked(maps.Values(g.entries), now, &reclaimed)
		}
		if len(g.entries)+g.reserved >= g.max {
			if g.idle > 0 {
				retryAfter = time.Duration(g.nextExpiry - now)
			}
			return false, false, retryAfter, reclaimed
		}
	}
	g.reserved++
	if qkey != "" {
		g.quota.Reserve(qkey)
	}
	return true, false, 0, reclaimed
}

// reclaimLocked unregisters the idle-expired sessions of seq, adding them
// to reclaimed for the caller to close outside the lock, and returns the
// earliest time (Unix nanoseconds) another of them can expire. Caller
// holds mu.
func (g *registry) reclaimLocked(seq iter.Seq[*entry], now int64, reclaimed *[]*entry) int64 {
	next := int64(-1)
	n := len(*reclaimed)
	for e := range seq {
		if g.expired(e, now) {
			*reclaimed = append(*reclaimed, e)
			continue
		}
		if e.active == 0 && (next < 0 || e.lastActive+int64(g.idle) < next) {
			next = e.lastActive + int64(g.idle)
		}
	}
	for _, e := range (*reclaimed)[n:] {
		g.forgetLocked(e)
	}
	if next < 0 {
		// Every session is busy: none can expire before it goes idle
		// and stays so for the whole timeout.
		next = now + int64(g.idle)
	}
	return next
}

// forgetLocked unregisters e, and takes it off its quota. Caller holds mu.
func (g *registry) forgetLocked(e *entry) {
	delete(g.entries, e.id)
	if e.quota != "" {
		g.quota.Remove(e.quota, e)
	}
}

// unreserve gives back a reservation (under quota key qkey) whose
// initialize failed.
func (g *registry) unreserve(qkey string) {
	g.mu.Lock()
	g.reserved--
	if qkey != "" {
		g.quota.Unreserve(qkey)
	}
	g.mu.Unlock()
}

// commit turns a reservation into a registered session, busy (active 1)
// until the caller's release. It returns nil if the handler closed
// meanwhile (closed is then true) or the id is taken.
func (g *registry) commit(id string, ss *mcp.ServerSession, owner string, shared bool, qkey string) (_ *entry, closed bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.reserved--
	if g.closed {
		return nil, true
	}
	if _, taken := g.entries[id]; taken {
		if qkey != "" {
			g.quota.Unreserve(qkey)
		}
		return nil, false
	}
	e := &entry{id: id, ss: ss, lastActive: g.nowNanos(), active: 1, nextStream: 1, owner: owner, shared: shared, quota: qkey}
	if qkey != "" {
		g.quota.Commit(qkey, e)
	}
	if g.entries == nil {
		g.entries = make(map[string]*entry)
	}
	g.entries[id] = e
	g.startReaperLocked()
	return e, false
}

// adopt registers ss, rebuilt from a shared SessionStore, as the live
// session id, idle. It is false when the id is registered already (a
// concurrent request adopted it first) or the handler closed (closed is
// then true). An adopted session is not counted against the cap: the
// shared store's Create holds the cap for the cluster.
func (g *registry) adopt(id string, ss *mcp.ServerSession, owner string) (added, closed bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed || g.draining {
		return false, true
	}
	if _, taken := g.entries[id]; taken {
		return false, false
	}
	if g.entries == nil {
		g.entries = make(map[string]*entry)
	}
	g.entries[id] = &entry{id: id, ss: ss, lastActive: g.nowNanos(), nextStream: 1, owner: owner, shared: true}
	g.startReaperLocked()
	return true, false
}

// drop unregisters e if it is still the live session of its id, and
// reports whether it was.
func (g *registry) drop(e *entry) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.entries[e.id] != e {
		return false
	}
	g.forgetLocked(e)
	return true
}

// acquire returns the live session id and marks it busy until release. An
// idle-expired session is evicted and returned as evicted for the caller
// to close; the result is then nil, as for an unknown id. A session of
// another owner is not found, and left as it is (neither touched nor
// evicted).
func (g *registry) acquire(id, owner string) (e, evicted *entry) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if e, evicted = g.liveLocked(id, owner); e != nil {
		e.active++
	}
	return e, evicted
}

// liveLocked returns the live session id of owner. An idle-expired one is
// unregistered and returned as evicted; one of another owner is not found,
// and left as it is. Caller holds mu.
func (g *registry) liveLocked(id, owner string) (e, evicted *entry) {
	e = g.entries[id]
	if e == nil || e.owner != owner {
		return nil, nil
	}
	if g.expired(e, g.nowNanos()) { // never a busy one
		g.forgetLocked(e)
		return nil, e
	}
	return e, nil
}

// release ends what acquire (or commit) began, and counts as activity.
func (g *registry) release(e *entry) {
	g.mu.Lock()
	e.active--
	e.lastActive = g.nowNanos()
	g.mu.Unlock()
}

// remove unregisters the session id (for DELETE). An expired entry is
// removed too but reported as evicted, so the caller answers 404. A
// session of another owner is not found, and stays.
func (g *registry) remove(id, owner string) (e, evicted *entry) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if e, evicted = g.liveLocked(id, owner); e != nil {
		g.forgetLocked(e)
	}
	return e, evicted
}

// beginRequest records a request id in flight on e; false if it already
// is.
func (g *registry) beginRequest(e *entry, id jsonrpc.ID) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.beginLocked(e, id)
}

// beginLocked is beginRequest with mu held. The set is made on a session's
// first request and kept (empty between requests), so that a busy session
// does not build a map per request.
func (g *registry) beginLocked(e *entry, id jsonrpc.ID) bool {
	if _, dup := e.inflight[id]; dup {
		return false
	}
	if e.inflight == nil {
		e.inflight = make(map[jsonrpc.ID]*stream)
	}
	e.inflight[id] = nil
	return true
}

// acquireRequest is acquire and beginRequest under one lock: it returns the
// live session id, busy until endRequest, with request rid recorded in
// flight. dup reports (with e nil) that rid is in flight already. A
// session of another owner is not found, and left as it is.
func (g *registry) acquireRequest(id, owner string, rid jsonrpc.ID) (e, evicted *entry, dup bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if e, evicted = g.liveLocked(id, owner); e == nil {
		return nil, evicted, false
	}
	if !g.beginLocked(e, rid) {
		return nil, nil, true
	}
	e.active++
	return e, nil, false
}

// track records st as the reply stream of request id in flight on e.
func (g *registry) track(e *entry, id jsonrpc.ID, st *stream) {
	g.mu.Lock()
	if _, ok := e.inflight[id]; ok {
		e.inflight[id] = st
	}
	g.mu.Unlock()
}

// endRequest forgets a request id.
func (g *registry) endRequest(e *entry, id jsonrpc.ID) {
	g.mu.Lock()
	delete(e.inflight, id)
	g.mu.Unlock()
}

// finishRequest is endRequest and release under one lock. lastActive
// only matters once nothing holds the session (expiry looks at idle
// sessions only), so only the last to let go reads the clock.
func (g *registry) finishRequest(e *entry, id jsonrpc.ID) {
	g.mu.Lock()
	delete(e.inflight, id)
	e.active--
	if e.active == 0 {
		e.lastActive = g.nowNanos()
	}
	g.mu.Unlock()
}

// dropStream forgets a stream that has ended.
func (g *registry) dropStream(e *entry, st *stream) {
	g.mu.Lock()
	delete(e.streams, st.num)
	if len(e.streams) == 0 {
		e.streams = nil
	}
	g.mu.Unlock()
}

// addStream allocates a stream number on e and, when track is set,
// registers st under it for resumption.
func (g *registry) addStream(e *entry, st *stream, track bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if e.shared {
		st.num = sharedStreamNum() // unique across replicas (shared_streams.go)
	} else {
		st.num = e.nextStream
		e.nextStream++
	}
	if track {
		if e.streams == nil {
			e.streams = make(map[uint64]*stream)
		}
		e.streams[st.num] = st
	}
}

// liveStream returns e's running stream num, or nil.
func (g *registry) liveStream(e *entry, num uint64) *stream {
	g.mu.Lock()
	defer g.mu.Unlock()
	return e.streams[num]
}

// standalone returns e's GET stream, creating it with mk on first use.
func (g *registry) standalone(e *entry, mk func() *stream) (st *stream, created bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if e.get == nil {
		e.get = mk()
		return e.get, true
	}
	return e.get, false
}

// reap unregisters every idle-expired session and returns them.
func (g *registry) reap() []*entry {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.nowNanos()
	var out []*entry
	for _, e := range g.entries {
		if g.expired(e, now) {
			g.forgetLocked(e)
			out = append(out, e)
		}
	}
	return out
}

// startReaperLocked starts the reaper goroutine with the first session, so
// that a Handler that never has one runs none. Caller holds mu.
func (g *registry) startReaperLocked() {
	if g.reaperStop != nil || g.idle <= 0 || g.interval <= 0 {
		return
	}
	g.reaperStop = make(chan struct{})
	g.reaperDone = make(chan struct{})
	go g.reapLoop(g.interval, g.closeEntry, g.reaperStop, g.reaperDone)
}

func (g *registry) reapLoop(interval time.Duration, closeEntry func(*entry), stop, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			for _, e := range g.reap() {
				closeEntry(e)
			}
		}
	}
}

// shutdown marks the registry closed, stops the reaper, and returns every
// session for the caller to close.
func (g *registry) shutdown() []*entry {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil
	}
	g.closed = true
	out := make([]*entry, 0, len(g.entries))
	for _, e := range g.entries {
		out = append(out, e)
	}
	g.entries = nil
	g.quota.Reset()
	stop, done := g.reaperStop, g.reaperDone
	g.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
	return out
}

// count returns the number of registered sessions.
func (g *registry) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.entries)
}
