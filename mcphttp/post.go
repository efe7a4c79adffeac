package mcphttp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/internal/httpguard"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// This file serves POST: one JSON-RPC message per body
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server).

func (h *Handler) servePOST(w http.ResponseWriter, r *http.Request) {
	if !accepts(r.Header, mediaJSON) || (!h.opts.JSONResponse && !accepts(r.Header, mediaSSE)) {
		e := errNotAcceptPOST
		if h.opts.JSONResponse {
			e = errNotAcceptJSON
		}
		h.refuse(w, r, http.StatusNotAcceptable, jsonrpc.ID{}, e)
		return
	}
	if !isJSONContent(r.Header) {
		h.refuse(w, r, http.StatusUnsupportedMediaType, jsonrpc.ID{}, httpguard.ErrUnsupportedType)
		return
	}
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
	// A single message is decoded once, here; one of the 2026-07-28 era
	// is served on its own path (stateless.go), before the session era's
	// checks of MCP-Protocol-Version, which name only its own versions.
	var msg jsonrpc.Message
	var id jsonrpc.ID
	var decodeErr error
	if firstByte(body) == '{' {
		msg, id, decodeErr = jsonrpc.Decode(body)
		if decodeErr == nil {
			if req, ok := msg.(*jsonrpc.Request); ok && !h.checkScopes(w, r, req) {
				return
			}
			if v, ok := h.statelessOf(r, msg); ok {
				h.serveStateless(w, r, msg, v)
				return
			}
		} else if isStatelessVersion(headerVersion(r.Header)) {
			// An object that is no message (a member repeated, say)
			// under a 2026-07-28 header is refused for what it is: the
			// session era's "unsupported version" would send the
			// client back to initialize.
			h.refuse(w, r, http.StatusBadRequest, id, decodeErr.(*jsonrpc.Error))
			return
		}
	}
	if e := checkVersion(r.Header); e != nil && !(isInitialize(msg) && isStatelessVersion(headerVersion(r.Header))) {
		// A client that tried 2026-07-28 first may fall back to
		// initialize with the header still naming it: initialize
		// negotiates its version in the body.
		h.refuse(w, r, http.StatusBadRequest, jsonrpc.ID{}, e)
		return
	}
	switch firstByte(body) {
	case '{':
	case '[':
		if !json.Valid(body) {
			h.refuse(w, r, http.StatusBadRequest, jsonrpc.ID{}, httpguard.ErrParse)
			return
		}
		h.serveBatch(w, r, body)
		return
	default:
		e := httpguard.ErrParse
		if json.Valid(body) {
			e = errNotSingle
		}
		h.refuse(w, r, http.StatusBadRequest, jsonrpc.ID{}, e)
		return
	}
	if decodeErr != nil {
		h.refuse(w, r, http.StatusBadRequest, id, decodeErr.(*jsonrpc.Error))
		return
	}
	if h.opts.Stateless {
		h.serveSessionless(w, r, msg)
		return
	}
	sid := headerValue(r.Header, headerSessionID)
	if sid == "" {
		switch m := msg.(type) {
		case *jsonrpc.Request:
			if m.Method == "initialize" {
				h.initialize(w, r, m)
				return
			}
		case *jsonrpc.Notification:
			if m.Method == "initialize" {
				// An initialize without an id is a notification: nothing to
				// answer and no session to create.
				w.WriteHeader(http.StatusAccepted)
				return
			}
		}
		h.refuse(w, r, http.StatusBadRequest, id, errSessionRequired)
		return
	}
	if req, ok := msg.(*jsonrpc.Request); ok {
		_, owner := h.authOf(r)
		e, ok := h.acquireRequest(w, r, sid, owner, req.ID)
		if !ok {
			return
		}
		if e == nil {
			// Not held here: with a shared store, rebuilt from it
			// (shared.go); otherwise 404.
			if !h.adopt(w, r, sid, owner, id) {
				return
			}
			if e, ok = h.acquireRequest(w, r, sid, owner, req.ID); !ok {
				return
			}
			if e == nil {
				h.refuse(w, r, http.StatusNotFound, id, httpguard.ErrSessionNotFound)
				return
			}
		} else if e.shared {
			if ok, gone := h.touchShared(w, r, e, id); !ok {
				h.reg.finishRequest(e, req.ID)
				if gone {
					h.dropShared(e)
				}
				return
			}
		}
		if e.shared {
			h.shareStandalone(e) // shared_streams.go
		}
		h.serveRequest(w, r, e, req)
		return
	}
	e := h.acquireShared(w, r, sid) // shared.go
	if e == nil {
		return
	}
	ctx := context.WithoutCancel(r.Context())
	switch m := msg.(type) {
	case *jsonrpc.Notification:
		e.host().Deliver(ctx, e.ss, m, h.notificationExtra(r))
		err := h.routeNotification(ctx, e, m) // shared_routing.go
		h.reg.release(e)
		if err != nil {
			h.refuseBus(w, r, err)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	case *jsonrpc.Response:
		// A response to no pending request of this session (one meant for
		// another session, say) is ignored.
		var err error
		if !e.host().Deliver(ctx, e.ss, m, nil) {
			err = h.routeResponse(ctx, e, m) // shared_routing.go
		}
		h.reg.release(e)
		if err != nil {
			h.refuseBus(w, r, err)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}
}

// firstByte returns the first byte of body that is not JSON white space,
// or 0.
func firstByte(body []byte) byte {
	for _, c := range body {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
	return 0
}

// initialBodyBuffer is the most readBody allocates for a body before its
// bytes arrive: a body announcing a larger Content-Length gets a buffer
// that grows as it is received, so that a client announcing a large body
// and sending little costs little.
const initialBodyBuffer = 16 << 10

// readBody reads the POST body up to MaxBodyBytes; a larger body is refused
// with 413, before reading when Content-Length announces it. The read is
// bounded by BodyReadTimeout: a body that stalls is answered 408 and its
// connection closed.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	limit := h.opts.MaxBodyBytes
	if r.ContentLength > limit {
		h.refuse(w, r, http.StatusRequestEntityTooLarge, jsonrpc.ID{}, httpguard.TooLarge(limit))
		return nil, false
	}
	var br *bodyRead
	if d := h.opts.BodyReadTimeout; d > 0 && r.ContentLength != 0 {
		// A ResponseWriter that cannot set a deadline (not net/http's)
		// leaves the read untimed. The deadline is set only if the read
		// is still in progress when it is due (bodywatch.go).
		if dl := readDeadlinerOf(w); dl != nil {
			br = h.bodies.start(dl, d)
		}
	}
	var buf []byte
	var err error
	if r.ContentLength > 0 {
		// net/http's body reader stops at Content-Length, which is within
		// the limit.
		buf, err = readKnownLength(r.Body, int(r.ContentLength))
	} else {
		b := bytes.NewBuffer(make([]byte, 0, 512))
		_, err = b.ReadFrom(http.MaxBytesReader(w, r.Body, limit))
		buf = b.Bytes()
	}
	timed := false
	if br != nil {
		_, failed := h.bodies.done(br, err == nil)
		timed = !failed
	}
	if err != nil {
		h.refuseBody(w, r, err, timed)
		return nil, false
	}
	if r.ContentLength > 0 {
		closeReadBody(r)
	}
	return buf, true
}

// closeReadBody closes a body read to its announced length when it is
// net/http's HTTP/1 body and reports its end, sparing net/http's drain at
// the reply (docs/design.md, "Body read deadlines"); any other body is left
// to net/http.
func closeReadBody(r *http.Request) {
	if r.ProtoMajor != 1 || http1Body == nil || reflect.TypeOf(r.Body) != http1Body {
		return
	}
	if n, err := r.Body.Read(nil); n == 0 && err == io.EOF {
		_ = r.Body.Close()
	}
}

// http1Body is the type of the body net/http's HTTP/1 server gives a
// request with a Content-Length (nil if it cannot be found out), which
// reports its end as soon as that length has been read.
var http1Body = func() reflect.Type {
	req, err := http.ReadRequest(bufio.NewReader(strings.NewReader("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\n.")))
	if err != nil {
		return nil
	}
	return reflect.TypeOf(req.Body)
}()

// refuseBody answers a POST whose body could not be read: 413 when it
// is over MaxBodyBytes, 408 when it did not arrive in time (timed: a
// read deadline was set), 400 otherwise.
func (h *Handler) refuseBody(w http.ResponseWriter, r *http.Request, err error, timed bool) {
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		h.refuse(w, r, http.StatusRequestEntityTooLarge, jsonrpc.ID{}, httpguard.TooLarge(h.opts.MaxBodyBytes))
	case timed && isTimeout(err):
		// The read deadline stays in the past: closing the body reads
		// nothing more, and net/http closes the connection after the
		// answer rather than wait for the rest of the body.
		_ = r.Body.Close()
		h.refuse(w, r, http.StatusRequestTimeout, jsonrpc.ID{}, httpguard.BodyTimeout(h.opts.BodyReadTimeout))
	default:
		h.refuse(w, r, http.StatusBadRequest, jsonrpc.ID{}, httpguard.ServerError("Bad Request: reading the body failed"))
	}
}

// readKnownLength reads a body of n bytes. Up to initialBodyBuffer it
// reads into a buffer of exactly that size; a longer body's buffer starts
// at initialBodyBuffer and doubles (up to n) as it fills.
func readKnownLength(body io.Reader, n int) ([]byte, error) {
	buf := make([]byte, min(n, initialBodyBuffer))
	bodyBufferGrown(cap(buf))
	read := 0
	for {
		m, err := io.ReadFull(body, buf[read:])
		read += m
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if read == n {
			return buf, nil
		}
		next := make([]byte, min(2*len(buf), n))
		copy(next, buf)
		buf = next
		bodyBufferGrown(cap(buf))
	}
}

// readDeadliner is what http.ResponseController.SetReadDeadline looks for
// in a ResponseWriter, itself or unwrapped.
type readDeadliner interface {
	SetReadDeadline(time.Time) error
}

// readDeadlinerOf finds w's read deadline setter as
// http.ResponseController does, without allocating when there is none.
func readDeadlinerOf(w http.ResponseWriter) readDeadliner {
	for {
		switch t := w.(type) {
		case readDeadliner:
			return t
		case interface{ Unwrap() http.ResponseWriter }:
			w = t.Unwrap()
		default:
			return nil
		}
	}
}

// isTimeout reports whether err is a read deadline passing.
func isTimeout(err error) bool {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// serveRequest serves a request on live session e, acquired with the
// request in flight (registry.acquireRequest); it ends both.
func (h *Handler) serveRequest(w http.ResponseWriter, r *http.Request, e *entry, req *jsonrpc.Request) {
	// Disconnection is not cancellation: the handler outlives the request's
	// context, and ends early only through notifications/cancelled or the
	// session's end.
	ctx := context.WithoutCancel(r.Context())
	if req.Method == "initialize" || h.opts.JSONResponse {
		// An initialize on a live session is refused with -32600 "Server
		// already initialized" and changes nothing; it is answered, like
		// every request in JSON response mode, with a single JSON body.
		info, _ := h.authOf(r)
		resp, err := e.host().HandleRequest(ctx, e.ss, req, jsonModeWriter{}, &mcp.RequestExtra{Header: r.Header, Auth: info})
		h.reg.finishRequest(e, req.ID)
		if req.Method == "initialize" && err == nil && resp != nil && resp.Error != nil {
			h.refuse(w, r, http.StatusBadRequest, req.ID, resp.Error)
			return
		}
		h.writeJSONReply(w, r, req.ID, resp, err)
		return
	}
	st := h.newStream(e, true)
	h.reg.track(e, req.ID, st)
	st.extra.Header = r.Header
	st.extra.Auth, _ = h.authOf(r)
	extra := &st.extra // allocated with the stream
	if st.store == nil {
		// The common case: the handler runs on this goroutine, and a quick
		// reply goes out in one write.
		st.openInline(w, r)
		resp, err := e.host().HandleRequest(ctx, e.ss, req, st, extra)
		// The id is free again before the client can see the response
		// and send its next request.
		h.reg.finishRequest(e, req.ID)
		st.closeInline(ctx, h.replyOf(e, req.ID, resp, err))
		return
	}
	// A resumable stream: the handler runs on a goroutine of its own, so
	// that the connection can end first (mcp.RequestExtra.CloseStream)
	// and the client resume the stream with GET. Only a client at
	// 2025-11-25 or later is told to resume a closed stream: older ones
	// get no priming event, so they would be left with no event id to
	// resume from, and their handlers get no CloseStream.
	if e.ss.ProtocolVersion() >= mcp.Version20251125 {
		extra.CloseStream = st.closeConnection
	}
	// The stream starts at once, or deferred for JSONReplyWithin
	// (jsonreply.go); a shared session's stream stores the request's id
	// with its priming event (shared_lease.go).
	window := h.opts.JSONReplyWithin
	var att *attachment
	if window > 0 {
		att = st.openDeferred(w, r, e.ss.ProtocolVersion() >= mcp.Version20251125, st.leaseMarker(req.ID))
	} else {
		st.mu.Lock()
		st.marker = st.leaseMarker(req.ID)
		st.mu.Unlock()
		att = st.open(ctx, w, r, e.ss.ProtocolVersion(), false, true)
	}
	h.reg.wg.Add(1)
	go func() {
		defer h.reg.wg.Done()
		resp, err := e.host().HandleRequest(ctx, e.ss, req, st, extra)
		h.reg.endRequest(e, req.ID)
		st.finish(ctx, h.replyOf(e, req.ID, resp, err))
		st.stopLease()
		h.reg.dropStream(e, st)
		h.reg.release(e)
	}()
	if window > 0 && !h.awaitReply(ctx, r, st, att, e.ss.Done(), window) {
		return
	}
	h.pump(r, st, att, e.ss.Done())
}

// replyOf is responseFor for a session's inline stream: nothing once the
// session has ended, as when its stream was let go of on the session's
// end.
func (h *Handler) replyOf(e *entry, id jsonrpc.ID, resp *jsonrpc.Response, err error) *jsonrpc.Response {
	select {
	case <-e.ss.Done():
		if h.forced.Load() {
			return jsonrpc.NewErrorResponse(id, errShuttingDown)
		}
		return nil
	default:
		return responseFor(resp, err)
	}
}

// writeJSONReply answers a request in JSON response mode: the response as
// the body, 202 when there is none (the request was cancelled), 404 when
// the session refused to serve it (it has closed).
func (h *Handler) writeJSONReply(w http.ResponseWriter, r *http.Request, id jsonrpc.ID, resp *jsonrpc.Response, err error) {
	switch {
	case err != nil:
		h.refuse(w, r, http.StatusNotFound, id, httpguard.ErrSessionNotFound)
	case resp == nil:
		w.WriteHeader(http.StatusAccepted)
	default:
		h.writeJSON(w, resp)
	}
}

// writeJSON sends msg as a 200 application/json body.
func (h *Handler) writeJSON(w http.ResponseWriter, msg jsonrpc.Message) {
	p := framePool.Get().(*[]byte)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		if head, ok := appendLargeHead((*p)[:0], resp); ok {
			// The large result is written where it lies (sse.go).
			hdr := w.Header()
			hdr["Content-Type"] = hdrJSON
			hdr["Content-Length"] = []string{strconv.Itoa(len(head) + len(resp.Result) + 1)}
			w.WriteHeader(http.StatusOK)
			if _, err := w.Write(head); err == nil {
				if _, err = w.Write(resp.Result); err == nil {
					_, _ = w.Write(closeBrace)
				}
			}
			putFrame(p, head)
			return
		}
	}
	body, err := jsonrpc.AppendEncode((*p)[:0], msg)
	if err != nil {
		h.logger.Error("mcphttp: encoding a response", "err", err)
		body, _ = jsonrpc.AppendEncode(body[:0], jsonrpc.NewErrorResponse(jsonrpc.ID{}, errInternal))
	}
	hdr := w.Header()
	hdr["Content-Type"] = hdrJSON
	if len(body) > autoLengthLimit {
		hdr["Content-Length"] = []string{strconv.Itoa(len(body))}
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body) // copied: the buffer goes back to the pool
	putFrame(p, body)
}

// autoLengthLimit is the longest body net/http sends with a Content-Length
// it works out itself, when the handler returns without flushing (its
// buffer before chunking, 2048 bytes); a longer one would go chunked, so
// writeJSON states its length.
const autoLengthLimit = 2048

var hdrJSON = []string{mediaJSON} // shared, like the SSE header values (sse.go)

var closeBrace = []byte("}")

// jsonModeWriter is the related writer of a request answered with a single
// JSON body: that body carries only the response, so notifications are
// dropped and server-to-client requests fail at once rather than wait for
// an answer that cannot come.
type jsonModeWriter struct{}

func (jsonModeWriter) WriteMessage(_ context.Context, msg jsonrpc.Message) error {
	if _, ok := msg.(*jsonrpc.Request); ok {
		return errNoRequests
	}
	return nil
}

// collector keeps the notifications an initialize handler sends, to be
// sent once it is known whether the session exists.
type collector struct {
	mu   sync.Mutex
	msgs []jsonrpc.Message
}

func (c *collector) WriteMessage(_ context.Context, msg jsonrpc.Message) error {
	if _, ok := msg.(*jsonrpc.Request); ok {
		return errNoRequests
	}
	c.mu.Lock()
	c.msgs = append(c.msgs, msg)
	c.mu.Unlock()
	return nil
}

func (c *collector) take() []jsonrpc.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.msgs
}
