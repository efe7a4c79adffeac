package everything

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpkit/mcpkit/mcp"
)

// The conformance suite's fixed media: a 1×1 PNG and a tiny WAV file,
// base64-encoded.
const (
	PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

// noArgs is the input schema of the tools that take no arguments: an
// object with no properties. Extra arguments are tolerated.
var noArgs = json.RawMessage(`{"type":"object","properties":{}}`)

// EchoArgs is the input of the echo tool.
type EchoArgs struct {
	Text string `json:"text" jsonschema:"the text to echo back"`
}

// addTools registers echo and the conformance tool fixtures.
func addTools(s *mcp.Server) {
	must(mcp.AddTool(s, &mcp.Tool{
		Name:        "echo",
		Title:       "Echo",
		Description: "Returns the text it is given, unchanged.",
	}, func(_ context.Context, _ *mcp.Request, in EchoArgs) (string, error) {
		return in.Text, nil
	}))

	// Fixed results for the conformance suite's tools-call-* scenarios.
	fixed := []struct {
		name, description string
		result            func() *mcp.CallToolResult
	}{
		{"test_simple_text", "Returns a simple text content (conformance fixture).", func() *mcp.CallToolResult {
			return contents(&mcp.TextContent{Text: "This is a simple text response for testing."})
		}},
		{"test_image_content", "Returns a PNG image content (conformance fixture).", func() *mcp.CallToolResult {
			return contents(&mcp.ImageContent{Data: PNG, MIMEType: "image/png"})
		}},
		{"test_audio_content", "Returns a WAV audio content (conformance fixture).", func() *mcp.CallToolResult {
			return contents(&mcp.AudioContent{Data: WAV, MIMEType: "audio/wav"})
		}},
		{"test_embedded_resource", "Returns an embedded text resource (conformance fixture).", func() *mcp.CallToolResult {
			return contents(&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
				URI:      "test://embedded-resource",
				MIMEType: "text/plain",
				Text:     "This is an embedded resource content.",
			}})
		}},
		{"test_multiple_content_types", "Returns text, image and resource contents together (conformance fixture).", func() *mcp.CallToolResult {
			return contents(
				&mcp.TextContent{Text: "Multiple content types test:"},
				&mcp.ImageContent{Data: PNG, MIMEType: "image/png"},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
					URI:      "test://mixed-content-resource",
					MIMEType: "application/json",
					Text:     `{"test":"data","value":123}`,
				}},
			)
		}},
		{"test_error_handling", "Always reports a tool error with isError (conformance fixture).", func() *mcp.CallToolResult {
			res := contents(&mcp.TextContent{Text: "This tool intentionally returns an error for testing"})
			res.IsError = true
			return res
		}},
	}
	for _, f := range fixed {
		must(s.AddTool(&mcp.Tool{Name: f.name, Description: f.description, InputSchema: noArgs},
			func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
				return f.result(), nil
			}))
	}
}

func contents(c ...mcp.Content) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: c}
}

// must panics on a registration error: the fixtures are fixed, so an error
// is a bug in this package, found by its tests.
func must(err error) {
	if err != nil {
		panic(fmt.Sprintf("everything: %v", err))
	}
}
