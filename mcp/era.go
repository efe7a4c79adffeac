package mcp

import (
	"context"
	"encoding/json"
)

// era is what differs between the two protocol eras once a request is
// being served: the session era's (sessionEra, era_session.go, a
// zero-size value) and the stateless era's (*statelessRequest,
// era_stateless.go). Feature files call these operations through
// Request.inEra and never ask which era they are in;
// docs/architecture.md draws the path.
type era interface {
	// methods is the era's method table, built in NewServer.
	methods(s *Server) map[string]MethodHandler
	// callTool runs tool t for tools/call, as a task when the era's task
	// rules say so (task_session.go, task_ext.go).
	callTool(ctx context.Context, s *Server, r *Request, p CallToolParams, t *serverTool) (any, error)
	// protocolToolError reports whether err, returned by a tool's handler,
	// is sent as a JSON-RPC error rather than as a result with isError.
	protocolToolError(err error) bool
	// input is Request.Input once its keys are sorted.
	input(ctx context.Context, r *Request, keys []string, requests map[string]*InputRequest) (InputResponses, error)
	// ask is Request.CreateMessage, Elicit and ListRoots: one request to
	// the client, answered with its typed result.
	ask(ctx context.Context, r *Request, q *InputRequest) (any, error)
	// log and logEnabled are Request.Log and Request.LogEnabled.
	log(ctx context.Context, r *Request, level LoggingLevel, logger string, data any) error
	logEnabled(r *Request, level LoggingLevel) bool
	// runBeforeTask runs, for a tools/call that gets a task of the tasks
	// extension, the handler of tool t, one with Tool.InputBeforeTask,
	// before the task exists. begun reports whether the handler called
	// Request.BeginTask and returned ErrBeginTask: the task is then
	// created, and its work gets answers, the input the handler used.
	// Otherwise res and err answer the tools/call (task_ext.go).
	runBeforeTask(ctx context.Context, r *Request, t *serverTool, args json.RawMessage) (res any, answers map[string]json.RawMessage, begun bool, err error)
	// beginTask is Request.BeginTask.
	beginTask() error
}

// ask sends q, the one request to the client of Request.CreateMessage,
// Elicit or ListRoots, through r's era, and returns the client's result
// of type T.
func ask[T any](ctx context.Context, r *Request, q *InputRequest) (*T, error) {
	res, err := r.inEra().ask(ctx, r, q)
	if err != nil {
		return nil, err
	}
	return res.(*T), nil
}

// inEra returns the era serving r: a Request made without one (in a
// test, say) is the session era's.
func (r *Request) inEra() era {
	if r.era == nil {
		return sessionEra{}
	}
	return r.era
}
