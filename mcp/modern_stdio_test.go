package mcp

// Era selection on one stream connection (stdio, in-memory): stateless-era
// requests, which carry their version and capabilities in _meta, are
// served whatever the connection did before, and initialize selects the
// session era for the rest of the connection's session-era traffic
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility).

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"testing"
)

// lcModernMeta is a stateless-era _meta declaring caps (a JSON object).
func lcModernMeta(caps string) string {
	return `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps +
		`,"io.modelcontextprotocol/clientInfo":{"name":"modern-client","version":"2.0"}}`
}

// lcStamp is what lcNewServer's servers put in front of a complete
// stateless-era result of a cacheable method.
const lcStamp = `"resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"lc-server","version":"1.0.0"}}`

// lcStampCall is the same for other methods.
const lcStampCall = `"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"lc-server","version":"1.0.0"}}`

// lcAddWhoami adds a tool that tells what the request carries: the
// version, the era, the client's name and its capabilities.
func lcAddWhoami(t testing.TB, s *Server) {
	t.Helper()
	if err := s.AddTool(&Tool{Name: "whoami"}, func(_ context.Context, req *Request, _ json.RawMessage) (*CallToolResult, error) {
		caps, err := json.Marshal(req.ClientCapabilities)
		if err != nil {
			return nil, err
		}
		return &CallToolResult{Content: []Content{&TextContent{Text: fmt.Sprintf("%s %t %s %s", req.ProtocolVersion, req.Stateless(), req.ClientInfo.Name, caps)}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestEraModernBeforeInitialize: a connection that never initializes is
// served statelessly, request by request; session-era requests on it are
// still refused until initialize.
func TestEraModernBeforeInitialize(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(nil)
		lcAddWhoami(t, s)
		c := connect(s)
		c.run(`
			-> {"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":` + lcModernMeta(`{}`) + `}}
			<- {"jsonrpc":"2.0","id":1,"result":{` + lcStamp + `,"supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"capabilities":{"tools":{"listChanged":true}}}}
			-> {"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":` + lcModernMeta(`{}`) + `}}
			<- {"jsonrpc":"2.0","id":2,"result":{` + lcStamp + `,"tools":[{"name":"whoami","inputSchema":{"type":"object"}}]}}
			-> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":` + lcModernMeta(`{"roots":{}}`) + `,"name":"whoami"}}
			<- {"jsonrpc":"2.0","id":3,"result":{` + lcStampCall + `,"content":[{"type":"text","text":"2026-07-28 true modern-client {\"roots\":{}}"}]}}
			# Session-era traffic still needs initialize.
			-> {"jsonrpc":"2.0","id":4,"method":"tools/list"}
			<- {"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: Server not initialized"}}
			# server/discover is of the stateless era only: without _meta it is refused as such.
			-> {"jsonrpc":"2.0","id":5,"method":"server/discover"}
			<- {"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Invalid params","data":"params with _meta are required: _meta must carry io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities"}}
			# A stateless-era initialize is a removed method; it initializes nothing.
			-> {"jsonrpc":"2.0","id":6,"method":"initialize","params":{"_meta":` + lcModernMeta(`{}`) + `,"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}
			<- {"jsonrpc":"2.0","id":6,"error":{"code":-32601,"message":"Method not found","data":"initialize"}}
			-> {"jsonrpc":"2.0","id":7,"method":"ping","params":{"_meta":` + lcModernMeta(`{}`) + `}}
			<- {"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found","data":"ping"}}
		`)
		if got := c.ss.State().Lifecycle; got != stateNew {
			t.Errorf("after stateless-era requests the session is %q, want %q", got, stateNew)
		}
		c.finish()
	})
}

// TestEraBothOnOneConnection: after initialize, session-era and
// stateless-era requests interleave on the same connection, each with its
// own semantics; initialize negotiates only session-era versions, and a
// stateless-era request's capabilities come from its _meta, never from
// initialize.
func TestEraBothOnOneConnection(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(nil)
		lcAddWhoami(t, s)
		c := connect(s)
		c.run(`
			# A stateless-era request first.
			-> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":` + lcModernMeta(`{}`) + `,"name":"whoami"}}
			<- {"jsonrpc":"2.0","id":1,"result":{` + lcStampCall + `,"content":[{"type":"text","text":"2026-07-28 true modern-client {}"}]}}
			# Then initialize, asking for 2026-07-28: it gets the newest session-era version.
			-> {"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{"sampling":{},"elicitation":{}},"clientInfo":{"name":"legacy-client","version":"1.0"}}}
			<- {"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"lc-server","version":"1.0.0"}}}
			-> {"jsonrpc":"2.0","method":"notifications/initialized"}
			-> {"jsonrpc":"2.0","id":3,"method":"ping"}
			<- {"jsonrpc":"2.0","id":3,"result":{}}
			# Session-era requests: no stamps, the session's version and capabilities.
			-> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"whoami"}}
			<- {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"2025-11-25 false legacy-client {\"sampling\":{},\"elicitation\":{}}"}]}}
			-> {"jsonrpc":"2.0","id":5,"method":"tools/list"}
			<- {"jsonrpc":"2.0","id":5,"result":{"tools":[{"name":"whoami","inputSchema":{"type":"object"}}]}}
			# Stateless-era requests on the same connection: stamps, and what their _meta says.
			-> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"_meta":` + lcModernMeta(`{"roots":{}}`) + `,"name":"whoami"}}
			<- {"jsonrpc":"2.0","id":6,"result":{` + lcStampCall + `,"content":[{"type":"text","text":"2026-07-28 true modern-client {\"roots\":{}}"}]}}
			-> {"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":` + lcModernMeta(`{}`) + `}}
			<- {"jsonrpc":"2.0","id":7,"result":{` + lcStamp + `,"tools":[{"name":"whoami","inputSchema":{"type":"object"}}]}}
			# Each era keeps its own rules: ping and setLevel for the session, not for _meta requests.
			-> {"jsonrpc":"2.0","id":8,"method":"ping","params":{"_meta":` + lcModernMeta(`{}`) + `}}
			<- {"jsonrpc":"2.0","id":8,"error":{"code":-32601,"message":"Method not found","data":"ping"}}
			-> {"jsonrpc":"2.0","id":9,"method":"ping"}
			<- {"jsonrpc":"2.0","id":9,"result":{}}
			-> {"jsonrpc":"2.0","id":10,"method":"server/discover","params":{"_meta":` + lcModernMeta(`{}`) + `}}
			<- {"jsonrpc":"2.0","id":10,"result":{` + lcStamp + `,"supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"capabilities":{"tools":{"listChanged":true}}}}
			-> {"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}},"name":"whoami"}}
			<- {"jsonrpc":"2.0","id":11,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"2025-11-25"}}}
			# A second initialize, in either era, is refused.
			-> ` + lcInit(12, "2025-06-18", "again") + `
			<- {"jsonrpc":"2.0","id":12,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: Server already initialized"}}
			-> {"jsonrpc":"2.0","id":13,"method":"initialize","params":{"_meta":` + lcModernMeta(`{}`) + `,"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}
			<- {"jsonrpc":"2.0","id":13,"error":{"code":-32601,"message":"Method not found","data":"initialize"}}
			# The session is untouched by all of it.
			-> {"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"whoami"}}
			<- {"jsonrpc":"2.0","id":14,"result":{"content":[{"type":"text","text":"2025-11-25 false legacy-client {\"sampling\":{},\"elicitation\":{}}"}]}}
		`)
		st := c.ss.State()
		if st.ProtocolVersion != "2025-11-25" || st.ClientInfo.Name != "legacy-client" || st.Lifecycle != stateReady {
			t.Errorf("session state %+v", st)
		}
		c.finish()
	})
}

// TestEraInitializeNegotiatesSessionVersionsOnly: whatever a client offers
// in initialize, the answer is a session-era version.
func TestEraInitializeNegotiatesSessionVersionsOnly(t *testing.T) {
	for _, tc := range []struct{ asked, got string }{
		{"2026-07-28", "2025-11-25"},
		{"2099-01-01", "2025-11-25"},
		{"2025-06-18", "2025-06-18"},
		{"2024-11-05", "2024-11-05"},
	} {
		s := lcNewServer(nil)
		c := lcConnectMemory(t, s)
		c.send(lcInit(1, tc.asked, "c"))
		c.expect(lcInitResult(1, tc.got))
		c.finish()
	}
}

// TestEraModernRequestIgnoresInitializeCapabilities: a stateless-era
// request that asks for input needs the capability in its own _meta; the
// session's (from initialize) do not count, and no server-to-client
// request is sent.
func TestEraModernRequestIgnoresInitializeCapabilities(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(nil)
		if err := s.AddTool(&Tool{Name: "sample"}, func(ctx context.Context, req *Request, _ json.RawMessage) (*CallToolResult, error) {
			_, err := req.CreateMessage(ctx, &CreateMessageParams{
				Messages:  []*SamplingMessage{{Role: RoleUser, Content: SamplingContents{&TextContent{Text: "hi"}}}},
				MaxTokens: 10,
			})
			return nil, err
		}); err != nil {
			t.Fatal(err)
		}
		c := connect(s)
		c.run(`
			-> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"c","version":"1"}}}
			<- {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"lc-server","version":"1.0.0"}}}
			-> {"jsonrpc":"2.0","method":"notifications/initialized"}
			-> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":` + lcModernMeta(`{}`) + `,"name":"sample"}}
			<- {"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"Missing required client capability: sampling","data":{"requiredCapabilities":{"sampling":{}}}}}
		`)
		c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":` + lcModernMeta(`{"sampling":{}}`) + `,"name":"sample"}}`)
		got := lcStateRE.ReplaceAllString(c.recv(), `"requestState":"STATE"`)
		want := `{"jsonrpc":"2.0","id":2,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"lc-server","version":"1.0.0"}},"resultType":"input_required","inputRequests":{"sampling/createMessage#1":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10}}},"requestState":"STATE"}}`
		if got != want {
			t.Errorf("got\n\t%s\nwant\n\t%s", got, want)
		}
		c.finish()
	})
}

// lcStateRE finds the requestState of an input_required result, which
// is signed with a random key and carries a time.
var lcStateRE = regexp.MustCompile(`"requestState":"[^"]*"`)

// TestEraModernHandlerSendsNoRequests: the handler of a stateless-era
// request cannot send a server-to-client request through the session's
// own methods either, even on a connection whose session-era client
// declared the capability: nothing goes on the wire, and the handler gets
// an error.
func TestEraModernHandlerSendsNoRequests(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(nil)
		if err := s.AddTool(&Tool{Name: "direct"}, func(ctx context.Context, req *Request, _ json.RawMessage) (*CallToolResult, error) {
			if err := req.Session.Ping(ctx); err == nil {
				return nil, fmt.Errorf("ping was sent")
			}
			_, err := req.Session.Elicit(ctx, &ElicitParams{Message: "Name?", RequestedSchema: &ElicitSchema{}})
			return nil, err
		}); err != nil {
			t.Fatal(err)
		}
		c := connect(s)
		c.run(`
			-> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}
			<- {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"lc-server","version":"1.0.0"}}}
			-> {"jsonrpc":"2.0","method":"notifications/initialized"}
			-> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":` + lcModernMeta(`{"elicitation":{}}`) + `,"name":"direct"}}
			<- {"jsonrpc":"2.0","id":1,"result":{` + lcStampCall + `,"content":[{"type":"text","text":"mcp: elicitation/create not sent: a stateless-era request sends no requests to the client; ask with Request.Input"}],"isError":true}}
		`)
		c.finish()
	})
}

// TestEraModernCancelAndDuplicate: on a connection that never initialized,
// notifications/cancelled stops a stateless-era request (no response), and
// a second request with the id of one in flight is refused.
func TestEraModernCancelAndDuplicate(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(nil)
		b := lcAddBlocker(t, s, "slow")
		c := connect(s)
		call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":` + lcModernMeta(`{}`) + `,"name":"slow"}}`
		c.send(call)
		lcWait(t, b.started, "the slow tool to start")
		c.run(`
			-> ` + call + `
			<- {"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: a request with id 1 is already in flight"}}
			-> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}
			-> {"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":` + lcModernMeta(`{}`) + `}}
			<- {"jsonrpc":"2.0","id":2,"result":{` + lcStamp + `,"tools":[{"name":"slow","inputSchema":{"type":"object"}}]}}
		`)
		c.finish()
	})
}
