package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// TestModernErrors checks every error row of the stateless era's request
// checks at the level of Host.ServeStateless, which Streamable HTTP
// uses for a request outside any session: the exact error (code, message,
// data, id echoed) and whether the request was refused before a handler
// ran, which HTTP answers with 400 (404 for -32601)
// (https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#request-metadata).
func TestModernErrors(t *testing.T) {
	const (
		v = `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`
		c = `"io.modelcontextprotocol/clientCapabilities":{}`
	)
	invalid := func(id, detail string) string {
		return modError(id, jsonrpc.CodeInvalidParams, "Invalid params", askQuote(detail))
	}
	notFound := func(id, method string) string {
		return modError(id, jsonrpc.CodeMethodNotFound, "Method not found", askQuote(method))
	}
	const served = `["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"]`
	for _, tc := range []struct {
		name, frame, want string
		refused           bool
	}{
		{"params absent", modFrame("101", "server/discover", ""),
			invalid("101", "params with _meta are required: _meta must carry io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities"), true},
		{"params not an object", modFrame("101", "server/discover", `[]`),
			invalid("101", "params with _meta are required: _meta must carry io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities"), true},
		{"params {}", modFrame("101", "server/discover", `{}`),
			invalid("101", "params._meta is required and must carry io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities"), true},
		{"_meta not an object", modFrame(`"s"`, "tools/list", `{"_meta":"2026-07-28"}`),
			invalid(`"s"`, "params._meta is required and must carry io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities"), true},
		{"_meta without protocolVersion", modFrame("102", "server/discover", `{"_meta":{`+c+`}}`),
			invalid("102", "_meta is missing io.modelcontextprotocol/protocolVersion"), true},
		{"protocolVersion not a string", modFrame("102", "server/discover", `{"_meta":{"io.modelcontextprotocol/protocolVersion":20260728,`+c+`}}`),
			invalid("102", "_meta io.modelcontextprotocol/protocolVersion must be a string"), true},
		{"_meta without clientCapabilities", modFrame("104", "server/discover", `{"_meta":{`+v+`}}`),
			invalid("104", "_meta is missing io.modelcontextprotocol/clientCapabilities"), true},
		{"clientCapabilities null", modFrame("104", "server/discover", `{"_meta":{`+v+`,"io.modelcontextprotocol/clientCapabilities":null}}`),
			invalid("104", "_meta io.modelcontextprotocol/clientCapabilities must be a ClientCapabilities object"), true},
		{"clientInfo not an object", modFrame("105", "server/discover", `{"_meta":{`+v+`,`+c+`,"io.modelcontextprotocol/clientInfo":"me"}}`),
			invalid("105", "_meta io.modelcontextprotocol/clientInfo must be an Implementation object"), true},
		{"invalid logLevel", modFrame("106", "tools/list", `{"_meta":{`+v+`,`+c+`,"io.modelcontextprotocol/logLevel":"loud"}}`),
			invalid("106", "_meta io.modelcontextprotocol/logLevel must be one of \"debug\", \"info\", \"notice\", \"warning\", \"error\", \"critical\", \"alert\", \"emergency\""), true},
		{"unsupported version", modFrame("301", "server/discover", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0",`+c+`}}`),
			modError("301", jsonrpc.CodeUnsupportedProtocolVersion, "Unsupported protocol version", `{"supported":`+served+`,"requested":"v999.0.0"}`), true},
		{"a session-era version in _meta", modFrame("302", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25",`+c+`}}`),
			modError("302", jsonrpc.CodeUnsupportedProtocolVersion, "Unsupported protocol version", `{"supported":`+served+`,"requested":"2025-11-25"}`), true},
		{"initialize", modFrame("501", "initialize", modParams(`{}`, `,"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}`)),
			notFound("501", "initialize"), true},
		{"ping", modFrame("502", "ping", modParams(`{}`, "")), notFound("502", "ping"), true},
		{"logging/setLevel", modFrame("503", "logging/setLevel", modParams(`{}`, `,"level":"debug"`)), notFound("503", "logging/setLevel"), true},
		{"resources/subscribe", modFrame("504", "resources/subscribe", modParams(`{}`, `,"uri":"test://doc"`)), notFound("504", "resources/subscribe"), true},
		{"resources/unsubscribe", modFrame("505", "resources/unsubscribe", modParams(`{}`, `,"uri":"test://doc"`)), notFound("505", "resources/unsubscribe"), true},
		{"tasks/list", modFrame("506", "tasks/list", modParams(`{}`, "")), notFound("506", "tasks/list"), true},
		{"tasks/result", modFrame("507", "tasks/result", modParams(`{}`, `,"taskId":"t"`)), notFound("507", "tasks/result"), true},
		{"unknown/method", modFrame(`"u"`, "unknown/method", modParams(`{}`, "")), notFound(`"u"`, "unknown/method"), true},
		{"a notification's method as a request", modFrame("508", "notifications/initialized", modParams(`{}`, "")), notFound("508", "notifications/initialized"), true},
		{"missing sampling capability", modFrame("401", "tools/call", modParams(`{}`, `,"name":"sample"`)),
			modError("401", jsonrpc.CodeMissingClientCapability, "Missing required client capability: sampling", `{"requiredCapabilities":{"sampling":{}}}`), true},
		{"missing elicitation capability", modFrame("402", "tools/call", modParams(`{"sampling":{},"roots":{}}`, `,"name":"ask"`)),
			modError("402", jsonrpc.CodeMissingClientCapability, "Missing required client capability: elicitation", `{"requiredCapabilities":{"elicitation":{}}}`), true},
		{"missing roots capability", modFrame("403", "resources/read", modParams(`{"sampling":{}}`, `,"uri":"test://roots"`)),
			modError("403", jsonrpc.CodeMissingClientCapability, "Missing required client capability: roots", `{"requiredCapabilities":{"roots":{}}}`), true},
		{"resource not found", modFrame("601", "resources/read", modParams(`{}`, `,"uri":"test://nonexistent-resource-for-conformance-testing"`)),
			modError("601", jsonrpc.CodeInvalidParams, "Resource not found", `{"uri":"test://nonexistent-resource-for-conformance-testing"}`), false},
		{"unknown tool", modFrame("602", "tools/call", modParams(`{}`, `,"name":"nope"`)),
			invalid("602", "Unknown tool: nope"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := modServer(t, nil, nil)
			got, refused, stream := modServe(t, srv, tc.frame)
			if got != tc.want {
				t.Errorf("got\n\t%s\nwant\n\t%s", got, tc.want)
			}
			if refused != tc.refused {
				t.Errorf("refused = %t, want %t", refused, tc.refused)
			}
			if len(stream) > 0 {
				t.Errorf("sent on the stream:\n\t%s", strings.Join(stream, "\n\t"))
			}
		})
	}
}

// TestModernClientInfoOptional: clientInfo is a SHOULD; a request without
// it is served (https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta).
func TestModernClientInfoOptional(t *testing.T) {
	srv := modServer(t, nil, nil)
	got := modCall(t, srv, "105", "tools/call", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}}},"name":"whoami"}`)
	if want := modText("105", `version=2026-07-28 stateless=true client= caps={"roots":{}}`); got != want {
		t.Errorf("got\n\t%s\nwant\n\t%s", got, want)
	}
	got = modCall(t, srv, "106", "tools/call", modParams(`{}`, `,"name":"whoami"`))
	if want := modText("106", `version=2026-07-28 stateless=true client=mod-client caps={}`); got != want {
		t.Errorf("got\n\t%s\nwant\n\t%s", got, want)
	}
}

// TestModernStamps checks what every stateless-era result carries:
// resultType, ttlMs and cacheScope on discover, the list methods and
// resources/read only, and the server's identity in _meta
// (https://modelcontextprotocol.io/specification/2026-07-28/basic#resulttype,
// https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching).
func TestModernStamps(t *testing.T) {
	const cache = `"resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":{` + modInfoMember + `}`
	srv := modServer(t, &mcp.ServerOptions{Instructions: "Be kind."}, nil)
	for _, tc := range []struct {
		method, params, want string
	}{
		{"server/discover", modParams(`{}`, ""),
			`{"jsonrpc":"2.0","id":1,"result":{` + cache + `,"supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"capabilities":{"logging":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}},"instructions":"Be kind."}}`},
		{"prompts/list", modParams(`{}`, ""),
			`{"jsonrpc":"2.0","id":1,"result":{` + cache + `,"prompts":[{"name":"greet"}]}}`},
		{"resources/list", modParams(`{}`, ""),
			`{"jsonrpc":"2.0","id":1,"result":{` + cache + `,"resources":[{"uri":"test://doc","name":"doc","mimeType":"text/plain"},{"uri":"test://roots","name":"roots","mimeType":"text/plain"}]}}`},
		{"resources/templates/list", modParams(`{}`, ""),
			`{"jsonrpc":"2.0","id":1,"result":{` + cache + `,"resourceTemplates":[]}}`},
		{"resources/read", modParams(`{}`, `,"uri":"test://doc"`),
			`{"jsonrpc":"2.0","id":1,"result":{` + cache + `,"contents":[{"uri":"test://doc","mimeType":"text/plain","text":"doc body"}]}}`},
		{"tools/call", modParams(`{}`, `,"name":"echo","arguments":{"text":"hi"}`), modText("1", "hi")},
		{"tools/call", modParams(`{}`, `,"name":"meta"`),
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":{` + modInfoMember + `,"example.com/k":1},"content":[{"type":"text","text":"m"}]}}`},
	} {
		t.Run(tc.method, func(t *testing.T) {
			if got := modCall(t, srv, "1", tc.method, tc.params); got != tc.want {
				t.Errorf("got\n\t%s\nwant\n\t%s", got, tc.want)
			}
		})
	}
	t.Run("tools/list", func(t *testing.T) {
		got := modCall(t, srv, "1", "tools/list", modParams(`{}`, ""))
		if want := `{"jsonrpc":"2.0","id":1,"result":{` + cache + `,"tools":[`; !strings.HasPrefix(got, want) {
			t.Errorf("got\n\t%s\nwant a frame starting\n\t%s", got, want)
		}
	})
}

// TestModernCacheHint: ServerOptions.CacheHint gives each cacheable
// method's ttlMs and cacheScope; a negative TTL is sent as 0 and an empty
// scope as private.
func TestModernCacheHint(t *testing.T) {
	srv := modServer(t, &mcp.ServerOptions{CacheHint: func(method string) mcp.CacheHint {
		switch method {
		case "tools/list":
			return mcp.CacheHint{TTL: 5 * time.Minute, Scope: mcp.CachePublic}
		case "resources/read":
			return mcp.CacheHint{TTL: 1500 * time.Microsecond}
		case "prompts/list":
			return mcp.CacheHint{TTL: -time.Second, Scope: mcp.CachePublic}
		case "tools/call":
			t.Errorf("CacheHint asked about tools/call")
		}
		return mcp.CacheHint{}
	}}, nil)
	for _, tc := range []struct{ method, params, want string }{
		{"tools/list", modParams(`{}`, ""), `"ttlMs":300000,"cacheScope":"public"`},
		{"resources/read", modParams(`{}`, `,"uri":"test://doc"`), `"ttlMs":1,"cacheScope":"private"`},
		{"prompts/list", modParams(`{}`, ""), `"ttlMs":0,"cacheScope":"public"`},
		{"server/discover", modParams(`{}`, ""), `"ttlMs":0,"cacheScope":"private"`},
	} {
		got := modCall(t, srv, "1", tc.method, tc.params)
		if want := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",` + tc.want + `,"_meta":{`; !strings.HasPrefix(got, want) {
			t.Errorf("%s: got\n\t%s\nwant a frame starting\n\t%s", tc.method, got, want)
		}
	}
	if got := modCall(t, srv, "2", "tools/call", modParams(`{}`, `,"name":"echo","arguments":{"text":"x"}`)); got != modText("2", "x") {
		t.Errorf("tools/call: got %s", got)
	}
}

// TestModernLogLevel: in the stateless era a request gets log messages
// only at or above the level in its own _meta, on its own stream, and
// none without one
// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging).
func TestModernLogLevel(t *testing.T) {
	srv := modServer(t, nil, nil)
	meta := func(level string) string {
		m := `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`
		if level != "" {
			m += `,"io.modelcontextprotocol/logLevel":"` + level + `"`
		}
		return `{"_meta":{` + m + `},"name":"log"}`
	}
	for _, tc := range []struct {
		level string
		sent  bool
	}{{"", false}, {"debug", true}, {"info", true}, {"warning", false}} {
		resp, refused, stream := modServe(t, srv, modFrame("7", "tools/call", meta(tc.level)))
		if refused || resp != modText("7", "logged") {
			t.Errorf("level %q: got %s (refused %t)", tc.level, resp, refused)
		}
		var want []string
		if tc.sent {
			want = []string{`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"mod","data":"hello"}}`}
		}
		if strings.Join(stream, "\n") != strings.Join(want, "\n") {
			t.Errorf("level %q: the stream carried\n\t%s\nwant\n\t%s", tc.level, strings.Join(stream, "\n\t"), strings.Join(want, "\n\t"))
		}
	}
}

// TestModernServerWithoutFeatures: discover on a bare server, and what it
// answers for features it does not offer.
func TestModernServerWithoutFeatures(t *testing.T) {
	srv := mcp.NewServer(modInfo, nil)
	got := modCall(t, srv, "1", "server/discover", modParams(`{}`, ""))
	want := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":{` + modInfoMember +
		`},"supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"capabilities":{}}}`
	if got != want {
		t.Errorf("got\n\t%s\nwant\n\t%s", got, want)
	}
	got, refused, _ := modServe(t, srv, modFrame("2", "prompts/list", modParams(`{}`, "")))
	if want := modError("2", jsonrpc.CodeMethodNotFound, "Method not found", `"prompts/list"`); got != want || !refused {
		t.Errorf("prompts/list: got %s (refused %t), want %s refused", got, refused, want)
	}
	got, refused, _ = modServe(t, srv, modFrame("3", "completion/complete", modParams(`{}`, `,"ref":{"type":"ref/prompt","name":"x"},"argument":{"name":"a","value":""}`)))
	if want := modError("3", jsonrpc.CodeMethodNotFound, "Method not found", `"completion/complete"`); got != want || !refused {
		t.Errorf("completion/complete: got %s (refused %t), want %s refused", got, refused, want)
	}
}

// TestModernSchema validates the bytes of every kind of stateless-era
// result and error against the 2026-07-28 schema
// (https://modelcontextprotocol.io/specification/2026-07-28/schema).
func TestModernSchema(t *testing.T) {
	spec := modSchema(t)
	round1 := func(t *testing.T, srv *mcp.Server, name string) string {
		return modCall(t, srv, "9", "tools/call", modParams(modAllCaps, `,"name":"`+name+`"`))
	}
	for _, tc := range []struct {
		name, result, errorDef string
		// errorObj is the definition the error member must satisfy.
		errorObj string
		produce  func(t *testing.T, srv *mcp.Server) string
	}{
		{name: "discover", result: "DiscoverResult", produce: func(t *testing.T, srv *mcp.Server) string {
			return modCall(t, srv, "1", "server/discover", modParams(`{}`, ""))
		}},
		{name: "tools/list", result: "ListToolsResult", produce: func(t *testing.T, srv *mcp.Server) string {
			return modCall(t, srv, "1", "tools/list", modParams(`{}`, ""))
		}},
		{name: "prompts/list", result: "ListPromptsResult", produce: func(t *testing.T, srv *mcp.Server) string {
			return modCall(t, srv, "1", "prompts/list", modParams(`{}`, ""))
		}},
		{name: "resources/list", result: "ListResourcesResult", produce: func(t *testing.T, srv *mcp.Server) string {
			return modCall(t, srv, "1", "resources/list", modParams(`{}`, ""))
		}},
		{name: "resources/templates/list", result: "ListResourceTemplatesResult", produce: func(t *testing.T, srv *mcp.Server) string {
			return modCall(t, srv, "1", "resources/templates/list", modParams(`{}`, ""))
		}},
		{name: "tools/call", result: "CallToolResult", produce: func(t *testing.T, srv *mcp.Server) string {
			return modCall(t, srv, "1", "tools/call", modParams(`{}`, `,"name":"echo","arguments":{"text":"x"}`))
		}},
		{name: "tools/call with its own _meta", result: "CallToolResult", produce: func(t *testing.T, srv *mcp.Server) string {
			return modCall(t, srv, "1", "tools/call", modParams(`{}`, `,"name":"meta"`))
		}},
		{name: "input_required with three inputs", result: "InputRequiredResult", produce: func(t *testing.T, srv *mcp.Server) string {
			return round1(t, srv, "ask")
		}},
		{name: "input_required of a second round", result: "InputRequiredResult", produce: func(t *testing.T, srv *mcp.Server) string {
			state, _ := modState(t, round1(t, srv, "rounds"))
			return modCall(t, srv, "10", "tools/call", modParams(modAllCaps, `,"name":"rounds","inputResponses":{"a":`+modYes+`},"requestState":"`+state+`"`))
		}},
		{name: "complete after input", result: "CallToolResult", produce: func(t *testing.T, srv *mcp.Server) string {
			state, _ := modState(t, round1(t, srv, "ask"))
			return modCall(t, srv, "10", "tools/call", modParams(modAllCaps, `,"name":"ask","inputResponses":{"name":`+modNameAnswer+`,"capital":`+modSamplingAnswer+`,"roots":`+modRootsAnswer+`},"requestState":"`+state+`"`))
		}},
		{name: "prompts/get input_required", result: "InputRequiredResult", produce: func(t *testing.T, srv *mcp.Server) string {
			return modCall(t, srv, "1", "prompts/get", modParams(modAllCaps, `,"name":"greet"`))
		}},
		{name: "prompts/get", result: "GetPromptResult", produce: func(t *testing.T, srv *mcp.Server) string {
			return modCall(t, srv, "1", "prompts/get", modParams(modAllCaps, `,"name":"greet","inputResponses":{"user_context":{"action":"accept","content":{"context":"tests"}}}`))
		}},
		{name: "resources/read", result: "ReadResourceResult", produce: func(t *testing.T, srv *mcp.Server) string {
			return modCall(t, srv, "1", "resources/read", modParams(`{}`, `,"uri":"test://doc"`))
		}},
		{name: "resources/read input_required", result: "InputRequiredResult", produce: func(t *testing.T, srv *mcp.Server) string {
			return modCall(t, srv, "1", "resources/read", modParams(modAllCaps, `,"uri":"test://roots"`))
		}},
		{name: "unsupported version", errorDef: "UnsupportedProtocolVersionError", produce: func(t *testing.T, srv *mcp.Server) string {
			got, _, _ := modServe(t, srv, modFrame("1", "server/discover", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"v9","io.modelcontextprotocol/clientCapabilities":{}}}`))
			return got
		}},
		{name: "missing capability", errorDef: "MissingRequiredClientCapabilityError", produce: func(t *testing.T, srv *mcp.Server) string {
			got, _, _ := modServe(t, srv, modFrame("1", "tools/call", modParams(`{}`, `,"name":"sample"`)))
			return got
		}},
		{name: "missing elicitation.url capability", errorDef: "MissingRequiredClientCapabilityError", produce: func(t *testing.T, srv *mcp.Server) string {
			if err := srv.AddTool(&mcp.Tool{Name: "url"}, func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
				_, err := req.Elicit(ctx, &mcp.ElicitParams{Mode: mcp.ElicitationModeURL, Message: "Sign in", URL: "https://example.com/login", ElicitationID: "e1"})
				return nil, err
			}); err != nil {
				t.Fatal(err)
			}
			got, _, _ := modServe(t, srv, modFrame("1", "tools/call", modParams(`{"elicitation":{}}`, `,"name":"url"`)))
			if want := modError("1", jsonrpc.CodeMissingClientCapability, "Missing required client capability: elicitation.url", `{"requiredCapabilities":{"elicitation":{"url":{}}}}`); got != want {
				t.Errorf("got\n\t%s\nwant\n\t%s", got, want)
			}
			return got
		}},
		{name: "invalid params", errorDef: "JSONRPCErrorResponse", errorObj: "InvalidParamsError", produce: func(t *testing.T, srv *mcp.Server) string {
			got, _, _ := modServe(t, srv, modFrame("1", "server/discover", `{}`))
			return got
		}},
		{name: "resource not found", errorDef: "JSONRPCErrorResponse", errorObj: "InvalidParamsError", produce: func(t *testing.T, srv *mcp.Server) string {
			got, _, _ := modServe(t, srv, modFrame("1", "resources/read", modParams(`{}`, `,"uri":"test://nope"`)))
			return got
		}},
		{name: "method not found", errorDef: "JSONRPCErrorResponse", errorObj: "MethodNotFoundError", produce: func(t *testing.T, srv *mcp.Server) string {
			got, _, _ := modServe(t, srv, modFrame("1", "ping", modParams(`{}`, "")))
			return got
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frame := tc.produce(t, modServer(t, nil, nil))
			if t.Failed() {
				return
			}
			modValidate(t, spec, "JSONRPCMessage", []byte(frame))
			if tc.errorDef != "" {
				modValidate(t, spec, tc.errorDef, []byte(frame))
				if tc.errorObj != "" {
					var e struct {
						Error json.RawMessage `json:"error"`
					}
					if err := json.Unmarshal([]byte(frame), &e); err != nil || e.Error == nil {
						t.Fatalf("no error in %s", frame)
					}
					modValidate(t, spec, tc.errorObj, e.Error)
				}
				return
			}
			modValidate(t, spec, "JSONRPCResultResponse", []byte(frame))
			modValidate(t, spec, tc.result, modResult(t, frame))
		})
	}
}

// TestModernSchemaValidatorRejects keeps TestModernSchema honest: the
// 2026-07-28 definitions it uses refuse what the era forbids.
func TestModernSchemaValidatorRejects(t *testing.T) {
	spec := modSchema(t)
	for _, tc := range []struct{ def, instance string }{
		{"DiscoverResult", `{"supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"private"}`},
		{"DiscoverResult", `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"cacheScope":"private"}`},
		{"ListToolsResult", `{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"shared"}`},
		{"ListToolsResult", `{"resultType":"complete","tools":[],"ttlMs":-1,"cacheScope":"private"}`},
		{"InputRequiredResult", `{"resultType":"input_required","inputRequests":{"k":{"method":"ping"}}}`},
		{"SubscriptionsListenResult", `{"resultType":"complete","_meta":{}}`},
		{"UnsupportedProtocolVersionError", `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"x","data":{"supported":[]}}}`},
		{"MissingRequiredClientCapabilityError", `{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"x","data":{}}}`},
		{"SubscriptionsAcknowledgedNotification", `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{}}`},
	} {
		var instance any
		if err := json.Unmarshal([]byte(tc.instance), &instance); err != nil {
			t.Fatal(err)
		}
		rs, err := spec.resolve(tc.def, false)
		if err != nil {
			t.Fatal(err)
		}
		if rs.Validate(instance) == nil {
			t.Errorf("%s accepts %s", tc.def, tc.instance)
		}
	}
}

// modChanWriter hands each message a request sends to the test as it is
// written.
type modChanWriter struct{ ch chan string }

func (w *modChanWriter) WriteMessage(_ context.Context, msg jsonrpc.Message) error {
	b, err := jsonrpc.Encode(msg)
	if err != nil {
		return err
	}
	w.ch <- string(b)
	return nil
}

// TestModernListenSchema serves subscriptions/listen outside any session,
// as Streamable HTTP does for a POST, and validates every frame of the
// stream against the 2026-07-28 schema: the acknowledgement, each kind of
// notification, and the graceful result when the stream ends on the
// server's side (ctx ending).
func TestModernListenSchema(t *testing.T) {
	spec := modSchema(t)
	srv := modServer(t, nil, nil)
	msg, _, err := jsonrpc.Decode([]byte(modFrame(`"sub-1"`, "subscriptions/listen", modParams(`{}`,
		`,"notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["test://doc"]}`))))
	if err != nil {
		t.Fatal(err)
	}
	w := &modChanWriter{ch: make(chan string, 16)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type answer struct {
		resp    *jsonrpc.Response
		refused bool
	}
	done := make(chan answer, 1)
	go func() {
		resp, refused, _ := srv.Host().ServeStateless(ctx, nil, msg.(*jsonrpc.Request), w, nil)
		done <- answer{resp, refused}
	}()
	next := func(what string) string {
		t.Helper()
		select {
		case f := <-w.ch:
			return f
		case <-time.After(schemaWatchdog):
			t.Fatalf("no %s after %v", what, schemaWatchdog)
		}
		return ""
	}
	const tag = `"_meta":{"io.modelcontextprotocol/subscriptionId":"sub-1"}`
	for _, step := range []struct {
		def, want string
		change    func() error
	}{
		{"SubscriptionsAcknowledgedNotification", `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{` + tag +
			`,"notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["test://doc"]}}}`, nil},
		{"ToolListChangedNotification", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{` + tag + `}}`, func() error {
			return srv.AddTool(&mcp.Tool{Name: "late"}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) { return nil, nil })
		}},
		{"PromptListChangedNotification", `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{` + tag + `}}`, func() error {
			srv.RemovePrompts("greet")
			return nil
		}},
		{"ResourceListChangedNotification", `{"jsonrpc":"2.0","method":"notifications/resources/list_changed","params":{` + tag + `}}`, func() error {
			srv.RemoveResources("test://roots")
			return nil
		}},
		{"ResourceUpdatedNotification", `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{` + tag + `,"uri":"test://doc"}}`, func() error {
			return srv.ResourceUpdated(context.Background(), "test://doc")
		}},
	} {
		if step.change != nil {
			if err := step.change(); err != nil {
				t.Fatal(err)
			}
		}
		got := next(step.def)
		if got != step.want {
			t.Errorf("got\n\t%s\nwant\n\t%s", got, step.want)
		}
		modValidate(t, spec, "JSONRPCMessage", []byte(got))
		modValidate(t, spec, step.def, []byte(got))
	}
	cancel()
	var a answer
	select {
	case a = <-done:
	case <-time.After(schemaWatchdog):
		t.Fatalf("listen did not end with its context")
	}
	got, err := jsonrpc.Encode(a.resp)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":"sub-1","result":{"resultType":"complete","_meta":{` + modInfoMember + `,"io.modelcontextprotocol/subscriptionId":"sub-1"}}}`
	if string(got) != want || a.refused {
		t.Errorf("got\n\t%s (refused %t)\nwant\n\t%s", got, a.refused, want)
	}
	modValidate(t, spec, "JSONRPCResultResponse", got)
	modValidate(t, spec, "SubscriptionsListenResult", modResult(t, string(got)))
	if len(w.ch) > 0 {
		t.Errorf("more on the stream: %s", <-w.ch)
	}
}

// TestModernHandlerSendsNoRequests: outside any session too, a handler
// that calls the session's own methods sends nothing on the stream.
func TestModernHandlerSendsNoRequests(t *testing.T) {
	srv := mcp.NewServer(modInfo, nil)
	if err := srv.AddTool(&mcp.Tool{Name: "direct"}, func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		_, err := req.Session.ListRoots(ctx, nil)
		return nil, err
	}); err != nil {
		t.Fatal(err)
	}
	got := modCall(t, srv, "1", "tools/call", modParams(modAllCaps, `,"name":"direct"`))
	want := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":{` + modInfoMember +
		`},"content":[{"type":"text","text":"mcp: roots/list not sent: a stateless-era request sends no requests to the client; ask with Request.Input"}],"isError":true}}`
	if got != want {
		t.Errorf("got\n\t%s\nwant\n\t%s", got, want)
	}
}

// TestModernProgress: a stateless-era request's progress notifications go
// on its own stream, before its result
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions).
func TestModernProgress(t *testing.T) {
	srv := mcp.NewServer(modInfo, nil)
	if err := srv.AddTool(&mcp.Tool{Name: "slow"}, func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		if err := req.ReportProgress(ctx, 1, 2, "half"); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	meta := `{"progressToken":"p1","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	got, refused, stream := modServe(t, srv, modFrame("1", "tools/call", `{"_meta":`+meta+`,"name":"slow"}`))
	if got != modText("1", "done") || refused {
		t.Errorf("got %s (refused %t)", got, refused)
	}
	want := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1,"total":2,"message":"half"}}`
	if len(stream) != 1 || stream[0] != want {
		t.Errorf("the stream carried\n\t%s\nwant\n\t%s", strings.Join(stream, "\n\t"), want)
	}
	modValidate(t, modSchema(t), "ProgressNotification", []byte(want))
}

// TestModernPagination: list pages in the stateless era carry the same
// stamps, and the cursor of one page opens the next.
func TestModernPagination(t *testing.T) {
	srv := modServer(t, &mcp.ServerOptions{PageSize: 5, CacheHint: func(string) mcp.CacheHint {
		return mcp.CacheHint{TTL: time.Minute, Scope: mcp.CachePublic}
	}}, nil)
	var names []string
	cursor := ""
	for page := 1; ; page++ {
		rest := ""
		if cursor != "" {
			rest = `,"cursor":` + askQuote(cursor)
		}
		got := modCall(t, srv, "1", "tools/list", modParams(`{}`, rest))
		if want := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":60000,"cacheScope":"public","_meta":{` + modInfoMember + `},"tools":[`; !strings.HasPrefix(got, want) {
			t.Fatalf("page %d: %s", page, got)
		}
		var res mcp.ListToolsResult
		if err := json.Unmarshal(modResult(t, got), &res); err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	if want := "ask echo log meta rounds sample user whoami"; strings.Join(names, " ") != want {
		t.Errorf("tools %q, want %q", strings.Join(names, " "), want)
	}
}

// modStuckWriter takes the first message and then blocks every write until
// the write's context ends, as a stream whose client stopped reading does.
type modStuckWriter struct {
	mu      sync.Mutex
	n       int
	acked   chan struct{}
	blocked chan struct{}
}

func (w *modStuckWriter) WriteMessage(ctx context.Context, _ jsonrpc.Message) error {
	w.mu.Lock()
	w.n++
	n := w.n
	w.mu.Unlock()
	switch n {
	case 1:
		close(w.acked)
		return nil
	case 2:
		close(w.blocked)
	}
	<-ctx.Done()
	return ctx.Err()
}

// TestModernListenStuckStream: a notification being written to a listen
// stream whose client stopped reading is abandoned when the stream ends,
// so that the change that caused it (here AddTool) returns.
func TestModernListenStuckStream(t *testing.T) {
	srv := modServer(t, nil, nil)
	msg, _, err := jsonrpc.Decode([]byte(modFrame("1", "subscriptions/listen", modParams(`{}`, `,"notifications":{"toolsListChanged":true}`))))
	if err != nil {
		t.Fatal(err)
	}
	w := &modStuckWriter{acked: make(chan struct{}), blocked: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	listened := make(chan struct{})
	go func() {
		srv.Host().ServeStateless(ctx, nil, msg.(*jsonrpc.Request), w, nil)
		close(listened)
	}()
	wait := func(ch <-chan struct{}, what string) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(schemaWatchdog):
			t.Fatalf("waiting for %s: nothing after %v", what, schemaWatchdog)
		}
	}
	wait(w.acked, "the acknowledgement")
	added := make(chan struct{})
	go func() {
		_ = srv.AddTool(&mcp.Tool{Name: "late"}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) { return nil, nil })
		close(added)
	}()
	wait(w.blocked, "the notification's write")
	cancel() // the client goes away
	wait(added, "AddTool to return")
	wait(listened, "listen to end")
}

// A stateless-era request's session belongs to the request alone: a
// handler may close it (as it may close a session-era one) without
// breaking the request, and the session then reports itself closed.
func TestModernHandlerClosesItsSession(t *testing.T) {
	s := mcp.NewServer(modInfo, nil)
	var state string
	err := mcp.AddTool(s, &mcp.Tool{Name: "closer"}, func(_ context.Context, r *mcp.Request, _ struct{}) (string, error) {
		if err := r.Session.Close(); err != nil {
			return "", err
		}
		if err := r.Session.Close(); err != nil { // idempotent
			return "", err
		}
		state = r.Session.State().Lifecycle
		return "closed", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	resp := modCall(t, s, "1", "tools/call", modParams(`{}`, `,"name":"closer"`))
	if !strings.Contains(resp, `"text":"closed"`) || strings.Contains(resp, `"error"`) {
		t.Fatalf("response %s", resp)
	}
	if state != "closed" {
		t.Errorf("lifecycle after Close = %v, want closed", state)
	}
}
