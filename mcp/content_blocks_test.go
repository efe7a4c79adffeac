package mcp_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
)

// TestContentBlockLists decodes the three lists of content blocks that
// share one decoding loop: a tool's result, a sampling tool_result block
// and a sampling message's content. Each decodes every block by its type
// in order, decodes an empty list as an empty non-nil list, and stops at a
// block of a type its list does not allow with that type's error.
func TestContentBlockLists(t *testing.T) {
	const two = `[{"type":"text","text":"a"},{"type":"image","data":"AA==","mimeType":"image/png"}]`
	want := []mcp.Content{&mcp.TextContent{Text: "a"}, &mcp.ImageContent{Data: "AA==", MIMEType: "image/png"}}

	var res mcp.CallToolResult
	if err := json.Unmarshal([]byte(`{"content":`+two+`}`), &res); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Content, want) {
		t.Errorf("CallToolResult.Content = %#v, want %#v", res.Content, want)
	}
	var block mcp.ToolResultContent
	if err := json.Unmarshal([]byte(`{"type":"tool_result","toolUseId":"u","content":`+two+`}`), &block); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(block.Content, want) {
		t.Errorf("ToolResultContent.Content = %#v, want %#v", block.Content, want)
	}
	var cs mcp.SamplingContents
	if err := json.Unmarshal([]byte(two), &cs); err != nil {
		t.Fatal(err)
	}
	if got := []mcp.SamplingContent(cs); len(got) != 2 || !reflect.DeepEqual(got[0], want[0]) || !reflect.DeepEqual(got[1], want[1]) {
		t.Errorf("SamplingContents = %#v, want %#v", got, want)
	}

	var empty mcp.CallToolResult
	if err := json.Unmarshal([]byte(`{"content":[]}`), &empty); err != nil {
		t.Fatal(err)
	}
	if empty.Content == nil || len(empty.Content) != 0 {
		t.Errorf("empty CallToolResult.Content = %#v, want an empty non-nil list", empty.Content)
	}

	bad := `[{"type":"text","text":"a"},{"type":"tool_use","id":"u","name":"n","input":{}}]`
	if err := json.Unmarshal([]byte(`{"content":`+bad+`}`), new(mcp.CallToolResult)); err == nil || err.Error() != `mcp: unknown content type "tool_use"` {
		t.Errorf("CallToolResult with a tool_use block: err = %v", err)
	}
	bad = `[{"type":"text","text":"a"},{"type":"resource_link","uri":"x:y","name":"n"}]`
	if err := json.Unmarshal([]byte(bad), new(mcp.SamplingContents)); err == nil || err.Error() != `mcp: content type "resource_link" is not allowed in a sampling message` {
		t.Errorf("SamplingContents with a resource_link block: err = %v", err)
	}
}
