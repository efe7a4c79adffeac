package mcp

// Lifecycle behaviour of a ServerSession, driven with raw JSON-RPC lines
// over the in-memory and the stdio transports
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

func TestLifecycleDuplicateInitializeKeepsTheOriginals(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		c := connect(lcNewServer(nil))
		c.run(`
			-> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"first","version":"1.0"}}}
			<- {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"lc-server","version":"1.0.0"}}}

			# Refused before notifications/initialized...
			-> {"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"second","version":"2.0"}}}
			<- {"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: Server already initialized"}}

			# ...and after it.
			-> {"jsonrpc":"2.0","method":"notifications/initialized"}
			-> {"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"second","version":"2.0"}}}
			<- {"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: Server already initialized"}}

			# Even an invalid second initialize is refused as a duplicate.
			-> {"jsonrpc":"2.0","id":4,"method":"initialize"}
			<- {"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: Server already initialized"}}

			# The session still answers.
			-> {"jsonrpc":"2.0","id":5,"method":"ping"}
			<- {"jsonrpc":"2.0","id":5,"result":{}}
			-> {"jsonrpc":"2.0","id":6,"method":"tools/list"}
			<- {"jsonrpc":"2.0","id":6,"result":{"tools":[]}}
		`)
		st := c.ss.State()
		if st.ProtocolVersion != "2025-11-25" {
			t.Errorf("ProtocolVersion = %q, want the first one, 2025-11-25", st.ProtocolVersion)
		}
		if want := (Implementation{Name: "first", Version: "1.0"}); st.ClientInfo.Name != want.Name || st.ClientInfo.Version != want.Version {
			t.Errorf("ClientInfo = %+v, want the first one, %+v", st.ClientInfo, want)
		}
		if r := st.ClientCapabilities.Roots; r == nil || !r.ListChanged {
			t.Errorf("ClientCapabilities.Roots = %+v, want the first one, {ListChanged:true}", r)
		}
		if st.Lifecycle != stateReady {
			t.Errorf("Lifecycle = %q, want %q", st.Lifecycle, stateReady)
		}
		if got := c.ss.ProtocolVersion(); got != "2025-11-25" {
			t.Errorf("ServerSession.ProtocolVersion() = %q, want 2025-11-25", got)
		}
		c.finish()
	})
}

func TestLifecycleInitializeParamsValidation(t *testing.T) {
	const (
		missing = `missing params: initialize requires protocolVersion, capabilities and clientInfo`
		notObj  = `params must be an object`
		version = `protocolVersion must be a string`
		caps    = `capabilities must be an object`
		info    = `clientInfo must be an object with name and version`
		name    = `clientInfo.name must be a string`
		ver     = `clientInfo.version must be a string`
	)
	okCaps, okInfo := `"capabilities":{}`, `"clientInfo":{"name":"c","version":"1"}`
	tests := []struct {
		name   string
		params string // the params member, or "" for none
		data   string // the wanted error data
	}{
		{"no params", ``, missing},
		{"null params", `null`, missing},
		{"array params", `[]`, notObj},
		{"no protocolVersion", `{` + okCaps + `,` + okInfo + `}`, version},
		{"number protocolVersion", `{"protocolVersion":20251125,` + okCaps + `,` + okInfo + `}`, version},
		{"null protocolVersion", `{"protocolVersion":null,` + okCaps + `,` + okInfo + `}`, version},
		{"object protocolVersion", `{"protocolVersion":{},` + okCaps + `,` + okInfo + `}`, version},
		{"no capabilities", `{"protocolVersion":"2025-11-25",` + okInfo + `}`, caps},
		{"null capabilities", `{"protocolVersion":"2025-11-25","capabilities":null,` + okInfo + `}`, caps},
		{"array capabilities", `{"protocolVersion":"2025-11-25","capabilities":[],` + okInfo + `}`, caps},
		{"string capabilities", `{"protocolVersion":"2025-11-25","capabilities":"all",` + okInfo + `}`, caps},
		{"no clientInfo", `{"protocolVersion":"2025-11-25",` + okCaps + `}`, info},
		{"null clientInfo", `{"protocolVersion":"2025-11-25",` + okCaps + `,"clientInfo":null}`, info},
		{"string clientInfo", `{"protocolVersion":"2025-11-25",` + okCaps + `,"clientInfo":"c"}`, info},
		{"empty clientInfo", `{"protocolVersion":"2025-11-25",` + okCaps + `,"clientInfo":{}}`, name},
		{"clientInfo without name", `{"protocolVersion":"2025-11-25",` + okCaps + `,"clientInfo":{"version":"1"}}`, name},
		{"clientInfo with null name", `{"protocolVersion":"2025-11-25",` + okCaps + `,"clientInfo":{"name":null,"version":"1"}}`, name},
		{"clientInfo with number name", `{"protocolVersion":"2025-11-25",` + okCaps + `,"clientInfo":{"name":5,"version":"1"}}`, name},
		{"clientInfo without version", `{"protocolVersion":"2025-11-25",` + okCaps + `,"clientInfo":{"name":"c"}}`, ver},
		{"clientInfo with number version", `{"protocolVersion":"2025-11-25",` + okCaps + `,"clientInfo":{"name":"c","version":1}}`, ver},
	}
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		c := connect(lcNewServer(nil))
		for i, tt := range tests {
			id := jsonrpc.Int64ID(int64(i + 1)).String()
			req := `{"jsonrpc":"2.0","id":` + id + `,"method":"initialize"}`
			if tt.params != "" {
				req = `{"jsonrpc":"2.0","id":` + id + `,"method":"initialize","params":` + tt.params + `}`
			}
			c.send(req)
			want := `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32602,"message":"Invalid params","data":` + string(lcJSONString(tt.data)) + `}}`
			if got := c.recv(); got != want {
				t.Errorf("%s: server sent\n\t%s\nwant\n\t%s", tt.name, got, want)
			}
			if got := c.ss.State().Lifecycle; got != stateNew {
				t.Errorf("%s: after a failed initialize the session is %q, want %q", tt.name, got, stateNew)
			}
		}
		// Params that are not structured are not a JSON-RPC request at all.
		c.run(`
			-> {"jsonrpc":"2.0","id":"s","method":"initialize","params":"x"}
			<- {"jsonrpc":"2.0","id":"s","error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: params must be an object or an array"}}
		`)
		// A failed initialize changed nothing: a valid one now succeeds.
		c.send(lcInit(100, "2025-06-18", "late"))
		c.expect(lcInitResult(100, "2025-06-18"))
		if st := c.ss.State(); st.Lifecycle != stateInitialized || st.ClientInfo.Name != "late" || st.ProtocolVersion != "2025-06-18" {
			t.Errorf("state after the valid initialize = %q, %q, %q; want initialized, late, 2025-06-18", st.Lifecycle, st.ClientInfo.Name, st.ProtocolVersion)
		}
		c.finish()
	})
}

func lcJSONString(s string) []byte {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return b
}

func TestLifecycleVersionNegotiation(t *testing.T) {
	tests := []struct{ requested, answered string }{
		{"2025-11-25", "2025-11-25"},
		{"2025-06-18", "2025-06-18"},
		{"2025-03-26", "2025-03-26"},
		{"2024-11-05", "2024-11-05"},
		// initialize negotiates only session-era versions.
		{"2026-07-28", "2025-11-25"},
		{"1999-01-01", "2025-11-25"},
		{"", "2025-11-25"},
		{"2025-11-25 ", "2025-11-25"},
	}
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		for _, tt := range tests {
			c := connect(lcNewServer(nil))
			c.send(lcInit(1, tt.requested, "c"))
			c.expect(lcInitResult(1, tt.answered))
			if got := c.ss.State().ProtocolVersion; got != tt.answered {
				t.Errorf("requested %q: state has version %q, want %q", tt.requested, got, tt.answered)
			}
			c.finish()
		}
	})
}

func TestLifecycleBeforeInitialize(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(nil)
		lcAddEcho(t, s)
		c := connect(s)
		c.run(`
			# ping is answered at any time.
			-> {"jsonrpc":"2.0","id":1,"method":"ping"}
			<- {"jsonrpc":"2.0","id":1,"result":{}}

			# Any other request is refused, known or not.
			-> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
			<- {"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: Server not initialized"}}
			-> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}
			<- {"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: Server not initialized"}}
			-> {"jsonrpc":"2.0","id":"x","method":"no/such/method"}
			<- {"jsonrpc":"2.0","id":"x","error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: Server not initialized"}}

			# Notifications are ignored, notifications/initialized included.
			-> {"jsonrpc":"2.0","method":"notifications/initialized"}
			-> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}
			-> {"jsonrpc":"2.0","method":"notifications/whatever"}
			-> {"jsonrpc":"2.0","id":4,"method":"ping"}
			<- {"jsonrpc":"2.0","id":4,"result":{}}
		`)
		if got := c.ss.State().Lifecycle; got != stateNew {
			t.Fatalf("Lifecycle = %q, want %q", got, stateNew)
		}
		c.send(lcInit(5, "2025-11-25", "c"))
		c.expect(lcInitResultTools(5, "2025-11-25"))
		// The early notifications/initialized did not count.
		if got := c.ss.State().Lifecycle; got != stateInitialized {
			t.Fatalf("Lifecycle after initialize = %q, want %q", got, stateInitialized)
		}
		c.run(`
			-> {"jsonrpc":"2.0","method":"notifications/initialized"}
			-> {"jsonrpc":"2.0","id":6,"method":"ping"}
			<- {"jsonrpc":"2.0","id":6,"result":{}}
		`)
		if got := c.ss.State().Lifecycle; got != stateReady {
			t.Fatalf("Lifecycle after notifications/initialized = %q, want %q", got, stateReady)
		}
		c.finish()
	})
}

func TestLifecycleServerRequestsWaitForInitialized(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		ctx := context.Background()
		c := connect(lcNewServer(nil))
		var roots struct {
			Roots []struct {
				URI string `json:"uri"`
			} `json:"roots"`
		}
		// Before initialize nothing may be sent but ping.
		if err := c.ss.Call(ctx, "roots/list", nil, &roots); !errors.Is(err, ErrNotReady) {
			t.Errorf("Call before initialize = %v, want ErrNotReady", err)
		}
		c.run(`
			-> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}}
			<- {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"lc-server","version":"1.0.0"}}}
			# Requests are served before notifications/initialized.
			-> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
			<- {"jsonrpc":"2.0","id":2,"result":{"tools":[]}}
		`)
		if got := c.ss.State().Lifecycle; got != stateInitialized {
			t.Fatalf("Lifecycle = %q, want %q", got, stateInitialized)
		}
		// ... but the server sends no request of its own except ping.
		if err := c.ss.Call(ctx, "roots/list", nil, &roots); !errors.Is(err, ErrNotReady) {
			t.Errorf("Call(roots/list) before notifications/initialized = %v, want ErrNotReady", err)
		}
		if err := c.ss.Call(ctx, "sampling/createMessage", json.RawMessage(`{}`), nil); !errors.Is(err, ErrNotReady) {
			t.Errorf("Call(sampling/createMessage) before notifications/initialized = %v, want ErrNotReady", err)
		}
		pinged := make(chan error, 1)
		go func() { pinged <- c.ss.Ping(ctx) }()
		c.run(`
			<- {"jsonrpc":"2.0","id":1,"method":"ping"}
			-> {"jsonrpc":"2.0","id":1,"result":{}}
		`)
		if err := lcWait(t, pinged, "Ping"); err != nil {
			t.Errorf("Ping before notifications/initialized = %v, want nil", err)
		}

		c.run(`
			-> {"jsonrpc":"2.0","method":"notifications/initialized"}
			-> {"jsonrpc":"2.0","id":3,"method":"ping"}
			<- {"jsonrpc":"2.0","id":3,"result":{}}
		`)
		called := make(chan error, 1)
		go func() { called <- c.ss.Call(ctx, "roots/list", nil, &roots) }()
		c.run(`
			<- {"jsonrpc":"2.0","id":2,"method":"roots/list"}
			-> {"jsonrpc":"2.0","id":2,"result":{"roots":[{"uri":"file:///tmp/project"}]}}
		`)
		if err := lcWait(t, called, "Call"); err != nil {
			t.Fatalf("Call(roots/list) when ready = %v, want nil", err)
		}
		if len(roots.Roots) != 1 || roots.Roots[0].URI != "file:///tmp/project" {
			t.Errorf("roots = %+v, want one root file:///tmp/project", roots)
		}

		// An error answer comes back as the *jsonrpc.Error.
		go func() { called <- c.ss.Call(ctx, "roots/list", nil, nil) }()
		c.run(`
			<- {"jsonrpc":"2.0","id":3,"method":"roots/list"}
			-> {"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found","data":"roots/list"}}
		`)
		var rpcErr *jsonrpc.Error
		if err := lcWait(t, called, "Call"); !errors.As(err, &rpcErr) || rpcErr.Code != -32601 || string(rpcErr.Data) != `"roots/list"` {
			t.Errorf("Call answered with an error = %v, want the client's -32601", err)
		}

		// A caller that gives up cancels its request on the wire; the late
		// answer is dropped.
		cctx, cancel := context.WithCancel(ctx)
		go func() { called <- c.ss.Call(cctx, "roots/list", nil, nil) }()
		c.expect(`{"jsonrpc":"2.0","id":4,"method":"roots/list"}`)
		cancel()
		c.expect(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4,"reason":"context canceled"}}`)
		if err := lcWait(t, called, "Call"); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled Call = %v, want context.Canceled", err)
		}
		c.run(`
			-> {"jsonrpc":"2.0","id":4,"result":{"roots":[]}}
			-> {"jsonrpc":"2.0","id":5,"method":"ping"}
			<- {"jsonrpc":"2.0","id":5,"result":{}}
		`)

		// A call still waiting when the session ends fails.
		go func() { called <- c.ss.Call(ctx, "roots/list", nil, nil) }()
		c.expect(`{"jsonrpc":"2.0","id":5,"method":"roots/list"}`)
		c.finish()
		if err := lcWait(t, called, "Call"); !errors.Is(err, ErrSessionClosed) {
			t.Errorf("Call pending at the end of the session = %v, want ErrSessionClosed", err)
		}
		if err := c.ss.Call(ctx, "roots/list", nil, nil); !errors.Is(err, ErrSessionClosed) {
			t.Errorf("Call after the end of the session = %v, want ErrSessionClosed", err)
		}
		if got := c.ss.State().Lifecycle; got != stateClosed {
			t.Errorf("Lifecycle after the end = %q, want %q", got, stateClosed)
		}
	})
}

func TestLifecycleInitializedHandler(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		calls := make(chan *ServerSession, 4)
		s := lcNewServer(&ServerOptions{
			InitializedHandler: func(_ context.Context, ss *ServerSession) { calls <- ss },
		})
		c := connect(s)
		c.handshake("2025-11-25", lcInitResult(0, "2025-11-25"))
		if got := lcWait(t, calls, "InitializedHandler"); got != c.ss {
			t.Errorf("InitializedHandler got session %p, want %p", got, c.ss)
		}
		// A repeated notifications/initialized changes nothing.
		c.run(`
			-> {"jsonrpc":"2.0","method":"notifications/initialized"}
			-> {"jsonrpc":"2.0","id":1,"method":"ping"}
			<- {"jsonrpc":"2.0","id":1,"result":{}}
		`)
		if n := len(calls); n != 0 {
			t.Errorf("InitializedHandler called %d more times for a repeated notifications/initialized, want 0", n)
		}
		c.finish()
	})
}

func TestLifecycleUnknownMethodAndNotification(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		c := connect(lcNewServer(nil))
		c.handshake("2025-11-25", lcInitResult(0, "2025-11-25"))
		c.run(`
			-> {"jsonrpc":"2.0","id":1,"method":"tools/frobnicate"}
			<- {"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found","data":"tools/frobnicate"}}
			# A method of a feature this server does not offer.
			-> {"jsonrpc":"2.0","id":2,"method":"resources/list"}
			<- {"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found","data":"resources/list"}}
			-> {"jsonrpc":"2.0","id":3,"method":"a \"quoted\" <method>"}
			<- {"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found","data":"a \"quoted\" \u003cmethod\u003e"}}
			# Unknown notifications get no reply.
			-> {"jsonrpc":"2.0","method":"notifications/frobnicated","params":{"x":1}}
			-> {"jsonrpc":"2.0","method":"tools/list"}
			-> {"jsonrpc":"2.0","id":4,"method":"ping"}
			<- {"jsonrpc":"2.0","id":4,"result":{}}
		`)
		if got := c.ss.State().Lifecycle; got != stateReady {
			t.Errorf("Lifecycle = %q, want %q", got, stateReady)
		}
		c.finish()
	})
}

// lcLockedBuffer is a log sink that handlers on many goroutines may write.
type lcLockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lcLockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lcLockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestLifecycleHandlerPanic(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		var logs lcLockedBuffer
		s := lcNewServer(&ServerOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		lcAddEcho(t, s)
		if err := s.AddTool(&Tool{Name: "explode"}, func(context.Context, *Request, json.RawMessage) (*CallToolResult, error) {
			panic("secret detail")
		}); err != nil {
			t.Fatal(err)
		}
		if err := AddTool(s, &Tool{Name: "explode_typed"}, func(context.Context, *Request, lcEchoIn) (string, error) {
			var m map[string]int
			//lint:ignore SA5000 the runtime error is the point
			m["nil map"] = 1 // a runtime error, not a plain panic value
			return "", nil
		}); err != nil {
			t.Fatal(err)
		}
		c := connect(s)
		c.handshake("2025-11-25", lcInitResultTools(0, "2025-11-25"))
		c.run(`
			-> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"explode"}}
			<- {"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}
			-> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"}}}
			<- {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"still here"}]}}
			-> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"explode_typed","arguments":{"text":"x"}}}
			<- {"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error"}}
			-> {"jsonrpc":"2.0","id":4,"method":"ping"}
			<- {"jsonrpc":"2.0","id":4,"result":{}}
		`)
		if got := c.ss.State().Lifecycle; got != stateReady {
			t.Errorf("Lifecycle after panics = %q, want %q", got, stateReady)
		}
		c.finish()
		// The stack went to the configured logger, not to the wire.
		if l := logs.String(); !strings.Contains(l, "secret detail") || !strings.Contains(l, "goroutine") {
			t.Errorf("log does not hold the panic and its stack:\n%s", l)
		}
	})
}

func TestLifecycleCancellation(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		started := make(chan jsonrpc.ID, 1)
		sawCancel := make(chan jsonrpc.ID, 1)
		// MaxConcurrentRequests 1 makes the proof deterministic: a request
		// that is not ping waits for the slot of the cancelled one, which is
		// freed only after whatever it would write has been written.
		s := lcNewServer(&ServerOptions{MaxConcurrentRequests: 1})
		if err := s.AddTool(&Tool{Name: "wait"}, func(ctx context.Context, req *Request, _ json.RawMessage) (*CallToolResult, error) {
			started <- req.ID
			<-ctx.Done()
			sawCancel <- req.ID
			// A handler that ignores its context and answers anyway must
			// still not be answered for.
			return &CallToolResult{Content: []Content{&TextContent{Text: "too late"}}}, nil
		}); err != nil {
			t.Fatal(err)
		}
		c := connect(s)
		c.handshake("2025-11-25", lcInitResultTools(0, "2025-11-25"))

		for _, id := range []string{`7`, `"seven"`} {
			c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"wait"}}`)
			if got := lcWait(t, started, "the tool to start"); got.String() != id {
				t.Fatalf("tool started for id %s, want %s", got, id)
			}
			c.run(`
				# Cancelling an unknown id, or with bad params, does nothing.
				-> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999}}
				-> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":true}}
				-> {"jsonrpc":"2.0","method":"notifications/cancelled"}
				-> {"jsonrpc":"2.0","id":"p1","method":"ping"}
				<- {"jsonrpc":"2.0","id":"p1","result":{}}
			`)
			c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `,"reason":"user gave up"}}`)
			if got := lcWait(t, sawCancel, "the handler to see its context cancelled"); got.String() != id {
				t.Fatalf("cancelled handler had id %s, want %s", got, id)
			}
			// The next frame is the ping's; the tools/list waits for the
			// cancelled request's slot, so a response for it would come
			// first; finish checks that nothing at all is left over.
			c.run(`
				-> {"jsonrpc":"2.0","id":"p2","method":"ping"}
				<- {"jsonrpc":"2.0","id":"p2","result":{}}
				-> {"jsonrpc":"2.0","id":"l","method":"tools/list"}
				<- {"jsonrpc":"2.0","id":"l","result":{"tools":[{"name":"wait","inputSchema":{"type":"object"}}]}}
			`)
		}
		c.finish()
	})
}

// TestLifecycleInitializeIsNotCancellable cancels an initialize while its
// handler is still running (possible on transports that read concurrently,
// such as Streamable HTTP): it is answered all the same.
func TestLifecycleInitializeIsNotCancellable(t *testing.T) {
	inInit := make(chan struct{})
	release := make(chan struct{})
	s := lcNewServer(&ServerOptions{Middleware: []Middleware{func(next MethodHandler) MethodHandler {
		return func(ctx context.Context, r *Request) (any, error) {
			res, err := next(ctx, r)
			if r.Method == "initialize" {
				close(inInit)
				<-release
				if ctx.Err() != nil {
					t.Errorf("initialize's context was cancelled: %v", ctx.Err())
				}
			}
			return res, err
		}
	}}})
	ss := s.newSession(SessionOptions{})
	defer ss.Close()
	ctx := context.Background()
	msg, _, err := jsonrpc.Decode([]byte(lcInit(1, "2025-11-25", "c")))
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		resp *jsonrpc.Response
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := ss.handleRequest(ctx, msg.(*jsonrpc.Request), nil, nil)
		done <- result{resp, err}
	}()
	<-inInit
	ss.handleNotification(ctx, &jsonrpc.Notification{Method: "notifications/cancelled", Params: json.RawMessage(`{"requestId":1}`)}, nil)
	close(release)
	r := lcWait(t, done, "HandleRequest")
	if r.err != nil || r.resp == nil {
		t.Fatalf("HandleRequest(initialize) = %v, %v; want a response", r.resp, r.err)
	}
	got, _ := jsonrpc.Encode(r.resp)
	if want := lcInitResult(1, "2025-11-25"); string(got) != want {
		t.Errorf("initialize answered\n\t%s\nwant\n\t%s", got, want)
	}

	// Over a stream transport a cancel for initialize arrives too late to
	// matter: initialize is answered and the session initialized.
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		c := connect(lcNewServer(nil))
		c.send(lcInit(1, "2025-11-25", "c"))
		c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
		c.expect(lcInitResult(1, "2025-11-25"))
		c.run(`
			-> {"jsonrpc":"2.0","id":2,"method":"ping"}
			<- {"jsonrpc":"2.0","id":2,"result":{}}
		`)
		if got := c.ss.State().Lifecycle; got != stateInitialized {
			t.Errorf("Lifecycle = %q, want %q", got, stateInitialized)
		}
		c.finish()
	})
}

// lcEchoIn is the echo tool's arguments.
type lcEchoIn struct {
	Text string `json:"text"`
}

// lcAddEcho adds a typed echo tool: {"text": s} → s.
func lcAddEcho(t testing.TB, s *Server) {
	t.Helper()
	if err := AddTool(s, &Tool{Name: "echo"}, func(_ context.Context, _ *Request, in lcEchoIn) (string, error) {
		return in.Text, nil
	}); err != nil {
		t.Fatal(err)
	}
}
