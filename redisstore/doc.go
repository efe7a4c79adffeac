// Package redisstore keeps what an MCP server must share between its
// replicas in Redis, so that many processes behind a load balancer can
// serve one session: the session state (SessionStore), the SSE events
// that make streams resumable (EventStore), and tasks (TaskStore). They
// implement the interfaces of packages mcp and mcphttp, whose in-memory
// implementations stay the default for one process.
//
// # What holds today
//
// Each store works on its own, against one Redis or a Redis Cluster (both
// tested, with redis-server 7.0). The keys of one session, or of one
// owner's tasks, share a hash tag, so that every script touches one slot.
//
//   - SessionStore: create under a cluster-wide cap, touch, expiry after
//     IdleTimeout by Redis's clock, load, delete (which ends the session
//     for every replica, and which a late save cannot undo), each one
//     atomic Lua script; a session id presented under another owner
//     finds nothing
//     (https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices#session-hijacking).
//   - EventStore: one Redis stream per session, trimmed to a byte and an
//     event cap per session and a byte cap in total, expiring and deleted
//     with its session; Replay gives
//     exactly the events after Last-Event-ID, in order, or
//     mcphttp.ErrEventNotFound
//     (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery).
//     Watch wakes a replica when another appends: pub/sub rings, polling
//     backs it up.
//   - TaskStore: tasks keyed by their owner, capped per owner, expiring
//     at their ExpiresAt, updated without lost writes
//     (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks).
//
// Every call is bounded by the store's Timeout (the client must be made
// with ContextTimeoutEnabled). When Redis cannot answer, errors wrap
// ErrUnavailable, never a not-found error: a server answers them with
// 503 and Retry-After, because a 404 would make the client start over.
// No store falls back to local memory.
//
// Default key layout, with Prefix "mcpkit:":
//
//	mcpkit:s:{SID}        hash: a session's state, owner, times, revision
//	mcpkit:sessions       sorted set: the sessions the cap counts
//	mcpkit:ev:{SID}       stream: a session's SSE events, all its streams
//	mcpkit:evb:{SID}      string: the bytes those events hold
//	mcpkit:evn:{SID}      pub/sub channel: rung by each append
//	mcpkit:evo:{SID}:KEY  string: a broadcast stored, for OnceTTL
//	mcpkit:getl:{SID}     string: who holds the session's GET stream, expiring (StreamLease)
//	mcpkit:evsize:{events}      sorted set: bytes by session, total cap
//	mcpkit:evdeadline:{events}  sorted set: when each session's count lapses
//	mcpkit:evtotal:{events}     string: the bytes of all sessions
//	mcpkit:t:{OWNER}:TID  hash: a task's state, owner, revision
//	mcpkit:tl:{OWNER}     sorted set: an owner's task ids by creation
//	mcpkit:tn:{OWNER}     string: an owner's task creation counter
//	mcpkit:statekey       string: the requestState key of the servers
//	mcpkit:bus:CHANNEL    pub/sub channel: a Bus channel
//
// where OWNER is a digest of the owner. Give the three stores of a server
// the same Prefix: the SessionStore extends and deletes the session's
// events with it.
//
// # Serving sessions from any replica
//
// Give the SessionStore to every replica's server as
// mcp.ServerOptions.SessionStore. Its Shared reports true, so each
// mcphttp.Handler then serves any session-era session's POST, GET and
// DELETE: it creates sessions with Create (the cluster-wide cap answers
// 503), Touches the store on every request and rebuilds a session it does
// not hold from the stored state, records state changes with Update,
// deletes with Delete (the session ends on every replica), and answers
// ErrUnavailable with 503 and Retry-After.
//
// Give the EventStore, with the same Prefix, to every replica's Handler
// as mcphttp.Options.EventStore, and SSE streams cross replicas as well:
// the Redis stream of a session is the source of truth of all its SSE
// streams. What a replica sends outside a request (ServerSession.Notify
// and Log, list_changed, resources/updated for a session subscribed
// through any replica) is appended there and reaches the client's GET
// stream on whichever replica serves it; a POST or GET stream whose
// connection broke resumes on any replica with Last-Event-ID and gets
// exactly the events it missed, in order, each once. Watch wakes the
// replica serving a stream (pub/sub), and polling every PollInterval
// backs it up: a lost publish costs latency, never an event. What Redis
// holds stays bounded: a session's stream is trimmed to MaxSessionEvents
// and MaxSessionBytes (a client that falls further behind cannot resume
// and is told so), its keys expire TTL after the last append or touch,
// and they are deleted with the session.
//
// Give every replica's server a Bus (NewBus) as mcp.ServerOptions.Bus,
// and a TaskStore as mcp.TaskOptions.Store, with the same Prefix. Then,
// through Redis pub/sub: a client's response to a server-to-client
// request, POSTed to any replica, reaches the handler waiting on the
// replica that sent it, and notifications/cancelled cancels the handler
// wherever it runs; subscriptions/listen streams on every replica receive
// list_changed, resources/updated and task notifications made on any;
// tasks/get, tasks/update and tasks/cancel of the 2026-07-28 tasks
// extension, and the session era's tasks/cancel, work on any replica (the
// update's input and the cancellation reach the work where it runs). Pub/sub is at most once: a message lost
// while a subscriber reconnects is not redelivered, and what waited on it
// ends at its own timeout (a response), runs to its end (a cancellation),
// or stays input_required for the client to answer again (an update).
// The SessionStore also hands every replica the same requestState key
// (RequestStateKey, kept at mcpkit:statekey), so that an input_required
// retry may reach any replica without configuring
// mcp.ServerOptions.RequestStateKey.
//
// A server's broadcast (tools, prompts and resources list_changed, and
// Server.ResourceUpdated) called on one replica crosses the Bus too: every
// replica delivers it to the sessions it holds, and EventStore.AppendOnce
// keeps one event per broadcast and session (a key mcpkit:evo:{SID}:KEY
// set with the append in one script, expiring after OnceTTL), so a
// session held by several replicas gets it once on its GET stream. What
// is guaranteed: every session held by at least one replica whose bus
// subscription receives the message gets the broadcast exactly once
// (within OnceTTL); a session held by no replica at that moment (it is
// rebuilt on its next request) misses it, and so does one whose replicas
// all lost the message (pub/sub is at most once).
//
// A replica killed mid-request: the request's POST stream, resumed on
// another replica, gets a JSON-RPC error for it within
// mcphttp.Options.StreamLease (30s by default), which the running replica
// renews with a heartbeat event in the session's Redis stream every
// third of it; the session lives on the other replicas.
//
// Still held by one replica: a running handler stays where it started
// (it is answered with that error, not moved, when its replica dies).
package redisstore
