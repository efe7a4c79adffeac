package browsertest

import (
	"context"
	"encoding/json"
	"testing/fstest"

	"github.com/mcpkit/mcpkit/cmd/mcpkit/internal/demoapp"
	"github.com/mcpkit/mcpkit/ext/skills"
	"github.com/mcpkit/mcpkit/internal/everything"
	"github.com/mcpkit/mcpkit/mcp"
)

// The reference server has no tool with an output schema and none that
// asks for a URL-mode elicitation; the browser tests add theirs to it
// here, rather than grow internal/everything for the inspector alone.

// weatherSchema is the output schema of the structured-output fixtures.
var weatherSchema = json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"temperature":{"type":"number"},"conditions":{"type":"string","enum":["sunny","cloudy","rain"]},"wind":{"type":"object","properties":{"speed":{"type":"number"},"direction":{"type":"string"}},"required":["speed"]}},"required":["city","temperature","conditions"]}`)

// newServer is the reference server with the browser tests' fixtures:
// weather (structuredContent that matches its output schema),
// weather_broken (structuredContent that does not: a string temperature)
// open_url (a URL-mode elicitation) and summarize_task (a sampling
// request from inside a task).
func newServer() *mcp.Server {
	// The demo MCP App of mcpkit serve (greet_app), as serve adds it.
	s := everything.NewServer(&everything.Options{ServerOptions: &mcp.ServerOptions{Middleware: []mcp.Middleware{demoapp.Middleware}}})
	must(demoapp.Add(s))
	noArgs := json.RawMessage(`{"type":"object","properties":{}}`)
	structured := func(v string) mcp.ToolHandler {
		return func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: v}}, StructuredContent: json.RawMessage(v)}, nil
		}
	}
	must(s.AddTool(&mcp.Tool{Name: "weather", Description: "Answers the weather in Paris as structuredContent that matches its output schema.",
		InputSchema: noArgs, OutputSchema: weatherSchema},
		structured(`{"city":"Paris","temperature":21.5,"conditions":"sunny","wind":{"speed":12,"direction":"NW"}}`)))
	must(s.AddTool(&mcp.Tool{Name: "weather_broken", Description: "Answers structuredContent that breaks its output schema: the temperature is a string.",
		InputSchema: noArgs, OutputSchema: weatherSchema},
		structured(`{"city":"Paris","temperature":"warm","conditions":"sunny"}`)))
	must(s.AddTool(&mcp.Tool{Name: "open_url", Description: "Asks the user to open a URL (a URL-mode elicitation).", InputSchema: noArgs},
		func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
			res, err := req.Elicit(ctx, &mcp.ElicitParams{Mode: mcp.ElicitationModeURL, Message: "Sign in to the weather service.",
				ElicitationID: "e-1", URL: "https://weather.example/connect?state=abc"})
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "URL elicitation: action=" + res.Action}}}, nil
		}))
	must(s.AddTool(&mcp.Tool{Name: "summarize_task", Description: "Asks the client's model (a sampling request) for a one-line summary while it runs; it may run as a task, which waits in input_required for the answer.",
		InputSchema: noArgs, Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
			rs, err := req.Input(ctx, map[string]*mcp.InputRequest{"summary": mcp.SamplingInput(&mcp.CreateMessageParams{
				SystemPrompt: "You summarize in one line.",
				Messages:     []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.TextContent{Text: "Summarize the release notes."}}}},
				MaxTokens:    40,
			})})
			if err != nil {
				return nil, err
			}
			res, err := rs.Sampling("summary")
			if err != nil {
				return nil, err
			}
			text := ""
			for _, c := range res.Content {
				if t, ok := c.(*mcp.TextContent); ok {
					text = t.Text
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "summary by " + res.Model + ": " + text}}}, nil
		}))
	return s
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// skewedSkills is a server with two skills listed one a page: notes,
// whose notes.md changed after the server listed its digest (a host
// reading it must see the mismatch), and plain.
func skewedSkills() *mcp.Server {
	s := mcp.NewServer(mcp.Implementation{Name: "skewed-skills", Version: "1"}, nil)
	fsys := fstest.MapFS{
		"notes/SKILL.md": {Data: []byte("---\nname: notes\ndescription: Notes whose file changes under the server.\n---\nRead notes.md.\n")},
		"notes/notes.md": {Data: []byte("as listed\n")},
		"plain/SKILL.md": {Data: []byte("---\nname: plain\ndescription: A skill that stays as listed.\n---\nNothing to read.\n")},
	}
	if _, err := skills.Serve(s, fsys, &skills.Options{PageSize: 1}); err != nil {
		panic(err)
	}
	fsys["notes/notes.md"].Data = []byte("changed since\n")
	return s
}
