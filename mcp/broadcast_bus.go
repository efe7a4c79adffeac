package mcp

import (
	"context"
	"crypto/rand"
	"encoding/json"

	"github.com/mcpkit/mcpkit/internal/bridge"
	"github.com/mcpkit/mcpkit/internal/jsonenc"
)

// With ServerOptions.Bus set, a server's broadcasts (list_changed and
// ResourceUpdated) cross replicas: the calling replica delivers them to the
// sessions it holds and publishes them; every other replica delivers them to
// its own (docs/design.md, "What crosses replicas with ServerOptions.Bus").

// broadcastChannel is the bus channel of broadcasts to sessions.
const broadcastChannel = "mcpkit.broadcast"

// busBroadcast is one broadcast on the bus.
type busBroadcast struct {
	From    string          `json:"f"`
	Key     string          `json:"k"`
	Method  string          `json:"m"`
	Subject string          `json:"s,omitempty"`
	Params  json.RawMessage `json:"p"`
}

// publishBroadcast publishes a broadcast of method (with subject, the URI
// of resources/updated) for the sessions other replicas hold, and returns
// its id. Without a Bus it does nothing and returns "".
func (s *Server) publishBroadcast(ctx context.Context, method, subject string, raw json.RawMessage) string {
	bus := s.opts.Bus
	if bus == nil {
		return ""
	}
	key := rand.Text()
	b, err := jsonenc.Marshal(busBroadcast{From: s.busID(), Key: key, Method: method, Subject: subject, Params: raw})
	if err != nil {
		return key
	}
	func() {
		defer recoverCallback(s.logger, "Bus.Publish", "") // recover.go
		if err := bus.Publish(context.WithoutCancel(ctx), broadcastChannel, b); err != nil {
			s.logger.Warn("mcp: publishing a broadcast on the bus failed; sessions held only by other replicas miss it", "method", method, "err", err)
		}
	}()
	return key
}

// broadcastContext is the context a broadcast is delivered with: never
// cancelled, and carrying key when there is one.
func broadcastContext(ctx context.Context, key string) context.Context {
	ctx = context.WithoutCancel(ctx)
	if key == "" {
		return ctx
	}
	return bridge.WithBroadcastKey(ctx, key)
}

// joinBroadcastBus counts one more session held here, subscribing to the
// broadcasts of other replicas for the first.
func (s *Server) joinBroadcastBus(ctx context.Context) func() {
	return s.joinBus(ctx, &s.broadcastBus, broadcastChannel, s.receiveBroadcast)
}

// receiveBroadcast delivers a broadcast another replica published to the
// sessions held here. It runs on the bus's goroutine, so the delivery (a
// store read per session for resources/updated) runs on its own.
func (s *Server) receiveBroadcast(b []byte) {
	var m busBroadcast
	if err := json.Unmarshal(b, &m); err != nil || m.From == s.busID() || m.Key == "" || len(m.Params) == 0 {
		return
	}
	switch m.Method {
	case "notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed":
		s.deliverBroadcast(broadcastContext(context.Background(), m.Key), m.Method, m.Params)
	case "notifications/resources/updated":
		go func() {
			defer recoverCallback(s.logger, "a broadcast from the bus", "") // recover.go
			if err := s.deliverResourceUpdated(context.Background(), m.Key, m.Subject, m.Params); err != nil {
				s.logger.Debug("mcp: resources/updated from another replica not delivered", "uri", m.Subject, "err", err)
			}
		}()
	}
}
