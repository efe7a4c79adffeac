package mcp

// This file holds the client's request timeouts
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#timeouts).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// ErrRequestTimeout is wrapped, together with context.DeadlineExceeded, by
// the error of a call whose timeout (ClientOptions.RequestTimeout,
// MaxRequestTimeout or WithRequestTimeout) expired before the server
// answered. The client has then cancelled the request with
// notifications/cancelled.
var ErrRequestTimeout = errors.New("mcp: request timed out")

// The defaults of ClientOptions.RequestTimeout and MaxRequestTimeout.
const (
	defaultRequestTimeout    = 60 * time.Second
	defaultMaxRequestTimeout = 10 * time.Minute
)

// timeouts returns the request timeout and the hard maximum in force for
// a request made under ctx, WithRequestTimeout applied; zero or less means
// none.
func (c *Client) timeouts(ctx context.Context) (timeout, max time.Duration) {
	if ctx.Value(untimedKey{}) != nil {
		return 0, 0 // a subscriptions/listen stream (client_listen.go)
	}
	timeout, max = c.opts.RequestTimeout, c.opts.MaxRequestTimeout
	if d, ok := ctx.Value(requestTimeoutKey{}).(time.Duration); ok {
		timeout = d
	}
	return timeout, max
}

type requestTimeoutKey struct{}

// WithRequestTimeout returns a context under which calls on a
// ClientSession use timeout d instead of ClientOptions.RequestTimeout
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#timeouts);
// zero or less turns it off. Unlike ctx's deadline, it starts when each
// request is sent and progress restarts it, up to MaxRequestTimeout.
func WithRequestTimeout(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, requestTimeoutKey{}, d)
}

// roundTrip writes request m, sent by the client, and waits for its
// answer: until the response, the end of ctx, the end of the session, or
// the request's timeout. The timeout covers the write too, since a
// transport may hold it until the answer (Streamable HTTP in JSON mode).
func (cs *ClientSession) roundTrip(ctx context.Context, m *SentMessage) (json.RawMessage, error) {
	timeout, max := cs.client.timeouts(ctx)
	var start, hard time.Time
	var timer *time.Timer
	var expired <-chan time.Time
	wctx := ctx
	if timeout > 0 || max > 0 {
		start = time.Now()
		wait := timeout
		if max > 0 {
			hard = start.Add(max)
			if wait <= 0 || wait > max {
				wait = max
			}
		}
		var cancel context.CancelFunc
		wctx, cancel = context.WithDeadline(ctx, start.Add(wait))
		defer cancel()
		timer = time.NewTimer(wait)
		defer timer.Stop()
		expired = timer.C
	}
	timedOut := func() error {
		waited := time.Since(start)
		cs.cancelRequest(ctx, m, fmt.Sprintf("request timed out after %v", waited))
		return fmt.Errorf("%w: %s had no answer after %v: %w", ErrRequestTimeout, m.Method, waited, context.DeadlineExceeded)
	}

	if err := cs.w.WriteMessage(wctx, &jsonrpc.Request{ID: m.ID, Method: m.Method, Params: m.Params}); err != nil {
		// A transport may fail a write that its context ended after the
		// request was on its way (an HTTP POST waiting for its answer):
		// the request is cancelled, in case it arrived.
		switch {
		case ctx.Err() != nil:
			return nil, cs.cancelled(ctx, m)
		case wctx.Err() != nil:
			return nil, timedOut()
		}
		return nil, fmt.Errorf("mcp: sending %s: %w", m.Method, err)
	}

	var progressed <-chan struct{}
	if timeout > 0 && max > timeout {
		// Progress can restart the clock: watch the request's token.
		if token, ok := progressTokenOf(m.Params); ok {
			ch := make(chan struct{}, 1)
			cs.progress.watch(token, ch)
			defer cs.progress.unwatch(token, ch)
			progressed = ch
		}
	}
	for {
		select {
		case resp, ok := <-m.resp:
			if !ok && ctx.Err() != nil {
				// The caller's cancellation, which the transport may have
				// seen first (an HTTP request made with ctx breaks when
				// ctx ends).
				return nil, cs.cancelled(ctx, m)
			}
			return cs.answer(m, resp, ok)
		case <-ctx.Done():
			return nil, cs.cancelled(ctx, m)
		case <-progressed:
			timer.Reset(min(timeout, time.Until(hard)))
		case <-expired:
			return nil, timedOut()
		}
	}
}

// cancelled cancels request m because ctx ended, and returns ctx's error.
func (cs *ClientSession) cancelled(ctx context.Context, m *SentMessage) error {
	cs.cancelRequest(ctx, m, context.Cause(ctx).Error())
	return ctx.Err()
}

// answer turns the response to request m into its result or error; ok is
// false when the session ended first.
func (cs *ClientSession) answer(m *SentMessage, resp *jsonrpc.Response, ok bool) (json.RawMessage, error) {
	if !ok {
		if err := cs.calls.failure(m.ID); err != nil {
			return nil, fmt.Errorf("mcp: %s: %w", m.Method, err)
		}
		return nil, fmt.Errorf("mcp: %s: %w", m.Method, cs.endedErr())
	}
	if resp.Error != nil {
		return nil, resp.Error
	}
	return resp.Result, nil
}

// cancelRequest stops waiting for request m and tells the server with
// notifications/cancelled, except for initialize, which the spec forbids
// cancelling
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation#behavior-requirements).
func (cs *ClientSession) cancelRequest(ctx context.Context, m *SentMessage, reason string) {
	cs.calls.forget(m.ID)
	if m.Method == "initialize" || ctx.Value(probeKey{}) != nil {
		// Nor is the era probe's server/discover cancelled: a
		// session-era server would get it before initialize
		// (client_era.go).
		return
	}
	_ = cs.notify(context.WithoutCancel(ctx), "notifications/cancelled", &cancelledParams{RequestID: m.ID, Reason: reason})
}

// untimedKey marks a context whose request no timeout applies to.
type untimedKey struct{}

// progressTokenOf returns the _meta.progressToken of a request's params.
// Only the token is decoded: the arguments of a call may be large.
func progressTokenOf(params json.RawMessage) (ProgressToken, bool) {
	var meta, token []byte
	if _, err := jsonscan.ScanObject(params, 0, func(key, value []byte) {
		if jsonscan.KeyEquals(key, "_meta") {
			meta = value // the last wins, as in encoding/json
		}
	}); err != nil || len(meta) == 0 || meta[0] != '{' {
		return ProgressToken{}, false
	}
	jsonscan.Members(meta, func(key, value []byte) bool {
		if jsonscan.KeyEquals(key, "progressToken") {
			token = value
		}
		return true
	})
	var pt ProgressToken
	if token == nil || exactjson.Unmarshal(token, &pt) != nil {
		return ProgressToken{}, false
	}
	return pt, pt.IsValid()
}

// progressWatchers maps the progress tokens of the calls waiting with a
// timeout to the channel that tells each of them about progress.
type progressWatchers struct {
	mu sync.Mutex
	m  map[ProgressToken]chan<- struct{}
}

func (p *progressWatchers) watch(token ProgressToken, ch chan<- struct{}) {
	p.mu.Lock()
	if p.m == nil {
		p.m = make(map[ProgressToken]chan<- struct{})
	}
	p.m[token] = ch
	p.mu.Unlock()
}

func (p *progressWatchers) unwatch(token ProgressToken, ch chan<- struct{}) {
	p.mu.Lock()
	if p.m[token] == ch {
		delete(p.m, token)
	}
	p.mu.Unlock()
}

// seen tells the call waiting for token, if any, that it made progress.
func (p *progressWatchers) seen(token ProgressToken) {
	p.mu.Lock()
	ch, ok := p.m[token]
	p.mu.Unlock()
	if ok {
		select {
		case ch <- struct{}{}:
		default: // already told
		}
	}
}
