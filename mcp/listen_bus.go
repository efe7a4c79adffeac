package mcp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"sync"

	"github.com/mcpkit/mcpkit/internal/jsonenc"
)

// With ServerOptions.Bus set, the changes subscriptions/listen streams
// follow cross replicas: each is published on the bus, and a replica with a
// listen stream open subscribes and hands what others publish to its streams
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions).

// listenChannel is the bus channel of listen notifications.
const listenChannel = "mcpkit.listen"

// busChange is one change on the bus.
type busChange struct {
	From    string          `json:"f"`
	Method  string          `json:"m"`
	Subject string          `json:"s,omitempty"`
	Params  json.RawMessage `json:"p"`
}

// busSub is a server's subscription to one bus channel, held while
// something local needs it (open listen streams, running tasks).
type busSub struct {
	mu   sync.Mutex
	n    int
	stop func()
}

// busID is this server's id on the bus, so that it skips what it
// published itself.
func (s *Server) busID() string {
	s.busOnce.Do(func() { s.busSelf = rand.Text() })
	return s.busSelf
}

// publishChange publishes a change for the listen streams of the other
// replicas, and returns params encoded (nil if they cannot be).
func (s *Server) publishChange(ctx context.Context, method, subject string, params any) json.RawMessage {
	raw, err := jsonenc.Marshal(params)
	if err != nil {
		s.logger.Error("mcp: encoding notification", "method", method, "err", err)
		return nil
	}
	b, err := jsonenc.Marshal(busChange{From: s.busID(), Method: method, Subject: subject, Params: raw})
	if err != nil {
		return raw
	}
	func() {
		defer recoverCallback(s.logger, "Bus.Publish", "") // recover.go
		if err := s.opts.Bus.Publish(context.WithoutCancel(ctx), listenChannel, b); err != nil {
			s.logger.Warn("mcp: publishing a change on the bus failed; listen streams on other replicas miss it", "method", method, "err", err)
		}
	}()
	return raw
}

// joinListenBus counts one more open listen stream, subscribing to the
// bus for the first; the function it returns counts it out, and ends the
// subscription after the last. Without a Bus it does nothing.
func (s *Server) joinListenBus(ctx context.Context) func() {
	return s.joinBus(ctx, &s.listenBus, listenChannel, s.receiveChange)
}

// joinBus counts one more user of sub, subscribing it to channel for the
// first; the function it returns counts the user out, and ends the
// subscription after the last. Without a Bus it does nothing. A
// subscription that fails is logged: what other replicas publish is then
// missed here, as with a message the bus lost.
func (s *Server) joinBus(ctx context.Context, sub *busSub, channel string, fn func([]byte)) func() {
	bus := s.opts.Bus
	if bus == nil {
		return func() {}
	}
	sub.mu.Lock()
	defer sub.mu.Unlock()
	sub.n++
	if sub.n == 1 {
		var stop func()
		var err error
		func() {
			defer recoverCallback(s.logger, "Bus.Subscribe", "") // recover.go
			stop, err = bus.Subscribe(context.WithoutCancel(ctx), channel, fn)
		}()
		if err != nil || stop == nil {
			s.logger.Warn("mcp: subscribing to the bus failed; what other replicas publish is missed here", "channel", channel, "err", err)
		}
		sub.stop = stop
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			sub.mu.Lock()
			defer sub.mu.Unlock()
			sub.n--
			if sub.n == 0 && sub.stop != nil {
				sub.stop()
				sub.stop = nil
			}
		})
	}
}

// receiveChange hands a change another replica published to this
// server's listen streams.
func (s *Server) receiveChange(b []byte) {
	var c busChange
	if err := json.Unmarshal(b, &c); err != nil || c.From == s.busID() || c.Method == "" || len(c.Params) == 0 {
		return
	}
	s.notifyLocal(c.Method, c.Subject, c.Params, c.Params)
}
