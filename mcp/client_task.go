package mcp

// The client side of tasks, as a requestor only
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks).

import (
	"context"
	"errors"
	"iter"
)

// ErrTasksNotSupported is returned by CallToolAsTask when the server did
// not declare tasks.requests.tools.call
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#tool-level-negotiation).
//
// # Experimental
//
// Part of the experimental tasks API.
var ErrTasksNotSupported = errors.New("mcp: the server does not support task-augmented tools/call")

// serverToolTasks reports whether the server declared task-augmented
// tools/call.
func (cs *ClientSession) serverToolTasks() bool {
	res := cs.initializeResult()
	if res == nil || len(res.Capabilities.Tasks) == 0 {
		return false
	}
	return tasksDeclareToolCall(res.Capabilities.Tasks)
}

// CallToolAsTask calls a tool as a task
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#creating-tasks):
// the server answers at once with the new task, whose result GetTaskResult
// waits for. params.Task sets the ttl asked for (nil: the server's
// default). It returns ErrTasksNotSupported without sending anything when
// the server did not declare tasks.requests.tools.call.
//
// # Experimental
//
// Part of the experimental tasks API.
func (cs *ClientSession) CallToolAsTask(ctx context.Context, params *CallToolParams) (*CreateTaskResult, error) {
	if params == nil {
		return nil, errors.New("mcp: CallToolAsTask: params with the tool's name are required")
	}
	if !cs.serverToolTasks() {
		return nil, ErrTasksNotSupported
	}
	p := *params
	if p.Task == nil {
		p.Task = &TaskMetadata{}
	}
	return call[CreateTaskResult](ctx, cs, "tools/call", &p)
}

// GetTask returns a task's current state
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#getting-tasks);
// poll at its PollInterval. An unknown or expired task is a -32602 error.
//
// # Experimental
//
// Part of the experimental tasks API.
func (cs *ClientSession) GetTask(ctx context.Context, params *TaskParams) (*GetTaskResult, error) {
	if params == nil || params.TaskID == "" {
		return nil, errors.New("mcp: GetTask: params with the task's id are required")
	}
	return call[GetTaskResult](ctx, cs, "tasks/get", params)
}

// GetTaskResult waits for a task to end and decodes the underlying
// request's result (a *CallToolResult for a tools/call task) or returns
// its JSON-RPC error
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#retrieving-task-results).
// While it waits, the Client's handlers answer the requests the task
// sends; ctx bounds the wait, not the task.
//
// # Experimental
//
// Part of the experimental tasks API.
func (cs *ClientSession) GetTaskResult(ctx context.Context, params *TaskParams, result any) error {
	if params == nil || params.TaskID == "" {
		return errors.New("mcp: GetTaskResult: params with the task's id are required")
	}
	return cs.Call(ctx, "tasks/result", params, result)
}

// CancelTask cancels a task and returns it, now cancelled
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#cancelling-tasks).
//
// # Experimental
//
// Part of the experimental tasks API.
func (cs *ClientSession) CancelTask(ctx context.Context, params *TaskParams) (*CancelTaskResult, error) {
	if params == nil || params.TaskID == "" {
		return nil, errors.New("mcp: CancelTask: params with the task's id are required")
	}
	return call[CancelTaskResult](ctx, cs, "tasks/cancel", params)
}

// ListTasks returns one page of the tasks this client may see, the first
// for nil params
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#listing-tasks).
//
// # Experimental
//
// Part of the experimental tasks API.
func (cs *ClientSession) ListTasks(ctx context.Context, params *PaginatedParams) (*ListTasksResult, error) {
	return callList[ListTasksResult](ctx, cs, "tasks/list", params)
}

// Tasks iterates over the tasks this client may see, page after page from
// params.Cursor; an error ends the iteration after being yielded once.
//
// # Experimental
//
// Part of the experimental tasks API.
func (cs *ClientSession) Tasks(ctx context.Context, params *PaginatedParams) iter.Seq2[*Task, error] {
	return paginate(ctx, cs, "tasks/list", params, (*ListTasksResult).pageOf)
}
