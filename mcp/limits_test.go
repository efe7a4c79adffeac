package mcp

// Tests of the bounds in limits.go, over the stream transports.

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/mcpkit/mcpkit/jsonrpc"
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
		c, b := lcServeSlow(t, connect, &ServerOptions{MaxInFlightRequests: 2, MaxConcurrentRequests: 4}, "2025-11-25", 1, 2)
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
		if st.Lifecycle != stateReady || st.ClientInfo.Name != "lc-client" || st.ProtocolVersion != "2025-11-25" {
			t.Errorf("state after refusals = %q %q %q, want ready, lc-client, 2025-11-25", st.Lifecycle, st.ClientInfo.Name, st.ProtocolVersion)
		}
		c.finish()
	})
}

// The requests of a 2025-03-26 batch are admitted one by one like any
// other: those past the bound get the error in the batch's answer.
func TestServeMaxInFlightRequestsBatch(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		c, b := lcServeSlow(t, connect, &ServerOptions{MaxInFlightRequests: 2}, "2025-03-26", 1, 2)
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

// An initialize whose clientInfo and capabilities exceed
// MaxClientStateBytes is refused with -32602 and leaves the session as it
// was: uninitialized, with nothing of the client kept. One at the bound is
// served.
func TestInitializeMaxClientStateBytes(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(&ServerOptions{MaxClientStateBytes: 100})
		c := connect(s)
		// capabilities {} (2 bytes) + {"name":"…","version":"1.0"} (27 + name).
		c.send(lcInit(1, "2025-11-25", strings.Repeat("n", 72)))
		c.expect(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params","data":"clientInfo and capabilities are too large: 101 bytes, more than the 100 this server accepts"}}`)
		if st := c.ss.State(); st.Lifecycle != stateNew || st.ProtocolVersion != "" || !reflect.DeepEqual(st.ClientInfo, Implementation{}) || !reflect.DeepEqual(st.ClientCapabilities, ClientCapabilities{}) {
			t.Errorf("state after a refused initialize = %+v, want a new session with nothing kept", st)
		}
		c.run(`
			-> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
			<- {"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: Server not initialized"}}
		`)
		c.send(lcInit(3, "2025-11-25", strings.Repeat("n", 71)))
		c.expect(lcInitResult(3, "2025-11-25"))
		if got := c.ss.State().ClientInfo.Name; got != strings.Repeat("n", 71) {
			t.Errorf("clientInfo.name = %q after an initialize at the bound", got)
		}
		c.finish()
	})
}

// A refused initialize on a session with an id (as Streamable HTTP makes)
// saves nothing to the SessionStore.
func TestInitializeMaxClientStateBytesSavesNothing(t *testing.T) {
	store := &memorySessionStore{}
	s := lcNewServer(&ServerOptions{MaxClientStateBytes: 100, SessionStore: store})
	ss := s.newSession(SessionOptions{ID: "sid"})
	defer ss.Close()
	msg, _, err := jsonrpc.Decode([]byte(lcInit(1, "2025-11-25", strings.Repeat("n", 1000))))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := ss.handleRequest(context.Background(), msg.(*jsonrpc.Request), nil, nil)
	if err != nil || resp == nil || resp.Error == nil || resp.Error.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("HandleRequest = %+v, %v; want a -32602 error response", resp, err)
	}
	if st, err := store.Load(context.Background(), "", "sid"); err == nil && st != nil {
		t.Errorf("the store holds %+v after a refused initialize", st)
	}
}

// A stateless-era request whose _meta clientInfo and clientCapabilities
// exceed MaxClientStateBytes is refused with -32602; one at the bound is
// served, and neither leaves anything on the connection's session.
func TestModernMaxClientStateBytes(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(&ServerOptions{MaxClientStateBytes: 100})
		lcAddWhoami(t, s)
		c := connect(s)
		meta := func(name string) string {
			// clientCapabilities {} (2 bytes) + {"name":"…","version":"2.0"} (27 + name).
			return `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"` + name + `","version":"2.0"}}`
		}
		c.run(`
			-> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":` + meta(strings.Repeat("n", 72)) + `,"name":"whoami"}}
			<- {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params","data":"_meta io.modelcontextprotocol/clientInfo and io.modelcontextprotocol/clientCapabilities are too large: 101 bytes, more than the 100 this server accepts"}}
			-> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":` + meta(strings.Repeat("n", 71)) + `,"name":"whoami"}}
			<- {"jsonrpc":"2.0","id":2,"result":{` + lcStampCall + `,"content":[{"type":"text","text":"2026-07-28 true ` + strings.Repeat("n", 71) + ` {}"}]}}
		`)
		if st := c.ss.State(); st.Lifecycle != stateNew || !reflect.DeepEqual(st.ClientInfo, Implementation{}) {
			t.Errorf("session state after stateless requests = %+v, want nothing kept", st)
		}
		c.finish()
	})
}

// MaxClientStateBytes defaults to 64 KiB; a negative value means no bound.
func TestMaxClientStateBytesDefault(t *testing.T) {
	if got := lcNewServer(nil).opts.MaxClientStateBytes; got != 64<<10 {
		t.Errorf("default MaxClientStateBytes = %d, want %d", got, 64<<10)
	}
	s := lcNewServer(&ServerOptions{MaxClientStateBytes: -1})
	ss := s.newSession(SessionOptions{})
	defer ss.Close()
	msg, _, _ := jsonrpc.Decode([]byte(lcInit(1, "2025-11-25", strings.Repeat("n", 100<<10))))
	resp, err := ss.handleRequest(context.Background(), msg.(*jsonrpc.Request), nil, nil)
	if err != nil || resp == nil || resp.Error != nil {
		t.Errorf("initialize with no bound = %+v, %v; want a result", resp, err)
	}
}

// A 2025-03-26 batch runs its requests on at most MaxConcurrentRequests
// goroutines at once, not one each (issue 15, item 3): before, a batch of
// thousands started thousands of goroutines before admission refused any.
func TestServeBatchConcurrencyBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := lcNewServer(&ServerOptions{MaxConcurrentRequests: 4, MaxInFlightRequests: -1})
		b := lcAddBlocker(t, s, "slow")
		c := lcConnectStdio(t, s, 0)
		c.handshake("2025-03-26", lcInitResultTools(0, "2025-03-26"))
		var batch, want strings.Builder
		batch.WriteByte('[')
		want.WriteByte('[')
		for i := range 40 {
			if i > 0 {
				batch.WriteByte(',')
				want.WriteByte(',')
			}
			fmt.Fprintf(&batch, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"slow"}}`, i)
			fmt.Fprintf(&want, `{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"released %d"}]}}`, i, i)
		}
		batch.WriteByte(']')
		want.WriteByte(']')
		c.send(batch.String())
		for range 4 {
			<-b.started
		}
		synctest.Wait() // every goroutine that can run has run
		if n := b.running.Load(); n != 4 {
			t.Errorf("%d handlers running at once, want 4", n)
		}
		go func() {
			for range 40 - 4 {
				<-b.started
			}
		}()
		close(b.release)
		c.expect(want.String())
		if m := b.most.Load(); m != 4 {
			t.Errorf("at most %d handlers ran at once, want 4", m)
		}
		c.finish()
	})
}
