package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/internal/jsontest"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// metaDecodeCases are capabilities and client identities in the shapes
// the fast paths take and in the shapes they leave to encoding/json.
var metaDecodeCases = []string{
	`{}`, ` { } `, `{"roots":{}}`, `{"roots":{"listChanged":true}}`, `{"roots":{"listChanged":false,"x":1}}`,
	`{"roots":{"listChanged":null}}`, `{"roots":null}`, `{"roots":{"listChanged":1}}`, `{"roots":[]}`,
	`{"roots":{"ListChanged":true}}`, `{"roots":{"listChanged":true,"listChanged":false}}`,
	`{"roots":{"listChanged":true},"roots":{}}`, `{"Roots":{"listChanged":true}}`, `{"ROOTS":{}}`,
	`{"sampling":{}}`, `{"sampling":{"context":{},"tools":{"a":1}}}`, `{"sampling":{"context":null}}`,
	`{"sampling":{"context":true}}`, `{"sampling":null}`, `{"sampling":"yes"}`, `{"sampling":{"Tools":{}}}`,
	`{"elicitation":{}}`, `{"elicitation":{"form":{},"url":{}}}`, `{"elicitation":{"url":{},"url":null}}`,
	`{"elicitation":{"form":[]}}`, `{"roots":{},"sampling":{},"elicitation":{"form":{}}}`,
	`{"experimental":{"x":{}}}`, `{"tasks":{"list":{}}}`, `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`,
	`{"other":{"deep":[1,2,{"a":null}]},"more":"x"}`, `{"r\u006fots":{"listChanged":true}}`,
	`{"ro\u00f6ts":{}}`, "{\"rooţs\":{}}", `{"\u0000":1}`, `{"roots":{"listChanged":true}, "sampling" : { "tools" : { } } }`,
	// Implementation shapes.
	`{"name":"c","version":"1"}`, `{"name":"c","title":"T","version":"1.0","description":"d","websiteUrl":"https://x"}`,
	`{"name":"a\"b\u00e9","version":"\ud83d\ude00"}`, `{"name":null,"version":"1"}`, `{"name":1}`,
	`{"name":"a","name":"b"}`, `{"Name":"c"}`, `{"NAME":"c","name":"d"}`, `{"name":"c","icons":[{"src":"x"}]}`,
	`{"name":"c","icons":null}`, `{"websiteURL":"x"}`, `{"name":"c","extra":{"a":[1]}}`, `{"name":"\xff"}`,
	`{"name":["x"]}`, `{"version":{}}`,
}

// TestMetaDecodersMatchExactJSON: the _meta fast paths decode exactly
// what the reference decoder (exactjson) decodes, and refuse what it
// refuses: a name folded to a field's or repeated included.
func TestMetaDecodersMatchExactJSON(t *testing.T) {
	for _, c := range metaDecodeCases {
		checkMetaDecoders(t, []byte(c))
	}
}

func FuzzMetaDecoders(f *testing.F) {
	for _, c := range metaDecodeCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkMetaDecoders(t, data)
	})
}

func checkMetaDecoders(t *testing.T, data []byte) {
	t.Helper()
	start := jsonscan.SkipSpace(data, 0)
	end, err := jsonscan.ScanObject(data, start, func(_, _ []byte) {})
	if err != nil || jsonscan.SkipSpace(data, end) != len(data) || jsontest.RepeatsName(data) {
		return // the decoders see only valid objects that jsonrpc.Decode let through
	}
	obj := data[start:end]

	var wantCaps, gotCaps ClientCapabilities
	wantErr := exactjson.Unmarshal(obj, &wantCaps) != nil
	gotOK := decodeClientCapabilities(obj, &gotCaps)
	if gotOK == wantErr || (gotOK && !reflect.DeepEqual(gotCaps, wantCaps)) {
		t.Errorf("ClientCapabilities %s: fast %+v (ok %v), exactjson %+v (error %v)", obj, gotCaps, gotOK, wantCaps, wantErr)
	}

	var wantInfo, gotInfo Implementation
	wantErr = exactjson.Unmarshal(obj, &wantInfo) != nil
	gotOK = decodeImplementation(obj, &gotInfo)
	if gotOK == wantErr || (gotOK && !reflect.DeepEqual(gotInfo, wantInfo)) {
		t.Errorf("Implementation %s: fast %+v (ok %v), exactjson %+v (error %v)", obj, gotInfo, gotOK, wantInfo, wantErr)
	}

	if plainMeta(obj) {
		var m *RequestMeta
		if err := json.Unmarshal(obj, &m); err != nil || m == nil || m.ProgressToken.IsValid() {
			t.Errorf("plainMeta(%s) but encoding/json gives %+v, %v", obj, m, err)
		}
	}
}

// TestPlainMeta: a _meta is plain when no member could be progressToken.
func TestPlainMeta(t *testing.T) {
	for meta, want := range map[string]bool{
		`{}`: true,
		`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`: true,
		`{"progressToken":1}`:       false,
		`{"progresstoken":1}`:       false,
		`{"PROGRESSTOKEN":null}`:    false,
		`{"progre\u0073sToken":1}`:  false,
		"{\"progreſsToken\":1}":     false, // encoding/json folds ſ onto s
		`{"progressTokens":1}`:      true,
		`null`:                      false,
		`"x"`:                       false,
		`{"a":{"progressToken":1}}`: true,
	} {
		if got := plainMeta([]byte(meta)); got != want {
			t.Errorf("plainMeta(%s) = %v, want %v", meta, got, want)
		}
	}
}

// TestToolResultHeadMatchesTyped: a tools/call result encoded by hand
// with the stateless era's head is byte for byte what the encoding/json
// path (appendTyped) makes.
func TestToolResultHeadMatchesTyped(t *testing.T) {
	s := NewServer(Implementation{Name: "s\"x", Version: "1", Title: "T"}, nil)
	id := jsonrpc.Int64ID(3)
	for _, method := range []string{"tools/call", "tools/list"} {
		for _, res := range []*CallToolResult{
			{Content: []Content{}},
			{Content: []Content{&TextContent{Text: "hello, world"}}},
			{Content: []Content{&TextContent{Text: "a\nb\u2028<>&"}, &TextContent{Text: ""}}, IsError: true},
			{Content: []Content{&ImageContent{Data: "AQI=", MIMEType: "image/png"}, &TextContent{Text: "x", Annotations: &Annotations{Audience: []string{"user"}}}}},
			{Content: []Content{&TextContent{Text: `{"a":1}`}}, StructuredContent: json.RawMessage(`{"a":1}`)},
			{Content: []Content{}, StructuredContent: json.RawMessage(`{"a": "<b>"}`), IsError: true},
			{Content: []Content{}, Meta: Meta{"k": json.RawMessage(`"v"`)}},
		} {
			got := s.statelessResponse(id, method, res)
			want, err := headOf(s, method).appendTyped(nil, res)
			if err != nil || got.Error != nil || !bytes.Equal(got.Result, want) || !got.KnownCompact() {
				t.Errorf("%s %+v:\n\tgot  %s\n\twant %s", method, res, got.Result, want)
			}
		}
	}
}

// TestModernToolCallParams: tools/call reads its params from what parsing
// _meta found only when that is what decodeCallToolParams would find.
func TestModernToolCallParams(t *testing.T) {
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`
	for params, fast := range map[string]bool{
		`{` + meta + `},"name":"echo","arguments":{"a":1}}`:                                true,
		`{"name":"echo",` + meta + `}}`:                                                    true,
		`{"name":"echo",` + meta + `,"progressToken":7}}`:                                  true, // decoded with encoding/json
		`{"name":"echo","arguments":{},` + meta + `},"inputResponses":{}}`:                 false,
		`{"name":"echo",` + meta + `},"_meta":{}}`:                                         false,
		`{"name":"echo",` + meta + `},"\u005fmeta":{}}`:                                    false,
		`{"name":"ec\u0068o",` + meta + `}}`:                                               false,
		`{"name":"echo",` + meta + `}} x`:                                                  false,
		`{"name":7,` + meta + `}}`:                                                         false,
		`{"name":"echo","arguments":{"a":1},"arguments":{"b":2},` + meta + `}}`:            true,
		`{"name":"echo","task":{},` + meta + `}}`:                                          false,
		`{"name":"a","name":"echo",` + meta + `,"io.modelcontextprotocol/logLevel":null}}`: true,
	} {
		raw := json.RawMessage(params)
		var m requestMeta
		if _, err := m.parse(raw, nil); err != nil {
			t.Errorf("%s: %v", params, err)
			continue
		}
		st := &statelessRequest{meta: &m}
		var got, want CallToolParams
		ok := st.toolCallParams(raw, &got)
		if ok != fast {
			t.Errorf("%s: fast path %v, want %v", params, ok, fast)
		}
		if !ok {
			continue
		}
		if !decodeCallToolParams(raw, &want) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: fast %+v, decodeCallToolParams %+v", params, got, want)
		}
		// Other params (a middleware's rewrite) are decoded afresh.
		if st.toolCallParams(json.RawMessage(string(params)), &got) {
			t.Errorf("%s: fast path taken for a copy of params", params)
		}
	}
	if (*statelessRequest)(nil).toolCallParams(json.RawMessage(`{"name":"x"}`), new(CallToolParams)) {
		t.Error("fast path taken without a parse")
	}
}

// TestModernToolsCallAllocations pins the allocations of a stateless-era
// tools/call served outside any session (BenchmarkModernToolsCall), so
// that the hot path does not regress unnoticed.
func TestModernToolsCallAllocations(t *testing.T) {
	s := NewServer(Implementation{Name: "bench", Version: "1"}, nil)
	if err := AddTool(s, &Tool{Name: "echo"}, func(_ context.Context, _ *Request, in benchEchoIn) (string, error) {
		return in.Text, nil
	}); err != nil {
		t.Fatal(err)
	}
	frame := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + benchModernMeta + `,"name":"echo","arguments":{"text":"hello, world"}}}`)
	msg, _, err := jsonrpc.Decode(frame)
	if err != nil {
		t.Fatal(err)
	}
	req := msg.(*jsonrpc.Request)
	ctx := context.Background()
	// The least of three runs: a goroutine an earlier test left behind
	// may allocate during one.
	n := 1e9
	for range 3 {
		n = min(n, testing.AllocsPerRun(200, func() {
			if resp, refused := s.serveStateless(ctx, req, nil, nil); refused || resp.Error != nil {
				t.Fatal(resp.Error)
			}
		}))
	}
	if max := 11.0; n > max {
		t.Errorf("allocations per tools/call = %v, want at most %v", n, max)
	}
}

// parseReference is requestMeta.parse as it was before walkObject: a
// ScanObject of params, then a walk of _meta's members.
func parseReference(m *requestMeta, params json.RawMessage) (retryMembers, *jsonrpc.Error) {
	var retry retryMembers
	if len(params) == 0 || params[0] != '{' {
		return retry, errInvalidParams("params with _meta are required")
	}
	var meta []byte
	var metas int
	end, err := jsonscan.ScanObject(params, 0, func(key, value []byte) {
		m.call.add(key, value)
		if string(key) == "_meta" {
			metas++
		}
		switch {
		case jsonscan.KeyEquals(key, "_meta"):
			if meta == nil {
				meta = value
			}
		case jsonscan.KeyEquals(key, "inputResponses"):
			retry.responses = value
		case jsonscan.KeyEquals(key, "requestState"):
			retry.state = value
		}
	})
	if err != nil || len(meta) == 0 || meta[0] != '{' {
		return retry, errInvalidParams("params._meta is required")
	}
	m.params, m.whole, m.plain, m.oneMeta = params, jsonscan.SkipSpace(params, end) == len(params), true, metas == 1
	var version, caps, info, level []byte
	jsonscan.Members(meta, func(key, value []byte) bool {
		if m.plain && len(key) >= len("progressToken") {
			m.plain = ignoredKey(key, "progressToken")
		}
		switch {
		case jsonscan.KeyEquals(key, metaKeyProtocolVersion):
			version = value
		case jsonscan.KeyEquals(key, metaKeyClientCapabilities):
			caps = value
		case jsonscan.KeyEquals(key, metaKeyClientInfo):
			info = value
		case jsonscan.KeyEquals(key, metaKeyLogLevel):
			level = value
		}
		return true
	})
	m.found = version != nil
	if version == nil || caps == nil {
		return retry, errInvalidParams("_meta is missing a member")
	}
	var ok bool
	if m.version, ok = jsonscan.StringValue(version); !ok {
		return retry, errInvalidParams("bad version")
	}
	if caps[0] != '{' || json.Unmarshal(caps, &m.caps) != nil {
		return retry, errInvalidParams("bad capabilities")
	}
	if info != nil && string(info) != "null" && (info[0] != '{' || json.Unmarshal(info, &m.info) != nil) {
		return retry, errInvalidParams("bad clientInfo")
	}
	if level != nil && string(level) != "null" {
		l, _ := jsonscan.StringValue(level)
		if m.logLevel = LoggingLevel(l); !m.logLevel.IsValid() {
			return retry, errInvalidParams("bad level")
		}
	}
	return retry, nil
}

// FuzzParseMatchesReference: the one-pass parse finds what a ScanObject
// of params followed by a walk of _meta finds, and refuses what it
// refuses (error texts aside: parseReference words them shortly), and
// decodes capabilities and clientInfo as encoding/json does.
func FuzzParseMatchesReference(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"_meta":{}}`, `{"_meta":[]}`, `{"_meta":"x","_meta":{}}`,
		`{` + benchModernMeta + `,"name":"echo","arguments":{"text":"hello, world"}}`,
		`{"name":"t",` + benchModernMeta + `,"_meta":{"progressToken":1},"inputResponses":{"a":{}},"requestState":"s"}`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},"io.modelcontextprotocol/logLevel":"info","progressToken":"p"}} `,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"x":[1,{"y":null}]`,
		`{"\u005fmeta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},}`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":7,"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"infx"}}`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"v","io.modelcontextprotocol/clientCapabilities":{"sampling":{"tools":{}}},"io.modelcontextprotocol/clientInfo":{"name":"n","version":"1","icons":[{"src":"s"}]}}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		var got, want requestMeta
		gotRetry, gotErr := got.parse(params, nil)
		wantRetry, wantErr := parseReference(&want, params)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("parse(%q): error %v, reference %v", params, gotErr, wantErr)
		}
		if gotErr != nil {
			return
		}
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotRetry, wantRetry) {
			t.Fatalf("parse(%q):\n\t%+v %+v\nreference\n\t%+v %+v", params, got, gotRetry, want, wantRetry)
		}
	})
}

// FuzzParseIndexed: parse of params whose members jsonrpc.Decode noted
// (jsonrpc.Request.ParamsMembers) finds and refuses exactly what its own walk of the same
// params finds and refuses, error texts included.
func FuzzParseIndexed(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"_meta":{}}`, `{"_meta":[]}`, `{"_meta":"x","_meta":{}}`, `{"_meta":{},"_meta":"x"}`,
		`{` + benchModernMeta + `,"name":"echo","arguments":{"text":"hello, world"}}`,
		`{"name":"t",` + benchModernMeta + `,"_meta":{"progressToken":1},"inputResponses":{"a":{}},"requestState":"s"}`,
		`{"\u005fmeta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":7,"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"infx"}}`,
		`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,` + benchModernMeta + `}`,
		`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,` + benchModernMeta + `}`,
		`{"_meta":{"a":1,"b":2,"c":3,"d":4,"e":5,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"h":8}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		frame := append(append([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`), params...), '}')
		msg, _, err := jsonrpc.Decode(frame)
		req, ok := msg.(*jsonrpc.Request)
		if err != nil || !ok {
			return
		}
		var viaIndex, walked requestMeta
		gotRetry, gotErr := viaIndex.parse(req.Params, req)
		wantRetry, wantErr := walked.parse(req.Params, nil)
		if !reflect.DeepEqual(gotErr, wantErr) || !reflect.DeepEqual(viaIndex, walked) || !reflect.DeepEqual(gotRetry, wantRetry) {
			t.Fatalf("parse(%q) indexed:\n\t%+v %+v %v\nwalked\n\t%+v %+v %v", params, viaIndex, gotRetry, gotErr, walked, wantRetry, wantErr)
		}
	})
}

// TestParseNestingLimit: params nested to encoding/json's limit are
// refused as a ScanObject of params refuses them, though walkObject counts
// nesting from each value.
func TestParseNestingLimit(t *testing.T) {
	for n, wantErr := range map[int]bool{9999: false, 10000: true} {
		params := []byte(`{` + benchModernMeta + `,"x":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`)
		var m, ref requestMeta
		_, err := m.parse(params, nil)
		_, refErr := parseReference(&ref, params)
		if (err != nil) != wantErr || (refErr != nil) != wantErr {
			t.Errorf("nesting %d: parse error %v, reference error %v; want error %v", n, err, refErr, wantErr)
		}
	}
}

// TestPromptResultHeadMatchesTyped: a prompts/get result encoded by hand
// with the stateless era's head is byte for byte what the encoding/json
// path (appendTyped) makes.
func TestPromptResultHeadMatchesTyped(t *testing.T) {
	s := NewServer(Implementation{Name: "s\"x", Version: "1", Title: "T"}, nil)
	id := jsonrpc.Int64ID(3)
	for _, res := range []*GetPromptResult{
		{Messages: []*PromptMessage{}},
		{Description: "Reviews <code> & \"more\"", Messages: []*PromptMessage{{Role: RoleUser, Content: &TextContent{Text: "review this:\n\tfunc f() {}\u2028"}}}},
		{Messages: []*PromptMessage{{Role: RoleUser, Content: &TextContent{Text: "a"}}, {Role: RoleAssistant, Content: &TextContent{Text: ""}}}},
		{Messages: []*PromptMessage{}, Meta: Meta{"k": json.RawMessage(`"v"`)}},
		{Messages: []*PromptMessage{{Role: RoleUser, Content: &ImageContent{Data: "AQI=", MIMEType: "image/png"}}}},
	} {
		got := s.statelessResponse(id, "prompts/get", res)
		want, err := headOf(s, "prompts/get").appendTyped(nil, res)
		if err != nil || got.Error != nil || !bytes.Equal(got.Result, want) || !got.KnownCompact() {
			t.Errorf("%+v:\n\tgot  %s\n\twant %s", res, got.Result, want)
		}
	}
}
