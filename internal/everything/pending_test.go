package everything_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/mcpkit/mcpkit/internal/everything"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// TestJSONSchema202012ToolIsVerbatim checks the schema the
// json-schema-2020-12 scenario reads: byte for byte what was registered.
func TestJSONSchema202012ToolIsVerbatim(t *testing.T) {
	cs := connect(t)
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name == "json_schema_2020_12_tool" {
			if string(tool.InputSchema) != everything.JSONSchema202012 {
				t.Errorf("inputSchema =\n\t%s\nwant\n\t%s", tool.InputSchema, everything.JSONSchema202012)
			}
			return
		}
	}
	t.Fatal("json_schema_2020_12_tool not listed")
}

// TestReconnectionOverHTTP calls test_reconnection over Streamable HTTP
// with an event store: the tool closes its stream before answering, and the
// client transport resumes with Last-Event-ID to get the result.
func TestReconnectionOverHTTP(t *testing.T) {
	h := mcphttp.NewHandler(everything.NewServer(nil), &mcphttp.Options{EventStore: &mcphttp.MemoryEventStore{}, RetryInterval: 10e6})
	ts := httptest.NewServer(h)
	defer func() {
		ts.Close()
		h.Close()
	}()
	c := mcp.NewClient(mcp.Implementation{Name: "t", Version: "1"}, legacyEra(nil))
	cs, err := c.Connect(context.Background(), &mcphttp.ClientTransport{URL: ts.URL, NoStandaloneStream: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "test_reconnection", Arguments: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != everything.ReconnectionText {
		t.Errorf("result = %+v, want the reconnection text", res)
	}
}
