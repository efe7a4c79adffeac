package mcp_test

// Tests of ClientOptions.Extensions: the extensions a client declares
// under capabilities.extensions, beside the capabilities it infers, in
// both eras.

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// extensionsClientOptions is a client with every inferred capability and
// three extensions: settings from a Go value, nil (declared {}) and
// uncompacted raw JSON.
func extensionsClientOptions(era mcp.ProtocolEra) *mcp.ClientOptions {
	return &mcp.ClientOptions{
		ProtocolEra: era,
		CreateMessageHandler: func(context.Context, *mcp.ClientSession, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return nil, errors.New("unused")
		},
		SamplingTools: true,
		ElicitationHandler: func(context.Context, *mcp.ClientSession, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return nil, errors.New("unused")
		},
		Roots: []*mcp.Root{},
		Extensions: map[string]any{
			"io.modelcontextprotocol/ui": map[string][]string{"mimeTypes": {"text/html;profile=mcp-app"}},
			"com.example/bare":           nil,
			"com.example/raw":            json.RawMessage(` { "b" : [ 1, 2 ] , "a" : true } `),
		},
	}
}

// The extensions a client declares, sorted by id, with raw settings
// compacted.
const declaredExtensions = `"extensions":{"com.example/bare":{},"com.example/raw":{"b":[1,2],"a":true},"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}`

// In the session era the extensions are declared in initialize beside
// sampling, elicitation and roots, which the client inferred from its
// handlers.
func TestClientExtensionsInitialize(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ct, fake := newFakeServer(t)
	run := runFake(fake, legacyInit)
	cs, err := mcp.NewClient(clientTestInfo, extensionsClientOptions(mcp.EraSession)).Connect(context.Background(), ct)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	cs.Close()
	wantFrames(t, run.frames(),
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true},"sampling":{"tools":{}},"elicitation":{"form":{}},`+declaredExtensions+`},"clientInfo":{"name":"test-client","version":"0.0.1"}}}`,
		initializedNtf)
}

// In the stateless era they ride in the clientCapabilities of every
// request's _meta, server/discover included, beside the inferred ones
// (roots without listChanged, which 2026-07-28 removed).
func TestClientExtensionsStatelessMeta(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ct, fake := newFakeServer(t)
	run := runFake(fake, func(f string) []string {
		switch {
		case strings.Contains(f, `"method":"server/discover"`):
			return []string{`{"jsonrpc":"2.0","id":1,"result":` + discoverResult + `}`}
		case strings.Contains(f, `"method":"tools/list"`):
			return []string{`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","tools":[]}}`}
		}
		return nil
	})
	cs, err := mcp.NewClient(clientTestInfo, extensionsClientOptions(mcp.EraStateless)).Connect(context.Background(), ct)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	cs.Close()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{},"sampling":{"tools":{}},"elicitation":{"form":{}},` + declaredExtensions + `},"io.modelcontextprotocol/clientInfo":{"name":"test-client","version":"0.0.1"}}`
	wantFrames(t, run.frames(),
		`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta+`}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+meta+`}}`)
}

// With Capabilities set, the extensions are added to it, beside the ones
// it declares itself; the caller's Capabilities is not changed.
func TestClientExtensionsWithCapabilities(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	caps := &mcp.ClientCapabilities{
		Sampling:   &mcp.SamplingCapability{},
		Extensions: map[string]json.RawMessage{"io.modelcontextprotocol/tasks": json.RawMessage(`{}`)},
	}
	ct, fake := newFakeServer(t)
	run := runFake(fake, legacyInit)
	cs, err := mcp.NewClient(clientTestInfo, &mcp.ClientOptions{
		ProtocolEra:  mcp.EraSession,
		Capabilities: caps,
		Extensions:   map[string]any{"com.example/x": struct{ N int }{N: 1}},
	}).Connect(context.Background(), ct)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	cs.Close()
	wantFrames(t, run.frames(),
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{},"extensions":{"com.example/x":{"N":1},"io.modelcontextprotocol/tasks":{}}},"clientInfo":{"name":"test-client","version":"0.0.1"}}}`,
		initializedNtf)
	jsonEqual(t, "Capabilities afterwards", caps, `{"sampling":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`)
}

// refusedTransport is a Transport Connect must not open.
type refusedTransport struct{ t *testing.T }

func (r refusedTransport) Connect(context.Context) (mcp.Connection, error) {
	r.t.Error("Connect opened the transport")
	return nil, errors.New("refused")
}

// An extension Connect cannot declare fails it, before the transport is
// opened, with an error naming the extension and why.
func TestClientExtensionsRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		caps *mcp.ClientCapabilities
		exts map[string]any
		want string
	}{
		{"not an identifier", nil, map[string]any{"ui": nil},
			`mcp: ClientOptions.Extensions: extension identifier "ui" is not {vendor-prefix}/{name}`},
		{"bad vendor prefix", nil, map[string]any{"io..x/ui": nil},
			`mcp: ClientOptions.Extensions: extension identifier "io..x/ui": the vendor prefix "io..x" is not dot-separated labels`},
		{"a string", nil, map[string]any{"com.example/x": "on"},
			`mcp: ClientOptions.Extensions["com.example/x"]: its settings encode to "on", not a JSON object`},
		{"an array", nil, map[string]any{"com.example/x": []int{1, 2}},
			`mcp: ClientOptions.Extensions["com.example/x"]: its settings encode to [1,2], not a JSON object`},
		{"a nil pointer", nil, map[string]any{"com.example/x": (*struct{})(nil)},
			`mcp: ClientOptions.Extensions["com.example/x"]: its settings encode to null, not a JSON object`},
		{"raw JSON that is not JSON", nil, map[string]any{"com.example/x": json.RawMessage(`{"a":`)},
			`mcp: ClientOptions.Extensions["com.example/x"]: its settings are not valid JSON`},
		{"a value JSON cannot encode", nil, map[string]any{"com.example/x": map[string]any{"f": func() {}}},
			`mcp: ClientOptions.Extensions["com.example/x"]: its settings (map[string]interface {}) cannot be encoded as JSON`},
		{"declared in Capabilities too", &mcp.ClientCapabilities{Extensions: map[string]json.RawMessage{"com.example/x": json.RawMessage(`{}`)}},
			map[string]any{"com.example/x": nil},
			`mcp: ClientOptions.Extensions["com.example/x"]: ClientOptions.Capabilities.Extensions declares it as well`},
		// The first bad one in identifier order is reported.
		{"two bad ones", nil, map[string]any{"com.example/b": 1, "com.example/a": false},
			`mcp: ClientOptions.Extensions["com.example/a"]: its settings encode to false, not a JSON object`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mcp.NewClient(clientTestInfo, &mcp.ClientOptions{Capabilities: tc.caps, Extensions: tc.exts})
			cs, err := c.Connect(context.Background(), refusedTransport{t})
			if cs != nil || err == nil || err.Error() != tc.want {
				t.Errorf("Connect = %v, %v; want nil, %s", cs, err, tc.want)
			}
		})
	}
}
