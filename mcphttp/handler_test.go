package mcphttp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// tableRow is one line of the behaviour table of issue 3: what the client
// sends (run, which may first set up sessions) and everything the handler
// must answer, down to the registry afterwards.
type tableRow struct {
	name string
	opts *Options
	run  func(f *fixture) *reply

	status int
	// code, message, data (a JSON string, "" for none) and id (raw JSON)
	// describe the expected JSON-RPC error; code 0 expects none.
	code    int64
	message string
	data    string
	id      string
	// session is whether the reply carries Mcp-Session-Id.
	session bool
	// sessions is the registry's size afterwards.
	sessions int
	// header lists other headers the reply must carry.
	header map[string]string
	// empty expects an empty body.
	empty bool
	check func(t *testing.T, f *fixture, r *reply)
}

const (
	supported      = "(supported versions: 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)"
	notSingleData  = "Invalid Request: JSON-RPC body must be a single request object"
	sessionReqMsg  = "Bad Request: Mcp-Session-Id header is required"
	acceptPOSTMsg  = "Not Acceptable: Accept must include application/json and text/event-stream"
	contentTypeMsg = "Unsupported Media Type: Content-Type must be application/json"
)

func postWith(h hdrs, body string) func(f *fixture) *reply {
	return func(f *fixture) *reply { return f.do(http.MethodPost, h, body) }
}

// onSession opens a session, then sends body on it with extra headers.
func onSession(version string, h hdrs, body string) func(f *fixture) *reply {
	return func(f *fixture) *reply {
		f.sid = f.initialize(version)
		all := hdrs{"Mcp-Session-Id": f.sid}
		for k, v := range h {
			all[k] = v
		}
		method := http.MethodPost
		if m, ok := h[":method"]; ok {
			method = m
			delete(all, ":method")
		}
		return f.do(method, all, body)
	}
}

// expired opens a session, lets it idle past the timeout, then sends body
// on it.
func expired(method, body string) func(f *fixture) *reply {
	return func(f *fixture) *reply {
		f.sid = f.initialize("2025-11-25")
		f.clock.advance(DefaultIdleTimeout + time.Second)
		return f.do(method, hdrs{"Mcp-Session-Id": f.sid}, body)
	}
}

func TestBehaviourTable(t *testing.T) {
	rows := []tableRow{
		// initialize, no session header, valid.
		{name: "initialize/valid", run: postWith(nil, initBody), status: 200, session: true, sessions: 1,
			check: func(t *testing.T, f *fixture, r *reply) {
				sid := r.header.Get("Mcp-Session-Id")
				if len(sid) < 26 || !validSessionID(sid) {
					t.Errorf("session id %q: want >= 26 visible ASCII characters (130 bits)", sid)
				}
				var res struct {
					ProtocolVersion string `json:"protocolVersion"`
				}
				json.Unmarshal(r.message(t)["result"], &res)
				if res.ProtocolVersion != "2025-11-25" {
					t.Errorf("protocolVersion %q", res.ProtocolVersion)
				}
			}},
		// initialize carrying the id of a live session.
		{name: "initialize/live-session", run: onSession("2025-06-18", nil, strings.Replace(initBody, `"id":1`, `"id":"again"`, 1)),
			status: 400, code: -32600, message: "Invalid Request", data: "Invalid Request: Server already initialized", id: `"again"`, sessions: 1,
			check: func(t *testing.T, f *fixture, r *reply) {
				e, _ := f.h.reg.acquire(f.sid, "")
				if e == nil {
					t.Fatal("the session is gone")
				}
				st := e.ss.State()
				f.h.reg.release(e)
				if st.ProtocolVersion != "2025-06-18" || st.ClientInfo.Name != "t" || st.Lifecycle != "ready" {
					t.Errorf("session changed: %+v", st)
				}
				if p := f.post(f.sid, pingBody); p.status != 200 || string(p.message(t)["result"]) != "{}" {
					t.Errorf("ping afterwards: %d %s", p.status, p.body)
				}
			}},
		// initialize carrying an unknown or idle-expired id.
		{name: "initialize/unknown-session", run: postWith(hdrs{"Mcp-Session-Id": "nope"}, initBody),
			status: 404, code: -32001, message: "Session not found", id: "1"},
		{name: "initialize/expired-session", run: expired(http.MethodPost, initBody),
			status: 404, code: -32001, message: "Session not found", id: "1", sessions: 0},
		// initialize that fails.
		{name: "initialize/bad-envelope", run: postWith(nil, strings.Replace(initBody, `"2.0"`, `"1.0"`, 1)),
			status: 400, code: -32600, message: "Invalid Request", data: `Invalid Request: jsonrpc must be \"2.0\"`, id: "1"},
		{name: "initialize/bad-params", run: postWith(nil, `{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`),
			status: 200, code: -32602, message: "Invalid params", data: "capabilities must be an object", id: "3"},
		{name: "initialize/bad-params-json-mode", opts: &Options{JSONResponse: true},
			run:    postWith(nil, `{"jsonrpc":"2.0","id":3,"method":"initialize"}`),
			status: 200, code: -32602, message: "Invalid params", data: "missing params: initialize requires protocolVersion, capabilities and clientInfo", id: "3"},
		// initialize without an id.
		{name: "initialize/no-id", run: postWith(nil, `{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`),
			status: 202, empty: true},
		// initialize while MaxSessions sessions are live.
		{name: "initialize/cap", opts: &Options{MaxSessions: 2},
			run: func(f *fixture) *reply {
				f.initialize("2025-11-25")
				f.initialize("2025-11-25")
				return f.post("", initBody)
			},
			status: 503, code: -32603, message: "Service unavailable: maximum concurrent sessions (2) reached", id: "1",
			sessions: 2, header: map[string]string{"Retry-After": "60"}},
		{name: "initialize/cap-reclaims-expired", opts: &Options{MaxSessions: 2},
			run: func(f *fixture) *reply {
				old := f.initialize("2025-11-25")
				f.clock.advance(20 * time.Minute)
				f.sid = f.initialize("2025-11-25")
				f.clock.advance(15 * time.Minute) // old has idled 35 minutes, sid 15
				r := f.post("", initBody)
				if p := f.post(old, pingBody); p.status != 404 {
					t.Errorf("the reclaimed session answered %d", p.status)
				}
				return r
			},
			status: 200, session: true, sessions: 2,
			check: func(t *testing.T, f *fixture, r *reply) {
				if p := f.post(f.sid, pingBody); p.status != 200 {
					t.Errorf("the live session answered %d", p.status)
				}
			}},
		{name: "initialize/cap-retry-after-next-expiry", opts: &Options{MaxSessions: 1},
			run: func(f *fixture) *reply {
				f.initialize("2025-11-25")
				f.clock.advance(DefaultIdleTimeout - 10*time.Second)
				return f.post("", initBody)
			},
			status: 503, code: -32603, message: "Service unavailable: maximum concurrent sessions (1) reached", id: "1",
			sessions: 1, header: map[string]string{"Retry-After": "10"}},
		// body not a single JSON object.
		{name: "body/array", run: postWith(nil, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`),
			status: 400, code: -32600, message: "Invalid Request", data: notSingleData, id: "null"},
		{name: "body/empty-array", run: postWith(nil, ` []`),
			status: 400, code: -32600, message: "Invalid Request", data: notSingleData, id: "null"},
		{name: "body/string", run: postWith(nil, `"ping"`),
			status: 400, code: -32600, message: "Invalid Request", data: notSingleData, id: "null"},
		{name: "body/number", run: postWith(nil, `42`),
			status: 400, code: -32600, message: "Invalid Request", data: notSingleData, id: "null"},
		{name: "body/null", run: postWith(nil, `null`),
			status: 400, code: -32600, message: "Invalid Request", data: notSingleData, id: "null"},
		{name: "body/array-on-2025-11-25-session", run: onSession("2025-11-25", nil, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`),
			status: 400, code: -32600, message: "Invalid Request", data: notSingleData, id: "null", sessions: 1},
		{name: "body/batch-on-2025-03-26-session", run: onSession("2025-03-26", nil, `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}]`),
			status: 200, sessions: 1,
			check: func(t *testing.T, f *fixture, r *reply) {
				got := map[string]bool{}
				for _, e := range r.events {
					if e.data != "" {
						got[e.data] = true
					}
				}
				want := []string{`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}]}}`}
				for _, w := range want {
					if !got[w] {
						t.Errorf("batch reply lacks %s; got %v", w, r.events)
					}
				}
				if len(got) != 2 {
					t.Errorf("batch reply has %d messages, want 2", len(got))
				}
			}},
		{name: "body/batch-json-mode", opts: &Options{JSONResponse: true},
			run:    onSession("2025-03-26", nil, `[{"jsonrpc":"2.0","id":1,"method":"ping"},5]`),
			status: 200, sessions: 1,
			check: func(t *testing.T, f *fixture, r *reply) {
				want := `[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: JSON-RPC message must be a single object"}},{"jsonrpc":"2.0","id":1,"result":{}}]`
				if r.body != want {
					t.Errorf("body\n%s\nwant\n%s", r.body, want)
				}
			}},
		{name: "body/batch-of-notifications", run: onSession("2025-03-26", nil, `[{"jsonrpc":"2.0","method":"notifications/x"}]`),
			status: 202, empty: true, sessions: 1},
		{name: "body/batch-holding-initialize", run: onSession("2025-03-26", nil, `[{"jsonrpc":"2.0","id":1,"method":"ping"},`+initBody+`]`),
			status: 400, code: -32600, message: "Invalid Request", data: "Invalid Request: initialize must not be part of a JSON-RPC batch", id: "null", sessions: 1},
		// invalid JSON.
		{name: "body/invalid-json", run: postWith(nil, `{"jsonrpc":`), status: 400, code: -32700, message: "Parse error", id: "null"},
		{name: "body/invalid-json-array", run: postWith(nil, `[1,`), status: 400, code: -32700, message: "Parse error", id: "null"},
		{name: "body/empty", run: postWith(nil, ``), status: 400, code: -32700, message: "Parse error", id: "null"},
		{name: "body/too-deep", run: postWith(nil, `{"a":`+strings.Repeat("[", 20000)+strings.Repeat("]", 20000)+`}`),
			status: 400, code: -32700, message: "Parse error", id: "null"},
		// non-initialize message without Mcp-Session-Id.
		{name: "no-session/request", run: postWith(nil, pingBody), status: 400, code: -32000, message: sessionReqMsg, id: "1"},
		{name: "no-session/notification", run: postWith(nil, initializedN), status: 400, code: -32000, message: sessionReqMsg, id: "null"},
		{name: "no-session/response", run: postWith(nil, `{"jsonrpc":"2.0","id":4,"result":{}}`), status: 400, code: -32000, message: sessionReqMsg, id: "4"},
		// any message on an unknown or idle-expired session.
		{name: "unknown-session/request", run: postWith(hdrs{"Mcp-Session-Id": "nope"}, pingBody), status: 404, code: -32001, message: "Session not found", id: "1"},
		{name: "unknown-session/notification", run: postWith(hdrs{"Mcp-Session-Id": "nope"}, initializedN), status: 404, code: -32001, message: "Session not found", id: "null"},
		{name: "unknown-session/get", run: func(f *fixture) *reply { return f.do(http.MethodGet, hdrs{"Mcp-Session-Id": "nope"}, "") },
			status: 404, code: -32001, message: "Session not found", id: "null"},
		{name: "expired-session/request", run: expired(http.MethodPost, pingBody), status: 404, code: -32001, message: "Session not found", id: "1"},
		{name: "expired-session/get", run: expired(http.MethodGet, ""), status: 404, code: -32001, message: "Session not found", id: "null"},
		{name: "expired-session/delete", run: expired(http.MethodDelete, ""), status: 404, code: -32001, message: "Session not found", id: "null"},
		{name: "idle-timeout-disabled", opts: &Options{IdleTimeout: -1}, run: expired(http.MethodPost, pingBody), status: 200, sessions: 1},
		{name: "activity-resets-idle", run: func(f *fixture) *reply {
			f.sid = f.initialize("2025-11-25")
			f.clock.advance(DefaultIdleTimeout - time.Second)
			f.post(f.sid, pingBody)
			f.clock.advance(DefaultIdleTimeout - time.Second)
			return f.post(f.sid, pingBody)
		}, status: 200, sessions: 1},
		// Accept.
		{name: "accept/missing", run: postWith(hdrs{"Accept": "-"}, initBody), status: 406, code: -32000, message: acceptPOSTMsg, id: "null"},
		{name: "accept/json-only", run: postWith(hdrs{"Accept": "application/json"}, initBody), status: 406, code: -32000, message: acceptPOSTMsg, id: "null"},
		{name: "accept/sse-only", run: postWith(hdrs{"Accept": "text/event-stream"}, initBody), status: 406, code: -32000, message: acceptPOSTMsg, id: "null"},
		{name: "accept/sse-q0", run: postWith(hdrs{"Accept": "application/json, text/event-stream;q=0"}, initBody), status: 406, code: -32000, message: acceptPOSTMsg, id: "null"},
		{name: "accept/star", run: postWith(hdrs{"Accept": "*/*"}, initBody), status: 200, session: true, sessions: 1},
		{name: "accept/q-values", run: postWith(hdrs{"Accept": "application/json;q=0.9, text/event-stream;q=0.5"}, initBody), status: 200, session: true, sessions: 1},
		{name: "accept/mixed-case", run: postWith(hdrs{"Accept": "Application/JSON, Text/Event-Stream"}, initBody), status: 200, session: true, sessions: 1},
		{name: "accept/json-mode-json-only", opts: &Options{JSONResponse: true}, run: postWith(hdrs{"Accept": "application/json"}, initBody), status: 200, session: true, sessions: 1,
			check: func(t *testing.T, f *fixture, r *reply) {
				if ct := r.header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type %q", ct)
				}
			}},
		{name: "accept/json-mode-missing", opts: &Options{JSONResponse: true}, run: postWith(hdrs{"Accept": "-"}, initBody),
			status: 406, code: -32000, message: "Not Acceptable: Accept must include application/json", id: "null"},
		{name: "accept/get-missing", run: onSession("2025-11-25", hdrs{":method": "GET", "Accept": "-"}, ""),
			status: 406, code: -32000, message: "Not Acceptable: Accept must include text/event-stream", id: "null", sessions: 1},
		{name: "accept/get-json", run: onSession("2025-11-25", hdrs{":method": "GET", "Accept": "application/json"}, ""),
			status: 406, code: -32000, message: "Not Acceptable: Accept must include text/event-stream", id: "null", sessions: 1},
		// Content-Type.
		{name: "content-type/missing", run: postWith(hdrs{"Content-Type": "-"}, initBody), status: 415, code: -32000, message: contentTypeMsg, id: "null"},
		{name: "content-type/text", run: postWith(hdrs{"Content-Type": "text/plain"}, initBody), status: 415, code: -32000, message: contentTypeMsg, id: "null"},
		{name: "content-type/charset", run: postWith(hdrs{"Content-Type": "application/json; charset=utf-8"}, initBody), status: 200, session: true, sessions: 1},
		// body over MaxBodyBytes.
		{name: "body-limit/content-length", opts: &Options{MaxBodyBytes: int64(len(initBody)) - 1}, run: postWith(nil, initBody),
			status: 413, code: -32000, message: fmt.Sprintf("Payload Too Large: the body exceeds %d bytes", len(initBody)-1), id: "null"},
		{name: "body-limit/chunked", opts: &Options{MaxBodyBytes: int64(len(initBody)) - 1}, run: func(f *fixture) *reply { return f.chunked(initBody) },
			status: 413, code: -32000, message: fmt.Sprintf("Payload Too Large: the body exceeds %d bytes", len(initBody)-1), id: "null"},
		{name: "body-limit/at-limit", opts: &Options{MaxBodyBytes: int64(len(initBody))}, run: func(f *fixture) *reply { return f.chunked(initBody) },
			status: 200, session: true, sessions: 1},
		// MCP-Protocol-Version.
		{name: "version/unsupported", run: onSession("2025-11-25", hdrs{"MCP-Protocol-Version": "2099-01-01"}, pingBody),
			status: 400, code: -32000, message: "Bad Request: Unsupported protocol version: 2099-01-01 " + supported, id: "null", sessions: 1},
		{name: "version/malformed", run: onSession("2025-11-25", hdrs{"MCP-Protocol-Version": "latest please"}, pingBody),
			status: 400, code: -32000, message: "Bad Request: Unsupported protocol version: latest please " + supported, id: "null", sessions: 1},
		{name: "version/empty", run: func(f *fixture) *reply {
			f.sid = f.initialize("2025-11-25")
			return f.rawVersion(f.sid, "")
		}, status: 400, code: -32000, message: "Bad Request: Unsupported protocol version:  " + supported, id: "null", sessions: 1},
		{name: "version/other-supported", run: onSession("2025-11-25", hdrs{"MCP-Protocol-Version": "2025-03-26"}, pingBody), status: 200, sessions: 1},
		{name: "version/absent", run: onSession("2025-06-18", nil, pingBody), status: 200, sessions: 1},
		{name: "version/get-unsupported", run: onSession("2025-11-25", hdrs{":method": "GET", "MCP-Protocol-Version": "1"}, ""),
			status: 400, code: -32000, message: "Bad Request: Unsupported protocol version: 1 " + supported, id: "null", sessions: 1},
		{name: "version/delete-unsupported", run: onSession("2025-11-25", hdrs{":method": "DELETE", "MCP-Protocol-Version": "1"}, ""),
			status: 400, code: -32000, message: "Bad Request: Unsupported protocol version: 1 " + supported, id: "null", sessions: 1},
		{name: "version/array-unsupported", run: postWith(hdrs{"MCP-Protocol-Version": "1"}, `[]`),
			status: 400, code: -32000, message: "Bad Request: Unsupported protocol version: 1 " + supported, id: "null"},
		// Host or Origin not allowed.
		{name: "origin/rebound-host", run: postWith(hdrs{"Host": "evil.example.com", "Origin": "http://evil.example.com"}, initBody),
			status: 403, code: -32000, message: "Forbidden: Host not allowed: evil.example.com", id: "null"},
		{name: "origin/rebound-host-no-origin", run: postWith(hdrs{"Host": "evil.example.com:8080"}, initBody),
			status: 403, code: -32000, message: "Forbidden: Host not allowed: evil.example.com:8080", id: "null"},
		{name: "origin/cross-origin", run: postWith(hdrs{"Origin": "https://evil.example.com"}, initBody),
			status: 403, code: -32000, message: "Forbidden: Origin not allowed: https://evil.example.com", id: "null"},
		{name: "origin/null", run: postWith(hdrs{"Origin": "null"}, initBody),
			status: 403, code: -32000, message: "Forbidden: Origin not allowed: null", id: "null"},
		{name: "origin/get", run: onSession("2025-11-25", hdrs{":method": "GET", "Origin": "http://evil.example.com"}, ""),
			status: 403, code: -32000, message: "Forbidden: Origin not allowed: http://evil.example.com", id: "null", sessions: 1},
		{name: "origin/delete", run: onSession("2025-11-25", hdrs{":method": "DELETE", "Host": "evil.example.com"}, ""),
			status: 403, code: -32000, message: "Forbidden: Host not allowed: evil.example.com", id: "null", sessions: 1},
		{name: "origin/loopback-host-and-origin", run: postWith(hdrs{"Host": "LOCALHOST:3000", "Origin": "http://[::1]:5173"}, initBody),
			status: 200, session: true, sessions: 1},
		{name: "origin/allowed-host", opts: &Options{AllowedHosts: []string{"mcp.example.com"}}, run: postWith(hdrs{"Host": "MCP.example.com:8443", "Origin": "https://mcp.example.com:8443"}, initBody),
			status: 200, session: true, sessions: 1},
		{name: "origin/allowed-host-port-mismatch", opts: &Options{AllowedHosts: []string{"mcp.example.com:443"}}, run: postWith(hdrs{"Host": "mcp.example.com:8443"}, initBody),
			status: 403, code: -32000, message: "Forbidden: Host not allowed: mcp.example.com:8443", id: "null"},
		{name: "origin/allowed-origin", opts: &Options{AllowedOrigins: []string{"https://app.example.com"}}, run: postWith(hdrs{"Origin": "https://app.example.com:443"}, initBody),
			status: 200, session: true, sessions: 1},
		{name: "origin/protection-disabled", opts: &Options{DisableDNSRebindingProtection: true}, run: postWith(hdrs{"Host": "evil.example.com", "Origin": "http://evil.example.com"}, initBody),
			status: 200, session: true, sessions: 1},
		// a second concurrent GET stream.
		{name: "get/second-stream", run: func(f *fixture) *reply {
			f.sid = f.initialize("2025-11-25")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			first := f.open(ctx, http.MethodGet, hdrs{"Mcp-Session-Id": f.sid}, "")
			defer first.Body.Close()
			if first.StatusCode != 200 {
				t.Fatalf("first GET: %d", first.StatusCode)
			}
			return f.do(http.MethodGet, hdrs{"Mcp-Session-Id": f.sid}, "")
		}, status: 409, code: -32000, message: "Conflict: only one GET stream may be open on a session", id: "null", sessions: 1},
		// a request id already in flight.
		{name: "request-id-in-flight", run: func(f *fixture) *reply {
			f.sid = f.initialize("2025-11-25")
			call := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"block"}}`
			first := make(chan *reply, 1)
			go func() { first <- f.post(f.sid, call) }()
			<-f.tools.started
			r := f.post(f.sid, strings.Replace(pingBody, `"id":1`, `"id":5`, 1))
			close(f.tools.gate)
			fr := <-first
			if fr.status != 200 || !strings.Contains(fr.body, `"id":5,"result":{"content":[{"type":"text","text":"unblocked"}]}`) {
				t.Errorf("the first request was affected: %d %s", fr.status, fr.body)
			}
			return r
		}, status: 409, code: -32600, message: "Invalid Request", data: "Invalid Request: a request with id 5 is already in flight on this session", id: "5", sessions: 1},
		// any other HTTP method.
		{name: "method/put", run: func(f *fixture) *reply { return f.do(http.MethodPut, nil, initBody) },
			status: 405, code: -32000, message: "Method Not Allowed: use GET, POST, DELETE", id: "null", header: map[string]string{"Allow": "GET, POST, DELETE"}},
		{name: "method/options", run: func(f *fixture) *reply { return f.do(http.MethodOptions, nil, "") },
			status: 405, code: -32000, message: "Method Not Allowed: use GET, POST, DELETE", id: "null", header: map[string]string{"Allow": "GET, POST, DELETE"}},
		// POST carrying only a notification or a response.
		{name: "notification-only", run: onSession("2025-11-25", nil, `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`), status: 202, empty: true, sessions: 1},
		{name: "response-only", run: onSession("2025-11-25", nil, `{"jsonrpc":"2.0","id":99,"result":{}}`), status: 202, empty: true, sessions: 1},
		{name: "id-bearing-notification", run: onSession("2025-11-25", nil, `{"jsonrpc":"2.0","id":8,"method":"notifications/initialized"}`),
			status: 200, code: -32601, message: "Method not found", data: "notifications/initialized", id: "8", sessions: 1},
		// DELETE.
		{name: "delete/live", run: onSession("2025-11-25", hdrs{":method": "DELETE"}, ""), status: 204, empty: true, sessions: 0,
			check: func(t *testing.T, f *fixture, r *reply) {
				p := f.post(f.sid, pingBody)
				if m := p.message(t); p.status != 404 || !strings.Contains(string(m["error"]), "Session not found") {
					t.Errorf("POST after DELETE: %d %s", p.status, p.body)
				}
				if d := f.do(http.MethodDelete, hdrs{"Mcp-Session-Id": f.sid}, ""); d.status != 404 {
					t.Errorf("second DELETE: %d", d.status)
				}
			}},
		{name: "delete/no-session", run: onSession("2025-11-25", hdrs{":method": "DELETE", "Mcp-Session-Id": "-"}, ""),
			status: 400, code: -32000, message: sessionReqMsg, id: "null", sessions: 1},
		{name: "delete/unknown", run: onSession("2025-11-25", hdrs{":method": "DELETE", "Mcp-Session-Id": "nope"}, ""),
			status: 404, code: -32001, message: "Session not found", id: "null", sessions: 1},
		// stateless mode.
		{name: "stateless/get", opts: &Options{Stateless: true}, run: func(f *fixture) *reply { return f.do(http.MethodGet, nil, "") },
			status: 405, code: -32000, message: "Method Not Allowed: use POST", id: "null", header: map[string]string{"Allow": "POST"}},
		{name: "stateless/delete", opts: &Options{Stateless: true}, run: func(f *fixture) *reply { return f.do(http.MethodDelete, hdrs{"Mcp-Session-Id": "x"}, "") },
			status: 405, code: -32000, message: "Method Not Allowed: use POST", id: "null", header: map[string]string{"Allow": "POST"}},
		{name: "stateless/initialize-repeats", opts: &Options{Stateless: true}, run: func(f *fixture) *reply {
			if r := f.post("", initBody); r.status != 200 || r.header.Get("Mcp-Session-Id") != "" {
				t.Errorf("first initialize: %d %q", r.status, r.header.Get("Mcp-Session-Id"))
			}
			return f.post("whatever", initBody)
		}, status: 200, sessions: 0,
			check: func(t *testing.T, f *fixture, r *reply) {
				if _, ok := r.message(t)["result"]; !ok {
					t.Errorf("second initialize: %s", r.body)
				}
			}},
		{name: "stateless/tools-call", opts: &Options{Stateless: true, JSONResponse: true},
			run:    postWith(hdrs{"MCP-Protocol-Version": "2025-06-18"}, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`),
			status: 200, sessions: 0,
			check: func(t *testing.T, f *fixture, r *reply) {
				if r.body != `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}]}}` {
					t.Errorf("body %s", r.body)
				}
				if n := len(f.h.server.Sessions()); n != 0 {
					t.Errorf("%d sessions kept on the server", n)
				}
			}},
		{name: "stateless/notification", opts: &Options{Stateless: true}, run: postWith(nil, initializedN), status: 202, empty: true},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			f := newFixture(t, row.opts)
			r := row.run(f)
			checkRow(t, f, &row, r)
		})
	}
}

func checkRow(t *testing.T, f *fixture, row *tableRow, r *reply) {
	t.Helper()
	if r.status != row.status {
		t.Fatalf("status %d, want %d; body %s", r.status, row.status, r.body)
	}
	if got := r.header.Get("Mcp-Session-Id") != ""; got != row.session {
		t.Errorf("Mcp-Session-Id present %v, want %v", got, row.session)
	}
	if n := f.h.SessionCount(); n != row.sessions {
		t.Errorf("%d sessions afterwards, want %d", n, row.sessions)
	}
	for k, v := range row.header {
		if got := r.header.Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	if row.empty && r.body != "" {
		t.Errorf("body %q, want none", r.body)
	}
	if r.status >= 400 {
		if ct := r.header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("refusal Content-Type %q", ct)
		}
	}
	if row.code != 0 {
		m := r.message(t)
		if string(m["jsonrpc"]) != `"2.0"` {
			t.Errorf("jsonrpc %s", m["jsonrpc"])
		}
		if string(m["id"]) != row.id {
			t.Errorf("id %s, want %s", m["id"], row.id)
		}
		var e rpcError
		if err := json.Unmarshal(m["error"], &e); err != nil {
			t.Fatalf("no error member: %s", r.body)
		}
		if e.Code != row.code || e.Message != row.message {
			t.Errorf("error %d %q, want %d %q", e.Code, e.Message, row.code, row.message)
		}
		wantData := ""
		if row.data != "" {
			wantData = `"` + row.data + `"`
		}
		if string(e.Data) != wantData {
			t.Errorf("data %s, want %s", e.Data, wantData)
		}
	} else if r.status == 200 && !strings.HasPrefix(r.body, "[") {
		if _, isErr := r.message(t)["error"]; isErr && row.check == nil {
			t.Errorf("unexpected error: %s", r.body)
		}
	}
	if row.check != nil {
		row.check(t, f, r)
	}
}

// chunked POSTs body with no Content-Length.
func (f *fixture) chunked(body string) *reply {
	f.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, f.url, io.NopCloser(strings.NewReader(body)))
	req.ContentLength = -1
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	return f.send(req)
}

// rawVersion POSTs a ping with an MCP-Protocol-Version header of value v
// (possibly empty).
func (f *fixture) rawVersion(sid, v string) *reply {
	f.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(pingBody))
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header["Mcp-Protocol-Version"] = []string{v}
	return f.send(req)
}

func (f *fixture) send(req *http.Request) *reply {
	f.t.Helper()
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	return f.read(resp)
}
