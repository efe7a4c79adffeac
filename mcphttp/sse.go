package mcphttp

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// This file holds SSE streams
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server
// and #listening-for-messages-from-the-server). A stream outlives the HTTP
// response that first carried it: when the connection breaks, the request's
// handler keeps running (disconnection is not cancellation), its events go
// to the EventStore, and a GET with Last-Event-ID attaches a new connection
// that gets the missed events and then the rest. So a stream and the
// connection currently carrying it (an attachment) are separate things.
//
// Only the goroutine serving an attachment's HTTP request (the pump) waits
// on it; the handler's goroutine writes events to it under the stream's
// lock, and detaching takes that lock, so no write happens after the pump
// returns and the ResponseWriter is let go.

var (
	errNotConnected = errors.New("mcphttp: no connection carries this stream")
	errStreamDone   = errors.New("mcphttp: the stream has ended")
	errNoRequests   = errors.New("mcphttp: server-to-client requests cannot be answered on this reply (stateless mode, JSON response mode, or initialize)")
)

// stream is one SSE stream: a POST's reply stream or a session's standalone
// GET stream. It implements mcp.MessageWriter.
type stream struct {
	h       *Handler
	session string     // "" in stateless mode
	num     uint64     // named in event ids; 0 is the GET stream
	store   EventStore // nil: events are not kept and carry no id
	// requests is whether server-to-client requests may travel on the
	// stream: only when the client can POST its answer to a live session.
	requests bool
	// lazy delays an inline stream's SSE headers until something is
	// sent, so that a request refused before its handler ran can still be
	// answered with a plain status and JSON body (dropUnstarted): the
	// 2026-07-28 era answers refusals with 400 or 404
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#request-metadata).
	lazy bool

	mu    sync.Mutex
	att   *attachment
	seq   uint64
	done  bool // the stream has ended (its response was sent)
	quiet bool // no event since the last keep-alive tick

	// idSent is whether an event with an id has been written: only then
	// can the client resume the stream (guarded by mu).
	idSent bool

	// An inline stream (see serveInline) is served on its request's own
	// goroutine. Its Handler's inlineWatch ticks it once if the reply is
	// slow, which flushes the headers; then, with keep-alives, its own
	// timer ticks it again (both guarded by mu). unwatch stops watching the
	// request's context for the client going away.
	watch   watchLink
	timer   *time.Timer
	req     *http.Request
	unwatch func() bool
	first   attachment // the inline attachment, allocated with the stream

	// extra is what the request's handler is told of its transport
	// (POST streams), allocated with the stream.
	extra mcp.RequestExtra
}

// attachment is the HTTP response currently carrying a stream.
type attachment struct {
	w  http.ResponseWriter
	rc http.ResponseController
	// gone is closed when the attachment is detached, for the pump that
	// waits on it; an inline attachment has no pump and no gone.
	gone chan struct{}
	// flushed is whether anything (the headers at least) has been sent:
	// the write deadline is cleared then, for a stream may outlast a
	// server-wide write timeout.
	flushed bool
	// pending is whether the SSE headers are still to be written (a lazy
	// stream that has sent nothing yet).
	pending bool
}

// start writes the SSE headers of a lazy stream before the first
// thing it sends.
func (att *attachment) start() {
	if att.pending {
		att.pending = false
		writeSSEHeaders(att.w)
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

// writeSSEHeaders starts an SSE response. Nothing is sent until the first
// flush, or until the handler returns.
func writeSSEHeaders(w http.ResponseWriter) {
	hdr := w.Header()
	hdr["Content-Type"] = hdrSSE
	hdr["Cache-Control"] = hdrNoCache
	// Proxies such as nginx would otherwise buffer the stream.
	hdr["X-Accel-Buffering"] = hdrNo
	w.WriteHeader(http.StatusOK)
}

// Header values every SSE response shares rather than allocates. Nothing
// modifies a header value slice in place: Header.Set replaces it, and
// Header.Add appends to a slice whose capacity is its length, which
// copies.
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

// appendMessageEvent appends msg as a message event without an id,
// encoding it in place.
func appendMessageEvent(dst []byte, msg jsonrpc.Message) ([]byte, error) {
	dst = append(dst, "event: message\ndata: "...)
	dst, err := jsonrpc.AppendEncode(dst, msg)
	return append(dst, "\n\n"...), err
}

// framePool holds the buffers events are built in before they are copied
// into the response's own buffer.
var framePool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

func putFrame(p *[]byte, frame []byte) {
	if cap(frame) <= 64<<10 {
		*p = frame[:0]
		framePool.Put(p)
	}
}

// open attaches w, sends the SSE headers and, for a resumable stream of a
// session at 2025-11-25 or later, the priming event that gives the client
// an id to resume from. Without a priming event the headers are flushed
// only with flush set; otherwise they go out with the first event, or with
// the whole response when the handler returns. With exclusive set it
// refuses (nil) when another connection is attached: the GET stream's
// one-at-a-time rule.
func (st *stream) open(ctx context.Context, w http.ResponseWriter, version string, exclusive, flush bool) *attachment {
	st.mu.Lock()
	defer st.mu.Unlock()
	if exclusive && st.att != nil {
		return nil
	}
	att := st.attachLocked(w, false)
	if st.store != nil && version >= mcp.Version20251125 {
		st.primeLocked(ctx)
	} else if flush {
		st.flushLocked()
	}
	return att
}

// attachLocked makes w carry the stream, letting go of any connection that
// carried it before.
func (st *stream) attachLocked(w http.ResponseWriter, headerSent bool) *attachment {
	if st.att != nil {
		st.detachLocked()
	}
	att := &attachment{w: w, rc: *http.NewResponseController(w), gone: make(chan struct{})}
	if headerSent {
		att.flushed = true // by the replay, which cleared the deadline
	} else {
		writeSSEHeaders(w)
	}
	st.att = att
	return att
}

func (st *stream) detachLocked() {
	if st.att.gone != nil {
		close(st.att.gone)
	}
	st.att = nil
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

// primeLocked sends the priming event: an id and empty data, with retry.
func (st *stream) primeLocked(ctx context.Context) {
	st.seq++
	id := eventID(st.num, st.seq)
	if err := st.store.Append(ctx, st.session, st.streamID(), id, nil); err != nil {
		st.h.logger.Error("mcphttp: event store append failed", "session", st.session, "err", err)
		st.flushLocked()
		return
	}
	st.writeEventLocked(id, nil, true, true)
}

// WriteMessage implements mcp.MessageWriter: it sends msg as the stream's
// next event, keeping it in the EventStore first when there is one.
func (st *stream) WriteMessage(ctx context.Context, msg jsonrpc.Message) error {
	if _, isReq := msg.(*jsonrpc.Request); isReq && !st.requests {
		return errNoRequests
	}
	return st.send(ctx, msg, true)
}

// send sends msg as the stream's next event; the event is flushed at once
// when flush is set. It is encoded before the lock is taken.
func (st *stream) send(ctx context.Context, msg jsonrpc.Message, flush bool) error {
	if st.store != nil {
		data, err := jsonrpc.Encode(msg)
		if err != nil {
			return err
		}
		st.mu.Lock()
		defer st.mu.Unlock()
		return st.emitStoredLocked(ctx, data, flush)
	}
	p := framePool.Get().(*[]byte)
	frame, err := appendMessageEvent((*p)[:0], msg)
	defer putFrame(p, frame)
	if err != nil {
		return err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.emitFrameLocked(frame, flush)
}

// emitFrameLocked sends an event of a stream without a store.
func (st *stream) emitFrameLocked(frame []byte, flush bool) error {
	if st.done {
		return errStreamDone
	}
	if st.att == nil {
		return errNotConnected
	}
	return st.writeLocked(frame, flush)
}

// emitStoredLocked keeps an event in the store and sends it.
func (st *stream) emitStoredLocked(ctx context.Context, data []byte, flush bool) error {
	if st.done {
		return errStreamDone
	}
	st.seq++
	id := eventID(st.num, st.seq)
	if err := st.store.Append(ctx, st.session, st.streamID(), id, data); err != nil {
		st.h.logger.Error("mcphttp: event store append failed", "session", st.session, "err", err)
		id = ""
	}
	if st.att == nil {
		if id != "" {
			return nil // kept for the client to resume
		}
		return errNotConnected
	}
	if err := st.writeEventLocked(id, data, false, flush); err != nil && id == "" {
		return err
	}
	return nil
}

// writeEventLocked builds one event and writes it to the attached
// connection.
func (st *stream) writeEventLocked(id string, data []byte, priming, flush bool) error {
	p := framePool.Get().(*[]byte)
	frame := appendEvent((*p)[:0], id, data, priming, st.h.opts.RetryInterval)
	err := st.writeLocked(frame, flush)
	putFrame(p, frame)
	if err == nil && id != "" {
		st.idSent = true
	}
	return err
}

// writeLocked writes one event to the attached connection and, with flush
// set, flushes it; a failed write detaches the connection. An event left
// unflushed goes out when the response ends: the stream's last event.
func (st *stream) writeLocked(frame []byte, flush bool) error {
	st.att.start()
	_, err := st.att.w.Write(frame)
	if err == nil && flush {
		err = st.flushLocked()
	}
	st.quiet = false
	if err != nil {
		st.detachLocked()
	}
	return err
}

// flushLocked sends what the attached connection has buffered, headers
// included, clearing the write deadline the first time.
func (st *stream) flushLocked() error {
	att := st.att
	att.start()
	if !att.flushed {
		att.flushed = true
		// A server-wide write timeout would cut a long stream.
		_ = att.rc.SetWriteDeadline(time.Time{})
	}
	return att.rc.Flush()
}

// finish sends resp (if not nil) as the stream's last event and ends the
// stream, which ends the HTTP response carrying it. The event is not
// flushed: the response's end sends it, together with the headers when
// nothing went before, in one write.
func (st *stream) finish(ctx context.Context, resp *jsonrpc.Response) {
	var data, frame []byte
	var p *[]byte
	var err error
	if resp != nil {
		if st.store != nil {
			data, err = jsonrpc.Encode(resp)
		} else {
			p = framePool.Get().(*[]byte)
			frame, err = appendMessageEvent((*p)[:0], resp)
			defer putFrame(p, frame)
		}
		if err != nil {
			st.h.logger.Error("mcphttp: encoding a response", "err", err)
			resp = nil
		}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	switch {
	case resp == nil:
	case st.store != nil:
		_ = st.emitStoredLocked(ctx, data, false)
	default:
		_ = st.emitFrameLocked(frame, false)
	}
	st.done = true
	if st.att != nil {
		// A lazy stream that sent nothing still answers as a stream.
		st.att.start()
		st.detachLocked()
	}
}

// closeConnection lets go of the connection carrying the stream without
// ending the stream, so that the client polls it with GET and
// Last-Event-ID (mcp.RequestExtra.CloseStream). The priming event told the
// client how long to wait. It does nothing while no event id has reached
// the client (the store failed): there would be nothing to resume from.
func (st *stream) closeConnection() {
	st.mu.Lock()
	if st.att != nil && st.idSent {
		st.detachLocked()
	}
	st.mu.Unlock()
}

// keepAliveLocked writes a comment line if the stream was quiet since the
// last tick. It returns false once the connection has failed.
func (st *stream) keepAliveLocked() bool {
	if !st.quiet {
		st.quiet = true
		return true
	}
	st.att.start()
	if _, err := st.att.w.Write([]byte(": keep-alive\n\n")); err != nil || st.flushLocked() != nil {
		st.detachLocked()
		return false
	}
	return true
}

// keepAlive is keepAliveLocked for the pump. It returns false once att no
// longer carries the stream.
func (st *stream) keepAlive(att *attachment) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.att != att {
		return false
	}
	return st.keepAliveLocked()
}

// resume sends w the events of the stream after lastID and, unless the
// stream has ended, attaches w to carry the rest. The stream's lock is held
// throughout, so no event falls between the replay and the attachment. It returns a nil
// attachment when the replay was all there was to send, errSecondGET when
// exclusive is set and another connection carries the stream, and the
// store's error when the missed events cannot be replayed (nothing has been
// written to w then).
func (st *stream) resume(ctx context.Context, w http.ResponseWriter, lastID string, exclusive bool) (*attachment, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if exclusive && st.att != nil {
		return nil, errSecondGETStream
	}
	sent, err := replay(ctx, st.store, st.session, st.streamID(), lastID, w)
	if err != nil {
		if !sent {
			return nil, err
		}
		return nil, nil
	}
	if st.done {
		return nil, nil
	}
	return st.attachLocked(w, true), nil
}

var errSecondGETStream = errors.New("mcphttp: a GET stream is already open")

// replay writes to w the stored events of a stream after lastID, starting
// the SSE response on the first one; sent reports whether it did. Priming
// events are not replayed: they carry nothing.
func replay(ctx context.Context, store EventStore, session, streamID, lastID string, w http.ResponseWriter) (sent bool, err error) {
	rc := http.NewResponseController(w)
	var frame []byte
	err = store.Replay(ctx, session, streamID, lastID, func(id string, data []byte) error {
		if len(data) == 0 {
			return nil
		}
		if !sent {
			_ = rc.SetWriteDeadline(time.Time{})
			writeSSEHeaders(w)
			sent = true
		}
		frame = appendEvent(frame[:0], id, data, false, 0)
		if _, err := w.Write(frame); err != nil {
			return err
		}
		return rc.Flush()
	})
	if err == nil && !sent {
		// Nothing was missed: the headers still open the stream.
		_ = rc.SetWriteDeadline(time.Time{})
		writeSSEHeaders(w)
		_ = rc.Flush()
		sent = true
	}
	return sent, err
}

// pump serves an attachment's HTTP request until the stream ends or lets
// go of it, the client goes away, or the session ends, writing keep-alive
// comments while the stream is quiet. It serves GET streams and the POST
// streams whose handler runs on a goroutine of its own.
func (h *Handler) pump(r *http.Request, st *stream, att *attachment, sessionDone <-chan struct{}) {
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
			if st.detach(att) && h.onDetach != nil {
				h.onDetach()
			}
			return
		case <-sessionDone:
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
// headers are flushed. A handler that answers sooner, with nothing sent
// before its response, has its whole reply (headers, event and end) sent
// in one write; a slower one lets the client see the stream open soon
// after.
const headerDelay = 100 * time.Millisecond

// openInline attaches w, the response to r, to carry the stream while the
// request is served on r's own goroutine, which then calls closeInline.
// Nothing is sent yet. If the handler outlasts headerDelay (or the
// keep-alive interval, when shorter) a tick (from the Handler's
// inlineWatch) flushes the headers and starts watching for the client
// going away; keep-alives follow while the stream is quiet.
func (st *stream) openInline(w http.ResponseWriter, r *http.Request) {
	att := &st.first
	att.w = w
	att.rc = *http.NewResponseController(w)
	if st.lazy {
		att.pending = true
	} else {
		writeSSEHeaders(w)
	}
	st.mu.Lock()
	st.att = att
	st.req = r
	st.mu.Unlock()
	st.h.inline.add(st)
}

// tick is called by the Handler's inlineWatch once an inline stream has
// been open for its delay, and then, with keep-alives, by the stream's own
// timer.
func (st *stream) tick() {
	st.mu.Lock()
	defer st.mu.Unlock()
	att := st.att
	if att != &st.first {
		return // the stream has ended or the client has gone
	}
	if st.unwatch == nil {
		// Disconnection is not cancellation: the handler goes on, but
		// its events are not written to a dead connection.
		st.unwatch = context.AfterFunc(st.req.Context(), func() {
			if st.detach(att) && st.h.onDetach != nil {
				st.h.onDetach()
			}
		})
	}
	if !att.flushed {
		if st.flushLocked() != nil {
			st.detachLocked()
			return
		}
		st.quiet = true
	} else if !st.keepAliveLocked() {
		return
	}
	if ka := st.h.opts.KeepAlive; ka > 0 {
		if st.timer == nil {
			st.timer = time.AfterFunc(ka, st.tick)
		} else {
			st.timer.Reset(ka)
		}
	}
}

// stopWatching ends what watches an inline stream whose attachment is
// gone: the Handler's inlineWatch, its keep-alive timer t and unwatch, its
// watch on the request's context (both read under mu, nil when never
// set). A tick that starts after the attachment went finds nothing to do
// and sets no timer.
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
	st.mu.Lock()
	if st.att != &st.first || !st.first.pending {
		st.mu.Unlock()
		return false
	}
	st.done = true
	st.detachLocked()
	st.req = nil
	t, unwatch := st.timer, st.unwatch
	st.mu.Unlock()
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
