package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
)

// HasTool, HasPrompt and HasResource answer for what the server has, a
// template's matches included, and follow removals.
func TestServerHas(t *testing.T) {
	s := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}, nil)
	tool := func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}
	res := func(context.Context, *mcp.Request, *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	}
	if err := s.AddTool(&mcp.Tool{Name: "echo", Description: "echo"}, tool); err != nil {
		t.Fatal(err)
	}
	if err := s.AddPrompt(&mcp.Prompt{Name: "greet"}, func(context.Context, *mcp.Request, *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddResource(&mcp.Resource{URI: "test://doc", Name: "doc"}, res); err != nil {
		t.Fatal(err)
	}
	if err := s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://files/{name}", Name: "files"}, res); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what string
		got  bool
		want bool
	}{
		{"tool echo", s.HasTool("echo"), true},
		{"tool Echo", s.HasTool("Echo"), false},
		{"tool nope", s.HasTool("nope"), false},
		{"prompt greet", s.HasPrompt("greet"), true},
		{"prompt nope", s.HasPrompt("nope"), false},
		{"resource test://doc", s.HasResource("test://doc"), true},
		{"resource by template", s.HasResource("test://files/a.txt"), true},
		{"resource nope", s.HasResource("test://nope"), false},
	} {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
		}
	}
	s.RemoveTools("echo")
	s.RemovePrompts("greet")
	if s.HasTool("echo") || s.HasPrompt("greet") {
		t.Errorf("removed tool or prompt still reported")
	}
}

// Features returns what the server offers in list order, with the
// capabilities initialize declares, and a Version that moves with every
// added or removed feature or extension and only then.
func TestServerFeatures(t *testing.T) {
	s := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}, nil)
	empty := s.Features()
	if empty.Version != 0 || len(empty.Tools)+len(empty.Prompts)+len(empty.Resources)+len(empty.ResourceTemplates) != 0 {
		t.Fatalf("empty server: %+v", empty)
	}
	if got := mustJSON(t, empty.Capabilities); got != `{}` {
		t.Errorf("empty server capabilities: %s", got)
	}
	tool := func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}
	res := func(context.Context, *mcp.Request, *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	}
	prompt := func(context.Context, *mcp.Request, *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	}
	last := empty.Version
	step := func(what string, f func() error) {
		t.Helper()
		if err := f(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		v := s.Features().Version
		if v == last {
			t.Errorf("%s: Version stayed %d", what, v)
		}
		last = v
	}
	step("tool zeta", func() error { return s.AddTool(&mcp.Tool{Name: "zeta"}, tool) })
	step("tool alpha", func() error { return s.AddTool(&mcp.Tool{Name: "alpha"}, tool) })
	step("prompt greet", func() error { return s.AddPrompt(&mcp.Prompt{Name: "greet"}, prompt) })
	step("resource test://b", func() error { return s.AddResource(&mcp.Resource{URI: "test://b", Name: "b"}, res) })
	step("resource test://a", func() error { return s.AddResource(&mcp.Resource{URI: "test://a", Name: "a"}, res) })
	step("template", func() error {
		return s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://files/{name}", Name: "files"}, res)
	})
	step("extension", func() error { return s.AddExtension(mcp.Extension{ID: "com.example/thing"}) })
	f := s.Features()
	if f.Version != last || s.Features().Version != last {
		t.Errorf("Version %d without a change, want %d", f.Version, last)
	}
	var names []string
	for _, x := range f.Tools {
		names = append(names, x.Name)
	}
	for _, x := range f.Prompts {
		names = append(names, x.Name)
	}
	for _, x := range f.Resources {
		names = append(names, x.URI)
	}
	for _, x := range f.ResourceTemplates {
		names = append(names, x.URITemplate)
	}
	if got, want := strings.Join(names, " "), "alpha zeta greet test://a test://b test://files/{name}"; got != want {
		t.Errorf("features %q, want %q", got, want)
	}
	const wantCaps = `{"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true},"extensions":{"com.example/thing":{}}}`
	if got := mustJSON(t, f.Capabilities); got != wantCaps {
		t.Errorf("capabilities %s, want %s", got, wantCaps)
	}
	step("remove alpha", func() error { s.RemoveTools("alpha"); return nil })
	if f := s.Features(); len(f.Tools) != 1 || f.Tools[0].Name != "zeta" {
		t.Errorf("after RemoveTools: %d tools", len(f.Tools))
	}
	s.RemoveTools("nope")
	if v := s.Features().Version; v != last {
		t.Errorf("removing an unknown tool moved Version %d -> %d", last, v)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
