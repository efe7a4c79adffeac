package mcp

// The client side of tasks
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks):
// the client is a requestor only (docs/design.md).

import (
	"context"
	"errors"
	"iter"
)

// ErrTasksNotSupported is returned by CallToolAsTask when the server did
// not declare tasks.requests.tools.call: the spec says a client MUST NOT
// then call tools as tasks
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#tool-level-negotiation).
//
// # Experimental
//
// Part of the experimental tasks API.
var ErrTasksNotSupported = errors.New("mcp: the server does not support task-augmented tools/call")

// serverToolTasks reports whether the server declared task-augmented
// tools/call.
func (cs *ClientSession) serverToolTasks() bool {
	res := cs.InitializeResult()
	if res == nil || len(res.Capabilities.Tasks) == 0 {
		return false
	}
	return tasksDeclareToolCall(res.Capabilities.Tasks)
}

// CallToolAsTask calls a tool as a task
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#creating-tasks):
// the server answers at once with the new task, and the tool's result is
// fetched later with GetTaskResult (which waits for it) after polling with
// GetTask, or instead of it. params.Task sets the ttl asked for; if nil, the
// server's default applies. params is not modified.
//
// It returns ErrTasksNotSupported, without sending anything, when the
// server did not declare tasks.requests.tools.call. A server refuses a tool
// whose execution.taskSupport is "forbidden" with -32601.
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
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#getting-tasks).
// Poll at the task's PollInterval until its status is terminal or
// input_required. An unknown, expired or foreign task is a -32602 error.
//
// # Experimental
//
// Part of the experimental tasks API.
func (cs *ClientSession) GetTask(ctx context.Context, params *GetTaskParams) (*GetTaskResult, error) {
	if params == nil || params.TaskID == "" {
		return nil, errors.New("mcp: GetTask: params with the task's id are required")
	}
	return call[GetTaskResult](ctx, cs, "tasks/get", params)
}

// GetTaskResult waits for a task to end and decodes the underlying
// request's result into result: a *CallToolResult for a tools/call task
// (its Meta then holds RelatedTaskMetaKey)
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#retrieving-task-results).
// If the underlying request failed with a JSON-RPC error, that is the
// error returned. result may be nil, or a *json.RawMessage to keep the
// result raw.
//
// While it waits, the server may send the requests the task needs
// answered (elicitation, sampling) and they are answered by the Client's
// handlers; call it when GetTask reports input_required. ctx bounds the
// wait; when it ends, the request is cancelled but the task goes on.
//
// # Experimental
//
// Part of the experimental tasks API.
func (cs *ClientSession) GetTaskResult(ctx context.Context, params *GetTaskPayloadParams, result any) error {
	if params == nil || params.TaskID == "" {
		return errors.New("mcp: GetTaskResult: params with the task's id are required")
	}
	return cs.Call(ctx, "tasks/result", params, result)
}

// CancelTask cancels a task and returns it, now cancelled
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#cancelling-tasks).
// A task already completed, failed or cancelled is a -32602 error, as is
// an unknown one.
//
// # Experimental
//
// Part of the experimental tasks API.
func (cs *ClientSession) CancelTask(ctx context.Context, params *CancelTaskParams) (*CancelTaskResult, error) {
	if params == nil || params.TaskID == "" {
		return nil, errors.New("mcp: CancelTask: params with the task's id are required")
	}
	return call[CancelTaskResult](ctx, cs, "tasks/cancel", params)
}

// ListTasks returns one page of the tasks this client may see
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#listing-tasks).
// A nil params asks for the first page; use Tasks to go through every
// page.
//
// # Experimental
//
// Part of the experimental tasks API.
func (cs *ClientSession) ListTasks(ctx context.Context, params *ListTasksParams) (*ListTasksResult, error) {
	return callList[ListTasksResult](ctx, cs, "tasks/list", params)
}

// Tasks iterates over the tasks this client may see, page after page,
// starting at params.Cursor (nil params starts at the first page). An
// error ends the iteration after being yielded once.
//
// # Experimental
//
// Part of the experimental tasks API.
func (cs *ClientSession) Tasks(ctx context.Context, params *ListTasksParams) iter.Seq2[*Task, error] {
	return paginate(ctx, cs, "tasks/list", params, (*ListTasksResult).pageOf)
}
