package everything

import (
	"context"

	"github.com/mcpkit/mcpkit/mcp"
)

// PromptArgs are the arguments of test_prompt_with_arguments.
type PromptArgs struct {
	Arg1 string `json:"arg1" description:"First test argument"`
	Arg2 string `json:"arg2" description:"Second test argument"`
}

// EmbeddedResourceArgs are the arguments of
// test_prompt_with_embedded_resource.
type EmbeddedResourceArgs struct {
	ResourceURI string `json:"resourceUri" description:"URI of the resource to embed"`
}

// addPrompts registers the conformance prompts, with the exact messages
// the prompts-get-* scenarios of the official suite check
// (@modelcontextprotocol/conformance, pinned in conformance/package.json).
func addPrompts(s *mcp.Server) {
	user := func(c mcp.Content) *mcp.PromptMessage { return &mcp.PromptMessage{Role: mcp.RoleUser, Content: c} }
	result := func(messages ...*mcp.PromptMessage) *mcp.GetPromptResult {
		return &mcp.GetPromptResult{Messages: messages}
	}
	must(mcp.AddPrompt(s, &mcp.Prompt{
		Name: "test_simple_prompt", Title: "Simple prompt",
		Description: "A simple prompt without arguments (conformance fixture).",
	}, func(context.Context, *mcp.Request, struct{}) (*mcp.GetPromptResult, error) {
		return result(user(&mcp.TextContent{Text: "This is a simple prompt for testing."})), nil
	}))
	must(mcp.AddPrompt(s, &mcp.Prompt{
		Name: "test_prompt_with_arguments", Title: "Prompt with arguments",
		Description: "A prompt with two required arguments (conformance fixture).",
	}, func(_ context.Context, _ *mcp.Request, in PromptArgs) (*mcp.GetPromptResult, error) {
		return result(user(&mcp.TextContent{Text: "Prompt with arguments: arg1='" + in.Arg1 + "', arg2='" + in.Arg2 + "'"})), nil
	}))
	must(mcp.AddPrompt(s, &mcp.Prompt{
		Name: "test_prompt_with_embedded_resource", Title: "Prompt with an embedded resource",
		Description: "A prompt that embeds the resource it is given (conformance fixture).",
	}, func(_ context.Context, _ *mcp.Request, in EmbeddedResourceArgs) (*mcp.GetPromptResult, error) {
		return result(
			user(&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
				URI: in.ResourceURI, MIMEType: "text/plain", Text: "Embedded resource content for testing.",
			}}),
			user(&mcp.TextContent{Text: "Please process the embedded resource above."}),
		), nil
	}))
	must(mcp.AddPrompt(s, &mcp.Prompt{
		Name: "test_prompt_with_image", Title: "Prompt with an image",
		Description: "A prompt with an image (conformance fixture).",
	}, func(context.Context, *mcp.Request, struct{}) (*mcp.GetPromptResult, error) {
		return result(
			user(&mcp.ImageContent{Data: PNG, MIMEType: "image/png"}),
			user(&mcp.TextContent{Text: "Please analyze the image above."}),
		), nil
	}))
}
