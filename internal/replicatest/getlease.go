package replicatest

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// This part holds one GET stream per session across replicas, with the
// stream lease of an EventStore that is a mcphttp.StreamLeaser
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server).

// secondGET is the refusal of a second GET stream, on one replica or
// across replicas alike.
const secondGET = `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Conflict: only one GET stream may be open on a session"}}`

// leaseStore is an EventStore with every optional interface the
// Handlers use, as MemoryEventStore and redisstore's EventStore have.
type leaseStore interface {
	mcphttp.EventStore
	mcphttp.EventWatcher
	mcphttp.EventOnceAppender
	mcphttp.StreamLeaser
}

// releaseSpy is replica B's EventStore: it reports each GET stream lease
// B releases, so that the scenario knows when B's stream let go.
type releaseSpy struct {
	leaseStore
	released chan struct{}
}

func (s *releaseSpy) ReleaseStream(ctx context.Context, session, holder string) error {
	err := s.leaseStore.ReleaseStream(ctx, session, holder)
	select {
	case s.released <- struct{}{}:
	default:
	}
	return err
}

// refused checks that a GET was refused as a second GET stream.
func (s *stream) refused(t *testing.T, what string) {
	t.Helper()
	b, _ := io.ReadAll(s.body)
	if s.status != http.StatusConflict || strings.TrimSpace(string(b)) != secondGET {
		t.Fatalf("%s: %d %s, want 409 %s", what, s.status, b, secondGET)
	}
}

// RunGETLease runs the GET stream lease scenario on stores made by
// newStreams, whose Events must implement mcphttp.StreamLeaser (and
// EventWatcher and EventOnceAppender).
func RunGETLease(t *testing.T, newStreams NewStreams) {
	t.Run("one GET stream per session across replicas; a resume takes it over", func(t *testing.T) {
		s := newStreams(t)
		if _, ok := s.Events.(leaseStore); !ok {
			t.Fatalf("%T is not a StreamLeaser, EventWatcher and EventOnceAppender", s.Events)
		}
		spy := &releaseSpy{released: make(chan struct{}, 4)}
		c, _ := newStreamClusterWrap(t, s, lostLease, nil, func(ev mcphttp.EventStore) mcphttp.EventStore {
			spy.leaseStore = ev.(leaseStore)
			return spy
		})
		sid := initStreams(t, c)
		ctx := context.Background()
		notify := func(ss *mcp.ServerSession, text string) {
			t.Helper()
			if err := ss.Notify(ctx, "notifications/message", map[string]any{"level": "info", "data": text}); err != nil {
				t.Fatal(err)
			}
		}
		get := c.a.open(t, sid, "", "")
		get.wantSSE(t, "GET on A")
		seen := map[string]bool{get.primed(t, "GET on A"): true}
		// Refused on B as on A, while A's stream is open.
		c.b.open(t, sid, "", "").refused(t, "a second GET on B")
		c.a.open(t, sid, "", "").refused(t, "a second GET on A")
		notify(c.b.sessionOn(t, sid), "one")
		last := get.want(t, "GET on A", seen, message("one"))
		// The client lost A's stream (A has not noticed): resuming it on
		// B takes the lease over, and A ends its stream at its next
		// renewal.
		res := c.b.open(t, sid, last, "")
		res.wantSSE(t, "GET with Last-Event-ID on B")
		get.wantEnd(t, "GET on A after the resume on B")
		c.a.open(t, sid, "", "").refused(t, "a fresh GET on A while B serves the stream")
		notify(c.a.sessionOn(t, sid), "two")
		res.want(t, "resumed on B", seen, message("two"))
		// B's stream ends: the lease is free at once.
		res.cut()
		select {
		case <-spy.released:
		case <-time.After(streamTimeout):
			t.Fatal("B did not release the lease of its GET stream")
		}
		again := c.a.open(t, sid, "", "")
		again.wantSSE(t, "a fresh GET on A after B's stream ended")
		again.primed(t, "a fresh GET on A after B's stream ended")
		notify(c.b.sessionOn(t, sid), "three")
		again.want(t, "a fresh GET on A", seen, message("three"))
	})

	t.Run("a dead holder's lease lapses after its last renewal", func(t *testing.T) {
		s := newStreams(t)
		ls, ok := s.Events.(mcphttp.StreamLeaser)
		if !ok {
			t.Fatalf("%T is not a StreamLeaser", s.Events)
		}
		c, _ := newStreamClusterWrap(t, s, lostLease, nil, nil)
		sid := initStreams(t, c)
		ctx := context.Background()
		// A replica that took the lease and was killed: it never renews
		// nor releases it.
		if ok, err := ls.LeaseStream(ctx, sid, "killed replica", lostLease, false); !ok || err != nil {
			t.Fatalf("LeaseStream = %v, %v; want true", ok, err)
		}
		c.b.open(t, sid, "", "").refused(t, "a GET on B while the dead holder's lease runs")
		// The lease lapses by the store's clock: poll for it, a quarter
		// lease apart, for at most ten leases.
		tick := time.NewTicker(lostLease / 4)
		defer tick.Stop()
		deadline := time.After(10 * lostLease)
		for {
			g := c.b.open(t, sid, "", "")
			if g.status == http.StatusOK {
				g.wantSSE(t, "a GET on B after the lease lapsed")
				g.primed(t, "a GET on B after the lease lapsed")
				break
			}
			g.refused(t, "a GET on B while the dead holder's lease runs")
			g.cut()
			select {
			case <-tick.C:
			case <-deadline:
				t.Fatal("the dead holder's lease never lapsed")
			}
		}
		// The dead holder, were it to come back, holds nothing.
		if ok, err := ls.RenewStream(ctx, sid, "killed replica", lostLease); ok || err != nil {
			t.Fatalf("RenewStream of the dead holder = %v, %v; want false", ok, err)
		}
		c.a.open(t, sid, "", "").refused(t, "a GET on A while B serves the stream")
	})
}
