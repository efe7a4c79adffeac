package mcp

// Tests of the bounds in limits.go, over the stream transports.

import (
	"testing"
)

// lcTooManyInFlight is the answer to a request past MaxInFlightRequests 2.
const lcTooManyInFlight = `"error":{"code":-32000,"message":"Too many requests in flight","data":{"maxInFlightRequests":2}}`

// A session with MaxInFlightRequests handlers running refuses the next
// request at once, in either era, and changes nothing; once one finishes
// the next request is served.
func TestServeMaxInFlightRequests(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		// MaxConcurrentRequests above the bound, so that the stream
		// transport's own bound does not hide it.
		s := lcNewServer(&ServerOptions{MaxInFlightRequests: 2, MaxConcurrentRequests: 4})
		b := lcAddBlocker(t, s, "slow")
		lcAddEcho(t, s)
		c := connect(s)
		c.handshake("2025-11-25", lcInitResultTools(0, "2025-11-25"))
		c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`)
		c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}`)
		lcWait(t, b.started, "the first slow tool to start")
		lcWait(t, b.started, "the second slow tool to start")
		c.run(`
			-> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}
			<- {"jsonrpc":"2.0","id":3,` + lcTooManyInFlight + `}
			# A stateless-era request on the session counts against the same bound.
			-> {"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":` + lcModernMeta(`{}`) + `}}
			<- {"jsonrpc":"2.0","id":4,` + lcTooManyInFlight + `}
			# ping is not counted.
			-> {"jsonrpc":"2.0","id":5,"method":"ping"}
			<- {"jsonrpc":"2.0","id":5,"result":{}}
		`)
		b.release <- struct{}{}
		first := c.recv()
		if first != `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"released 1"}]}}` &&
			first != `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"released 2"}]}}` {
			t.Fatalf("after releasing one slow tool the server sent %s", first)
		}
		c.run(`
			-> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{"text":"room again"}}}
			<- {"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"room again"}]}}
		`)
		if n := b.running.Load(); n != 1 {
			t.Errorf("%d slow tools running, want 1", n)
		}
		close(b.release)
		c.recv() // the other slow tool's answer
		st := c.ss.State()
		if st.Lifecycle != StateReady || st.ClientInfo.Name != "lc-client" || st.ProtocolVersion != "2025-11-25" {
			t.Errorf("state after refusals = %q %q %q, want ready, lc-client, 2025-11-25", st.Lifecycle, st.ClientInfo.Name, st.ProtocolVersion)
		}
		c.finish()
	})
}

// The requests of a 2025-03-26 batch are admitted one by one like any
// other: those past the bound get the error in the batch's answer.
func TestServeMaxInFlightRequestsBatch(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(&ServerOptions{MaxInFlightRequests: 2})
		b := lcAddBlocker(t, s, "slow")
		lcAddEcho(t, s)
		c := connect(s)
		c.handshake("2025-03-26", lcInitResultTools(0, "2025-03-26"))
		c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`)
		c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}`)
		lcWait(t, b.started, "the first slow tool to start")
		lcWait(t, b.started, "the second slow tool to start")
		c.run(`
			-> [{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}},{"jsonrpc":"2.0","id":4,"method":"ping"}]
			<- [{"jsonrpc":"2.0","id":3,` + lcTooManyInFlight + `},{"jsonrpc":"2.0","id":4,"result":{}}]
		`)
		close(b.release)
		c.recv()
		c.recv()
		c.finish()
	})
}

// MaxInFlightRequests defaults to 64, or to MaxConcurrentRequests when
// that is larger, so that the stream transports' own bound is reachable;
// a negative value means no bound.
func TestMaxInFlightRequestsDefault(t *testing.T) {
	for _, tc := range []struct {
		opts *ServerOptions
		want int
	}{
		{nil, 64},
		{&ServerOptions{MaxConcurrentRequests: 8}, 64},
		{&ServerOptions{MaxConcurrentRequests: 100}, 100},
		{&ServerOptions{MaxInFlightRequests: 3}, 3},
		{&ServerOptions{MaxInFlightRequests: -1}, -1},
	} {
		if got := lcNewServer(tc.opts).opts.MaxInFlightRequests; got != tc.want {
			t.Errorf("MaxInFlightRequests with %+v = %d, want %d", tc.opts, got, tc.want)
		}
	}
}
