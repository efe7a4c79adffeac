package mcphttp

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/internal/broadcast"
	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/internal/sse"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// SSE streams
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server);
// docs/design.md, "Stream writes".

var (
	errNotConnected = errors.New("mcphttp: no connection carries this stream")
	errStreamDone   = errors.New("mcphttp: the stream has ended")
	errNoRequests   = errors.New("mcphttp: server-to-client requests cannot be answered on this reply (stateless mode, JSON response mode, or initialize)")
)

// stream is one SSE stream: a POST's reply stream or a session's standalone
// GET stream. It implements jsonrpc.Writer.
type stream struct {
	h       *Handler
	session string     // "" in stateless mode
	num     uint64     // named in event ids; 0 is the GET stream
	store   EventStore // nil: events are not kept and carry no id

	requests   bool // server-to-client requests may travel on it
	lazy       bool // SSE headers wait for the first event (dropUnstarted)
	standalone bool // a session's GET stream
	shared     bool // a shared session's POST stream: its end is stored (shared_streams.go)
	// Guarded by mu.
	done      bool  // ended
	quiet     bool  // no event since the last keep-alive tick
	draining  bool  // a writer is writing the outbox
	coalesced uint8 // coalesceKind bits of the list_changed queued
	idSent    bool  // an event with an id was written: resumable

	// wmu is held while writing to the attached connection, and taken
	// before mu; mu guards the rest, and is never held during a write.
	wmu sync.Mutex
	mu  sync.Mutex
	att *attachment
	seq uint64
	out *outbox // events queued for att, made on the first
	// abort, if set, ends the request (a listen stream) when the stream is
	// closed for overflow.
	abort func()

	// An inline stream (openInline), guarded by mu.
	watch   dueLink[*stream]
	timer   *time.Timer
	req     *http.Request
	unwatch func() bool
	first   attachment // the inline attachment, allocated with the stream

	extra mcp.RequestExtra // the POST request's, allocated with the stream

	// A POST stream's start (jsonreply.go), guarded by mu.
	deferred bool   // waiting for Options.JSONReplyWithin: the response may go as JSON
	primes   bool   // the start stores and sends a priming event
	marker   []byte // the request marker stored with it (shared_lease.go)
	beat     func() // stops the lease's heartbeat
}

// outbox is a stream's queue of events not yet written: frames, their
// size in bytes, and whether one of them carries an event id.
type outbox struct {
	frames []qframe
	bytes  int
	ids    bool
}

// qframe is a queued frame: a buffer of framePool (p), or, with p nil, the
// frame of a broadcast that every stream shares (b), never modified.
type qframe struct {
	p *[]byte
	b []byte
}

func (f qframe) bytes() []byte {
	if f.p != nil {
		return *f.p
	}
	return f.b
}

// release gives f's buffer back to framePool; a shared frame is not one.
func (f qframe) release() {
	if f.p != nil {
		putFrame(f.p, *f.p)
	}
}

// take empties the outbox and returns what it held.
func (q *outbox) take() (frames []qframe, ids bool) {
	if q == nil {
		return nil, false
	}
	frames, ids = q.frames, q.ids
	q.frames, q.bytes, q.ids = nil, 0, false
	return frames, ids
}

// drop empties the outbox, giving the buffers back.
func (q *outbox) drop() {
	frames, _ := q.take()
	for _, f := range frames {
		f.release()
	}
}

// reuse gives the outbox back the slice that take returned once its
// frames are written, so that queueing the next event allocates nothing.
// The caller holds the stream's mu.
func (q *outbox) reuse(frames []qframe) {
	if q != nil && q.frames == nil && cap(frames) <= 64 {
		clear(frames)
		q.frames = frames[:0]
	}
}

func (q *outbox) empty() bool { return q == nil || len(q.frames) == 0 }

// attachment is the HTTP response currently carrying a stream.
type attachment struct {
	w    http.ResponseWriter
	rc   http.ResponseController
	gone chan struct{} // closed on detach, for the pump; nil inline
	// Guarded by the stream's wmu.
	flushed  bool      // something (the headers at least) was sent
	pending  bool      // the SSE headers are still to be written
	deadline time.Time // the write deadline armDeadline last set
	// streamTimer: over HTTP/2 a passing deadline resets the stream, so it
	// is cleared after each write (settle; RFC 9113 section 6.4).
	streamTimer bool
}

// newAttachment is the attachment of w, the response to r.
func newAttachment(w http.ResponseWriter, r *http.Request) *attachment {
	return &attachment{w: w, rc: *http.NewResponseController(w), gone: make(chan struct{}), streamTimer: streamTimer(r)}
}

// streamTimer reports whether r's write deadlines are timers on its
// stream, which reset it when they pass even while nothing is written:
// HTTP/2 and later. r is nil for a response that ends at once.
func streamTimer(r *http.Request) bool { return r != nil && r.ProtoMajor >= 2 }

// settle clears the write deadline of a response whose deadline would
// otherwise reset a stream left quiet after the write just done (see
// streamTimer); the next write arms a new one. The caller holds wmu.
func (att *attachment) settle() {
	if att.streamTimer && !att.deadline.IsZero() {
		att.deadline = time.Time{}
		_ = att.rc.SetWriteDeadline(time.Time{})
	}
}

// start writes the SSE headers of a lazy stream of h before the first
// thing it sends.
func (att *attachment) start(h *Handler) {
	if att.pending {
		att.pending = false
		h.writeSSEHeaders(att.w)
	}
}

// eventID names event seq of stream num; parseEventID reads the stream
// number back.
func eventID(num, seq uint64) string {
	b := make([]byte, 0, 24)
	b = strconv.AppendUint(b, num, 10)
	b = append(b, '-')
	return string(strconv.AppendUint(b, seq, 10))
}

func parseEventID(id string) (num uint64, ok bool) {
	a, b, found := strings.Cut(id, "-")
	if !found {
		return 0, false
	}
	num, err := strconv.ParseUint(a, 10, 64)
	if err != nil {
		return 0, false
	}
	if _, err := strconv.ParseUint(b, 10, 64); err != nil {
		return 0, false
	}
	return num, true
}

func (st *stream) streamID() string { return strconv.FormatUint(st.num, 10) }

// writeSSEHeaders starts an SSE response, counted in Stats until
// ServeHTTP returns (endSSE). Nothing is sent until the first flush, or
// until the handler returns.
func (h *Handler) writeSSEHeaders(w http.ResponseWriter) {
	h.sseOpen.Add(1)
	hdr := w.Header()
	hdr["Content-Type"] = hdrSSE
	hdr["Cache-Control"] = hdrNoCache
	// Proxies such as nginx would otherwise buffer the stream.
	hdr["X-Accel-Buffering"] = hdrNo
	w.WriteHeader(http.StatusOK)
}

// Header values every SSE response shares (Header.Set replaces a slice and
// Header.Add copies one of full capacity, so none is modified).
var (
	hdrSSE     = []string{mediaSSE}
	hdrNoCache = []string{"no-cache"}
	hdrNo      = []string{"no"}
)

// appendEvent appends one SSE event. A priming event has an id, a retry
// field and empty data; a message event carries one JSON-RPC message on
// one data line (encoded JSON holds no raw newline).
func appendEvent(dst []byte, id string, data []byte, priming bool, retry time.Duration) []byte {
	if id != "" {
		dst = append(dst, "id: "...)
		dst = append(dst, id...)
		dst = append(dst, '\n')
	}
	if priming {
		dst = append(dst, "retry: "...)
		dst = strconv.AppendInt(dst, retry.Milliseconds(), 10)
		return append(dst, "\ndata:\n\n"...)
	}
	dst = append(dst, "event: message\ndata: "...)
	dst = append(dst, data...)
	return append(dst, "\n\n"...)
}

// encodeJSON and encodeMessageEvent encode a broadcast once for every
// stream: as the data of a stored event, and as a whole message event
// without an id.
func encodeJSON(n *jsonrpc.Notification) ([]byte, error) { return jsonrpc.Encode(n) }

func encodeMessageEvent(n *jsonrpc.Notification) ([]byte, error) {
	return appendMessageEvent(nil, n)
}

// appendMessageEvent appends msg as a message event without an id,
// encoding it in place.
func appendMessageEvent(dst []byte, msg jsonrpc.Message) ([]byte, error) {
	dst = append(dst, "event: message\ndata: "...)
	dst, err := jsonrpc.AppendEncode(dst, msg)
	return append(dst, "\n\n"...), err
}

// largeResult is the size from which a result is written from the buffer
// it was encoded in, between a head and a tail, rather than copied.
const largeResult = 64 << 10

// appendLargeHead appends what goes before a large result: the JSON-RPC
// envelope up to "result":, exactly as jsonrpc.AppendEncode writes it.
// ok is false when resp is not a successful response with a large result
// that is compact, valid JSON (which AppendEncode would compact first).
func appendLargeHead(dst []byte, resp *jsonrpc.Response) (head []byte, ok bool) {
	if resp == nil || resp.Error != nil || len(resp.Result) < largeResult || !resp.ID.IsValid() ||
		!resp.KnownCompact() && !jsonscan.ValidCompact(resp.Result) {
		return dst, false
	}
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = resp.ID.AppendJSON(dst)
	return append(dst, `,"result":`...), true
}

// sseLargeTail ends a message event whose result was written on its own.
var sseLargeTail = []byte("}\n\n")

// framePool holds the buffers events are built in before they are copied
// into the response's own buffer.
var framePool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

func putFrame(p *[]byte, frame []byte) {
	if cap(frame) <= 64<<10 {
		*p = frame[:0]
		framePool.Put(p)
	}
}

// Writes to a connection hold wmu (taken before mu) and a write deadline;
// messages are queued in the outbox and written by the writerPool.

var errStreamOverflow = errors.New("mcphttp: the client is not reading its stream; the stream was closed")

// open attaches w, sends the SSE headers and, for a resumable stream at
// 2025-11-25 or later, the priming event; without one the headers are
// flushed only with flush set. With exclusive set it returns nil when
// another connection is attached (one GET stream at a time).
func (st *stream) open(ctx context.Context, w http.ResponseWriter, r *http.Request, version string, exclusive, flush bool) *attachment {
	st.wmu.Lock()
	defer st.wmu.Unlock()
	st.mu.Lock()
	if exclusive && st.att != nil {
		st.mu.Unlock()
		return nil
	}
	att := st.attachLocked(w, r, false)
	var prime []byte
	if st.store != nil && version >= mcp.Version20251125 {
		st.primes = true
		prime = st.startLocked(ctx) // jsonreply.go
	}
	st.mu.Unlock()
	if prime != nil || flush {
		st.writePrime(att, prime)
	}
	return att
}

// writePrime writes the priming event prime (if any) and flushes att: a
// failed write lets att go, a written priming event gives the client an
// id to resume from. The caller holds wmu, not mu.
func (st *stream) writePrime(att *attachment, prime []byte) {
	if err := st.writeFrames(att, prime, true); err != nil {
		st.dropClient(att)
		return
	}
	if prime != nil {
		st.mu.Lock()
		st.idSent = true
		st.mu.Unlock()
	}
}

// attachLocked makes w carry the stream, letting go of any connection that
// carried it before. The caller holds wmu and mu.
func (st *stream) attachLocked(w http.ResponseWriter, r *http.Request, headerSent bool) *attachment {
	if st.att != nil {
		st.detachLocked()
	}
	att := newAttachment(w, r)
	if headerSent {
		att.flushed = true // by the replay
	} else {
		st.h.writeSSEHeaders(w)
	}
	st.att = att
	return att
}

// detachLocked lets go of the attached connection and of what was queued
// for it: a stored event is replayed to the connection that resumes the
// stream, an unstored one had nowhere else to go.
func (st *stream) detachLocked() {
	if st.att.gone != nil {
		close(st.att.gone)
	}
	st.att = nil
	st.out.drop()
	st.coalesced = 0
}

// detach lets go of att if it still carries the stream; it reports
// whether it did.
func (st *stream) detach(att *attachment) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.att != att {
		return false
	}
	st.detachLocked()
	return true
}

// dropClient lets go of att, whose client went away or could not be
// written to, if it still carries the stream, and tells the test hook.
func (st *stream) dropClient(att *attachment) {
	if st.detach(att) {
		st.h.detached()
	}
}

// WriteMessage implements jsonrpc.Writer: it queues msg as the stream's
// next event, keeping it in the EventStore first when there is one, and
// returns without waiting for the client.
func (st *stream) WriteMessage(ctx context.Context, msg jsonrpc.Message) error {
	if _, isReq := msg.(*jsonrpc.Request); isReq && !st.requests {
		return errNoRequests
	}
	return st.send(ctx, msg)
}

// MCPWriteNeverBlocks tells package mcp that WriteMessage queues and never
// waits for the client, so that a broadcast may call it directly.
func (st *stream) MCPWriteNeverBlocks() {}

// coalesceKind is the bit of a list_changed notification, which carries
// nothing but its method: one queued and not yet written stands for any
// number more. Zero for every other message.
func coalesceKind(msg jsonrpc.Message) uint8 {
	n, ok := msg.(*jsonrpc.Notification)
	if !ok {
		return 0
	}
	switch n.Method {
	case "notifications/tools/list_changed":
		return 1
	case "notifications/prompts/list_changed":
		return 2
	case "notifications/resources/list_changed":
		return 4
	}
	return 0
}

// send queues msg as the stream's next event and makes sure a goroutine
// writes it. It is encoded before the lock is taken. A stream whose queue
// would pass Options.MaxStreamQueueBytes is closed instead: its client is
// not reading. With an EventStore the event is kept all the same, for the
// client to resume.
func (st *stream) send(ctx context.Context, msg jsonrpc.Message) error {
	kind := coalesceKind(msg)
	// qf is what is queued: a pooled buffer, or a broadcast's frame,
	// encoded once for every stream (broadcast.Shared).
	var qf qframe
	var data, frame []byte
	var err error
	sh := broadcast.SharedOf(ctx, msg)
	switch {
	case sh != nil && st.store != nil:
		data, err = sh.Encoded(0, encodeJSON)
		qf.p = framePool.Get().(*[]byte)
	case sh != nil:
		qf.b, err = sh.Encoded(1, encodeMessageEvent)
	case st.store != nil:
		data, err = jsonrpc.Encode(msg)
		qf.p = framePool.Get().(*[]byte)
	default:
		qf.p = framePool.Get().(*[]byte)
		frame, err = appendMessageEvent((*qf.p)[:0], msg)
	}
	if err != nil {
		qf.release()
		return err
	}
	st.mu.Lock()
	if st.done {
		st.mu.Unlock()
		qf.release()
		return errStreamDone
	}
	if kind != 0 && st.coalesced&kind != 0 {
		st.mu.Unlock()
		qf.release()
		return nil
	}
	stored := false
	var prime []byte
	if st.deferred {
		// The first message of a deferred reply starts its stream
		// (jsonreply.go), unless the client went away in the window: it
		// has no event id to resume from, so nothing is kept for it.
		if st.att == nil {
			st.mu.Unlock()
			qf.release()
			return errNotConnected
		}
		prime = st.startLocked(ctx)
		stored = prime != nil
	}
	if st.store != nil {
		st.seq++
		id := eventID(st.num, st.seq)
		appended, err := st.appendStored(ctx, id, data) // shared_streams.go
		if err != nil {
			st.h.logger.Error("mcphttp: event store append failed", "session", st.session, "err", err)
			id = ""
		} else if !appended {
			// Another replica stored this broadcast already.
			st.mu.Unlock()
			qf.release()
			return nil
		} else {
			stored = true
		}
		frame = appendEvent(append((*qf.p)[:0], prime...), id, data, false, 0)
	}
	if qf.p != nil {
		*qf.p = frame
	} else {
		frame = qf.b
	}
	if st.att == nil {
		st.mu.Unlock()
		qf.release()
		if stored {
			return nil // kept for the client to resume
		}
		return errNotConnected
	}
	if st.out == nil {
		st.out = &outbox{}
	}
	q := st.out
	if limit := st.h.opts.MaxStreamQueueBytes; limit > 0 && q.bytes+len(frame) > limit {
		st.h.logger.Warn("mcphttp: closing a stream its client does not read", "session", st.session, "stream", st.num, "queued_bytes", q.bytes)
		st.detachLocked()
		abort := st.abort
		st.mu.Unlock()
		qf.release()
		if abort != nil {
			abort()
		}
		if stored {
			return nil
		}
		return errStreamOverflow
	}
	q.frames = append(q.frames, qf)
	q.bytes += len(frame)
	q.ids = q.ids || stored
	st.coalesced |= kind
	start := !st.draining
	st.draining = true
	st.mu.Unlock()
	if start {
		st.h.writers.schedule(st) // writers.go
	}
	return nil
}

// drain writes the stream's queued events until none are left or no
// connection carries the stream. One runs at a time per stream (draining),
// on a worker of the Handler's writerPool.
func (st *stream) drain() {
	for {
		st.wmu.Lock()
		st.mu.Lock()
		att := st.att
		if att == nil || st.out.empty() {
			st.draining = false
			st.mu.Unlock()
			st.wmu.Unlock()
			return
		}
		frames, ids := st.out.take()
		st.coalesced = 0
		st.quiet = false
		st.mu.Unlock()
		err := st.writeQueued(att, frames)
		st.mu.Lock()
		lost := err != nil && st.att == att
		switch {
		case lost:
			st.detachLocked()
		case err == nil && ids:
			st.idSent = true
		}
		st.out.reuse(frames)
		st.mu.Unlock()
		st.wmu.Unlock()
		if lost {
			st.h.detached()
		}
	}
}

// writeQueued writes frames (taken from the outbox) to att and flushes,
// giving the buffers back.
func (st *stream) writeQueued(att *attachment, frames []qframe) error {
	st.armDeadline(att)
	att.start(st.h)
	var err error
	for _, f := range frames {
		if err == nil {
			_, err = att.w.Write(f.bytes())
		}
		f.release()
	}
	if err != nil {
		return err
	}
	att.flushed = true
	err = att.rc.Flush()
	att.settle()
	return err
}

// writeFrames writes frame (if any) to att and, with flush set, flushes
// it, headers included. The caller holds wmu.
func (st *stream) writeFrames(att *attachment, frame []byte, flush bool) error {
	st.armDeadline(att)
	att.start(st.h)
	if len(frame) > 0 {
		if _, err := att.w.Write(frame); err != nil {
			return err
		}
	}
	if !flush {
		return nil
	}
	att.flushed = true
	err := att.rc.Flush()
	att.settle()
	return err
}

// armDeadline bounds the next write to att by Options.WriteTimeout, moving
// the deadline only when less than that remains (docs/design.md, "Stream
// writes"); with none, it clears any server-wide write timeout. The caller
// holds wmu.
func (st *stream) armDeadline(att *attachment) {
	if d := st.h.opts.WriteTimeout; d > 0 {
		now := time.Now()
		if !att.deadline.IsZero() && att.deadline.Sub(now) >= d {
			return
		}
		att.deadline = now.Add(d + d/deadlineSlack)
		_ = att.rc.SetWriteDeadline(att.deadline)
	} else if !att.flushed {
		_ = att.rc.SetWriteDeadline(time.Time{})
	}
}

// deadlineSlack: armDeadline sets WriteTimeout plus 1/deadlineSlack of it.
const deadlineSlack = 8

// release waits out a write to att in progress before its HTTP handler
// returns (a ResponseWriter must not be used after that), starts the
// response if nothing was sent, and gives the end of the response its own
// write deadline.
func (st *stream) release(att *attachment) {
	st.wmu.Lock()
	att.start(st.h)
	if att.flushed {
		st.armDeadline(att)
	}
	st.wmu.Unlock()
}

// finish sends resp (if not nil) as the stream's last event, after
// whatever is still queued, and ends the stream, which ends the HTTP
// response carrying it. The event is not flushed: the response's end sends
// it, together with the headers when nothing went before, in one write.
func (st *stream) finish(ctx context.Context, resp *jsonrpc.Response) {
	st.end(ctx, resp, false)
}

// end is finish, flushing the last event at once with flush set (for a
// stream ended while its request's goroutine is still busy). Only the
// first end of a stream sends anything.
func (st *stream) end(ctx context.Context, resp *jsonrpc.Response, flush bool) {
	var data, frame, large []byte
	var p *[]byte
	if resp != nil {
		var err error
		if st.store != nil {
			data, err = jsonrpc.Encode(resp)
		} else {
			p = framePool.Get().(*[]byte)
			var ok bool
			if frame, ok = appendLargeHead(append((*p)[:0], "event: message\ndata: "...), resp); ok {
				large = resp.Result // written after frame, then sseLargeTail
			} else {
				frame, err = appendMessageEvent((*p)[:0], resp)
			}
			defer putFrame(p, frame)
		}
		if err != nil {
			st.h.logger.Error("mcphttp: encoding a response", "err", err)
			resp = nil
		}
	}
	st.wmu.Lock()
	defer st.wmu.Unlock()
	st.mu.Lock()
	deferred := st.deferred
	st.deferred = false
	switch {
	case st.done:
		frame = nil
	case deferred:
		// Nothing was stored or sent: the response, if any, goes as a
		// JSON body (jsonreply.go).
	case resp != nil && st.store != nil:
		// The response, and a shared stream's end marker with it
		// (shared_streams.go), in one round trip when the store can.
		st.seq++
		id := eventID(st.num, st.seq)
		evs := []StoredEvent{{ID: id, Data: data}}
		if st.shared {
			st.seq++
			evs = append(evs, StoredEvent{ID: eventID(st.num, st.seq), Data: streamEndMarker})
		}
		if err := st.appendBatchLocked(ctx, evs); err != nil {
			st.h.logger.Error("mcphttp: event store append failed", "session", st.session, "err", err)
			id = ""
		}
		frame = appendEvent(nil, id, data, false, 0)
	case st.shared && st.store != nil:
		st.appendEndLocked(ctx) // shared_streams.go
	}
	st.done = true
	att := st.att
	queued, _ := st.out.take()
	st.coalesced = 0
	if att != nil {
		if att.gone != nil {
			close(att.gone)
		}
		st.att = nil
	}
	st.mu.Unlock()
	if att == nil {
		for _, q := range queued {
			q.release()
		}
		return
	}
	if deferred && data != nil {
		for _, q := range queued {
			q.release()
		}
		st.writeJSONBody(att, data, flush) // jsonreply.go
		return
	}
	var err error
	if len(queued) > 0 {
		err = st.writeQueued(att, queued)
	}
	if err == nil && (frame != nil || !att.flushed) {
		// A lazy stream that sent nothing still answers as a stream.
		if att.flushed {
			st.armDeadline(att)
		}
		att.start(st.h)
		if frame != nil {
			_, err = att.w.Write(frame)
			if err == nil && large != nil {
				if _, err = att.w.Write(large); err == nil {
					_, err = att.w.Write(sseLargeTail)
				}
			}
		}
		if err == nil && flush {
			att.flushed = true
			_ = att.rc.Flush()
		}
	}
}

// closeConnection lets go of the connection carrying the stream without
// ending the stream, so that the client polls it with GET and
// Last-Event-ID (mcp.RequestExtra.CloseStream). The priming event told the
// client how long to wait. It does nothing while no event id has reached
// the client (the store failed): there would be nothing to resume from.
func (st *stream) closeConnection() {
	// A deferred reply starts first, giving the client an id to resume
	// from (jsonreply.go).
	st.startDeferred(context.Background())
	st.mu.Lock()
	if st.att != nil && st.idSent {
		st.detachLocked()
	}
	st.mu.Unlock()
}

// keepAlive writes a comment line on att if the stream was quiet since the
// last tick. A write in progress makes the stream busy, not quiet. It
// returns false once att no longer carries the stream.
func (st *stream) keepAlive(att *attachment) bool {
	if !st.wmu.TryLock() {
		return true
	}
	defer st.wmu.Unlock()
	st.mu.Lock()
	if st.att != att {
		st.mu.Unlock()
		return false
	}
	if !st.quiet {
		st.quiet = true
		st.mu.Unlock()
		return true
	}
	st.mu.Unlock()
	if st.writeFrames(att, sse.KeepAlive, true) != nil {
		st.dropClient(att)
		return false
	}
	return true
}

// resume sends w the events of the stream after lastID and, unless the
// stream has ended, attaches w to carry the rest (read and attached under
// mu, so no event falls between; written after). It returns a nil
// attachment when the replay was all, errSecondGETStream when exclusive is
// set and the stream is carried, or the store's error (nothing written).
func (st *stream) resume(ctx context.Context, w http.ResponseWriter, r *http.Request, lastID string, exclusive bool) (*attachment, error) {
	st.wmu.Lock()
	defer st.wmu.Unlock()
	st.mu.Lock()
	if exclusive && st.att != nil {
		st.mu.Unlock()
		return nil, errSecondGETStream
	}
	frames, err := missedEvents(ctx, st.store, st.session, st.streamID(), lastID)
	if err != nil {
		st.mu.Unlock()
		return nil, err
	}
	var att *attachment
	if !st.done {
		att = st.attachLocked(w, r, false)
	}
	st.mu.Unlock()
	if err := st.h.writeFrames(w, r, http.NewResponseController(w), frames, att == nil); err != nil {
		if att != nil {
			st.detach(att)
		}
		return nil, nil
	}
	if att != nil {
		att.flushed = true
	}
	return att, nil
}

var errSecondGETStream = errors.New("mcphttp: a GET stream is already open")

// missedEvents returns the frames of the stored events of a stream after
// lastID. Priming events are not replayed: they carry nothing.
func missedEvents(ctx context.Context, store EventStore, session, streamID, lastID string) ([]byte, error) {
	var frames []byte
	err := store.Replay(ctx, session, streamID, lastID, func(id string, data []byte) error {
		if len(data) > 0 && !isMarker(data) {
			frames = appendEvent(frames, id, data, false, 0)
		}
		return nil
	})
	return frames, err
}

// writeFrames writes frames through rc's response w (to r) and flushes
// them, the SSE headers first when headers is set, within
// Options.WriteTimeout (if positive). Over HTTP/2 the deadline is cleared
// afterwards (see streamTimer): the response may stay open and quiet.
func (h *Handler) writeFrames(w http.ResponseWriter, r *http.Request, rc *http.ResponseController, frames []byte, headers bool) error {
	timeout := h.opts.WriteTimeout
	if timeout > 0 {
		_ = rc.SetWriteDeadline(time.Now().Add(timeout))
	} else {
		_ = rc.SetWriteDeadline(time.Time{})
	}
	if headers {
		h.writeSSEHeaders(w)
	}
	if len(frames) > 0 {
		if _, err := w.Write(frames); err != nil {
			return err
		}
	}
	err := rc.Flush()
	if timeout > 0 && streamTimer(r) {
		_ = rc.SetWriteDeadline(time.Time{})
	}
	return err
}

// replay writes to w the stored events of a stream that has ended after
// lastID; sent reports whether anything was written (nothing is when the
// store cannot replay them).
func (h *Handler) replay(ctx context.Context, store EventStore, session, streamID, lastID string, w http.ResponseWriter, r *http.Request) (sent bool, err error) {
	frames, err := missedEvents(ctx, store, session, streamID, lastID)
	if err != nil {
		return false, err
	}
	return true, h.writeFrames(w, r, http.NewResponseController(w), frames, true)
}

// pump serves an attachment's HTTP request until the stream ends or lets
// go of it, the client goes away, or the session ends, writing keep-alive
// comments while the stream is quiet. It serves GET streams and the POST
// streams whose handler runs on a goroutine of its own.
func (h *Handler) pump(r *http.Request, st *stream, att *attachment, sessionDone <-chan struct{}) {
	defer st.release(att)
	var stop <-chan struct{}
	if st.standalone {
		stop = h.shutdown // a Shutdown ends it at once; other streams end with their request
	}
	var tick <-chan time.Time
	if h.opts.KeepAlive > 0 {
		t := time.NewTicker(h.opts.KeepAlive)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-att.gone:
			return
		case <-r.Context().Done():
			st.dropClient(att)
			return
		case <-sessionDone:
			st.detach(att)
			return
		case <-stop:
			st.detach(att)
			return
		case <-tick:
			if !st.keepAlive(att) {
				return
			}
		}
	}
}

// headerDelay is how long an inline reply stream may stay silent before its
// headers are flushed (docs/design.md, "Stream writes").
const headerDelay = 100 * time.Millisecond

// openInline attaches w to carry the stream while the request is served on
// r's own goroutine, which then calls closeInline. Nothing is sent until an
// event, or a tick of the Handler's inlineWatch after headerDelay.
func (st *stream) openInline(w http.ResponseWriter, r *http.Request) {
	att := &st.first
	att.w = w
	att.rc = *http.NewResponseController(w)
	att.streamTimer = streamTimer(r)
	if st.lazy {
		att.pending = true
	} else {
		st.h.writeSSEHeaders(w)
	}
	st.mu.Lock()
	st.att = att
	st.req = r
	st.mu.Unlock()
	st.h.inline.add(st)
}

// tick is called by the Handler's inlineWatch once an inline stream has
// been open for its delay, and then, with keep-alives, by the stream's own
// timer. A write in progress (which flushes too) stands for the tick's own.
func (st *stream) tick() {
	st.mu.Lock()
	att := st.att
	if att != &st.first {
		st.mu.Unlock()
		return // the stream has ended or the client has gone
	}
	if st.unwatch == nil {
		// Disconnection is not cancellation: the handler goes on, but
		// its events are not written to a dead connection.
		st.unwatch = context.AfterFunc(st.req.Context(), func() {
			st.dropClient(att)
		})
	}
	if ka := st.h.opts.KeepAlive; ka > 0 {
		if st.timer == nil {
			st.timer = time.AfterFunc(ka, st.tick)
		} else {
			st.timer.Reset(ka)
		}
	}
	st.mu.Unlock()
	if !st.wmu.TryLock() {
		return
	}
	defer st.wmu.Unlock()
	st.mu.Lock()
	if st.att != att {
		st.mu.Unlock()
		return
	}
	var frame []byte
	switch {
	case !att.flushed:
		st.quiet = true
	case !st.quiet:
		st.quiet = true
		st.mu.Unlock()
		return
	default:
		frame = sse.KeepAlive
	}
	st.mu.Unlock()
	if st.writeFrames(att, frame, true) != nil {
		st.detach(att)
	}
}

// stopWatching ends what watches an inline stream whose attachment is
// gone: the inlineWatch, its keep-alive timer t and its context watch
// unwatch (read under mu, nil when never set).
func (st *stream) stopWatching(t *time.Timer, unwatch func() bool) {
	st.h.inline.remove(st)
	if t != nil {
		t.Stop()
	}
	if unwatch != nil {
		unwatch()
	}
}

// dropUnstarted ends a lazy inline stream that has sent nothing, headers
// included, so that its request can be answered with a plain status and
// body instead. It reports false, doing nothing, once the stream has
// started (or the client has gone); the caller then ends it with
// closeInline.
func (st *stream) dropUnstarted() bool {
	st.wmu.Lock()
	st.mu.Lock()
	if st.att != &st.first || !st.first.pending || !st.out.empty() {
		st.mu.Unlock()
		st.wmu.Unlock()
		return false
	}
	st.done = true
	st.detachLocked()
	st.req = nil
	t, unwatch := st.timer, st.unwatch
	st.mu.Unlock()
	st.wmu.Unlock()
	st.stopWatching(t, unwatch)
	return true
}

// closeInline ends an inline stream with resp (if not nil) as its last
// event, and stops its timer and watch.
func (st *stream) closeInline(ctx context.Context, resp *jsonrpc.Response) {
	st.finish(ctx, resp)
	st.mu.Lock()
	t, unwatch := st.timer, st.unwatch
	st.req = nil // a writer kept by a handler keeps no request
	st.mu.Unlock()
	st.stopWatching(t, unwatch)
}
