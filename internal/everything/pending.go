package everything

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
)

// JSONSchema202012 is the input schema of json_schema_2020_12_tool, sent
// verbatim: the conformance suite's json-schema-2020-12 scenario checks that
// $schema, $defs and additionalProperties survive tools/list untouched
// (https://modelcontextprotocol.io/specification/2025-11-25/basic#json-schema-usage),
// and, from 2026-07-28 (SEP-2106), the composition (allOf, anyOf),
// conditional (if, then, else) and $anchor keywords too
// (https://modelcontextprotocol.io/specification/2026-07-28/basic#json-schema-usage).
const JSONSchema202012 = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
	`"$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},` +
	`"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},` +
	`"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],` +
	`"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},` +
	`"additionalProperties":false}`

// ReconnectionText is what test_reconnection returns once its stream has
// been closed and resumed.
const ReconnectionText = "Reconnection test completed successfully: the result arrived after the stream was closed."

// reconnectionDelay is how long test_reconnection waits after closing its
// stream before it returns, so that the client has to resume to see the
// result.
const reconnectionDelay = 100 * time.Millisecond

// addPendingTools registers the fixtures of the suite's pending scenarios
// (json-schema-2020-12 and server-sse-polling).
func addPendingTools(s *mcp.Server) {
	must(s.AddTool(&mcp.Tool{
		Name:        "json_schema_2020_12_tool",
		Description: "Has an input schema that uses JSON Schema 2020-12 keywords ($schema, $defs, $anchor, $ref, allOf, anyOf, if/then/else) (conformance fixture).",
		InputSchema: json.RawMessage(JSONSchema202012),
	}, func(_ context.Context, _ *mcp.Request, args json.RawMessage) (*mcp.CallToolResult, error) {
		return contents(&mcp.TextContent{Text: "Arguments received: " + string(args)}), nil
	}))

	// test_reconnection closes its own SSE stream (over Streamable HTTP
	// with an event store) and answers a little later: the client gets the
	// result by resuming with GET and Last-Event-ID
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery).
	// On other transports it simply answers after the delay.
	must(s.AddTool(&mcp.Tool{
		Name:        "test_reconnection",
		Description: "Closes its response stream before answering, so the answer must be fetched by resuming the stream (conformance fixture).",
		InputSchema: noArgs,
	}, func(ctx context.Context, r *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		if r.Extra != nil && r.Extra.CloseStream != nil {
			r.Extra.CloseStream()
		}
		t := time.NewTimer(reconnectionDelay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return contents(&mcp.TextContent{Text: ReconnectionText}), nil
	}))
}
