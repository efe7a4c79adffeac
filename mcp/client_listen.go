package mcp

// This file is the client side of subscriptions/listen, the stateless era's
// stream of change notifications
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/internal/jsonenc"
	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// ErrListenEnded is a Subscription's Err when the server ended it
// gracefully (a result, or notifications/cancelled naming it); the client
// may listen again
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions#graceful-closure).
var ErrListenEnded = errors.New("mcp: the server ended the subscription")

// A Subscription is one open subscriptions/listen stream of a
// stateless-era session, whose notifications go to the Client's callbacks
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions).
// It ends with Listen's ctx, on Close, or when the server or session ends
// it.
type Subscription struct {
	cs        *ClientSession
	id        jsonrpc.ID
	requested SubscriptionFilter
	ack       SubscriptionFilter
	acked     chan SubscriptionFilter
	cancel    context.CancelFunc
	done      chan struct{}
	err       error
}

// Listen opens a subscriptions/listen stream for the notifications filter
// opts in to, and returns once the server has acknowledged it
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions#acknowledgment).
// The request timeout bounds only that wait; the stream lasts until ctx
// ends or Close. On a session-era session it returns ErrWrongEra.
func (cs *ClientSession) Listen(ctx context.Context, filter *SubscriptionFilter) (*Subscription, error) {
	era := cs.era()
	if err := era.lacks("subscriptions/listen"); err != nil {
		return nil, fmt.Errorf("mcp: Listen: %w", err)
	}
	if filter == nil {
		filter = &SubscriptionFilter{}
	}
	body, err := jsonenc.Marshal(&subscriptionsListenParams{Notifications: filter})
	if err != nil {
		return nil, fmt.Errorf("mcp: Listen: encoding the filter: %w", err)
	}
	params, err := era.params(body)
	if err != nil {
		return nil, fmt.Errorf("mcp: Listen: %w", err)
	}
	id, ch, err := cs.calls.start()
	if err != nil {
		return nil, fmt.Errorf("mcp: subscriptions/listen: %w", cs.endedErr())
	}
	lctx, cancel := context.WithCancel(context.WithValue(ctx, untimedKey{}, true))
	s := &Subscription{
		cs:        cs,
		id:        id,
		requested: *filter,
		acked:     make(chan SubscriptionFilter, 1),
		cancel:    cancel,
		done:      make(chan struct{}),
	}
	cs.mu.Lock()
	if cs.closing.Load() {
		cs.mu.Unlock()
		cancel()
		cs.calls.forget(id)
		return nil, fmt.Errorf("mcp: subscriptions/listen: %w", ErrSessionClosed)
	}
	if cs.subs == nil {
		cs.subs = make(map[jsonrpc.ID]*Subscription)
	}
	cs.subs[id] = s
	cs.listens.Add(1)
	cs.mu.Unlock()

	m := &SentMessage{Method: "subscriptions/listen", ID: id, Params: params, ClientSession: cs, resp: ch}
	go s.run(lctx, m)

	var expired <-chan time.Time
	timeout, _ := cs.client.timeouts(ctx)
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case f := <-s.acked:
		s.ack = f
		return s, nil
	case <-s.done:
		if s.err == nil || errors.Is(s.err, ErrListenEnded) {
			return nil, errors.New("mcp: subscriptions/listen: the server ended the stream before acknowledging it")
		}
		return nil, s.err
	case <-ctx.Done():
		s.Close()
		return nil, ctx.Err()
	case <-expired:
		s.Close()
		return nil, fmt.Errorf("%w: subscriptions/listen was not acknowledged after %v: %w", ErrRequestTimeout, timeout, context.DeadlineExceeded)
	}
}

// run sends the listen request and waits for its end: a result (graceful
// close), an error, or the end of ctx, which cancels the request.
func (s *Subscription) run(ctx context.Context, m *SentMessage) {
	cs := s.cs
	defer cs.listens.Done()
	defer close(s.done)
	_, err := cs.send(ctx, m)
	cs.calls.forget(s.id)
	cs.mu.Lock()
	delete(cs.subs, s.id)
	cs.mu.Unlock()
	switch {
	case err == nil:
		err = ErrListenEnded
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		err = nil // ended by the client
	}
	s.err = err
	s.cancel()
}

// ID returns the subscription's id: the JSON-RPC id of its
// subscriptions/listen request, which every notification on the stream
// carries in _meta["io.modelcontextprotocol/subscriptionId"].
func (s *Subscription) ID() jsonrpc.ID { return s.id }

// Acknowledged returns the filter the server acknowledged: the part of the
// request it will honour
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions#acknowledgment).
func (s *Subscription) Acknowledged() SubscriptionFilter { return s.ack }

// Done is closed when the subscription has ended.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Err returns, once Done is closed, why the subscription ended: nil when
// the client ended it, ErrListenEnded when the server ended it gracefully,
// otherwise the error that broke it. Before that it returns nil.
func (s *Subscription) Err() error {
	select {
	case <-s.done:
		return s.err
	default:
		return nil
	}
}

// Close ends the subscription, if it is still open, and waits until it has
// ended. It returns nil.
func (s *Subscription) Close() error {
	s.cancel()
	<-s.done
	return nil
}

// acknowledge records the server's acknowledgement; only the first
// counts.
func (s *Subscription) acknowledge(cs *ClientSession, params json.RawMessage) {
	var p struct {
		Notifications SubscriptionFilter `json:"notifications"`
	}
	if err := exactjson.Unmarshal(params, &p); err != nil {
		cs.client.logger.Warn("mcp: client: undecodable subscription acknowledgement", "err", err)
	}
	if extra := beyond(&p.Notifications, &s.requested); extra != "" {
		cs.client.logger.Warn("mcp: client: the server acknowledged notifications the subscription did not ask for", "subscription", s.id.String(), "kinds", extra)
	}
	select {
	case s.acked <- p.Notifications:
	default:
	}
}

// beyond names what ack holds that req did not ask for, "" if nothing.
func beyond(ack, req *SubscriptionFilter) string {
	var out []string
	if ack.ToolsListChanged && !req.ToolsListChanged {
		out = append(out, "toolsListChanged")
	}
	if ack.PromptsListChanged && !req.PromptsListChanged {
		out = append(out, "promptsListChanged")
	}
	if ack.ResourcesListChanged && !req.ResourcesListChanged {
		out = append(out, "resourcesListChanged")
	}
	for _, u := range ack.ResourceSubscriptions {
		if !slices.Contains(req.ResourceSubscriptions, u) {
			out = append(out, "resourceSubscriptions "+u)
		}
	}
	for _, t := range ack.TaskIDs {
		if !slices.Contains(req.TaskIDs, t) {
			out = append(out, "taskIds "+t)
		}
	}
	return strings.Join(out, ", ")
}

var subscriptionIDKey = []byte(`"` + metaKeySubscriptionID + `"`)

// subscriptionIDOf returns the _meta["io.modelcontextprotocol/subscriptionId"]
// a notification's params carry, if any.
func subscriptionIDOf(params json.RawMessage) (jsonrpc.ID, bool) {
	if !bytes.Contains(params, subscriptionIDKey) {
		return jsonrpc.ID{}, false
	}
	meta := metaMember(bytes.TrimSpace(params))
	if meta == nil {
		return jsonrpc.ID{}, false
	}
	var raw []byte
	jsonscan.Members(meta, func(key, value []byte) bool {
		if jsonscan.KeyEquals(key, metaKeySubscriptionID) {
			raw = value
			return false
		}
		return true
	})
	var id jsonrpc.ID
	if raw == nil || id.UnmarshalJSON(raw) != nil {
		return jsonrpc.ID{}, false
	}
	return id, true
}

// routeSubscription handles what a notification means to the session's
// subscriptions, and reports whether the notification should still go to
// the callbacks: one tagged with the id of no open subscription is dropped
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions#receiving-notifications).
func (cs *ClientSession) routeSubscription(n *jsonrpc.Notification) bool {
	id, ok := subscriptionIDOf(n.Params)
	if !ok {
		return true
	}
	cs.mu.Lock()
	s := cs.subs[id]
	cs.mu.Unlock()
	if s == nil {
		cs.client.logger.Debug("mcp: client: notification for no open subscription dropped", "method", n.Method, "subscription", id.String())
		return false
	}
	if n.Method == "notifications/subscriptions/acknowledged" {
		s.acknowledge(cs, n.Params)
	}
	return true
}

// endSubscription ends the open subscription id, which the server named in
// notifications/cancelled, as a graceful close (spec issue #3348); it
// reports whether id named one.
func (cs *ClientSession) endSubscription(id jsonrpc.ID) bool {
	cs.mu.Lock()
	_, ok := cs.subs[id]
	cs.mu.Unlock()
	if ok {
		cs.calls.deliver(&jsonrpc.Response{ID: id, Result: emptyObject})
	}
	return ok
}
