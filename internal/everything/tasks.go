package everything

// This file holds countdown, the example of tasks
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks):
// a slow tool with execution.taskSupport "optional", so that a client may
// call it normally (and wait) or as a task (and poll it with tasks/get,
// fetch its result with tasks/result, or cancel it with tasks/cancel).

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
)

// CountdownArgs is the input of countdown.
type CountdownArgs struct {
	Seconds int `json:"seconds,omitempty" jsonschema:"how many seconds to count down, 1 to 60; 3 if absent"`
}

// addTaskTools registers countdown.
func addTaskTools(s *mcp.Server) {
	must(mcp.AddTool(s, &mcp.Tool{
		Name:  "countdown",
		Title: "Countdown",
		Description: "Counts down one second at a time, reporting progress, then answers. " +
			"It may run as a task (execution.taskSupport optional): its status message says how many seconds are left.",
		Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional},
	}, countdown))
}

// countdown waits the given number of seconds. Each second it reports
// progress (when the client sent a progress token) and, running as a task,
// sets the task's status message. It stops when its context ends: the
// client cancelled the call or the task, or the session ended.
func countdown(ctx context.Context, req *mcp.Request, in CountdownArgs) (string, error) {
	n := in.Seconds
	if n == 0 {
		n = 3
	}
	if n < 1 || n > 60 {
		return "", fmt.Errorf("seconds must be between 1 and 60, not %d", n)
	}
	task := mcp.TaskFromContext(ctx)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for left := n; left > 0; left-- {
		if task != nil {
			if err := task.SetStatus(ctx, mcp.TaskWorking, secondsLeft(left)); err != nil {
				return "", err
			}
		}
		if err := req.ReportProgress(ctx, float64(n-left), float64(n), secondsLeft(left)); err != nil {
			return "", err
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	if err := req.ReportProgress(ctx, float64(n), float64(n), "liftoff"); err != nil {
		return "", err
	}
	return fmt.Sprintf("Liftoff after %d seconds.", n), nil
}

func secondsLeft(n int) string {
	if n == 1 {
		return "1 second left"
	}
	return fmt.Sprintf("%d seconds left", n)
}
