package replicatest

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
)

// This part runs issue 14's broadcasts: with a shared SessionStore, a
// shared EventStore and a Bus, a server's list_changed and
// ResourceUpdated called on one replica reach the GET streams of the
// sessions every replica holds, each once
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server).

// initOn opens a session on rep alone (initialize and
// notifications/initialized both go to rep) and returns its id.
func initOn(t *testing.T, rep *replica) string {
	t.Helper()
	s := rep.open(t, "", "", initBody)
	s.wantSSE(t, "initialize on "+rep.name)
	sid := s.header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatal("initialize: no Mcp-Session-Id")
	}
	s.primed(t, "initialize on "+rep.name)
	s.want(t, "initialize on "+rep.name, map[string]bool{}, initResult)
	s.wantEnd(t, "initialize on "+rep.name)
	rep.do(t, http.MethodPost, sid, "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`).want(t, "notifications/initialized on "+rep.name, http.StatusAccepted, "")
	return sid
}

// held returns the ids of the sessions rep holds, sorted.
func (rep *replica) held() []string {
	var ids []string
	for _, ss := range rep.srv.Sessions() {
		ids = append(ids, ss.ID())
	}
	slices.Sort(ids)
	return ids
}

const (
	toolsChanged = `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}`
	rUpdated     = `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://r"}}`
)

// RunBroadcasts runs the broadcasts scenario on stores made by
// newStreams, whose Bus must be set.
func RunBroadcasts(t *testing.T, newStreams NewStreams) {
	t.Run("a broadcast on one replica reaches every session once", func(t *testing.T) {
		runBroadcasts(t, newStreams)
	})
}

func runBroadcasts(t *testing.T, newStreams NewStreams) {
	c, _ := newStreamCluster(t, newStreams)
	ctx := context.Background()
	onA := initOn(t, c.a)     // held by A alone
	onB := initOn(t, c.b)     // held by B alone
	both := initStreams(t, c) // held by both
	getA := c.a.open(t, onA, "", "")
	getB := c.b.open(t, onB, "", "")
	getBoth := c.a.open(t, both, "", "")
	seenA, seenB, seenBoth := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, g := range []struct {
		s    *stream
		seen map[string]bool
	}{{getA, seenA}, {getB, seenB}, {getBoth, seenBoth}} {
		g.s.wantSSE(t, "GET")
		g.seen[g.s.primed(t, "GET")] = true
	}
	wantA, wantB := []string{onA, both}, []string{onB, both}
	slices.Sort(wantA)
	slices.Sort(wantB)
	if got := c.a.held(); !slices.Equal(got, wantA) {
		t.Fatalf("A holds %v, want %v", got, wantA)
	}
	if got := c.b.held(); !slices.Equal(got, wantB) {
		t.Fatalf("B holds %v, want %v", got, wantB)
	}
	tool := func(name string) (*mcp.Tool, mcp.ToolHandler) {
		return &mcp.Tool{Name: name, InputSchema: []byte(`{"type":"object"}`)}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		}
	}
	// list_changed made on A, then on B: every session's GET stream gets
	// each once, whichever replicas hold it.
	for _, rep := range []*replica{c.a, c.b} {
		if err := rep.srv.AddTool(tool("new" + rep.name)); err != nil {
			t.Fatal(err)
		}
		what := "tools/list_changed on " + rep.name
		getA.want(t, what+", session on A", seenA, toolsChanged)
		getB.want(t, what+", session on B", seenB, toolsChanged)
		getBoth.want(t, what+", session on both", seenBoth, toolsChanged)
	}
	// Subscribed through B (onB) and through A (both); reported on A:
	// onB, which A does not hold, gets it; both gets it once.
	for _, sub := range []struct {
		rep *replica
		sid string
	}{{c.b, onB}, {c.a, both}} {
		if got := sub.rep.call(t, sub.sid, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://r"}}`); got != `{"jsonrpc":"2.0","id":2,"result":{}}` {
			t.Fatalf("resources/subscribe on %s: %s", sub.rep.name, got)
		}
	}
	if err := c.a.srv.ResourceUpdated(ctx, "test://r"); err != nil {
		t.Fatal(err)
	}
	getB.want(t, "resources/updated on A, session on B", seenB, rUpdated)
	getBoth.want(t, "resources/updated on A, session on both", seenBoth, rUpdated)
	// And reported on B: onB once, both once.
	if err := c.b.srv.ResourceUpdated(ctx, "test://r"); err != nil {
		t.Fatal(err)
	}
	getB.want(t, "resources/updated on B, session on B", seenB, rUpdated)
	getBoth.want(t, "resources/updated on B, session on both", seenBoth, rUpdated)
	// Nothing more: the next event of each stream is what its holder
	// sends next.
	for _, n := range []struct {
		rep  *replica
		sid  string
		s    *stream
		seen map[string]bool
	}{{c.a, onA, getA, seenA}, {c.b, onB, getB, seenB}, {c.b, both, getBoth, seenBoth}} {
		if err := n.rep.sessionOn(t, n.sid).Notify(ctx, "notifications/message", map[string]any{"level": "info", "data": "end"}); err != nil {
			t.Fatal(err)
		}
		n.s.want(t, "the end on "+n.rep.name, n.seen, message("end"))
	}
}
