package mcp

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/mcpkit/mcpkit/internal/jsonenc"
	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// A SubscriptionFilter is what a client opts in to on a
// subscriptions/listen stream; every kind is off unless asked for
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions).
type SubscriptionFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
	// TaskIDs asks for notifications/tasks about these tasks (the tasks
	// extension).
	TaskIDs []string `json:"taskIds,omitempty"`
}

// subscriptionsListenParams is the params of subscriptions/listen.
type subscriptionsListenParams struct {
	Notifications *SubscriptionFilter `json:"notifications"`
}

// listener is one open subscriptions/listen stream.
type listener struct {
	ss     *ServerSession
	w      messageWriter
	filter SubscriptionFilter
	// meta is `{"io.modelcontextprotocol/subscriptionId":<id>}`.
	meta []byte
	// ctx is the listen request's: writes on the stream last no longer
	// than the stream. end ends it: the listen request returns its
	// graceful result (endListens).
	ctx context.Context
	end context.CancelFunc
	// mu orders what is written on the stream: the acknowledgement
	// first, then each notification whole.
	mu sync.Mutex
	// notices queues notifications for a writer that waits for its
	// client (notify_async.go).
	notices noticeQueue
}

// listenerSet holds a server's open listen streams.
type listenerSet struct {
	mu sync.Mutex
	m  map[*listener]struct{}
}

func (ls *listenerSet) add(l *listener) {
	ls.mu.Lock()
	if ls.m == nil {
		ls.m = make(map[*listener]struct{})
	}
	ls.m[l] = struct{}{}
	ls.mu.Unlock()
}

func (ls *listenerSet) remove(l *listener) {
	ls.mu.Lock()
	delete(ls.m, l)
	ls.mu.Unlock()
}

func (ls *listenerSet) snapshot() []*listener {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if len(ls.m) == 0 {
		return nil
	}
	out := make([]*listener, 0, len(ls.m))
	for l := range ls.m {
		out = append(out, l)
	}
	return out
}

// wants reports whether the listener asked for method (about uri, for
// resource updates; about a task, for notifications/tasks).
func (l *listener) wants(method, subject string) bool {
	switch method {
	case "notifications/tools/list_changed":
		return l.filter.ToolsListChanged
	case "notifications/prompts/list_changed":
		return l.filter.PromptsListChanged
	case "notifications/resources/list_changed":
		return l.filter.ResourcesListChanged
	case "notifications/resources/updated":
		return slices.Contains(l.filter.ResourceSubscriptions, subject)
	case "notifications/tasks":
		return slices.Contains(l.filter.TaskIDs, subject)
	}
	return false
}

// send writes one notification tagged with the subscription id, for no
// longer than ctx or the stream last. Without a SendingMiddleware, on a
// writer that never blocks, it builds the message in a pooled buffer
// (docs/design.md, "Listen streams").
func (l *listener) send(ctx context.Context, method string, params json.RawMessage) error {
	var buf *listenBuf
	var msg *jsonrpc.Notification
	if l.ss.server.send == nil && neverBlocks(l.w) {
		buf = listenBufs.Get().(*listenBuf)
		buf.params = appendSubscriptionMeta(buf.params[:0], params, l.meta)
		buf.msg = jsonrpc.Notification{Method: method, Params: buf.params}
		msg = &buf.msg
		defer buf.release()
	}
	wctx := l.ctx
	if ctx.Done() != nil {
		var cancel context.CancelFunc
		wctx, cancel = context.WithCancel(l.ctx)
		defer cancel()
		stop := context.AfterFunc(ctx, cancel)
		defer stop()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := wctx.Err(); err != nil {
		return err
	}
	if msg != nil {
		return l.w.WriteMessage(wctx, msg)
	}
	return l.ss.sendNotification(wctx, l.w, method, withSubscriptionMeta(params, l.meta))
}

// listenBuf is the pooled buffer of one listen notification.
type listenBuf struct {
	params []byte
	msg    jsonrpc.Notification
}

var listenBufs = sync.Pool{New: func() any { return &listenBuf{params: make([]byte, 0, 256)} }}

func (b *listenBuf) release() {
	b.msg = jsonrpc.Notification{}
	if cap(b.params) <= 16<<10 {
		listenBufs.Put(b)
	}
}

// withSubscriptionMeta returns the notification params object with the
// subscription's id in its _meta, in a new slice (appendSubscriptionMeta).
func withSubscriptionMeta(params json.RawMessage, meta []byte) json.RawMessage {
	return appendSubscriptionMeta(make([]byte, 0, len(params)+len(meta)+10), params, meta)
}

// appendSubscriptionMeta appends to dst the notification params object
// with the subscription's id in its _meta: meta becomes the _meta (added
// as the first member, or replacing one that is not an object), or its
// members are merged into the params' own _meta. Params that are not an
// object become {"_meta":meta}.
func appendSubscriptionMeta(dst []byte, params json.RawMessage, meta []byte) json.RawMessage {
	start := jsonscan.SkipSpace(params, 0)
	if start >= len(params) || params[start] != '{' {
		return append(append(append(dst, `{"_meta":`...), meta...), '}')
	}
	members := 0
	metaStart, metaEnd := -1, -1
	if _, err := jsonscan.ScanObject(params, start, func(key, value []byte) {
		members++
		if jsonscan.KeyEquals(key, "_meta") {
			metaStart = cap(params) - cap(value) // value is a slice of params
			metaEnd = metaStart + len(value)
		}
	}); err != nil || members == 0 {
		return append(append(append(dst, `{"_meta":`...), meta...), '}')
	}
	out := dst
	switch {
	case metaStart < 0:
		out = append(out, `{"_meta":`...)
		out = append(out, meta...)
		out = append(out, ',')
		return append(out, params[jsonscan.SkipSpace(params, start+1):]...)
	case params[metaStart] != '{' || params[jsonscan.SkipSpace(params, metaStart+1)] == '}':
		// null, not an object, or empty: replaced.
		out = append(out, params[:metaStart]...)
		out = append(out, meta...)
	default:
		// The params' own _meta: meta's members first, then its own.
		out = append(out, params[:metaStart]...)
		out = append(out, meta[:len(meta)-1]...)
		out = append(out, ',')
		out = append(out, params[metaStart+1:metaEnd]...)
	}
	return append(out, params[metaEnd:]...)
}

// notifyListeners sends a notification to every listen stream that asked
// for it. subject is the resource URI or task id it is about, if any.
func (s *Server) notifyListeners(ctx context.Context, method, subject string, params any) {
	var raw json.RawMessage
	if s.opts.Bus != nil {
		// Replicas: the listen streams open on the others get it too
		// (listen_bus.go).
		raw = s.publishChange(ctx, method, subject, params)
	}
	s.notifyLocal(method, subject, params, raw)
}

// notifyLocal is notifyListeners for the listen streams of this server
// alone; raw, if not nil, is params encoded.
func (s *Server) notifyLocal(method, subject string, params any, raw json.RawMessage) {
	ls := s.listeners.snapshot()
	if len(ls) == 0 {
		return
	}
	for _, l := range ls {
		if !l.wants(method, subject) {
			continue
		}
		if raw == nil {
			var err error
			if raw, err = jsonenc.Marshal(params); err != nil {
				s.logger.Error("mcp: encoding notification", "method", method, "err", err)
				return
			}
		}
		if err := l.notify(s.logger, s.opts.MaxQueuedNotifications, method, raw); err != nil {
			s.logger.Debug("mcp: notification not delivered to a listen stream", "method", method, "err", err)
		}
	}
}

// listen implements subscriptions/listen: it acknowledges the filter the
// server can honour, then sends the notifications asked for until the
// client goes away or the session ends
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions).
func (s *Server) listen(ctx context.Context, r *Request) (any, error) {
	if r.related == nil {
		return nil, errMethodNotFound(r.Method)
	}
	var p subscriptionsListenParams
	if err := unmarshalParams(r.Params, &p); err != nil {
		return nil, err
	}
	if p.Notifications == nil {
		return nil, errInvalidParams("notifications is required: the filter of what to listen for")
	}
	caps := s.statelessCapabilities()
	var honoured SubscriptionFilter
	honoured.ToolsListChanged = p.Notifications.ToolsListChanged && caps.Tools != nil && caps.Tools.ListChanged
	honoured.PromptsListChanged = p.Notifications.PromptsListChanged && caps.Prompts != nil && caps.Prompts.ListChanged
	if caps.Resources != nil {
		honoured.ResourcesListChanged = p.Notifications.ResourcesListChanged && caps.Resources.ListChanged
		if caps.Resources.Subscribe {
			honoured.ResourceSubscriptions = p.Notifications.ResourceSubscriptions
		}
	}
	ids, err := s.listenTaskIDs(ctx, r, p.Notifications.TaskIDs) // task_ext.go
	if err != nil {
		return nil, err
	}
	honoured.TaskIDs = ids
	id, err := jsonenc.Marshal(r.ID)
	if err != nil {
		return nil, err
	}
	ctx, end := context.WithCancel(ctx)
	defer end()
	l := &listener{ss: r.Session, w: r.related, filter: honoured, ctx: ctx, end: end}
	l.meta = append(append([]byte(`{"`+metaKeySubscriptionID+`":`), id...), '}')

	ack, err := jsonenc.Marshal(struct {
		Notifications SubscriptionFilter `json:"notifications"`
	}{honoured})
	if err != nil {
		return nil, err
	}
	defer s.joinListenBus(ctx)() // listen_bus.go
	l.mu.Lock()
	s.listeners.add(l)
	err = l.ss.sendNotification(ctx, l.w, "notifications/subscriptions/acknowledged", withSubscriptionMeta(ack, l.meta))
	l.mu.Unlock()
	defer s.listeners.remove(l)
	if err != nil {
		return nil, err
	}
	// The client's input may have ended (endListens) before the stream
	// was added: requests to the client are then refused, and the stream
	// ends at once.
	l.ss.calls.mu.Lock()
	ended := l.ss.calls.closed
	l.ss.calls.mu.Unlock()
	if ended {
		end()
	}
	<-ctx.Done()
	// Ended by the server (the end of the client's input, the session
	// or transport closing): the graceful end is a result naming the
	// subscription. A client that cancelled gets no response at all.
	return json.RawMessage(`{"_meta":` + string(l.meta) + `}`), nil
}

// endListens ends the listen streams open on ss, each with its graceful
// result: what happens when a stdio client closes its input, after which
// no notifications/cancelled can arrive to end them
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions).
func (s *Server) endListens(ss *ServerSession) {
	for _, l := range s.listeners.snapshot() {
		if l.ss == ss {
			l.end()
		}
	}
}
