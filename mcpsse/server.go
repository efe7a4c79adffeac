package mcpsse

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"math"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpkit/mcpkit/internal/httpguard"
	"github.com/mcpkit/mcpkit/internal/sessquota"
	"github.com/mcpkit/mcpkit/internal/sse"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// SessionParam is the query parameter of the endpoint URL that names the
// session, as the TypeScript SDK names it.
const SessionParam = "sessionId"

// Handler serves the HTTP+SSE transport of protocol 2024-11-05
// (https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse):
// a GET opens an SSE stream, one session (mcp.Server.Connect); each POST is
// answered 202 and its reply arrives on the stream. To serve old clients
// beside Streamable HTTP, mount both on one mux
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#backwards-compatibility):
//
//	mux.Handle("/mcp", mcphttp.NewHandler(server, nil))
//	sse := mcpsse.NewHandler(server, &mcpsse.Options{MessagePath: "/messages"})
//	mux.Handle("/sse", sse)
//	mux.Handle("/messages", sse)
type Handler struct {
	server *mcp.Server
	opts   Options
	guard  httpguard.Guard

	mu       sync.Mutex
	sessions map[string]*stream
	// quota counts the streams of each quota key (principal or client
	// address); quotas are the Options' limits.
	quota  sessquota.Table[*stream]
	quotas sessquota.Limits
	closed bool

	streams  sync.WaitGroup
	reapStop chan struct{}
	// ended, if set (by tests), is called once a stream has ended and
	// its session is over.
	ended    func(id string)
	reapDone chan struct{}
}

// NewHandler returns a Handler serving server. opts may be nil.
func NewHandler(server *mcp.Server, opts *Options) *Handler {
	var o Options
	if opts != nil {
		o = *opts
	}
	h := &Handler{
		server:   server,
		opts:     o.resolve(),
		sessions: make(map[string]*stream),
		guard:    httpguard.Guard{AllowedHosts: o.AllowedHosts, AllowedOrigins: o.AllowedOrigins},
	}
	h.quotas = sessquota.Limits{PerPrincipal: h.opts.MaxSessionsPerPrincipal, PerAddress: h.opts.MaxSessionsPerAddress, TrustedProxies: h.opts.TrustedProxies}
	if h.opts.IdleTimeout > 0 && h.opts.ReapInterval > 0 {
		h.reapStop = make(chan struct{})
		h.reapDone = make(chan struct{})
		go h.reap()
	}
	return h
}

// SessionCount returns the number of open streams.
func (h *Handler) SessionCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

// Close closes every stream, which ends its session, stops the reaper and
// waits for the streams to finish. Later requests are answered 503.
func (h *Handler) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		h.streams.Wait()
		return nil
	}
	h.closed = true
	all := make([]*stream, 0, len(h.sessions))
	for _, s := range h.sessions {
		all = append(all, s)
	}
	h.mu.Unlock()
	if h.reapStop != nil {
		close(h.reapStop)
		<-h.reapDone
	}
	for _, s := range all {
		s.end(errHandlerClosed)
	}
	h.streams.Wait()
	return nil
}

// ServeHTTP implements http.Handler: GET opens a stream, POST delivers a
// message to one. The reply to an HTTP/1.x request with a chunked body
// closes its connection (RFC 9112 section 6.1; see docs/limits.md).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	httpguard.CloseChunked(w, r)
	if !h.opts.DisableDNSRebindingProtection {
		if header, value := h.guard.Check(r); header != "" {
			h.refuse(w, r, http.StatusForbidden, httpguard.Forbidden(header, value))
			return
		}
	}
	switch r.Method {
	case http.MethodGet:
		h.serveStream(w, r)
	case http.MethodPost:
		h.servePost(w, r)
	default:
		w.Header().Set("Allow", "GET, POST")
		h.refuse(w, r, http.StatusMethodNotAllowed, httpguard.MethodNotAllowed("GET, POST"))
	}
}

// refuse writes status and a JSON-RPC error response with id null.
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, status int, e *jsonrpc.Error) {
	httpguard.Refuse(w, status, jsonrpc.ID{}, e)
	h.opts.Logger.Debug("mcpsse: refused", "method", r.Method, "status", status, "code", e.Code, "message", e.Message)
}

var (
	errNoSession = httpguard.ServerError("Bad Request: the " + SessionParam + " query parameter is required")
	errNoFlush   = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error: the response writer cannot stream"}
)

func errHandOff(d time.Duration) *jsonrpc.Error {
	return httpguard.ServerError(fmt.Sprintf("Service Unavailable: the session did not take the message within %s", d))
}

// Why a stream ended, for the log.
var (
	errHandlerClosed = errors.New("mcpsse: handler closed")
	errIdle          = errors.New("mcpsse: session idle")
	// ErrSlowClient ends a stream whose client does not read: its queue
	// passed MaxStreamQueueBytes, or a write passed WriteTimeout.
	ErrSlowClient = errors.New("mcpsse: the client is not reading its stream")
)

// serveStream opens a stream: a new session, announced by the endpoint
// event, that lasts until the stream ends.
func (h *Handler) serveStream(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	principal := ""
	if h.opts.Principal != nil {
		principal = h.opts.Principal(r)
	}
	qkey, qmax, qkind := h.quotas.Key(r, principal)
	s, retryAfter, quota, ok := h.register(qkey, qmax)
	if !ok {
		if h.isClosed() {
			h.refuse(w, r, http.StatusServiceUnavailable, httpguard.ErrClosed)
			return
		}
		w.Header().Set("Retry-After", strconv.Itoa(sessquota.RetrySeconds(retryAfter)))
		if quota {
			h.refuse(w, r, http.StatusTooManyRequests, sessquota.Refusal(qkind, qmax))
			return
		}
		h.refuse(w, r, http.StatusServiceUnavailable, httpguard.CapReached(h.opts.MaxSessions))
		return
	}
	defer h.streams.Done()
	defer func() {
		h.unregister(s)
		if h.ended != nil {
			h.ended(s.id)
		}
	}()

	path := h.opts.MessagePath
	if path == "" {
		path = r.URL.Path
	}
	endpoint := (&url.URL{Path: path, RawQuery: SessionParam + "=" + url.QueryEscape(s.id)}).String()

	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-cache, no-transform")
	hdr.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if err := h.write(w, rc, []byte("event: endpoint\ndata: "+endpoint+"\n\n")); err != nil {
		if errors.Is(err, http.ErrNotSupported) {
			h.opts.Logger.Error("mcpsse: the ResponseWriter cannot flush; streams need one that can", "err", errNoFlush.Message)
		}
		s.end(err)
		return
	}

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	ss, err := h.server.Connect(ctx, s)
	if err != nil {
		s.end(err)
		return
	}
	h.pump(ctx, w, rc, s)
	s.end(nil)
	cancel()
	_ = ss.Wait()
}

// pump writes the stream's queued messages and keep-alives until the
// stream ends; it writes what is still queued then, under the deadline.
func (h *Handler) pump(ctx context.Context, w http.ResponseWriter, rc *http.ResponseController, s *stream) {
	var tick <-chan time.Time
	if h.opts.KeepAlive > 0 {
		t := time.NewTicker(h.opts.KeepAlive)
		defer t.Stop()
		tick = t.C
	}
	var buf []byte
	flush := func() error {
		buf = s.drain(buf[:0])
		if len(buf) == 0 {
			return nil
		}
		return h.write(w, rc, buf)
	}
	for {
		select {
		case <-s.wake:
			if err := flush(); err != nil {
				s.end(fmt.Errorf("%w: %w", ErrSlowClient, err))
				return
			}
		case <-tick:
			if err := h.write(w, rc, sse.KeepAlive); err != nil {
				s.end(err)
				return
			}
		case <-s.done:
			_ = flush()
			return
		case <-ctx.Done():
			return
		}
	}
}

// write writes b to the stream and flushes it, under WriteTimeout. The
// deadline is cleared afterwards: a quiet stream is not a slow one (over
// HTTP/2 a deadline that passes resets the stream even with no write).
func (h *Handler) write(w http.ResponseWriter, rc *http.ResponseController, b []byte) error {
	d := h.opts.WriteTimeout
	if d > 0 {
		_ = rc.SetWriteDeadline(time.Now().Add(d))
	}
	if _, err := w.Write(b); err != nil {
		return err
	}
	if err := rc.Flush(); err != nil {
		return err
	}
	if d > 0 {
		_ = rc.SetWriteDeadline(time.Time{})
	}
	return nil
}

// register adds a new stream under the quota of qkey (at most qmax
// streams; "" for none) and the cap, closing idle-expired ones at either.
// ok is false at the quota (quota is then true) or the cap (retryAfter
// is then the time until a session holding it may expire), or once the
// handler is closed.
func (h *Handler) register(qkey string, qmax int) (s *stream, retryAfter time.Duration, quota, ok bool) {
	now := time.Now()
	var expired []*stream
	defer func() {
		for _, e := range expired {
			e.end(errIdle)
		}
	}()
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, 0, false, false
	}
	if qkey != "" && h.quota.Count(qkey) >= qmax {
		soonest := h.reclaimLocked(maps.Keys(h.quota.Members(qkey)), now, &expired)
		if h.quota.Count(qkey) >= qmax {
			h.mu.Unlock()
			return nil, soonest, true, false
		}
	}
	if h.opts.MaxSessions > 0 && len(h.sessions) >= h.opts.MaxSessions {
		soonest := h.reclaimLocked(maps.Values(h.sessions), now, &expired)
		if len(h.sessions) >= h.opts.MaxSessions {
			h.mu.Unlock()
			return nil, soonest, false, false
		}
	}
	id := h.opts.SessionID()
	for try := 0; h.sessions[id] != nil || id == ""; try++ {
		if try >= 3 {
			// A generator that keeps repeating itself is not used.
			id = rand.Text()
		} else {
			id = h.opts.SessionID()
		}
	}
	s = newStream(id, h.opts.MaxStreamQueueBytes)
	h.sessions[id] = s
	if qkey != "" {
		s.quota = qkey
		h.quota.Reserve(qkey)
		h.quota.Commit(qkey, s)
	}
	h.streams.Add(1)
	h.mu.Unlock()
	return s, 0, false, true
}

// reclaimLocked unregisters the idle-expired streams of seq, adding them
// to expired for the caller to end outside the lock, and returns the time
// until the soonest of the others may expire (a minute when sessions never
// expire). Caller holds mu.
func (h *Handler) reclaimLocked(seq iter.Seq[*stream], now time.Time, expired *[]*stream) time.Duration {
	idle := h.opts.IdleTimeout
	if idle <= 0 {
		return time.Minute
	}
	soonest := time.Duration(math.MaxInt64)
	n := len(*expired)
	for s := range seq {
		if left := s.idleLeft(now, idle); left <= 0 {
			*expired = append(*expired, s)
		} else {
			soonest = min(soonest, left)
		}
	}
	for _, s := range (*expired)[n:] {
		h.forgetLocked(s)
	}
	return soonest
}

// forgetLocked unregisters s and takes it off its quota. Caller holds mu.
func (h *Handler) forgetLocked(s *stream) {
	if h.sessions[s.id] == s {
		delete(h.sessions, s.id)
	}
	if s.quota != "" {
		h.quota.Remove(s.quota, s)
	}
}

func (h *Handler) unregister(s *stream) {
	h.mu.Lock()
	h.forgetLocked(s)
	h.mu.Unlock()
	if s.why != nil {
		h.opts.Logger.Debug("mcpsse: stream closed", "err", s.why)
	}
}

func (h *Handler) isClosed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}

// lookup returns the live session id names, or nil; an idle-expired one
// is closed and counts as gone.
func (h *Handler) lookup(id string) *stream {
	h.mu.Lock()
	s := h.sessions[id]
	h.mu.Unlock()
	if s == nil {
		return nil
	}
	if h.opts.IdleTimeout > 0 && s.idleLeft(time.Now(), h.opts.IdleTimeout) <= 0 {
		s.end(errIdle)
		return nil
	}
	return s
}

// reap closes idle-expired sessions every ReapInterval.
func (h *Handler) reap() {
	defer close(h.reapDone)
	t := time.NewTicker(h.opts.ReapInterval)
	defer t.Stop()
	for {
		select {
		case <-h.reapStop:
			return
		case now := <-t.C:
			var expired []*stream
			h.mu.Lock()
			for _, s := range h.sessions {
				if s.idleLeft(now, h.opts.IdleTimeout) <= 0 {
					expired = append(expired, s)
				}
			}
			h.mu.Unlock()
			for _, s := range expired {
				s.end(errIdle)
			}
		}
	}
}

// servePost delivers a POSTed message to its session's read loop and
// answers 202 Accepted; the reply travels on the stream.
func (h *Handler) servePost(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get(SessionParam)
	if id == "" {
		h.refuse(w, r, http.StatusBadRequest, errNoSession)
		return
	}
	s := h.lookup(id)
	if s == nil {
		h.refuse(w, r, http.StatusNotFound, httpguard.ErrSessionNotFound)
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		h.refuse(w, r, http.StatusUnsupportedMediaType, httpguard.ErrUnsupportedType)
		return
	}
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
	body = bytes.TrimSpace(body)
	if !json.Valid(body) {
		h.refuse(w, r, http.StatusBadRequest, httpguard.ErrParse)
		return
	}
	s.touch()
	select {
	case s.in <- body: // the session's reader is waiting: no timer needed
		w.WriteHeader(http.StatusAccepted)
		return
	default:
	}
	var expired <-chan time.Time
	if d := h.opts.HandOffTimeout; d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		expired = t.C
	}
	select {
	case s.in <- body:
		w.WriteHeader(http.StatusAccepted)
	case <-s.done:
		h.refuse(w, r, http.StatusNotFound, httpguard.ErrSessionNotFound)
	case <-r.Context().Done():
	case <-expired:
		w.Header().Set("Retry-After", "1")
		h.refuse(w, r, http.StatusServiceUnavailable, errHandOff(h.opts.HandOffTimeout))
	}
}

// readBody reads a POST body within MaxBodyBytes and BodyReadTimeout.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	limit := h.opts.MaxBodyBytes
	if r.ContentLength > limit {
		h.refuse(w, r, http.StatusRequestEntityTooLarge, httpguard.TooLarge(limit))
		return nil, false
	}
	rc := http.NewResponseController(w)
	timed := false
	if d := h.opts.BodyReadTimeout; d > 0 && r.ContentLength != 0 {
		timed = rc.SetReadDeadline(time.Now().Add(d)) == nil
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooLarge *http.MaxBytesError
		var ne interface{ Timeout() bool }
		switch {
		case errors.As(err, &tooLarge):
			h.refuse(w, r, http.StatusRequestEntityTooLarge, httpguard.TooLarge(limit))
		case timed && errors.As(err, &ne) && ne.Timeout():
			_ = r.Body.Close()
			h.refuse(w, r, http.StatusRequestTimeout, httpguard.BodyTimeout(h.opts.BodyReadTimeout))
		default:
			h.refuse(w, r, http.StatusBadRequest, httpguard.ServerError("Bad Request: reading the body failed"))
		}
		return nil, false
	}
	if timed {
		_ = rc.SetReadDeadline(time.Time{})
	}
	return body, true
}

// stream is one SSE stream and the mcp.Connection of its session: POSTs
// feed Read, Write queues "message" events for the stream's writer.
type stream struct {
	id       string
	quota    string // the key of the quota it counts against, "" for none; guarded by Handler.mu
	maxQueue int
	in       chan []byte
	wake     chan struct{}
	done     chan struct{}
	once     sync.Once
	why      error        // why the stream ended, set before done is closed
	active   atomic.Int64 // unix nanoseconds of the last activity

	mu     sync.Mutex
	queue  [][]byte
	queued int
	ended  bool
}

func newStream(id string, maxQueue int) *stream {
	s := &stream{
		id:       id,
		maxQueue: maxQueue,
		in:       make(chan []byte),
		wake:     make(chan struct{}, 1),
		done:     make(chan struct{}),
	}
	s.touch()
	return s
}

func (s *stream) touch() { s.active.Store(time.Now().UnixNano()) }

// idleLeft returns how long s may stay idle before it expires.
func (s *stream) idleLeft(now time.Time, idle time.Duration) time.Duration {
	return time.Unix(0, s.active.Load()).Add(idle).Sub(now)
}

// Connect implements mcp.Transport: the stream is its own connection.
func (s *stream) Connect(context.Context) (mcp.Connection, error) { return s, nil }

// errStreamClosed ends Read once the stream is gone: the peer can neither
// send nor receive any more.
var errStreamClosed = fmt.Errorf("%w: %w", mcp.ErrConnectionClosed, io.EOF)

// Read implements mcp.Connection: the next POSTed message.
func (s *stream) Read(ctx context.Context) ([]byte, error) {
	select {
	case f := <-s.in:
		return f, nil
	case <-s.done:
		return nil, errStreamClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write implements mcp.Connection: it queues a "message" event. A stream
// whose queue would pass MaxStreamQueueBytes is closed.
func (s *stream) Write(_ context.Context, frame []byte) error {
	ev := make([]byte, 0, len(frame)+24)
	ev = append(ev, "event: message\n"...)
	for line := range bytes.Lines(frame) {
		ev = append(ev, "data: "...)
		ev = append(ev, bytes.TrimRight(line, "\r\n")...)
		ev = append(ev, '\n')
	}
	ev = append(ev, '\n')
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return mcp.ErrConnectionClosed
	}
	if s.maxQueue > 0 && s.queued+len(ev) > s.maxQueue {
		s.mu.Unlock()
		s.end(ErrSlowClient)
		return fmt.Errorf("%w: more than %d bytes queued", ErrSlowClient, s.maxQueue)
	}
	s.queue = append(s.queue, ev)
	s.queued += len(ev)
	s.mu.Unlock()
	s.touch()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return nil
}

// drain appends the queued events to buf and empties the queue.
func (s *stream) drain(buf []byte) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, ev := range s.queue {
		buf = append(buf, ev...)
		s.queue[i] = nil
	}
	s.queue = s.queue[:0]
	s.queued = 0
	return buf
}

// Close implements mcp.Connection: it ends the stream.
func (s *stream) Close() error {
	s.end(nil)
	return nil
}

// end closes the stream once; why is nil for an orderly end.
func (s *stream) end(why error) {
	s.once.Do(func() {
		s.why = why
		s.mu.Lock()
		s.ended = true
		s.mu.Unlock()
		close(s.done)
	})
}
