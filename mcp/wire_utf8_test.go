package mcp

import (
	"context"
	"encoding/json"
	"testing"
)

// Invalid UTF-8 and U+FFFD in what a server sends are written \ufffd
// (internal/jsonenc's rule) whichever encoder writes them, the hand-written
// ones or encoding/json, and on every Go release: Go 1.27's encoding/json
// writes invalid UTF-8 as the raw U+FFFD bytes, Go 1.26's writes a U+FFFD
// of the string raw. Each result below goes through encoding/json: a
// tools/list of a tool described with both, a typed tool's map output
// (which outEncoder declines) and a result with _meta.
func TestWireEscapesReplacementCharacter(t *testing.T) {
	const bad = "a\xffb\uFFFDc" // invalid UTF-8, then U+FFFD
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(nil)
		if err := AddTool(s, &Tool{Name: "map", Description: bad}, func(context.Context, *Request, struct{}) (map[string]any, error) {
			return map[string]any{"s": bad}, nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := s.AddTool(&Tool{Name: "meta", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *Request, json.RawMessage) (*CallToolResult, error) {
			return &CallToolResult{Meta: Meta{"k": json.RawMessage(`1`)}, Content: []Content{&TextContent{Text: bad}}}, nil
		}); err != nil {
			t.Fatal(err)
		}
		c := connect(s)
		c.handshake("2025-11-25", lcInitResultTools(0, "2025-11-25"))
		c.run(`
			-> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
			<- {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"map","description":"a\ufffdb\ufffdc","inputSchema":{"type":"object","additionalProperties":false}},{"name":"meta","inputSchema":{"type":"object"}}]}}
			-> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"map"}}
			<- {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"s\":\"a\\ufffdb\\ufffdc\"}"}],"structuredContent":{"s":"a\ufffdb\ufffdc"}}}
			-> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"meta"}}
			<- {"jsonrpc":"2.0","id":3,"result":{"_meta":{"k":1},"content":[{"type":"text","text":"a\ufffdb\ufffdc"}]}}
		`)
		c.finish()
	})
}
