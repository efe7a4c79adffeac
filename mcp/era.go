package mcp

import "context"

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
}

// inEra returns the era serving r: a Request made without one (in a
// test, say) is the session era's.
func (r *Request) inEra() era {
	if r.era == nil {
		return sessionEra{}
	}
	return r.era
}
