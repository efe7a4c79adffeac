package replicatest

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcphttp"
)

// This part runs issue 14's item 5: a replica killed mid-request. The
// client resumes the request's POST stream on another replica, which
// answers it with a JSON-RPC error once the dead replica's lease lapses,
// and the session lives on there
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery).

// lostLease is the scenario's Options.StreamLease.
const lostLease = 2 * time.Second

// killable is replica A's EventStore: once dead, A can store nothing
// more, as a process that was killed.
type killable struct {
	mcphttp.EventStore
	dead atomic.Bool
	// beats receives a value for each heartbeat A stores, when not full.
	beats chan struct{}
}

var errKilled = errors.New("replicatest: the replica was killed")

func (k *killable) Append(ctx context.Context, session, stream, id string, data []byte) error {
	if k.dead.Load() {
		return errKilled
	}
	err := k.EventStore.Append(ctx, session, stream, id, data)
	if string(data) == "hb" && err == nil {
		select {
		case k.beats <- struct{}{}:
		default:
		}
	}
	return err
}

// RunLostRequest runs the lost-request scenario on stores made by
// newStreams.
func RunLostRequest(t *testing.T, newStreams NewStreams) {
	t.Run("a request running past its lease, heartbeating, is not lost", func(t *testing.T) {
		var k *killable
		c, g := newStreamClusterWith(t, newStreams, lostLease, func(ev mcphttp.EventStore) mcphttp.EventStore {
			k = &killable{EventStore: ev, beats: make(chan struct{}, 1)}
			return k
		})
		sid := initStreams(t, c)
		post := c.a.open(t, sid, "", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"steps","arguments":{}}}`)
		post.wantSSE(t, "POST on A")
		seen := map[string]bool{post.primed(t, "POST on A"): true}
		last := post.want(t, "POST on A", seen, message("step 1"))
		post.cut()
		res := c.b.open(t, sid, last, "")
		res.wantSSE(t, "GET with Last-Event-ID on B")
		// Four heartbeats, lostLease/3 apart: more than a lease passes
		// with no message on the stream.
		for range 4 {
			<-k.beats
		}
		g.next <- struct{}{}
		res.want(t, "resumed on B", seen, message("step 2"))
		g.next <- struct{}{}
		res.want(t, "resumed on B", seen, message("step 3"), `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"done"}]}}`)
		res.wantEnd(t, "resumed on B")
	})
	t.Run("a request whose replica died is answered with an error on another", func(t *testing.T) {
		var k *killable
		c, _ := newStreamClusterWith(t, newStreams, lostLease, func(ev mcphttp.EventStore) mcphttp.EventStore {
			k = &killable{EventStore: ev}
			return k
		})
		sid := initStreams(t, c)
		post := c.a.open(t, sid, "", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"steps","arguments":{}}}`)
		post.wantSSE(t, "POST on A")
		seen := map[string]bool{post.primed(t, "POST on A"): true}
		last := post.want(t, "POST on A", seen, message("step 1"))
		// A dies mid-request: nothing more of it reaches the store, no
		// end of the stream either.
		post.cut()
		k.dead.Store(true)
		_ = c.a.h.Close()
		c.a.ts.Close()
		res := c.b.open(t, sid, last, "")
		res.wantSSE(t, "GET with Last-Event-ID on B")
		res.want(t, "resumed on B", seen, `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Internal error: the server replica running this request stopped before answering it"}}`)
		res.wantEnd(t, "resumed on B")
		// Resumed again: the same answer, stored once.
		again := c.b.open(t, sid, last, "")
		again.wantSSE(t, "resumed again on B")
		again.want(t, "resumed again on B", map[string]bool{}, `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Internal error: the server replica running this request stopped before answering it"}}`)
		again.wantEnd(t, "resumed again on B")
		// The session lives on B.
		if got := c.b.call(t, sid, echo(3, "still here")); got != echoed(3, "still here") {
			t.Fatalf("tools/call on B after A died: %s", got)
		}
	})
}
