package mcp

// Behaviour of a session served over a stream Connection (Server.Connect):
// concurrency and its bound, duplicate ids, malformed frames, JSON-RPC
// batches and middleware, over the in-memory and the stdio transports.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// lcBlocker is a tool that blocks until released or cancelled, and says
// when it starts.
type lcBlocker struct {
	started chan jsonrpc.ID
	release chan struct{}
	running atomic.Int32
	most    atomic.Int32 // the most handlers seen running at once
}

func lcAddBlocker(t testing.TB, s *Server, name string) *lcBlocker {
	t.Helper()
	b := &lcBlocker{started: make(chan jsonrpc.ID, 16), release: make(chan struct{})}
	if err := s.AddTool(&Tool{Name: name}, func(ctx context.Context, req *Request, _ json.RawMessage) (*CallToolResult, error) {
		n := b.running.Add(1)
		defer b.running.Add(-1)
		for {
			m := b.most.Load()
			if n <= m || b.most.CompareAndSwap(m, n) {
				break
			}
		}
		b.started <- req.ID
		select {
		case <-b.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &CallToolResult{Content: []Content{&TextContent{Text: "released " + req.ID.String()}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	return b
}

// lcServeSlow serves over connect a server made with opts that has the
// tools "slow" (an lcBlocker) and echo, initializes the session at version,
// and calls slow with each of ids: those calls are running when it returns.
func lcServeSlow(t *testing.T, connect func(*Server) *lcConn, opts *ServerOptions, version string, ids ...int) (*lcConn, *lcBlocker) {
	t.Helper()
	s := lcNewServer(opts)
	b := lcAddBlocker(t, s, "slow")
	lcAddEcho(t, s)
	c := connect(s)
	c.handshake(version, lcInitResultTools(0, version))
	for _, id := range ids {
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"slow"}}`, id))
	}
	for i := range ids {
		lcWait(t, b.started, fmt.Sprintf("slow tool %d of %d to start", i+1, len(ids)))
	}
	return c, b
}

func TestServeSlowToolDoesNotDelayPing(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		c, b := lcServeSlow(t, connect, nil, "2025-11-25", 1)
		c.run(`
			-> {"jsonrpc":"2.0","id":2,"method":"ping"}
			<- {"jsonrpc":"2.0","id":2,"result":{}}
			-> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"meanwhile"}}}
			<- {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"meanwhile"}]}}
		`)
		close(b.release)
		c.expect(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"released 1"}]}}`)
		c.finish()
	})
}

// TestServeMaxConcurrentRequests runs in a synctest bubble so that "the
// third request has not started" is a fact, not a guess: synctest.Wait
// returns only when every goroutine of the session is blocked.
func TestServeMaxConcurrentRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := lcNewServer(&ServerOptions{MaxConcurrentRequests: 2})
		b := lcAddBlocker(t, s, "slow")
		c := lcConnectMemory(t, s)
		c.handshake("2025-11-25", lcInitResultTools(0, "2025-11-25"))
		for _, id := range []string{"1", "2", "3"} {
			c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"slow"}}`)
		}
		synctest.Wait()
		if n := len(b.started); n != 2 {
			t.Fatalf("%d handlers started, want 2 (MaxConcurrentRequests)", n)
		}
		// Waiting requests do not stop ping.
		c.run(`
			-> {"jsonrpc":"2.0","id":4,"method":"ping"}
			<- {"jsonrpc":"2.0","id":4,"result":{}}
		`)
		// Freeing a slot lets the third one in.
		b.release <- struct{}{}
		synctest.Wait()
		if n := len(b.started); n != 3 {
			t.Fatalf("%d handlers started after one finished, want 3", n)
		}
		close(b.release)
		var got []string
		for range 3 {
			got = append(got, c.recv())
		}
		slices.Sort(got)
		want := []string{
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"released 1"}]}}`,
			`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"released 2"}]}}`,
			`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"released 3"}]}}`,
		}
		if !slices.Equal(got, want) {
			t.Errorf("responses:\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
		}
		if m := b.most.Load(); m != 2 {
			t.Errorf("at most %d handlers ran at once, want 2", m)
		}
		c.finish()
	})
}

// TestServeCancelWhileSaturated: when every slot is taken and more
// requests wait, the client can still cancel a running request, and the
// freed slot serves the next one.
func TestServeCancelWhileSaturated(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		c, _ := lcServeSlow(t, connect, &ServerOptions{MaxConcurrentRequests: 1}, "2025-11-25", 1)
		c.run(`
			-> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"queued"}}}
			-> {"jsonrpc":"2.0","id":3,"method":"ping"}
			<- {"jsonrpc":"2.0","id":3,"result":{}}
			-> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}
			<- {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"queued"}]}}
		`)
		c.finish()
	})
}

func TestServeDuplicateInFlightID(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		c, b := lcServeSlow(t, connect, nil, "2025-11-25", 7)
		c.run(`
			-> {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"again"}}}
			<- {"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: a request with id 7 is already in flight"}}
			-> {"jsonrpc":"2.0","id":7,"method":"tools/list"}
			<- {"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: a request with id 7 is already in flight"}}
			# The string "7" is another id.
			-> {"jsonrpc":"2.0","id":"7","method":"tools/call","params":{"name":"echo","arguments":{"text":"other"}}}
			<- {"jsonrpc":"2.0","id":"7","result":{"content":[{"type":"text","text":"other"}]}}
		`)
		// The first request is unaffected.
		close(b.release)
		c.expect(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"released 7"}]}}`)
		// Once answered, the id may be used again.
		c.run(`
			-> {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"reused"}}}
			<- {"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"reused"}]}}
		`)
		c.finish()
	})
}

func TestServeMalformedFrames(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		c := connect(lcNewServer(nil))
		c.handshake("2025-11-25", lcInitResult(0, "2025-11-25"))
		c.run(`
			-> {not json
			<- {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}
			-> {"jsonrpc":"2.0","id":1,"method":"ping"
			<- {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}
			-> "hello"
			<- {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: JSON-RPC message must be a single object"}}
			-> 42
			<- {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: JSON-RPC message must be a single object"}}
			-> null
			<- {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: JSON-RPC message must be a single object"}}
			-> {"jsonrpc":"1.0","id":4,"method":"ping"}
			<- {"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: jsonrpc must be \"2.0\""}}
			-> {"id":5,"method":"ping"}
			<- {"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: jsonrpc must be \"2.0\""}}
			-> {"jsonrpc":"2.0","id":null,"method":"ping"}
			<- {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: a request id must not be null"}}
			-> {"jsonrpc":"2.0","id":true,"method":"ping"}
			<- {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: id must be a string or an integer"}}
			-> {"jsonrpc":"2.0","id":1.5,"method":"ping"}
			<- {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: id must be a string or an integer"}}
			-> {"jsonrpc":"2.0","id":6}
			<- {"jsonrpc":"2.0","id":6,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: method is required"}}
			# A response to nothing the server asked is dropped.
			-> {"jsonrpc":"2.0","id":99,"result":{}}
			# The session goes on.
			-> {"jsonrpc":"2.0","id":7,"method":"ping"}
			<- {"jsonrpc":"2.0","id":7,"result":{}}
		`)
		if got := c.ss.State().Lifecycle; got != stateReady {
			t.Errorf("Lifecycle = %q, want %q", got, stateReady)
		}
		c.finish()
	})
}

func TestServeBatchRefusedUnless20250326(t *testing.T) {
	const refused = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: JSON-RPC batches are not supported on this session; send one message per line"}}`
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		// Before initialize, even a batch that holds initialize.
		c := connect(lcNewServer(nil))
		c.send(`[` + lcInit(1, "2025-03-26", "c") + `]`)
		c.expect(refused)
		if got := c.ss.State().Lifecycle; got != stateNew {
			t.Errorf("Lifecycle after a refused batch = %q, want %q", got, stateNew)
		}
		c.finish()

		for _, v := range []string{"2025-11-25", "2025-06-18", "2024-11-05"} {
			c := connect(lcNewServer(nil))
			c.handshake(v, lcInitResult(0, v))
			c.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`)
			c.expect(refused)
			c.run(`
				-> {"jsonrpc":"2.0","id":3,"method":"ping"}
				<- {"jsonrpc":"2.0","id":3,"result":{}}
			`)
			c.finish()
		}
	})
}

func TestServeBatchOn20250326(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(nil)
		lcAddEcho(t, s)
		c := connect(s)
		c.handshake("2025-03-26", lcInitResultTools(0, "2025-03-26"))
		c.run(`
			# Responses come back as one array, in the order of the requests;
			# notifications in the batch get nothing.
			-> [{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"one"}}},{"jsonrpc":"2.0","method":"notifications/whatever"},{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"echo","arguments":{"text":"three"}}}]
			<- [{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"one"}]}},{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":"three","result":{"content":[{"type":"text","text":"three"}]}}]

			# A batch of notifications only gets no reply at all.
			-> [{"jsonrpc":"2.0","method":"notifications/a"},{"jsonrpc":"2.0","method":"notifications/b"}]
			-> {"jsonrpc":"2.0","id":3,"method":"ping"}
			<- {"jsonrpc":"2.0","id":3,"result":{}}

			# initialize inside a batch is refused; the rest is served.
			-> [{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"b","version":"1"}}},{"jsonrpc":"2.0","id":5,"method":"ping"}]
			<- [{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: initialize must not be part of a JSON-RPC batch"}},{"jsonrpc":"2.0","id":5,"result":{}}]

			# Errors per element, in place.
			-> [{"jsonrpc":"2.0","id":6,"method":"nope"},1,{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"missing"}}]
			<- [{"jsonrpc":"2.0","id":6,"error":{"code":-32601,"message":"Method not found","data":"nope"}},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: JSON-RPC message must be a single object"}},{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params","data":"Unknown tool: missing"}}]

			# An empty batch, and a batch that is not JSON.
			-> []
			<- {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: batch must not be empty"}}
			-> [{"jsonrpc":"2.0","id":8,"method":"ping"}
			<- {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}

			# Single messages still work.
			-> {"jsonrpc":"2.0","id":9,"method":"ping"}
			<- {"jsonrpc":"2.0","id":9,"result":{}}
		`)
		if st := c.ss.State(); st.ClientInfo.Name != "lc-client" || st.ProtocolVersion != "2025-03-26" {
			t.Errorf("state after a batched initialize = %q, %q; want lc-client, 2025-03-26", st.ClientInfo.Name, st.ProtocolVersion)
		}
		c.finish()
	})
}

func TestServeMiddleware(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		var mu sync.Mutex
		var seen []string
		record := func(tag string) Middleware {
			return func(next MethodHandler) MethodHandler {
				return func(ctx context.Context, r *Request) (any, error) {
					mu.Lock()
					kind := "request"
					if !r.ID.IsValid() {
						kind = "notification"
					}
					seen = append(seen, tag+" "+kind+" "+r.Method)
					mu.Unlock()
					return next(ctx, r)
				}
			}
		}
		policy := func(next MethodHandler) MethodHandler {
			return func(ctx context.Context, r *Request) (any, error) {
				switch r.Method {
				case "tools/call":
					var p CallToolParams
					if err := json.Unmarshal(r.Params, &p); err == nil && p.Name == "echo" && strings.Contains(string(p.Arguments), "forbidden") {
						return nil, jsonrpc.NewError(-32001, "Forbidden", "echo may not say that")
					}
				case "custom/hello":
					// Middleware may answer a method of its own.
					return map[string]string{"hello": r.ClientInfo.Name}, nil
				case "custom/fail":
					return nil, errors.New("plain failure")
				case "custom/panic":
					panic("in middleware")
				}
				return next(ctx, r)
			}
		}
		s := lcNewServer(&ServerOptions{Middleware: []Middleware{record("outer"), record("inner"), policy}})
		lcAddEcho(t, s)
		c := connect(s)
		c.handshake("2025-11-25", lcInitResultTools(0, "2025-11-25"))
		c.run(`
			-> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"fine"}}}
			<- {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"fine"}]}}
			-> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"forbidden"}}}
			<- {"jsonrpc":"2.0","id":2,"error":{"code":-32001,"message":"Forbidden","data":"echo may not say that"}}
			-> {"jsonrpc":"2.0","id":3,"method":"custom/hello"}
			<- {"jsonrpc":"2.0","id":3,"result":{"hello":"lc-client"}}
			-> {"jsonrpc":"2.0","id":4,"method":"custom/fail"}
			<- {"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"plain failure"}}
			-> {"jsonrpc":"2.0","id":5,"method":"custom/panic"}
			<- {"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"Internal error"}}
			-> {"jsonrpc":"2.0","method":"notifications/whatever"}
			-> {"jsonrpc":"2.0","id":6,"method":"nope"}
			<- {"jsonrpc":"2.0","id":6,"error":{"code":-32601,"message":"Method not found","data":"nope"}}
		`)
		c.finish()
		mu.Lock()
		defer mu.Unlock()
		var want []string
		for _, m := range []string{
			"request initialize", "notification notifications/initialized", "request ping",
			"request tools/call", "request tools/call", "request custom/hello", "request custom/fail",
			"request custom/panic", "notification notifications/whatever", "request nope",
		} {
			want = append(want, "outer "+m, "inner "+m)
		}
		if !slices.Equal(seen, want) {
			t.Errorf("middleware saw\n\t%s\nwant\n\t%s", strings.Join(seen, "\n\t"), strings.Join(want, "\n\t"))
		}
	})
}
