package mcp_test

// Tests of how a Client picks the protocol era: the server/discover probe,
// the fallback to initialize, -32022, and the pinned eras.

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// The frames a client with no handlers sends in the stateless era.
const (
	statelessMeta  = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"test-client","version":"0.0.1"}}`
	discoverFrame1 = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + statelessMeta + `}}`
	initFrame2     = `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test-client","version":"0.0.1"}}}`
	initializedNtf = `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`
	discoverResult = `{"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tools":{"listChanged":true}},"instructions":"Use the tools.","ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"modern","version":"9"}}}`
)

// fakeRun drives a fake server: answer gets each frame from the client
// and returns the frames to write back. It records every frame; frames()
// returns them once the client has closed the connection.
type fakeRun struct {
	got  chan string
	done chan struct{}
}

func runFake(fake *fakeServer, answer func(frame string) []string) *fakeRun {
	r := &fakeRun{got: make(chan string, 64), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		defer close(r.got)
		for {
			f, err := fake.read()
			if err != nil {
				return
			}
			r.got <- f
			for _, out := range answer(f) {
				fake.write(out)
			}
		}
	}()
	return r
}

func (r *fakeRun) frames() []string {
	<-r.done
	var out []string
	for f := range r.got {
		out = append(out, f)
	}
	return out
}

func wantFrames(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("frames from the client:\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// legacyInit answers initialize (with any id) as a 2025-11-25 server.
func legacyInit(f string) []string {
	if !strings.Contains(f, `"method":"initialize"`) {
		return nil
	}
	id := f[strings.Index(f, `"id":`)+5 : strings.Index(f, `,"method"`)]
	return []string{`{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"legacy","version":"1"}}}`}
}

func TestEraAutoProbeFindsStatelessServer(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ct, fake := newFakeServer(t)
	run := runFake(fake, func(f string) []string {
		switch {
		case strings.Contains(f, `"method":"server/discover"`):
			return []string{`{"jsonrpc":"2.0","id":1,"result":` + discoverResult + `}`}
		case strings.Contains(f, `"method":"tools/list"`):
			return []string{`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","tools":[{"name":"t","inputSchema":{"type":"object"}}],"ttlMs":5,"cacheScope":"public"}}`}
		}
		return nil
	})
	cs, err := mcp.NewClient(clientTestInfo, nil).Connect(context.Background(), ct)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if !cs.Stateless() || cs.ProtocolVersion() != "2026-07-28" {
		t.Errorf("Stateless() = %v, ProtocolVersion() = %q; want true, 2026-07-28", cs.Stateless(), cs.ProtocolVersion())
	}
	jsonEqual(t, "ServerInfo", cs.ServerInfo(), `{"name":"modern","version":"9"}`)
	jsonEqual(t, "ServerCapabilities", cs.ServerCapabilities(), `{"tools":{"listChanged":true}}`)
	if got := cs.Instructions(); got != "Use the tools." {
		t.Errorf("Instructions() = %q", got)
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	jsonEqual(t, "tools", res.Tools, `[{"name":"t","inputSchema":{"type":"object"}}]`)
	cs.Close()
	wantFrames(t, run.frames(),
		discoverFrame1,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+statelessMeta+`}}`)
}

// A session-era server answers the probe in many ways; every one that is
// not a stateless-era error means initialize
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility-with-initialization-based-versions).
func TestEraAutoFallsBackToInitialize(t *testing.T) {
	for _, tc := range []struct{ name, answer string }{
		{"method not found", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`},
		{"server not initialized", `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request","data":"Server not initialized"}}`},
		{"invalid params", `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"initialize first"}}`},
		{"implementation-defined", `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}}`},
		// go-sdk#1025: a stateful server answers server/discover
		// without listing 2026-07-28.
		{"discover without a stateless-era version", `{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2025-11-25","2025-06-18"],"capabilities":{}}}`},
		{"unknown resultType", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"other","supportedVersions":["2026-07-28"],"capabilities":{}}}`},
		{"result that is not an object", `{"jsonrpc":"2.0","id":1,"result":"hello"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			ct, fake := newFakeServer(t)
			run := runFake(fake, func(f string) []string {
				if f == discoverFrame1 {
					return []string{tc.answer}
				}
				return legacyInit(f)
			})
			cs, err := mcp.NewClient(clientTestInfo, nil).Connect(context.Background(), ct)
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			if cs.Stateless() || cs.ProtocolVersion() != "2025-11-25" {
				t.Errorf("Stateless() = %v, ProtocolVersion() = %q; want a 2025-11-25 session", cs.Stateless(), cs.ProtocolVersion())
			}
			jsonEqual(t, "ServerInfo", cs.ServerInfo(), `{"name":"legacy","version":"1"}`)
			cs.Close()
			wantFrames(t, run.frames(), discoverFrame1, initFrame2, initializedNtf)
		})
	}
}

// Stateless-era errors name a stateless-era server: no fallback.
func TestEraAutoDoesNotFallBackOnStatelessErrors(t *testing.T) {
	for _, tc := range []struct {
		name, answer string
		code         int64
	}{
		{"header mismatch", `{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"Header mismatch"}}`, jsonrpc.CodeHeaderMismatch},
		{"missing capability", `{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"sampling":{}}}}}`, jsonrpc.CodeMissingClientCapability},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			ct, fake := newFakeServer(t)
			run := runFake(fake, func(f string) []string { return []string{tc.answer} })
			_, err := mcp.NewClient(clientTestInfo, nil).Connect(context.Background(), ct)
			var rpcErr *jsonrpc.Error
			if !errors.As(err, &rpcErr) || rpcErr.Code != tc.code {
				t.Fatalf("Connect error = %v, want the server's %d", err, tc.code)
			}
			wantFrames(t, run.frames(), discoverFrame1)
		})
	}
}

func TestEraUnsupportedVersion(t *testing.T) {
	t.Run("retried with a version both speak", func(t *testing.T) {
		// What conformance's request-metadata does: the first request
		// gets -32022 whatever it asks for.
		defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
		ct, fake := newFakeServer(t)
		run := runFake(fake, func(f string) []string {
			if strings.Contains(f, `"id":1,`) {
				return []string{`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2026-07-28"}}}`}
			}
			return []string{`{"jsonrpc":"2.0","id":2,"result":` + discoverResult + `}`}
		})
		cs, err := mcp.NewClient(clientTestInfo, nil).Connect(context.Background(), ct)
		if err != nil {
			t.Fatalf("Connect: %v", err)
		}
		if !cs.Stateless() {
			t.Error("not stateless after a retried discover")
		}
		cs.Close()
		wantFrames(t, run.frames(), discoverFrame1, strings.Replace(discoverFrame1, `"id":1`, `"id":2`, 1))
	})
	t.Run("a session-era version both speak", func(t *testing.T) {
		defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
		ct, fake := newFakeServer(t)
		run := runFake(fake, func(f string) []string {
			if f == discoverFrame1 {
				return []string{`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2099-01-01","2025-06-18"],"requested":"2026-07-28"}}}`}
			}
			if strings.Contains(f, `"method":"initialize"`) {
				return []string{`{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`}
			}
			return nil
		})
		cs, err := mcp.NewClient(clientTestInfo, nil).Connect(context.Background(), ct)
		if err != nil {
			t.Fatalf("Connect: %v", err)
		}
		if cs.Stateless() || cs.ProtocolVersion() != "2025-06-18" {
			t.Errorf("Stateless() = %v, ProtocolVersion() = %q; want a 2025-06-18 session", cs.Stateless(), cs.ProtocolVersion())
		}
		cs.Close()
		wantFrames(t, run.frames(), discoverFrame1,
			`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test-client","version":"0.0.1"}}}`,
			initializedNtf)
	})
	t.Run("no version in common", func(t *testing.T) {
		defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
		ct, fake := newFakeServer(t)
		run := runFake(fake, func(f string) []string {
			return []string{`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2099-01-01"],"requested":"2026-07-28"}}}`}
		})
		_, err := mcp.NewClient(clientTestInfo, nil).Connect(context.Background(), ct)
		if !errors.Is(err, mcp.ErrUnsupportedVersion) {
			t.Fatalf("Connect error = %v, want ErrUnsupportedVersion", err)
		}
		want := `mcp: unsupported protocol version: the server speaks [2099-01-01], the client [2026-07-28 2025-11-25 2025-06-18 2025-03-26 2024-11-05]: jsonrpc error -32022: Unsupported protocol version: {"supported":["2099-01-01"],"requested":"2026-07-28"}`
		if err.Error() != want {
			t.Errorf("Connect error =\n\t%s\nwant\n\t%s", err, want)
		}
		wantFrames(t, run.frames(), discoverFrame1)
	})
}

// A server that never answers the probe is taken for a session-era one
// once ProbeTimeout has passed; the probe is not cancelled (the server
// would get notifications/cancelled before initialize).
func TestEraAutoProbeTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ct, fake := newFakeServer(t)
		start := time.Now()
		var initAt time.Duration
		run := runFake(fake, func(f string) []string {
			if strings.Contains(f, `"method":"initialize"`) {
				initAt = time.Since(start)
			}
			return legacyInit(f)
		})
		cs, err := mcp.NewClient(clientTestInfo, nil).Connect(context.Background(), ct)
		if err != nil {
			t.Fatalf("Connect: %v", err)
		}
		if cs.Stateless() {
			t.Error("stateless after a probe that timed out")
		}
		cs.Close()
		wantFrames(t, run.frames(), discoverFrame1, initFrame2, initializedNtf)
		if initAt != 10*time.Second {
			t.Errorf("initialize sent after %v, want the default ProbeTimeout, 10s", initAt)
		}
	})
}

func TestEraAutoProbeTimeoutOption(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ct, fake := newFakeServer(t)
		start := time.Now()
		var initAt time.Duration
		run := runFake(fake, func(f string) []string {
			if strings.Contains(f, `"method":"initialize"`) {
				initAt = time.Since(start)
			}
			return legacyInit(f)
		})
		cs, err := mcp.NewClient(clientTestInfo, &mcp.ClientOptions{ProbeTimeout: 1500 * time.Millisecond}).Connect(context.Background(), ct)
		if err != nil {
			t.Fatalf("Connect: %v", err)
		}
		cs.Close()
		run.frames()
		if initAt != 1500*time.Millisecond {
			t.Errorf("initialize sent after %v, want ProbeTimeout, 1.5s", initAt)
		}
	})
}

// A stateless-era server slow to start answers the probe after the client has
// fallen back; its refusal of initialize then comes after the late
// DiscoverResult, which the client takes.
func TestEraAutoLateDiscoverAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ct, fake := newFakeServer(t)
		run := runFake(fake, func(f string) []string {
			if strings.Contains(f, `"method":"initialize"`) {
				return []string{
					`{"jsonrpc":"2.0","id":1,"result":` + discoverResult + `}`,
					`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}`,
				}
			}
			return nil
		})
		cs, err := mcp.NewClient(clientTestInfo, nil).Connect(context.Background(), ct)
		if err != nil {
			t.Fatalf("Connect: %v", err)
		}
		if !cs.Stateless() {
			t.Error("the late DiscoverResult was not taken")
		}
		cs.Close()
		wantFrames(t, run.frames(), discoverFrame1, initFrame2)
	})
}

func TestEraAutoNoAnswerAtAll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ct, fake := newFakeServer(t)
		run := runFake(fake, func(f string) []string {
			if strings.Contains(f, `"method":"initialize"`) {
				return []string{`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}`}
			}
			return nil
		})
		_, err := mcp.NewClient(clientTestInfo, nil).Connect(context.Background(), ct)
		want := `mcp: initialize: jsonrpc error -32601: Method not found (server/discover had no answer within 10s before it)`
		if err == nil || err.Error() != want {
			t.Errorf("Connect error = %v, want %s", err, want)
		}
		wantFrames(t, run.frames(), discoverFrame1, initFrame2)
	})
}

func TestEraStatelessPinned(t *testing.T) {
	t.Run("refused", func(t *testing.T) {
		defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
		ct, fake := newFakeServer(t)
		run := runFake(fake, func(string) []string {
			return []string{`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`}
		})
		_, err := mcp.NewClient(clientTestInfo, &mcp.ClientOptions{ProtocolEra: mcp.EraStateless}).Connect(context.Background(), ct)
		wantRPCError(t, err, jsonrpc.CodeMethodNotFound, "Method not found", "")
		wantFrames(t, run.frames(), discoverFrame1)
	})
	t.Run("no stateless-era version", func(t *testing.T) {
		defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
		ct, fake := newFakeServer(t)
		run := runFake(fake, func(string) []string {
			return []string{`{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2025-11-25"],"capabilities":{}}}`}
		})
		_, err := mcp.NewClient(clientTestInfo, &mcp.ClientOptions{ProtocolEra: mcp.EraStateless}).Connect(context.Background(), ct)
		if !errors.Is(err, mcp.ErrUnsupportedVersion) {
			t.Fatalf("Connect error = %v, want ErrUnsupportedVersion", err)
		}
		wantFrames(t, run.frames(), discoverFrame1)
	})
}

func TestEraLegacyPinned(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ct, fake := newFakeServer(t)
	run := runFake(fake, legacyInit)
	cs, err := mcp.NewClient(clientTestInfo, &mcp.ClientOptions{ProtocolEra: mcp.EraSession}).Connect(context.Background(), ct)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	cs.Close()
	wantFrames(t, run.frames(), strings.Replace(initFrame2, `"id":2`, `"id":1`, 1), initializedNtf)
}

// Against mcpkit's own server, which serves both eras, each pinned era
// gets its own kind of session, and auto gets the stateless one.
func TestEraAgainstMcpkitServer(t *testing.T) {
	for _, tc := range []struct {
		era       mcp.ProtocolEra
		stateless bool
		version   string
	}{
		{mcp.EraAuto, true, "2026-07-28"},
		{mcp.EraStateless, true, "2026-07-28"},
		{mcp.EraSession, false, "2025-11-25"},
	} {
		t.Run(tc.era.String(), func(t *testing.T) {
			cs := connectEra(t, newToolServer(t, nil), &mcp.ClientOptions{ProtocolEra: tc.era})
			if cs.Stateless() != tc.stateless || cs.ProtocolVersion() != tc.version {
				t.Errorf("Stateless() = %v, ProtocolVersion() = %q; want %v, %q", cs.Stateless(), cs.ProtocolVersion(), tc.stateless, tc.version)
			}
			jsonEqual(t, "ServerInfo", cs.ServerInfo(), `{"name":"test-server","version":"1.2.3"}`)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add", Arguments: []byte(`{"a":2,"b":3}`)})
			if err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			jsonEqual(t, "structured result", res.StructuredContent, `{"sum":5}`)
			if err := cs.Ping(context.Background()); err != nil {
				t.Errorf("Ping: %v", err)
			}
		})
	}
}

// connectEra connects a client with copts (its era as given) to s over
// the in-memory transport and closes both when the test ends.
func connectEra(t *testing.T, s *mcp.Server, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	mcp.CheckLeaks(t) // first: its check runs after the cleanups below
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st)
	if err != nil {
		t.Fatalf("Server.Connect: %v", err)
	}
	cs, err := mcp.NewClient(clientTestInfo, copts).Connect(ctx, ct)
	if err != nil {
		t.Fatalf("Client.Connect: %v", err)
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("ClientSession.Close: %v", err)
		}
		if err := ss.Wait(); err != nil {
			t.Errorf("ServerSession.Wait: %v", err)
		}
	})
	return cs
}

// The eras are named as the spec's terminology names them: the session era
// and the stateless era.
func TestProtocolEraString(t *testing.T) {
	for era, want := range map[mcp.ProtocolEra]string{
		mcp.EraAuto:        "auto",
		mcp.EraSession:     "session",
		mcp.EraStateless:   "stateless",
		mcp.ProtocolEra(7): "ProtocolEra(7)",
	} {
		if got := era.String(); got != want {
			t.Errorf("ProtocolEra(%d).String() = %q, want %q", int(era), got, want)
		}
	}
}
