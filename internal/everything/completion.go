package everything

import (
	"context"

	"github.com/mcpkit/mcpkit/mcp"
)

// Completion candidates: for the arguments of test_prompt_with_arguments
// (the suite's completion-complete scenario asks for arg1 with "test") and
// for the id of the data template.
var (
	arg1Values = []string{"test", "testValue1", "testValue2", "testing", "example"}
	templateID = []string{"1", "2", "3", "123", "456"}
)

// complete is the reference server's CompletionHandler. The server has
// already checked that the reference and the argument exist. arg2's
// candidates follow arg1 when the client says which arg1 it chose.
func complete(_ context.Context, _ *mcp.Request, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	switch {
	case p.Ref.Type == "ref/prompt" && p.Ref.Name == "test_prompt_with_arguments" && p.Argument.Name == "arg1":
		return mcp.CompletionValues(arg1Values, p.Argument.Value), nil
	case p.Ref.Type == "ref/prompt" && p.Ref.Name == "test_prompt_with_arguments" && p.Argument.Name == "arg2":
		arg1 := "value"
		if p.Context != nil && p.Context.Arguments["arg1"] != "" {
			arg1 = p.Context.Arguments["arg1"]
		}
		return mcp.CompletionValues([]string{arg1 + "-a", arg1 + "-b", arg1 + "-c"}, p.Argument.Value), nil
	case p.Ref.Type == "ref/resource" && p.Ref.URI == TemplateURI && p.Argument.Name == "id":
		return mcp.CompletionValues(templateID, p.Argument.Value), nil
	}
	return nil, nil
}
