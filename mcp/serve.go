package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// This file serves a session over a stream Connection (stdio, in-memory):
// one read loop per connection, requests handled concurrently.

// Connect opens t and serves one session over it in the background until
// the peer closes the connection, ctx is done, or the session is closed.
// Use ServerSession.Wait to wait for the end.
func (s *Server) Connect(ctx context.Context, t Transport) (*ServerSession, error) {
	conn, err := t.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("mcp: connecting transport: %w", err)
	}
	w := newConnWriter(conn)
	ss := s.newSession(SessionOptions{Standalone: w})
	ss.loopDone = make(chan struct{})
	go func() {
		ss.loopErr = ss.serveConn(ctx, conn, w)
		close(ss.loopDone)
	}()
	return ss, nil
}

// Run serves one session over t and returns when it ends: nil when the
// peer closed the connection (EOF on stdin), ctx's error when ctx ended.
func (s *Server) Run(ctx context.Context, t Transport) error {
	ss, err := s.Connect(ctx, t)
	if err != nil {
		return err
	}
	return ss.Wait()
}

// Wait waits for a session started by Server.Connect to end and returns
// why: nil for a clean end of input.
func (ss *ServerSession) Wait() error {
	if ss.loopDone == nil {
		<-ss.done
		return nil
	}
	<-ss.loopDone
	return ss.loopErr
}

// connWriter encodes messages onto a Connection.
type connWriter struct {
	conn Connection
	// holder is conn when it can hold frames to write them together
	// (stdio), or nil.
	holder frameHolder

	mu    sync.Mutex
	timer *time.Timer // flushes held frames after holdDelay
	armed bool
}

// frameHolder is a Connection that can keep frames and write them with
// the next one (streamConn).
type frameHolder interface {
	hold(frame []byte) error
	flush() error
}

// holdDelay bounds how long a response is held for others to join it in
// one write, should the requests it waited for take longer.
const holdDelay = time.Millisecond

func newConnWriter(conn Connection) *connWriter {
	w := &connWriter{conn: conn}
	w.holder, _ = conn.(frameHolder)
	return w
}

// writeResponse writes a response. With more set (other requests are
// queued and will be answered soon) a holding connection keeps it, to
// write it with theirs: one write for many replies under pipelining. A
// timer writes it within holdDelay should they take longer.
func (w *connWriter) writeResponse(ctx context.Context, resp *jsonrpc.Response, more bool) error {
	if !more || w.holder == nil {
		return w.WriteMessage(ctx, resp)
	}
	err := encodeFrame(resp, w.holder.hold) // hold copies the frame
	w.mu.Lock()
	if !w.armed {
		w.armed = true
		if w.timer == nil {
			w.timer = time.AfterFunc(holdDelay, w.flushHeld)
		} else {
			w.timer.Reset(holdDelay)
		}
	}
	w.mu.Unlock()
	return err
}

// flushHeld writes the frames held, if any.
func (w *connWriter) flushHeld() {
	w.mu.Lock()
	w.armed = false
	w.mu.Unlock()
	if w.holder != nil {
		_ = w.holder.flush()
	}
}

// stop stops the timer and writes what is held.
func (w *connWriter) stop() {
	w.mu.Lock()
	if w.timer != nil {
		w.timer.Stop()
	}
	w.armed = false
	w.mu.Unlock()
	if w.holder != nil {
		_ = w.holder.flush()
	}
}

func (w *connWriter) WriteMessage(ctx context.Context, msg jsonrpc.Message) error {
	return encodeFrame(msg, func(frame []byte) error { return w.conn.Write(ctx, frame) })
}

// encodeFrame encodes msg in a pooled buffer and passes it to write, which
// must not keep it.
func encodeFrame(msg jsonrpc.Message, write func(frame []byte) error) error {
	p := framePool.Get().(*[]byte)
	frame, err := jsonrpc.AppendEncode((*p)[:0], msg)
	if err == nil {
		err = write(frame)
	}
	if cap(frame) <= 64<<10 {
		*p = frame[:0]
		framePool.Put(p)
	}
	return err
}

// framePool holds the buffers outgoing frames are encoded in.
var framePool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// serveConn is the read loop of a stream connection.
func (ss *ServerSession) serveConn(parent context.Context, conn Connection, w *connWriter) error {
	ctx, cancel := context.WithCancel(parent)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		ss.Close()
		wg.Wait()
		w.stop()
		conn.Close()
	}()
	// Closing the session or ending ctx unblocks Read.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	go func() {
		select {
		case <-ss.done:
			conn.Close()
		case <-ctx.Done():
		}
	}()

	// At most MaxConcurrentRequests handlers run at once, on reused
	// workers (serve_pool.go). As many again may wait for a slot without
	// holding up the read loop, so that ping, notifications/cancelled and
	// responses are still read while every slot is busy; past that the read
	// loop waits (back-pressure on the peer).
	var pool *workPool
	pool = newWorkPool(ctx, ss.server.opts.MaxConcurrentRequests, &wg, func(j job) {
		if j.req != nil {
			resp := ss.answer(ctx, j.req, w)
			if resp != nil {
				// Replies to pipelined requests go out together.
				_ = w.writeResponse(ctx, resp, pool.queued() > 0)
			}
		} else {
			ss.serveBatch(ctx, j.batch, w)
		}
	})
	defer pool.close() // before wg.Wait, which the earlier defer does
	for {
		frame, err := conn.Read(ctx)
		if err != nil {
			var tooLarge *FrameTooLargeError
			if errors.As(err, &tooLarge) {
				// A request the transport found the id of is answered at
				// that id; a response fails the call it answers; the rest
				// get an answer without id.
				switch id := tooLarge.ID; {
				case id.IsValid() && tooLarge.Request:
					_ = w.WriteMessage(ctx, jsonrpc.NewErrorResponse(id, errFrameTooLarge(tooLarge.Limit)))
				case id.IsValid() && ss.calls.fail(id, tooLarge):
				default:
					_ = w.WriteMessage(ctx, jsonrpc.NewErrorResponse(jsonrpc.ID{}, errFrameTooLarge(tooLarge.Limit)))
				}
				continue
			}
			if errors.Is(err, io.EOF) && !errors.Is(err, ErrConnectionClosed) && !isClosed(ss) {
				// End of input is the client's way to shut down
				// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#stdio):
				// requests already read are still answered, but nothing
				// more can arrive, so requests to the client fail at once
				// and subscriptions/listen streams end.
				ss.calls.closeAll()
				ss.server.endListens(ss) // listen.go
				pool.close()
				wg.Wait()
				w.stop()
				return nil
			}
			if isClosed(ss) || errors.Is(err, io.EOF) {
				return nil
			}
			if parent.Err() != nil {
				return parent.Err()
			}
			return err
		}
		if jsonrpc.IsBatch(frame) {
			if !ss.acceptsBatches() { // era_session.go
				_ = w.WriteMessage(ctx, jsonrpc.NewErrorResponse(jsonrpc.ID{}, errInvalidRequest("JSON-RPC batches are not supported on this session; send one message per line")))
				continue
			}
			pool.submit(job{batch: frame})
			continue
		}
		msg, id, decErr := jsonrpc.Decode(frame)
		if decErr != nil {
			if r, ok := msg.(*jsonrpc.Response); ok {
				// A response that repeats a name fails the call it answers.
				ss.calls.fail(r.ID, refusedError("client", decErr))
				continue
			}
			if rid, ok := refusedResponse(frame); msg == nil && ok {
				// So does one refused whole (a name repeated in its
				// envelope, say); nobody answers a response.
				ss.calls.fail(rid, refusedError("client", decErr))
				continue
			}
			_ = w.WriteMessage(ctx, jsonrpc.NewErrorResponse(id, decErr.(*jsonrpc.Error)))
			continue
		}
		switch m := msg.(type) {
		case *jsonrpc.Notification:
			ss.handleNotification(ctx, m, nil)
		case *jsonrpc.Response:
			ss.handleResponse(ctx, m)
		case *jsonrpc.Request:
			if m.Method == "initialize" || (m.Method == "ping" && ss.server.handler == nil) {
				// Served in order, so that what follows sees the result.
				ss.writeResult(ctx, w, m)
				continue
			}
			pool.submit(job{req: m})
		}
	}
}

func isClosed(ss *ServerSession) bool {
	select {
	case <-ss.done:
		return true
	default:
		return false
	}
}

// writeResult handles one request and writes its response, if any.
func (ss *ServerSession) writeResult(ctx context.Context, w *connWriter, req *jsonrpc.Request) {
	resp := ss.answer(ctx, req, w)
	if resp != nil {
		_ = w.WriteMessage(ctx, resp)
	}
}

// answer handles a request from a stream transport, turning transport-level
// refusals into error responses.
func (ss *ServerSession) answer(ctx context.Context, req *jsonrpc.Request, related messageWriter) *jsonrpc.Response {
	resp, err := ss.handleRequest(ctx, req, related, nil)
	if err != nil {
		return nil
	}
	return resp
}

// serveBatch serves a JSON-RPC batch (2025-03-26 only) and writes the
// responses as one array; a batch of notifications gets no reply.
func (ss *ServerSession) serveBatch(ctx context.Context, frame []byte, w *connWriter) {
	msgs, errs, err := jsonrpc.DecodeBatch(frame)
	if err != nil {
		_ = w.WriteMessage(ctx, jsonrpc.NewErrorResponse(jsonrpc.ID{}, err.(*jsonrpc.Error)))
		return
	}
	resps := make([]*jsonrpc.Response, len(msgs))
	var wg sync.WaitGroup
	// The batch's requests run on at most MaxConcurrentRequests goroutines
	// at once, not one each: a batch of thousands would otherwise start
	// thousands before admission refused any.
	slots := make(chan struct{}, ss.server.opts.MaxConcurrentRequests)
	for i, msg := range msgs {
		if errs[i] != nil {
			resps[i] = jsonrpc.NewErrorResponse(jsonrpc.ID{}, errs[i].(*jsonrpc.Error))
			continue
		}
		switch m := msg.(type) {
		case *jsonrpc.Notification:
			ss.handleNotification(ctx, m, nil)
		case *jsonrpc.Response:
			ss.handleResponse(ctx, m)
		case *jsonrpc.Request:
			if m.Method == "initialize" {
				resps[i] = jsonrpc.NewErrorResponse(m.ID, errInvalidRequest("initialize must not be part of a JSON-RPC batch"))
				continue
			}
			slots <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-slots; wg.Done() }()
				resps[i] = ss.answer(ctx, m, w)
			}()
		}
	}
	wg.Wait()
	out := []byte{'['}
	n := 0
	for _, r := range resps {
		if r == nil {
			continue
		}
		if n > 0 {
			out = append(out, ',')
		}
		out, err = jsonrpc.AppendEncode(out, r)
		if err != nil {
			return
		}
		n++
	}
	if n == 0 {
		return
	}
	out = append(out, ']')
	_ = w.conn.Write(ctx, out)
}
