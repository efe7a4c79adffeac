package everything

// This file holds test_header_param, the fixture of the conformance
// suite's http-custom-header-server-validation scenario (SEP-2243): a tool
// whose string argument region is marked x-mcp-header "Region", so that
// Streamable HTTP clients of the 2026-07-28 era mirror it in an
// Mcp-Param-Region header, which the server checks against the body
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#custom-headers-from-tool-parameters).

import (
	"context"
	"encoding/json"

	"github.com/mcpkit/mcpkit/mcp"
)

// HeaderParamSchema is the input schema of test_header_param, sent
// verbatim.
const HeaderParamSchema = `{"type":"object","properties":{"region":{"type":"string","description":"The region to route the call to; sent in the Mcp-Param-Region header too","x-mcp-header":"Region"}},"required":["region"]}`

// addHeaderTools registers test_header_param.
func addHeaderTools(s *mcp.Server) {
	must(s.AddTool(&mcp.Tool{
		Name:        "test_header_param",
		Description: "Echoes its region argument, which Streamable HTTP clients also send in the Mcp-Param-Region header (x-mcp-header; conformance fixture).",
		InputSchema: json.RawMessage(HeaderParamSchema),
	}, func(_ context.Context, _ *mcp.Request, args json.RawMessage) (*mcp.CallToolResult, error) {
		var in struct {
			Region *string `json:"region"`
		}
		if err := json.Unmarshal(args, &in); err != nil || in.Region == nil {
			res := contents(&mcp.TextContent{Text: "invalid arguments for tool test_header_param: region must be a string"})
			res.IsError = true
			return res, nil
		}
		return contents(&mcp.TextContent{Text: "Region: " + *in.Region}), nil
	}))
}
