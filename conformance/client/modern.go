package main

// The client scenarios of the suite's 2026-07-28 revision that need no
// authorization (`conformance list --client --spec-version 2026-07-28`).
// The mocks are stateless-era servers: they answer server/discover, so
// connect's EraAuto probe starts a stateless session (no initialize, every
// request carrying _meta; mcphttp adds MCP-Protocol-Version, Mcp-Method,
// Mcp-Name and Mcp-Param-*)
// (https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/mcpkit/mcpkit/mcp"
)

// connectModern is connect for the scenarios of the stateless era: it
// fails unless the session speaks 2026-07-28 without a handshake.
func connectModern(ctx context.Context, url string, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	cs, err := connect(ctx, url, opts)
	if err != nil {
		return nil, err
	}
	if !cs.Stateless() || cs.ProtocolVersion() != mcp.Version20260728 {
		cs.Close()
		return nil, fmt.Errorf("the session speaks %q (stateless %v), want the stateless era %s", cs.ProtocolVersion(), cs.Stateless(), mcp.Version20260728)
	}
	return cs, nil
}

// textOf returns the text of a result's first content block, "" if it has
// none or the block is not text.
func textOf(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) == 0 {
		return ""
	}
	if t, ok := res.Content[0].(*mcp.TextContent); ok {
		return t.Text
	}
	return ""
}

// request-metadata: every request carries MCP-Protocol-Version and _meta
// (protocolVersion, clientCapabilities, clientInfo), and the capabilities
// declared are objects. The mock refuses the first request (the
// server/discover probe) with -32022 and HTTP 400, naming 2026-07-28 as
// supported; the client must retry with it
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#protocol-version-negotiation).
// The client declares roots, sampling and elicitation so that the
// suite checks all three declarations, then lists the tools.
func requestMetadata(ctx context.Context, url string) error {
	cs, err := connectModern(ctx, url, &mcp.ClientOptions{
		Roots: []*mcp.Root{{URI: "file:///conformance", Name: "conformance"}},
		CreateMessageHandler: func(context.Context, *mcp.ClientSession, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return nil, errors.New("the request-metadata mock asks for no sampling")
		},
		ElicitationHandler: func(context.Context, *mcp.ClientSession, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitActionDecline}, nil
		},
	})
	if err != nil {
		return err
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	return nil
}

// sep-2322-client-request-state: multi round-trip requests
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).
// test_mrtr_echo_state answers input_required with an elicitation and a
// requestState, which the retry must echo exactly, under a new JSON-RPC
// id; test_mrtr_no_state sends none, and the retry must carry none;
// test_mrtr_unrelated, called while the echo_state round is being
// answered (from the elicitation handler), must carry neither
// inputResponses nor requestState; test_mrtr_no_result_type answers
// without a resultType, which means complete (no retry).
func requestState(ctx context.Context, url string) error {
	var unrelated func(ctx context.Context, cs *mcp.ClientSession) error
	elicited := 0
	cs, err := connectModern(ctx, url, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, cs *mcp.ClientSession, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			elicited++
			if unrelated != nil {
				f := unrelated
				unrelated = nil
				if err := f(ctx, cs); err != nil {
					return nil, err
				}
			}
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: json.RawMessage(`{"confirmed":true}`)}, nil
		},
	})
	if err != nil {
		return err
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	call := func(ctx context.Context, cs *mcp.ClientSession, name, want string) error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(`{}`)})
		if err != nil {
			return fmt.Errorf("tools/call %s: %w", name, err)
		}
		if got := textOf(res); got != want || res.IsError {
			return fmt.Errorf("tools/call %s: got %q (isError %v), want %q", name, got, res.IsError, want)
		}
		return nil
	}
	unrelated = func(ctx context.Context, cs *mcp.ClientSession) error {
		return call(ctx, cs, "test_mrtr_unrelated", "unrelated-ok")
	}
	if err := call(ctx, cs, "test_mrtr_echo_state", "echo-state-ok"); err != nil {
		return err
	}
	if unrelated != nil {
		return errors.New("test_mrtr_echo_state completed without asking for input")
	}
	if err := call(ctx, cs, "test_mrtr_no_state", "no-state-ok"); err != nil {
		return err
	}
	if err := call(ctx, cs, "test_mrtr_no_result_type", "no-result-type-test-ok"); err != nil {
		return err
	}
	if elicited != 2 {
		return fmt.Errorf("the server asked for %d elicitations, want 2", elicited)
	}
	return nil
}

// http-standard-headers: Mcp-Method on every POST, and Mcp-Name on
// tools/call, resources/read and prompts/get
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#standard-mcp-request-headers).
// The client makes each kind of request once per item the mock lists:
// a hyphenated tool name, resource URIs with a percent-encoded space and
// a query string.
func standardHeaders(ctx context.Context, url string) error {
	cs, err := connectModern(ctx, url, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: json.RawMessage(`{}`)}); err != nil {
			return fmt.Errorf("tools/call %s: %w", tool.Name, err)
		}
	}
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			return fmt.Errorf("resources/list: %w", err)
		}
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.URI}); err != nil {
			return fmt.Errorf("resources/read %s: %w", r.URI, err)
		}
	}
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			return fmt.Errorf("prompts/list: %w", err)
		}
		if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name}); err != nil {
			return fmt.Errorf("prompts/get %s: %w", p.Name, err)
		}
	}
	return nil
}

// conformanceContext is MCP_CONFORMANCE_CONTEXT, the JSON the suite
// passes to scenarios that tell the client what to send.
type conformanceContext struct {
	Name string `json:"name"`
	// ToolCalls (http-custom-headers) are the calls to make, in order,
	// with their arguments as given (kept raw, so numbers and strings go
	// out exactly as the suite wrote them).
	ToolCalls []struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"toolCalls"`
}

func readContext() (*conformanceContext, error) {
	raw := os.Getenv("MCP_CONFORMANCE_CONTEXT")
	if raw == "" {
		return nil, errors.New("MCP_CONFORMANCE_CONTEXT is not set")
	}
	var c conformanceContext
	if err := json.Unmarshal([]byte(raw), &c); err != nil {
		return nil, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
	}
	return &c, nil
}

// http-custom-headers: the arguments a tool's inputSchema marks with
// x-mcp-header are mirrored in Mcp-Param-{Name} headers, Base64-encoded
// (=?base64?...?=) when not plain visible ASCII, and left out when null
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#custom-headers-from-tool-parameters).
// The calls and their arguments come from MCP_CONFORMANCE_CONTEXT; the
// tools are listed first, which is how mcphttp learns the annotations.
func customHeaders(ctx context.Context, url string) error {
	cc, err := readContext()
	if err != nil {
		return err
	}
	if len(cc.ToolCalls) == 0 {
		return errors.New("MCP_CONFORMANCE_CONTEXT has no toolCalls")
	}
	cs, err := connectModern(ctx, url, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	for _, tc := range cc.ToolCalls {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.Name, Arguments: tc.Arguments})
		if err != nil {
			return fmt.Errorf("tools/call %s: %w", tc.Name, err)
		}
		if res.IsError {
			return fmt.Errorf("tools/call %s: the tool reported an error: %q", tc.Name, textOf(res))
		}
	}
	return nil
}

// http-invalid-tool-headers: a tool whose x-mcp-header annotations break
// the spec's rules (empty, on a non-primitive or number, duplicated,
// not a header-safe token) must be excluded, and the valid ones kept
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#schema-extension).
// mcphttp drops such tools from the tools/list result, so the client
// sees only valid_tool; it calls every tool it sees, as a naive host
// would, which would call the invalid ones had they been kept.
func invalidToolHeaders(ctx context.Context, url string) error {
	cs, err := connectModern(ctx, url, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		names = append(names, tool.Name)
		args, err := fillArguments(tool.InputSchema)
		if err != nil {
			return fmt.Errorf("tool %s: %w", tool.Name, err)
		}
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: args}); err != nil {
			return fmt.Errorf("tools/call %s: %w", tool.Name, err)
		}
	}
	if !slices.Equal(names, []string{"valid_tool"}) {
		return fmt.Errorf("tools/list gave %v, want only valid_tool (the others have invalid x-mcp-header annotations)", names)
	}
	return nil
}

// fillArguments returns arguments for a tool's required properties, a
// placeholder of each property's type.
func fillArguments(schema json.RawMessage) (json.RawMessage, error) {
	var s struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("inputSchema: %w", err)
	}
	args := make(map[string]any, len(s.Required))
	for _, name := range s.Required {
		switch s.Properties[name].Type {
		case "integer", "number":
			args[name] = 0
		case "boolean":
			args[name] = false
		case "object":
			args[name] = map[string]any{}
		case "array":
			args[name] = []any{}
		case "null":
			args[name] = nil
		default:
			args[name] = "us-west1"
		}
	}
	return json.Marshal(args)
}

// json-schema-ref-no-deref: a tool's inputSchema has a $ref to a network
// URI (a canary on the mock); the client lists the tools and must not
// fetch it (SEP-2106,
// https://modelcontextprotocol.io/specification/2026-07-28/server/tools#tool).
// mcp.Tool keeps the schema as raw JSON and resolves nothing.
func refNoDeref(ctx context.Context, url string) error {
	cs, err := connectModern(ctx, url, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	for _, tool := range res.Tools {
		if tool.Name == "lookup_user" {
			return nil
		}
	}
	return errors.New("tools/list: no lookup_user")
}
