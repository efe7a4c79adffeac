package mcp

// Unit tests of the stateless era's byte-level helpers: the stamps every
// result gets (statelessResponse, era_stateless_result_test.go), the tag every listen notification gets
// (withSubscriptionMeta), the -32021 data (capabilityObject) and the
// reading of a request's _meta.

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

func TestWithSubscriptionMeta(t *testing.T) {
	meta := []byte(`{"io.modelcontextprotocol/subscriptionId":7}`)
	for _, tc := range []struct{ in, want string }{
		{``, `{"_meta":{"io.modelcontextprotocol/subscriptionId":7}}`},
		{`{}`, `{"_meta":{"io.modelcontextprotocol/subscriptionId":7}}`},
		{`null`, `{"_meta":{"io.modelcontextprotocol/subscriptionId":7}}`},
		{`{ }`, `{"_meta":{"io.modelcontextprotocol/subscriptionId":7}}`},
		{`{"uri":"a"}`, `{"_meta":{"io.modelcontextprotocol/subscriptionId":7},"uri":"a"}`},
		{`{"uri":"a","_meta":{"k":1}}`, `{"uri":"a","_meta":{"io.modelcontextprotocol/subscriptionId":7,"k":1}}`},
		{`{"_meta":{}}`, `{"_meta":{"io.modelcontextprotocol/subscriptionId":7}}`},
		{`{"_meta":null,"uri":"a"}`, `{"_meta":{"io.modelcontextprotocol/subscriptionId":7},"uri":"a"}`},
	} {
		got := string(withSubscriptionMeta(json.RawMessage(tc.in), meta))
		if got != tc.want {
			t.Errorf("withSubscriptionMeta(%q)\n\t%s\nwant\n\t%s", tc.in, got, tc.want)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("withSubscriptionMeta(%q) is not JSON: %s", tc.in, got)
		}
	}
}

func TestCapabilityObject(t *testing.T) {
	for in, want := range map[string]string{
		"sampling":         `{"sampling":{}}`,
		"elicitation.url":  `{"elicitation":{"url":{}}}`,
		"sampling.tools":   `{"sampling":{"tools":{}}}`,
		`a"b.c`:            `{"a\"b":{"c":{}}}`,
		"extensions.x/y.z": `{"extensions":{"x/y":{"z":{}}}}`,
	} {
		if got := string(capabilityObject(in)); got != want {
			t.Errorf("capabilityObject(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestModernProtocolVersion(t *testing.T) {
	for _, tc := range []struct {
		params  string
		version string
		modern  bool
	}{
		{``, "", false},
		{`{}`, "", false},
		{`[]`, "", false},
		{`{"name":"io.modelcontextprotocol/protocolVersion"}`, "", false},
		{`{"arguments":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, "", false},
		{`{"_meta":{"x":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, "", false},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, "2026-07-28", true},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":7}}`, "", true},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":null}}`, "", true},
		{`{"a":1, "_meta" : { "k":1, "io.modelcontextprotocol/protocolVersion" : "v9" } }`, "v9", true},
		// A key written with escapes names the same member.
		{`{"_meta":{"io.modelcontextprotocol\/protocolVersion":"2026-07-28"}}`, "2026-07-28", true},
		{`{"_meta":{"io.modelcontextprotocol\u002fprotocolVersion":"2026-07-28"}}`, "2026-07-28", true},
		{`{"\u005fmeta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, "2026-07-28", true},
		{`{"text":"caf\u00e9","_meta":{"progressToken":1}}`, "", false},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"`, "", false},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":`, "", false},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion"`, "", false},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`, "", false},
		{`{"_meta" "io.modelcontextprotocol/protocolVersion"}`, "", false},
	} {
		v, ok := StatelessVersionOf(&jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "m", Params: json.RawMessage(tc.params)})
		if v != tc.version || ok != tc.modern {
			t.Errorf("StatelessVersionOf(%s) = %q, %t; want %q, %t", tc.params, v, ok, tc.version, tc.modern)
		}
		// A request jsonrpc.Decode made, whose params' members it noted,
		// gets the same answers.
		if msg, _, err := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":` + tc.params + `}`)); err == nil && tc.params != "" {
			req := msg.(*jsonrpc.Request)
			if _, noted := req.ParamsMembers(); !noted && tc.params[0] == '{' {
				t.Errorf("Decode noted no members of %s", tc.params)
			}
			if v, ok := StatelessVersionOf(req); v != tc.version || ok != tc.modern {
				t.Errorf("StatelessVersionOf(decoded %s) = %q, %t; want %q, %t", tc.params, v, ok, tc.version, tc.modern)
			}
			var m requestMeta
			if m.parse(req.Params, req); m.found != tc.modern {
				t.Errorf("requestMeta.parse(decoded %s) found %t, want %t", tc.params, m.found, tc.modern)
			}
		}
		if func() bool { _, ok := rawProtocolVersion(json.RawMessage(tc.params)); return ok }() != tc.modern {
			t.Errorf("rawProtocolVersion(%s) found != %t", tc.params, tc.modern)
		}
		// handleRequest tells the era by the stateless era's own parse
		// (probeStateless): it must find what rawProtocolVersion finds.
		var m requestMeta
		m.parse(json.RawMessage(tc.params), nil)
		if m.found != tc.modern {
			t.Errorf("requestMeta.parse(%s) found %t, want %t", tc.params, m.found, tc.modern)
		}
	}
}

// FuzzModernMeta: whatever the bytes, reading a request's _meta never
// panics.
func FuzzModernMeta(f *testing.F) {
	for _, seed := range []string{
		``, `{}`, `{"_meta":{}}`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"x","io.modelcontextprotocol/clientCapabilities":{"a`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"x"},"inputResponses":{"k":`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"x"},"name":"`,
		`{"\`, `{"io.modelcontextprotocol/protocolVersion"`, `{"_meta":"io.modelcontextprotocol/protocolVersion"`,
	} {
		f.Add([]byte(seed))
	}
	s := NewServer(Implementation{Name: "s", Version: "1"}, nil)
	f.Fuzz(func(t *testing.T, params []byte) {
		StatelessVersionOf(&jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "tools/call", Params: params})
		var m requestMeta
		retry, err := m.parse(params, nil)
		if _, modern := rawProtocolVersion(params); modern != m.found {
			t.Fatalf("requestMeta.parse(%q) found %t, rawProtocolVersion %t", params, m.found, modern)
		}
		if err == nil {
			s.readInputValues(&jsonrpc.Request{Method: "tools/call", Params: params}, retry.responses, retry.state)
		}
		requestBinding("tools/call", params)
		requestBinding("resources/read", params)
		s.statelessResponse(jsonrpc.Int64ID(1), "tools/list", json.RawMessage(params))
		withSubscriptionMeta(params, []byte(`{"k":1}`))
	})
}

func TestRequestBinding(t *testing.T) {
	digest := func(method, params string) string {
		_, d := requestBinding(method, json.RawMessage(params))
		return d
	}
	same := [][2]string{
		{`{"name":"t"}`, `{"name":"t","arguments":{}}`},
		{`{"name":"t"}`, `{"name":"t","arguments":null}`},
		{`{"name":"t","arguments":{"a":1,"b":[true,"x"]}}`, `{ "arguments" : { "b" : [ true , "x" ] , "a" : 1 } , "name" : "t" }`},
		{`{"name":"t","arguments":{"n":12345678901234567890}}`, `{"name":"t","arguments":{"n":12345678901234567890}}`},
		{`{"name":"t","arguments":{"s":"\u00e9"}}`, `{"name":"t","arguments":{"s":"é"}}`},
	}
	for _, p := range same {
		if a, b := digest("tools/call", p[0]), digest("tools/call", p[1]); a != b || a == "" {
			t.Errorf("%s and %s: digests %q and %q, want equal", p[0], p[1], a, b)
		}
	}
	differ := [][2]string{
		{`{"name":"t","arguments":{"amount":1}}`, `{"name":"t","arguments":{"amount":1000}}`},
		{`{"name":"t","arguments":{"n":12345678901234567890}}`, `{"name":"t","arguments":{"n":12345678901234567891}}`},
		{`{"name":"t"}`, `{"name":"t","arguments":{"a":null}}`},
	}
	for _, p := range differ {
		if a, b := digest("tools/call", p[0]), digest("tools/call", p[1]); a == b {
			t.Errorf("%s and %s: the same digest %q", p[0], p[1], a)
		}
	}
	if name, d := requestBinding("resources/read", json.RawMessage(`{"uri":"test://x","arguments":{"a":1}}`)); name != "test://x" || d != "" {
		t.Errorf("resources/read: %q, %q", name, d)
	}
	if name, _ := requestBinding("prompts/get", json.RawMessage(`{"name":"p","uri":"x"}`)); name != "p" {
		t.Errorf("prompts/get: %q", name)
	}
}

// TestHandleRequestProbeFallsBack: a session-era request whose params
// mention the stateless era's _meta key without naming a version in _meta
// (the byte search's false positives) is served in the session era, and
// one that names it in the stateless era.
func TestHandleRequestProbeFallsBack(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s := NewServer(Implementation{Name: "s", Version: "1"}, nil)
	if err := AddTool(s, &Tool{Name: "echo"}, func(_ context.Context, _ *Request, in struct {
		Text string `json:"text"`
	}) (string, error) {
		return in.Text, nil
	}); err != nil {
		t.Fatal(err)
	}
	ss := s.newSession(SessionOptions{Preinitialized: true})
	defer ss.Close()
	for _, tc := range []struct {
		params, want string
	}{
		{`{"name":"echo","arguments":{"text":"io.modelcontextprotocol/protocolVersion"}}`,
			`{"content":[{"type":"text","text":"io.modelcontextprotocol/protocolVersion"}]}`},
		{`{"name":"echo","arguments":{"text":"x"},"_meta":{"x":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			`{"content":[{"type":"text","text":"x"}]}`},
		{`{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`,
			`error -32602 Invalid params`},
	} {
		resp, err := ss.handleRequest(context.Background(), &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "tools/call", Params: json.RawMessage(tc.params)}, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.params, err)
		}
		got := string(resp.Result)
		if resp.Error != nil {
			got = fmt.Sprintf("error %d %s", resp.Error.Code, resp.Error.Message)
		}
		if got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.params, got, tc.want)
		}
	}
}
