package mcp_test

import (
	"context"
	"encoding/json"
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
