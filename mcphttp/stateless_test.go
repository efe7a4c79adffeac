package mcphttp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
)

// The 2026-07-28 era on the endpoint that serves sessions: header checks,
// refusals and their statuses, replies, and that no session is made.

// statelessMeta is the _meta of the conformance suite's server-stateless
// scenario.
const statelessMeta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{}}`

// mbody is a request with params (an object, "" for {}) and statelessMeta as
// params._meta.
func mbody(id, method, params string) string {
	return mbodyMeta(id, method, params, statelessMeta)
}

// mbodyMeta is mbody with another _meta.
func mbodyMeta(id, method, params, meta string) string {
	p := `{"_meta":` + meta + `}`
	if params != "" && params != "{}" {
		p = `{"_meta":` + meta + `,` + strings.TrimPrefix(params, "{")
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + p + `}`
}

// statelessHeaders are the headers a 2026-07-28 client sends with body:
// MCP-Protocol-Version, Mcp-Method and, for the methods that have one,
// Mcp-Name.
func statelessHeaders(body string) hdrs {
	var m struct {
		Method string `json:"method"`
		Params struct {
			Name   *string `json:"name"`
			URI    *string `json:"uri"`
			TaskID *string `json:"taskId"`
		} `json:"params"`
	}
	json.Unmarshal([]byte(body), &m)
	h := hdrs{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": m.Method}
	switch {
	case m.Method == "tools/call" || m.Method == "prompts/get":
		if m.Params.Name != nil {
			h["Mcp-Name"] = *m.Params.Name
		}
	case m.Method == "resources/read":
		if m.Params.URI != nil {
			h["Mcp-Name"] = *m.Params.URI
		}
	case strings.HasPrefix(m.Method, "tasks/"):
		if m.Params.TaskID != nil {
			h["Mcp-Name"] = *m.Params.TaskID
		}
	}
	return h
}

// mpost POSTs body with statelessHeaders overridden by h ("-" removes one).
func mpost(h hdrs, body string) func(f *fixture) *reply {
	return func(f *fixture) *reply {
		all := statelessHeaders(body)
		for k, v := range h {
			all[k] = v
		}
		return f.do(http.MethodPost, all, body)
	}
}

// mraw sends body in a POST written by hand, with exactly the header
// lines given (names in their case, values with their white space) after
// Host, Content-Type, Accept and Content-Length: what the conformance
// suite's raw fetches send, which net/http's client would canonicalise and
// trim.
func mraw(body string, lines ...string) func(f *fixture) *reply {
	return func(f *fixture) *reply {
		f.t.Helper()
		return f.raw(body, lines...)
	}
}

func (f *fixture) raw(body string, lines ...string) *reply {
	f.t.Helper()
	addr := f.srv.Listener.Addr().String()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		f.t.Fatal(err)
	}
	defer conn.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\nConnection: close\r\n", addr, len(body))
	for _, l := range lines {
		b.WriteString(l + "\r\n")
	}
	b.WriteString("\r\n" + body)
	if _, err := conn.Write([]byte(b.String())); err != nil {
		f.t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		f.t.Fatal(err)
	}
	return f.read(resp)
}

// newStatelessFixture is newFixture with the tools, prompt and resource the
// 2026-07-28 rows call besides the test server's own:
//   - route, whose region argument is mirrored into Mcp-Param-Region
//     (x-mcp-header), as the conformance suite's custom-header scenario
//     needs; it answers the region it got;
//   - needs_sampling, which asks for sampling, which the request did not
//     declare;
//   - chatty, which reports progress twice and logs at info, then
//     answers;
//   - the prompt greet and the resource test://doc.
func newStatelessFixture(t *testing.T, opts *Options) *fixture {
	t.Helper()
	f := newFixture(t, opts)
	s := f.h.server
	must(t, s.AddTool(&mcp.Tool{Name: "route", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"query":{"type":"string"}}}`)},
		func(_ context.Context, _ *mcp.Request, args json.RawMessage) (*mcp.CallToolResult, error) {
			var in struct {
				Region *string `json:"region"`
			}
			json.Unmarshal(args, &in)
			text := "no region"
			if in.Region != nil {
				text = "region " + *in.Region
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		}))
	must(t, s.AddTool(&mcp.Tool{Name: "needs_sampling"}, func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		_, err := req.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 1})
		return nil, err
	}))
	must(t, s.AddTool(&mcp.Tool{Name: "chatty"}, chatty))
	must(t, s.AddPrompt(&mcp.Prompt{Name: "greet"}, func(context.Context, *mcp.Request, *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "hello"}}}}, nil
	}))
	must(t, s.AddResource(&mcp.Resource{URI: "test://doc", Name: "doc"}, func(_ context.Context, _ *mcp.Request, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: p.URI, Text: "text"}}}, nil
	}))
	return f
}

// chatty reports progress twice and logs at info, then answers "said".
func chatty(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
	for i := 1; i <= 2; i++ {
		if err := req.ReportProgress(ctx, float64(i), 2, ""); err != nil {
			return nil, err
		}
	}
	if err := req.Log(ctx, mcp.LevelInfo, "chatty", "working"); err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "said"}}}, nil
}

// fixtureFor is newFixture for a server of the test's own.
func fixtureFor(t *testing.T, s *mcp.Server, opts *Options) *fixture {
	t.Helper()
	h := NewHandler(s, opts)
	clock := newFakeClock()
	h.reg.now = clock.now
	srv := httptest.NewServer(h)
	f := &fixture{t: t, h: h, srv: srv, url: srv.URL + "/mcp", clock: clock}
	t.Cleanup(func() {
		h.Close()
		srv.Close()
		srv.Client().CloseIdleConnections()
	})
	return f
}

// statelessRow is one line of the 2026-07-28 table: what is sent and
// everything the handler must answer.
type statelessRow struct {
	name string
	opts *Options
	run  func(f *fixture) *reply

	status int
	// code, message, data (raw JSON, exact; "" for none) and id (raw
	// JSON) describe the expected error; code 0 expects a result, which
	// result (if set) checks.
	code    int64
	message string
	data    string
	id      string
	result  func(t *testing.T, result json.RawMessage)
	// contentType is the reply's media type; if empty, application/json
	// for refusals and text/event-stream otherwise (JSON in JSON
	// response mode).
	contentType string
	// empty expects an empty body (202).
	empty bool
	// sessions is the registry's size afterwards.
	sessions int
}

const (
	pvMissing    = `Header mismatch: MCP-Protocol-Version header is missing`
	methodAbsent = `Header mismatch: Mcp-Method header is missing`
	nameAbsent   = `Header mismatch: Mcp-Name header is missing`
)

func hdrData(field string) string { return `{"header":"` + field + `"}` }

// supportedData is data.supported of -32022: every version served, newest
// first.
const supportedData = `"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"]`

func TestStatelessTable(t *testing.T) {
	call := func(id, args string) string {
		return mbody(id, "tools/call", `{"name":"route","arguments":`+args+`}`)
	}
	region := func(v string) hdrs { return hdrs{"Mcp-Param-Region": v} }
	textResult := func(want string) func(t *testing.T, res json.RawMessage) {
		return func(t *testing.T, res json.RawMessage) {
			var r struct {
				ResultType string `json:"resultType"`
				Content    []struct {
					Text string `json:"text"`
				} `json:"content"`
				IsError bool `json:"isError"`
			}
			json.Unmarshal(res, &r)
			if r.ResultType != "complete" || len(r.Content) != 1 || r.Content[0].Text != want || r.IsError {
				t.Errorf("result %s, want the complete text %q", res, want)
			}
		}
	}
	discovered := func(t *testing.T, res json.RawMessage) {
		var r struct {
			SupportedVersions []string        `json:"supportedVersions"`
			Capabilities      json.RawMessage `json:"capabilities"`
			ResultType        string          `json:"resultType"`
			TTL               *int64          `json:"ttlMs"`
			CacheScope        string          `json:"cacheScope"`
		}
		json.Unmarshal(res, &r)
		if len(r.SupportedVersions) == 0 || r.SupportedVersions[0] != "2026-07-28" || r.ResultType != "complete" ||
			r.TTL == nil || r.CacheScope == "" || len(r.Capabilities) == 0 {
			t.Errorf("discover result %s", res)
		}
	}
	listed := func(t *testing.T, res json.RawMessage) {
		var r struct {
			Tools      []json.RawMessage `json:"tools"`
			ResultType string            `json:"resultType"`
		}
		json.Unmarshal(res, &r)
		if len(r.Tools) == 0 || r.ResultType != "complete" {
			t.Errorf("tools/list result %s", res)
		}
	}
	listTools := mbody("1", "tools/list", "")
	discover := mbody("201", "server/discover", "")
	rows := []statelessRow{
		// Served.
		{name: "discover", run: mpost(nil, discover), status: 200, id: "201", result: discovered},
		{name: "tools-list", run: mpost(nil, listTools), status: 200, id: "1", result: listed},
		{name: "tools-call", run: mpost(region("us-west1"), call("2", `{"region":"us-west1"}`)), status: 200, id: "2", result: textResult("region us-west1")},
		{name: "prompts-get", run: mpost(nil, mbody("3", "prompts/get", `{"name":"greet"}`)), status: 200, id: "3"},
		{name: "resources-read", run: mpost(nil, mbody("4", "resources/read", `{"uri":"test://doc"}`)), status: 200, id: "4"},
		{name: "json-mode", opts: &Options{JSONResponse: true}, run: mpost(nil, listTools), status: 200, id: "1", result: listed, contentType: "application/json"},
		{name: "string-id", run: mpost(nil, mbody(`"s-1"`, "tools/list", "")), status: 200, id: `"s-1"`, result: listed},
		// The _meta key written with an escaped '/' is the same key.
		{name: "escaped-meta-key", run: mpost(nil, `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":`+strings.Replace(statelessMeta, `modelcontextprotocol/protocolVersion`, `modelcontextprotocol\/protocolVersion`, 1)+`}}`), status: 200, id: "5", result: listed},
		{name: "unknown-session-ignored", run: mpost(hdrs{"Mcp-Session-Id": "nope"}, listTools), status: 200, id: "1", result: listed},
		{name: "stateless-mode", opts: &Options{Stateless: true}, run: mpost(hdrs{"Mcp-Session-Id": "x"}, discover), status: 200, id: "201", result: discovered},
		{name: "notification", run: mpost(nil, `{"jsonrpc":"2.0","method":"notifications/x","params":{"_meta":`+statelessMeta+`}}`), status: 202, empty: true},
		{name: "notification-by-header", run: mpost(nil, `{"jsonrpc":"2.0","method":"notifications/x"}`), status: 202, empty: true},

		// _meta (server-stateless 1): -32602 and 400, before any header
		// is compared with a version the body does not state.
		{name: "meta/no-meta-101", run: mpost(nil, `{"jsonrpc":"2.0","id":101,"method":"server/discover","params":{}}`),
			status: 400, code: -32602, message: "Invalid params", data: `"params._meta is required and must carry io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities"`, id: "101"},
		{name: "meta/no-version-102", run: mpost(nil, mbodyMeta("102", "server/discover", "", `{"io.modelcontextprotocol/clientCapabilities":{}}`)),
			status: 400, code: -32602, message: "Invalid params", data: `"_meta is missing io.modelcontextprotocol/protocolVersion"`, id: "102"},
		{name: "meta/no-capabilities-104", run: mpost(nil, mbodyMeta("104", "server/discover", "", `{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`)),
			status: 400, code: -32602, message: "Invalid params", data: `"_meta is missing io.modelcontextprotocol/clientCapabilities"`, id: "104"},
		{name: "meta/no-client-info-105", run: mpost(nil, mbodyMeta("105", "server/discover", "", `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`)),
			status: 200, id: "105", result: discovered},
		{name: "meta/by-header-only", run: mpost(nil, `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`),
			status: 400, code: -32602, message: "Invalid params", data: `"params with _meta are required: _meta must carry io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities"`, id: "5"},

		// Versions (server-stateless 3).
		{name: "version/unsupported-both", run: mpost(hdrs{"MCP-Protocol-Version": "v999.0.0"}, mbodyMeta("301", "server/discover", "", `{"io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}}`)),
			status: 400, code: -32022, message: "Unsupported protocol version", data: `{` + supportedData + `,"requested":"v999.0.0"}`, id: "301"},
		{name: "version/header-stateless-meta-v999", run: mpost(nil, mbodyMeta("302", "server/discover", "", `{"io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}}`)),
			status: 400, code: -32020, message: `Header mismatch: MCP-Protocol-Version header value '2026-07-28' does not match body value 'v999.0.0'`, data: hdrData("MCP-Protocol-Version"), id: "302"},
		{name: "version/header-v999-meta-stateless", run: mpost(hdrs{"MCP-Protocol-Version": "v999.0.0"}, mbody("303", "server/discover", "")),
			status: 400, code: -32020, message: `Header mismatch: MCP-Protocol-Version header value 'v999.0.0' does not match body value '2026-07-28'`, data: hdrData("MCP-Protocol-Version"), id: "303"},
		{name: "version/header-legacy", run: mpost(hdrs{"MCP-Protocol-Version": "2025-11-25"}, listTools),
			status: 400, code: -32020, message: `Header mismatch: MCP-Protocol-Version header value '2025-11-25' does not match body value '2026-07-28'`, data: hdrData("MCP-Protocol-Version"), id: "1"},
		{name: "version/header-missing", run: mpost(hdrs{"MCP-Protocol-Version": "-"}, listTools),
			status: 400, code: -32020, message: pvMissing, data: hdrData("MCP-Protocol-Version"), id: "1"},
		{name: "version/header-missing-on-session", run: func(f *fixture) *reply {
			sid := f.initialize("2025-11-25")
			return mpost(hdrs{"MCP-Protocol-Version": "-", "Mcp-Session-Id": sid}, listTools)(f)
		}, status: 400, code: -32020, message: pvMissing, data: hdrData("MCP-Protocol-Version"), id: "1", sessions: 1},
		{name: "version/header-twice", run: mraw(listTools, "MCP-Protocol-Version: 2026-07-28", "mcp-protocol-version: 2026-07-28", "Mcp-Method: tools/list"),
			status: 400, code: -32020, message: `Header mismatch: MCP-Protocol-Version header appears more than once`, data: hdrData("MCP-Protocol-Version"), id: "1"},
		{name: "version/json-mode", opts: &Options{JSONResponse: true}, run: mpost(hdrs{"MCP-Protocol-Version": "-"}, listTools),
			status: 400, code: -32020, message: pvMissing, data: hdrData("MCP-Protocol-Version"), id: "1"},
		{name: "version/stateless-mode", opts: &Options{Stateless: true}, run: mpost(hdrs{"MCP-Protocol-Version": "-"}, listTools),
			status: 400, code: -32020, message: pvMissing, data: hdrData("MCP-Protocol-Version"), id: "1"},

		// Mcp-Method (http-header-validation).
		{name: "method/other", run: mpost(hdrs{"Mcp-Method": "prompts/list"}, listTools),
			status: 400, code: -32020, message: `Header mismatch: Mcp-Method header value 'prompts/list' does not match body value 'tools/list'`, data: hdrData("Mcp-Method"), id: "1"},
		{name: "method/missing", run: mpost(hdrs{"Mcp-Method": "-"}, listTools),
			status: 400, code: -32020, message: methodAbsent, data: hdrData("Mcp-Method"), id: "1"},
		{name: "method/case", run: mpost(hdrs{"Mcp-Method": "TOOLS/LIST"}, listTools),
			status: 400, code: -32020, message: `Header mismatch: Mcp-Method header value 'TOOLS/LIST' does not match body value 'tools/list'`, data: hdrData("Mcp-Method"), id: "1"},
		{name: "method/name-lower-case", run: mraw(listTools, "mcp-protocol-version: 2026-07-28", "mcp-method: tools/list"), status: 200, id: "1", result: listed},
		{name: "method/name-upper-case", run: mraw(listTools, "MCP-PROTOCOL-VERSION: 2026-07-28", "MCP-METHOD: tools/list"), status: 200, id: "1", result: listed},
		{name: "method/ows", run: mraw(listTools, "MCP-Protocol-Version: \t2026-07-28 ", "Mcp-Method:   tools/list\t"), status: 200, id: "1", result: listed},
		{name: "method/on-notification-unchecked", run: mpost(hdrs{"Mcp-Method": "-"}, `{"jsonrpc":"2.0","method":"notifications/x","params":{"_meta":`+statelessMeta+`}}`), status: 202, empty: true},

		// Mcp-Name (http-header-validation).
		{name: "name/wrong-tool", run: mpost(hdrs{"Mcp-Name": "wrong_tool_name"}, mbody("6", "tools/call", `{"name":"echo","arguments":{}}`)),
			status: 400, code: -32020, message: `Header mismatch: Mcp-Name header value 'wrong_tool_name' does not match body value 'echo'`, data: hdrData("Mcp-Name"), id: "6"},
		{name: "name/missing", run: mpost(hdrs{"Mcp-Name": "-"}, mbody("6", "tools/call", `{"name":"echo","arguments":{}}`)),
			status: 400, code: -32020, message: nameAbsent, data: hdrData("Mcp-Name"), id: "6"},
		{name: "name/whitespace", run: mraw(mbody("6", "tools/call", `{"name":"route","arguments":{}}`),
			"MCP-Protocol-Version: 2026-07-28", "Mcp-Method: tools/call", "Mcp-Name:   route  "),
			status: 200, id: "6", result: textResult("no region")},
		{name: "name/base64", run: mpost(hdrs{"Mcp-Name": "=?base64?ZWNobw==?="}, mbody("6", "tools/call", `{"name":"echo","arguments":{"text":"x"}}`)),
			status: 200, id: "6", result: textResult("x")},
		{name: "name/bad-base64", run: mpost(hdrs{"Mcp-Name": "=?base64?ZWNobw?="}, mbody("6", "tools/call", `{"name":"echo","arguments":{}}`)),
			status: 400, code: -32020, message: `Header mismatch: Mcp-Name header value is not valid Base64 inside the =?base64?...?= sentinel`, data: hdrData("Mcp-Name"), id: "6"},
		{name: "name/prompt", run: mpost(hdrs{"Mcp-Name": "other"}, mbody("7", "prompts/get", `{"name":"greet"}`)),
			status: 400, code: -32020, message: `Header mismatch: Mcp-Name header value 'other' does not match body value 'greet'`, data: hdrData("Mcp-Name"), id: "7"},
		{name: "name/prompt-missing", run: mpost(hdrs{"Mcp-Name": "-"}, mbody("7", "prompts/get", `{"name":"greet"}`)),
			status: 400, code: -32020, message: nameAbsent, data: hdrData("Mcp-Name"), id: "7"},
		{name: "name/resource", run: mpost(hdrs{"Mcp-Name": "test://other"}, mbody("8", "resources/read", `{"uri":"test://doc"}`)),
			status: 400, code: -32020, message: `Header mismatch: Mcp-Name header value 'test://other' does not match body value 'test://doc'`, data: hdrData("Mcp-Name"), id: "8"},
		{name: "name/resource-missing", run: mpost(hdrs{"Mcp-Name": "-"}, mbody("8", "resources/read", `{"uri":"test://doc"}`)),
			status: 400, code: -32020, message: nameAbsent, data: hdrData("Mcp-Name"), id: "8"},
		{name: "name/task", run: mpost(hdrs{"Mcp-Name": "t-2"}, mbody("9", "tasks/get", `{"taskId":"t-1"}`)),
			status: 400, code: -32020, message: `Header mismatch: Mcp-Name header value 't-2' does not match body value 't-1'`, data: hdrData("Mcp-Name"), id: "9"},
		{name: "name/twice", run: mraw(mbody("6", "tools/call", `{"name":"echo","arguments":{}}`),
			"MCP-Protocol-Version: 2026-07-28", "Mcp-Method: tools/call", "Mcp-Name: echo", "mcp-name: echo"),
			status: 400, code: -32020, message: `Header mismatch: Mcp-Name header appears more than once`, data: hdrData("Mcp-Name"), id: "6"},

		// Mcp-Param-Region (http-custom-header-server-validation).
		{name: "param/base64", run: mpost(region("=?base64?SGVsbG8=?="), call("10", `{"region":"Hello"}`)), status: 200, id: "10", result: textResult("region Hello")},
		{name: "param/literal-no-prefix", run: mpost(region("SGVsbG8="), call("11", `{"region":"SGVsbG8="}`)), status: 200, id: "11", result: textResult("region SGVsbG8=")},
		{name: "param/literal-no-suffix", run: mpost(region("=?base64?SGVsbG8="), call("12", `{"region":"=?base64?SGVsbG8="}`)), status: 200, id: "12", result: textResult("region =?base64?SGVsbG8=")},
		{name: "param/bad-padding", run: mpost(region("=?base64?SGVsbG8?="), call("13", `{"region":"Hello"}`)),
			status: 400, code: -32020, message: `Header mismatch: Mcp-Param-Region header value is not valid Base64 inside the =?base64?...?= sentinel`, data: hdrData("Mcp-Param-Region"), id: "13"},
		{name: "param/bad-characters", run: mpost(region("=?base64?SGVs!!!bG8=?="), call("14", `{"region":"Hello"}`)),
			status: 400, code: -32020, message: `Header mismatch: Mcp-Param-Region header value is not valid Base64 inside the =?base64?...?= sentinel`, data: hdrData("Mcp-Param-Region"), id: "14"},
		{name: "param/missing", run: mpost(nil, call("15", `{"region":"test-value"}`)),
			status: 400, code: -32020, message: `Header mismatch: Mcp-Param-Region header is missing but the request body has a value for it`, data: hdrData("Mcp-Param-Region"), id: "15"},
		{name: "param/other-value", run: mpost(region("us-east1"), call("16", `{"region":"us-west1"}`)),
			status: 400, code: -32020, message: `Header mismatch: Mcp-Param-Region header value 'us-east1' does not match body value 'us-west1'`, data: hdrData("Mcp-Param-Region"), id: "16"},
		{name: "param/without-argument", run: mpost(region("us-west1"), call("17", `{"query":"q"}`)),
			status: 400, code: -32020, message: `Header mismatch: Mcp-Param-Region header is present but the request body has no value for it`, data: hdrData("Mcp-Param-Region"), id: "17"},
		{name: "param/neither", run: mpost(nil, call("18", `{"query":"q"}`)), status: 200, id: "18", result: textResult("no region")},
		{name: "param/null-argument", run: mpost(nil, call("19", `{"region":null}`)), status: 200, id: "19", result: textResult("no region")},
		{name: "param/header-name-case", run: mpost(hdrs{"MCP-PARAM-REGION": "eu"}, call("20", `{"region":"eu"}`)), status: 200, id: "20", result: textResult("region eu")},
		{name: "param/unknown-tool-unchecked", run: mpost(hdrs{"Mcp-Name": "nope"}, mbody("21", "tools/call", `{"name":"nope"}`)),
			status: 200, code: -32602, message: "Invalid params", data: `"Unknown tool: nope"`, id: "21"},

		// A body that is no message under a 2026-07-28 header is refused
		// for what it is, not as a session-era version the handler does
		// not know (issue 25).
		{name: "undecodable/method-twice", run: mpost(hdrs{"Mcp-Method": "tools/call", "Mcp-Name": "echo"}, `{"jsonrpc":"2.0","id":30,"method":"ping","method":"tools/call","params":{"_meta":`+statelessMeta+`,"name":"echo"}}`),
			status: 400, code: -32600, message: "Invalid Request", data: `"Invalid Request: duplicate member \"method\""`, id: "30"},
		{name: "undecodable/name-twice", run: mpost(hdrs{"Mcp-Name": "echo"}, mbody("31", "tools/call", `{"name":"echo","name":"route"}`)),
			status: 400, code: -32602, message: "Invalid params", data: `"Invalid params: duplicate member \"name\" in /params"`, id: "31"},
		{name: "undecodable/meta-member-twice", run: mpost(nil, `{"jsonrpc":"2.0","id":32,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}}`),
			status: 400, code: -32602, message: "Invalid params", data: `"Invalid params: duplicate member \"io.modelcontextprotocol/protocolVersion\" in /params/_meta"`, id: "32"},
		{name: "undecodable/parse-error", run: mpost(hdrs{"Mcp-Method": "tools/list"}, `{"jsonrpc":"2.0","id":33,`),
			status: 400, code: -32700, message: "Parse error", data: "", id: "null"},

		// Removed and unknown methods (server-stateless 5): 404.
		{name: "removed/initialize", run: mpost(nil, mbody("501", "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)),
			status: 404, code: -32601, message: "Method not found", data: `"initialize"`, id: "501"},
		{name: "removed/ping", run: mpost(nil, mbody("502", "ping", "")), status: 404, code: -32601, message: "Method not found", data: `"ping"`, id: "502"},
		{name: "removed/logging-set-level", run: mpost(nil, mbody("503", "logging/setLevel", `{"level":"info"}`)), status: 404, code: -32601, message: "Method not found", data: `"logging/setLevel"`, id: "503"},
		{name: "removed/resources-subscribe", run: mpost(nil, mbody("504", "resources/subscribe", `{"uri":"test://doc"}`)), status: 404, code: -32601, message: "Method not found", data: `"resources/subscribe"`, id: "504"},
		{name: "removed/resources-unsubscribe", run: mpost(nil, mbody("505", "resources/unsubscribe", `{"uri":"test://doc"}`)), status: 404, code: -32601, message: "Method not found", data: `"resources/unsubscribe"`, id: "505"},
		{name: "unknown-method", run: mpost(nil, mbody(`"u"`, "unknown/method", "")), status: 404, code: -32601, message: "Method not found", data: `"unknown/method"`, id: `"u"`},
		{name: "unknown-method/json-mode", opts: &Options{JSONResponse: true}, run: mpost(nil, mbody("506", "unknown/method", "")), status: 404, code: -32601, message: "Method not found", data: `"unknown/method"`, id: "506"},

		// A capability the request did not declare (server-stateless 4).
		{name: "capability/missing", run: mpost(nil, mbody("401", "tools/call", `{"name":"needs_sampling","arguments":{}}`)),
			status: 400, code: -32021, message: "Missing required client capability: sampling", data: `{"requiredCapabilities":{"sampling":{}}}`, id: "401"},
		{name: "capability/missing-json-mode", opts: &Options{JSONResponse: true}, run: mpost(nil, mbody("402", "tools/call", `{"name":"needs_sampling","arguments":{}}`)),
			status: 400, code: -32021, message: "Missing required client capability: sampling", data: `{"requiredCapabilities":{"sampling":{}}}`, id: "402"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			f := newStatelessFixture(t, row.opts)
			r := row.run(f)
			checkStatelessRow(t, f, &row, r)
		})
	}
}

func checkStatelessRow(t *testing.T, f *fixture, row *statelessRow, r *reply) {
	t.Helper()
	if r.status != row.status {
		t.Fatalf("status %d, want %d; body %s", r.status, row.status, r.body)
	}
	if sid := r.header.Get("Mcp-Session-Id"); sid != "" {
		t.Errorf("Mcp-Session-Id %q on a 2026-07-28 reply", sid)
	}
	if n := f.h.SessionCount(); n != row.sessions {
		t.Errorf("%d sessions afterwards, want %d", n, row.sessions)
	}
	if n := len(f.h.server.Sessions()); n != row.sessions {
		t.Errorf("%d sessions on the server afterwards, want %d", n, row.sessions)
	}
	if row.empty {
		if r.body != "" {
			t.Errorf("body %q, want none", r.body)
		}
		return
	}
	ct := row.contentType
	switch {
	case ct != "":
	case r.status >= 400:
		ct = "application/json"
	case row.opts != nil && row.opts.JSONResponse:
		ct = "application/json"
	default:
		ct = "text/event-stream"
	}
	if got := r.header.Get("Content-Type"); got != ct {
		t.Errorf("Content-Type %q, want %q", got, ct)
	}
	if ct == "text/event-stream" && r.header.Get("X-Accel-Buffering") != "no" {
		t.Errorf("X-Accel-Buffering %q, want no", r.header.Get("X-Accel-Buffering"))
	}
	m := r.message(t)
	if string(m["jsonrpc"]) != `"2.0"` {
		t.Errorf("jsonrpc %s", m["jsonrpc"])
	}
	if string(m["id"]) != row.id {
		t.Errorf("id %s, want %s", m["id"], row.id)
	}
	if row.code == 0 {
		if _, isErr := m["error"]; isErr {
			t.Fatalf("unexpected error: %s", r.body)
		}
		if row.result != nil {
			row.result(t, m["result"])
		}
		return
	}
	var e rpcError
	if err := json.Unmarshal(m["error"], &e); err != nil {
		t.Fatalf("no error member: %s", r.body)
	}
	if e.Code != row.code || e.Message != row.message {
		t.Errorf("error %d %q, want %d %q", e.Code, e.Message, row.code, row.message)
	}
	if string(e.Data) != row.data {
		t.Errorf("data %s, want %s", e.Data, row.data)
	}
}

// The header checks also hold for a request that reaches the handler with
// white space left in its values (a server other than net/http's, or a
// proxy), and a value with a control character is refused.
func TestStatelessHeadersUntrimmed(t *testing.T) {
	f := newStatelessFixture(t, nil)
	body := mbody("1", "tools/call", `{"name":"route","arguments":{"region":"eu"}}`)
	for _, tc := range []struct {
		name   string
		header http.Header
		status int
		msg    string
	}{
		{"ows", http.Header{"Mcp-Protocol-Version": {" 2026-07-28\t"}, "Mcp-Method": {"\ttools/call "}, "Mcp-Name": {"  route  "}, "Mcp-Param-Region": {" eu "}}, 200, ""},
		{"control", http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"route"}, "Mcp-Param-Region": {"e\x01u"}}, 400,
			`Header mismatch: Mcp-Param-Region header value contains invalid characters (only visible ASCII, space and tab are allowed)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
			req.Header = tc.header
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			f.h.ServeHTTP(w, req)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.status, w.Body)
			}
			if tc.msg != "" && !strings.Contains(w.Body.String(), `"message":"`+tc.msg+`"`) {
				t.Errorf("body %s, want message %q", w.Body, tc.msg)
			}
		})
	}
}

// The Mcp-Param headers checked are those of the tool as it is now: a
// tool replaced under the same name is checked by its new schema, and one
// whose annotations break the spec's rules has its headers unchecked.
func TestStatelessParamHeadersFollowTools(t *testing.T) {
	f := newStatelessFixture(t, nil)
	body := mbody("1", "tools/call", `{"name":"route","arguments":{"region":"eu"}}`)
	if r := mpost(hdrs{"Mcp-Param-Region": "eu"}, body)(f); r.status != 200 {
		t.Fatalf("before: %d %s", r.status, r.body)
	}
	replace := func(schema string) {
		must(t, f.h.server.AddTool(&mcp.Tool{Name: "route", InputSchema: json.RawMessage(schema)},
			func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			}))
	}
	replace(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Zone"}}}`)
	r := mpost(hdrs{"Mcp-Param-Region": "eu"}, body)(f)
	checkRefusal(t, r, 400, -32020, "Header mismatch: Mcp-Param-Zone header is missing but the request body has a value for it")
	if r := mpost(hdrs{"Mcp-Param-Zone": "eu"}, body)(f); r.status != 200 {
		t.Errorf("with the new header: %d %s", r.status, r.body)
	}
	replace(`{"type":"object","properties":{"region":{"type":"number","x-mcp-header":"Zone"}}}`)
	if r := mpost(nil, body)(f); r.status != 200 {
		t.Errorf("a tool with an invalid annotation: %d %s", r.status, r.body)
	}
}
