package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"

	"github.com/mcpkit/mcpkit/internal/broadcast"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// This file hands a notification sent to many clients (list_changed,
// resources/updated, listen) to each client's writer without waiting for
// it, so that a client that does not read holds up no one: a writer that
// queues by itself is called directly; any other gets a bounded queue
// drained by a goroutine that lives while the queue is not empty.

// nonBlockingWriter is a messageWriter whose WriteMessage queues and
// returns at once, never waiting for the client, and keeps nothing of the
// message it was given (it encodes it first): the caller may reuse the
// message and its params once WriteMessage returns.
type nonBlockingWriter interface {
	MCPWriteNeverBlocks()
}

func neverBlocks(w messageWriter) bool {
	_, ok := w.(nonBlockingWriter)
	return ok
}

// defaultMaxQueuedNotifications is ServerOptions.MaxQueuedNotifications
// when it is zero.
const defaultMaxQueuedNotifications = 1024

// ErrNotificationQueueFull reports a notification dropped because its
// client has ServerOptions.MaxQueuedNotifications waiting already.
var ErrNotificationQueueFull = errors.New("mcp: the client is not reading: its notification queue is full")

// noticeQueue is the queue of one client.
type noticeQueue struct {
	mu      sync.Mutex
	pending []pendingNotice
	running bool
}

type pendingNotice struct {
	method string
	params json.RawMessage
}

// push queues a notification. start reports that the caller must start
// the goroutine that delivers the queue.
func (q *noticeQueue) push(method string, params json.RawMessage, limit int) (start bool, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, n := range q.pending {
		if n.method == method && bytes.Equal(n.params, params) {
			return false, nil
		}
	}
	if limit > 0 && len(q.pending) >= limit {
		return false, ErrNotificationQueueFull
	}
	q.pending = append(q.pending, pendingNotice{method, params})
	start = !q.running
	q.running = true
	return start, nil
}

// pop takes the oldest notification; false (and the delivering goroutine
// ends) once the queue is empty.
func (q *noticeQueue) pop() (pendingNotice, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.pending) == 0 {
		q.running = false
		q.pending = nil
		return pendingNotice{}, false
	}
	n := q.pending[0]
	q.pending[0] = pendingNotice{}
	q.pending = q.pending[1:]
	return n, true
}

// notifyUnrelated sends a notification that no request is waiting for to
// the session's standalone writer without waiting for the client. ctx is
// what a writer that never blocks is called with (it may carry a
// broadcast key, broadcast_bus.go).
func (ss *ServerSession) notifyUnrelated(ctx context.Context, method string, raw json.RawMessage) error {
	ss.mu.Lock()
	w := ss.standalone
	ss.mu.Unlock()
	if w == nil {
		return nil
	}
	if neverBlocks(w) {
		if n := sharedNotification(ctx, method, raw); n != nil && ss.server.send == nil {
			// A broadcast: every session's writer gets the same
			// message, and may encode it once for all.
			return w.WriteMessage(ctx, n)
		}
		return ss.sendNotification(ctx, w, method, raw)
	}
	start, err := ss.notices.push(method, raw, ss.server.opts.MaxQueuedNotifications)
	if err != nil {
		ss.server.logger.Warn("mcp: notification dropped", "session", ss.ID(), "method", method, "err", err)
		return err
	}
	if start {
		go ss.deliverNotices()
	}
	return nil
}

// withSharedNotification returns ctx carrying the notification of method
// with params raw that a broadcast sends to every session
// (broadcast.Shared), so that it is built once, and encoded once by the
// transports that can.
func withSharedNotification(ctx context.Context, method string, raw json.RawMessage) context.Context {
	return broadcast.WithShared(ctx, &broadcast.Shared{Msg: &jsonrpc.Notification{Method: method, Params: raw}})
}

// sharedNotification returns the notification withSharedNotification put
// in ctx if it is the one of method with params raw (the same bytes),
// else nil.
func sharedNotification(ctx context.Context, method string, raw json.RawMessage) *jsonrpc.Notification {
	sh := broadcast.SharedIn(ctx)
	if sh == nil {
		return nil
	}
	n := sh.Msg
	if n.Method != method || len(n.Params) != len(raw) || len(raw) == 0 || &n.Params[0] != &raw[0] {
		return nil
	}
	return n
}

func (ss *ServerSession) deliverNotices() {
	defer recoverCallback(ss.server.logger, "a writer delivering notifications", "")
	for {
		n, ok := ss.notices.pop()
		if !ok {
			return
		}
		ss.mu.Lock()
		w := ss.standalone
		ss.mu.Unlock()
		if w == nil {
			continue
		}
		if err := ss.sendNotification(context.Background(), w, n.method, n.params); err != nil {
			ss.server.logger.Debug("mcp: notification not delivered", "method", n.method, "err", err)
		}
	}
}

// notify sends a notification on a listen stream without waiting for the
// client, as notifyUnrelated does for a session.
func (l *listener) notify(logger *slog.Logger, limit int, method string, raw json.RawMessage) error {
	if neverBlocks(l.w) {
		return l.send(context.Background(), method, raw)
	}
	start, err := l.notices.push(method, raw, limit)
	if err != nil {
		return err
	}
	if start {
		go func() {
			defer recoverCallback(logger, "a writer delivering notifications", "")
			for {
				n, ok := l.notices.pop()
				if !ok {
					return
				}
				_ = l.send(context.Background(), n.method, n.params)
			}
		}()
	}
	return nil
}
