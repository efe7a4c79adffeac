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

	mu    sync.Mutex
	att   *attachment
	seq   uint64
	done  bool // the stream has ended (its response was sent)
	quiet bool // no event since the last keep-alive tick
	frame []byte
}

// attachment is the HTTP response currently carrying a stream.
type attachment struct {
	w    http.ResponseWriter
	rc   *http.ResponseController
	gone chan struct{} // closed when detached
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

// writeSSEHeaders starts an SSE response.
func writeSSEHeaders(w http.ResponseWriter) {
	hdr := w.Header()
	hdr.Set("Content-Type", mediaSSE)
	hdr.Set("Cache-Control", "no-cache")
	// Proxies such as nginx would otherwise buffer the stream.
	hdr.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
}

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

// open attaches w, sends the SSE headers and, for a resumable stream of a
// session at 2025-11-25 or later, the priming event that gives the client
// an id to resume from. With exclusive set it refuses (nil) when another
// connection is attached: the GET stream's one-at-a-time rule.
func (st *stream) open(ctx context.Context, w http.ResponseWriter, version string, exclusive bool) *attachment {
	st.mu.Lock()
	defer st.mu.Unlock()
	if exclusive && st.att != nil {
		return nil
	}
	att := st.attachLocked(w, false)
	if st.store != nil && version >= mcp.Version20251125 {
		st.primeLocked(ctx)
	} else {
		_ = att.rc.Flush()
	}
	return att
}

// attachLocked makes w carry the stream, letting go of any connection that
// carried it before.
func (st *stream) attachLocked(w http.ResponseWriter, headerSent bool) *attachment {
	if st.att != nil {
		st.detachLocked()
	}
	att := &attachment{w: w, rc: http.NewResponseController(w), gone: make(chan struct{})}
	// A server-wide write timeout would cut a long stream.
	_ = att.rc.SetWriteDeadline(time.Time{})
	if !headerSent {
		writeSSEHeaders(w)
	}
	st.att = att
	return att
}

func (st *stream) detachLocked() {
	close(st.att.gone)
	st.att = nil
	st.frame = nil // an idle session keeps no write buffer
}

// detach lets go of att if it still carries the stream.
func (st *stream) detach(att *attachment) {
	st.mu.Lock()
	if st.att == att {
		st.detachLocked()
	}
	st.mu.Unlock()
}

// primeLocked sends the priming event: an id and empty data, with retry.
func (st *stream) primeLocked(ctx context.Context) {
	st.seq++
	id := eventID(st.num, st.seq)
	if err := st.store.Append(ctx, st.session, st.streamID(), id, nil); err != nil {
		st.h.logger.Error("mcphttp: event store append failed", "session", st.session, "err", err)
		_ = st.att.rc.Flush()
		return
	}
	_ = st.writeLocked(id, nil, true)
}

// WriteMessage implements mcp.MessageWriter: it sends msg as the stream's
// next event, keeping it in the EventStore first when there is one.
func (st *stream) WriteMessage(ctx context.Context, msg jsonrpc.Message) error {
	if _, isReq := msg.(*jsonrpc.Request); isReq && !st.requests {
		return errNoRequests
	}
	data, err := jsonrpc.Encode(msg)
	if err != nil {
		return err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.emitLocked(ctx, data)
}

func (st *stream) emitLocked(ctx context.Context, data []byte) error {
	if st.done {
		return errStreamDone
	}
	var id string
	if st.store != nil {
		st.seq++
		id = eventID(st.num, st.seq)
		if err := st.store.Append(ctx, st.session, st.streamID(), id, data); err != nil {
			st.h.logger.Error("mcphttp: event store append failed", "session", st.session, "err", err)
			id = ""
		}
	}
	if st.att == nil {
		if id != "" {
			return nil // kept for the client to resume
		}
		return errNotConnected
	}
	if err := st.writeLocked(id, data, false); err != nil && id == "" {
		return err
	}
	return nil
}

// writeLocked writes one event to the attached connection and flushes it;
// a failed write detaches the connection.
func (st *stream) writeLocked(id string, data []byte, priming bool) error {
	st.frame = appendEvent(st.frame[:0], id, data, priming, st.h.opts.RetryInterval)
	_, err := st.att.w.Write(st.frame)
	if err == nil {
		err = st.att.rc.Flush()
	}
	if cap(st.frame) > 64<<10 {
		st.frame = nil
	}
	st.quiet = false
	if err != nil {
		st.detachLocked()
	}
	return err
}

// finish sends resp (if not nil) as the stream's last event and ends the
// stream, which ends the HTTP response carrying it.
func (st *stream) finish(ctx context.Context, resp *jsonrpc.Response) {
	var data []byte
	if resp != nil {
		var err error
		if data, err = jsonrpc.Encode(resp); err != nil {
			st.h.logger.Error("mcphttp: encoding a response", "err", err)
			data = nil
		}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if data != nil {
		_ = st.emitLocked(ctx, data)
	}
	st.done = true
	if st.att != nil {
		st.detachLocked()
	}
}

// closeConnection lets go of the connection carrying the stream without
// ending the stream, so that the client polls it with GET and
// Last-Event-ID (mcp.RequestExtra.CloseStream). The priming event told the
// client how long to wait.
func (st *stream) closeConnection() {
	st.mu.Lock()
	if st.att != nil {
		st.detachLocked()
	}
	st.mu.Unlock()
}

// keepAlive writes a comment line if the stream was quiet since the last
// tick. It returns false once att no longer carries the stream.
func (st *stream) keepAlive(att *attachment) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.att != att {
		return false
	}
	if !st.quiet {
		st.quiet = true
		return true
	}
	if _, err := att.w.Write([]byte(": keep-alive\n\n")); err != nil || att.rc.Flush() != nil {
		st.detachLocked()
		return false
	}
	return true
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
// comments while the stream is quiet.
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
			st.detach(att)
			if h.onDetach != nil {
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
