package everything

// This file holds the fixtures of the conformance suite's tasks-*
// scenarios, which test the tasks extension of the stateless era (SEP-2663,
// io.modelcontextprotocol/tasks,
// https://modelcontextprotocol.io/extensions/tasks/overview): greet (never
// a task), slow_compute, failing_job (a task or nothing: taskSupport
// "required"), protocol_error_job, confirm_delete and multi_input (which
// ask the client for input while they run), and test_tool_with_task
// (which asks before its task exists: Tool.InputBeforeTask). They serve
// the session era too, as the session era's tasks.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// fixtureHooks are called by NewServer, after its own registrations, to
// add fixtures kept in files of their own; each such file appends its
// function in init.
var fixtureHooks []func(s *mcp.Server)

func init() { fixtureHooks = append(fixtureHooks, addTasksExtTools) }

// GreetArgs is the input of greet.
type GreetArgs struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

// SlowComputeArgs is the input of slow_compute.
type SlowComputeArgs struct {
	Seconds float64 `json:"seconds" jsonschema:"how long the computation takes, in seconds (0 to 3600)"`
	Label   string  `json:"label,omitempty" jsonschema:"a label the result repeats"`
}

// ConfirmDeleteArgs is the input of confirm_delete.
type ConfirmDeleteArgs struct {
	Filename string `json:"filename" jsonschema:"the file to delete"`
}

// JobArgs is the input of the tasks-* fixtures that take none.
type JobArgs struct{}

// failingJobDelay is how long failing_job works before it fails.
const failingJobDelay = time.Second

// addTasksExtTools registers the tasks-* fixtures.
func addTasksExtTools(s *mcp.Server) {
	optional := &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	must(mcp.AddTool(s, &mcp.Tool{
		Name:        "greet",
		Description: "Answers \"Hello, {name}!\" at once. It never runs as a task.",
	}, func(_ context.Context, _ *mcp.Request, in GreetArgs) (string, error) {
		return "Hello, " + in.Name + "!", nil
	}))
	must(mcp.AddTool(s, &mcp.Tool{
		Name: "slow_compute",
		Description: "Works for the given number of seconds, then answers. It runs as a task when the client allows it " +
			"(execution.taskSupport optional); cancelling the task stops it.",
		Execution: optional,
	}, slowCompute))
	must(mcp.AddTool(s, &mcp.Tool{
		Name:        "failing_job",
		Description: "Works for a second, then fails with a tool error (isError). It runs only as a task (execution.taskSupport required).",
		Execution:   &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired},
	}, func(ctx context.Context, _ *mcp.Request, _ JobArgs) (string, error) {
		if err := pause(ctx, failingJobDelay); err != nil {
			return "", err
		}
		return "", errors.New("failing_job failed, as it always does")
	}))
	must(mcp.AddTool(s, &mcp.Tool{
		Name:        "protocol_error_job",
		Description: "Fails with a JSON-RPC error (-32603), which fails its task. It may run as a task.",
		Execution:   optional,
	}, func(context.Context, *mcp.Request, JobArgs) (string, error) {
		return "", jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error", "protocol_error_job always fails with a protocol error")
	}))
	must(mcp.AddTool(s, &mcp.Tool{
		Name: "confirm_delete",
		Description: "Asks the user to confirm (an elicitation with a boolean \"confirm\"), then says whether it deleted the file; " +
			"it deletes nothing. It may run as a task, which waits in input_required for the answer.",
		Execution: optional,
	}, confirmDelete))
	must(mcp.AddTool(s, &mcp.Tool{
		Name: "test_tool_with_task",
		Description: "Asks the user's name (an elicitation \"user_name\") before its task exists, then runs as a task " +
			"(execution.taskSupport required) that greets the name given.",
		Execution:       &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired},
		InputBeforeTask: true,
	}, toolWithTask))
	must(mcp.AddTool(s, &mcp.Tool{
		Name: "multi_input",
		Description: "Asks two questions at once (elicitations \"first\" and \"second\") and repeats the names given. " +
			"It may run as a task, which stays input_required until both are answered.",
		Execution: optional,
	}, multiInput))
}

// slowCompute waits in.Seconds, then answers.
func slowCompute(ctx context.Context, _ *mcp.Request, in SlowComputeArgs) (string, error) {
	if in.Seconds < 0 || in.Seconds > 3600 {
		return "", fmt.Errorf("seconds must be between 0 and 3600, not %g", in.Seconds)
	}
	if err := pause(ctx, time.Duration(in.Seconds*float64(time.Second))); err != nil {
		return "", err
	}
	if in.Label == "" {
		return fmt.Sprintf("Computed in %gs.", in.Seconds), nil
	}
	return fmt.Sprintf("Computed %s in %gs.", in.Label, in.Seconds), nil
}

// confirmDelete asks for a confirmation under the key "confirm".
func confirmDelete(ctx context.Context, req *mcp.Request, in ConfirmDeleteArgs) (string, error) {
	rs, err := req.Input(ctx, map[string]*mcp.InputRequest{"confirm": mcp.ElicitationInput(&mcp.ElicitParams{
		Message: "Delete " + in.Filename + "?",
		RequestedSchema: &mcp.ElicitSchema{
			Properties: []mcp.ElicitProperty{{Name: "confirm", Schema: &mcp.PrimitiveSchema{Type: "boolean", Description: "true to delete the file"}}},
			Required:   []string{"confirm"},
		},
	})})
	if err != nil {
		return "", toolError(err)
	}
	res, err := rs.Elicitation("confirm")
	if err != nil {
		return "", err
	}
	var c struct {
		Confirm bool `json:"confirm"`
	}
	if res.Action == mcp.ElicitActionAccept {
		if err := json.Unmarshal(res.Content, &c); err != nil {
			return "", fmt.Errorf("the client's content: %w", err)
		}
	}
	if c.Confirm {
		return "Deleted " + in.Filename + ".", nil
	}
	return "Kept " + in.Filename + " (action=" + res.Action + ").", nil
}

// multiInput asks "first" and "second" at once.
func multiInput(ctx context.Context, req *mcp.Request, _ JobArgs) (string, error) {
	ask := func(which string) *mcp.InputRequest {
		return mcp.ElicitationInput(&mcp.ElicitParams{
			Message: "The " + which + " input?",
			RequestedSchema: &mcp.ElicitSchema{
				Properties: []mcp.ElicitProperty{
					{Name: "name", Schema: &mcp.PrimitiveSchema{Type: "string"}},
					{Name: "confirm", Schema: &mcp.PrimitiveSchema{Type: "boolean"}},
				},
			},
		})
	}
	rs, err := req.Input(ctx, map[string]*mcp.InputRequest{"first": ask("first"), "second": ask("second")})
	if err != nil {
		return "", toolError(err)
	}
	names := make([]string, 2)
	for i, key := range []string{"first", "second"} {
		res, err := rs.Elicitation(key)
		if err != nil {
			return "", err
		}
		var c struct {
			Name string `json:"name"`
		}
		if len(res.Content) > 0 {
			if err := json.Unmarshal(res.Content, &c); err != nil {
				return "", fmt.Errorf("the client's content: %w", err)
			}
		}
		names[i] = key + "=" + c.Name + " (" + res.Action + ")"
	}
	return names[0] + ", " + names[1], nil
}

// toolWithTask asks "user_name" by input_required results before its
// task (SEP-2663, "Composition with Multi Round-Trip Requests"), then goes
// on as the task's work.
func toolWithTask(ctx context.Context, req *mcp.Request, _ JobArgs) (string, error) {
	rs, err := req.Input(ctx, map[string]*mcp.InputRequest{"user_name": mcp.ElicitationInput(&mcp.ElicitParams{
		Message: "What is your name?",
		RequestedSchema: &mcp.ElicitSchema{
			Properties: []mcp.ElicitProperty{{Name: "name", Schema: &mcp.PrimitiveSchema{Type: "string"}}},
			Required:   []string{"name"},
		},
	})})
	if err != nil {
		return "", toolError(err)
	}
	if err := req.BeginTask(); err != nil {
		return "", err
	}
	res, err := rs.Elicitation("user_name")
	if err != nil {
		return "", err
	}
	var c struct {
		Name string `json:"name"`
	}
	if res.Action == mcp.ElicitActionAccept {
		if err := json.Unmarshal(res.Content, &c); err != nil {
			return "", fmt.Errorf("the client's content: %w", err)
		}
	}
	if c.Name == "" {
		return "Hello, whoever you are (action=" + res.Action + ").", nil
	}
	return "Hello, " + c.Name + "!", nil
}
