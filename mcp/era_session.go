package mcp

import (
	"context"
	"fmt"

	"github.com/mcpkit/mcpkit/internal/jsonenc"
)

// sessionEra is the era of a session-era request (2025-11-25 and earlier):
// what the request needs lives in its session.
type sessionEra struct{}

func (sessionEra) methods(s *Server) map[string]MethodHandler { return s.tables.Load().session }

func (sessionEra) callTool(ctx context.Context, s *Server, r *Request, p CallToolParams, t *serverTool) (any, error) {
	if p.Task != nil || taskSupport(t.tool) == TaskSupportRequired {
		tp := p // only this copy escapes, to task_session.go
		return s.callToolTask(ctx, r, &tp, t)
	}
	return runTool(ctx, r, t, p.Arguments)
}

func (sessionEra) protocolToolError(error) bool { return false }

// input sends the requests to the client one by one, in key order.
func (e sessionEra) input(ctx context.Context, r *Request, keys []string, requests map[string]*InputRequest) (InputResponses, error) {
	if err := checkInputs(r, keys, requests, (*InputRequest).check); err != nil {
		return nil, err
	}
	out := make(InputResponses, len(keys))
	for _, k := range keys {
		q := requests[k]
		res, err := e.ask(ctx, r, q)
		if err != nil {
			return nil, err
		}
		raw, err := jsonenc.Marshal(res)
		if err != nil {
			return nil, fmt.Errorf("mcp: encoding the answer to %s: %w", q.Method, err)
		}
		out[k] = raw
	}
	return out, nil
}

// ask sends q on the request's session and stream.
func (sessionEra) ask(ctx context.Context, r *Request, q *InputRequest) (any, error) {
	if r.Session == nil {
		return nil, errNoSession
	}
	ctx = r.relatedContext(ctx)
	switch q.Method {
	case "elicitation/create":
		return r.Session.Elicit(ctx, q.elicit)
	case "sampling/createMessage":
		return r.Session.CreateMessage(ctx, q.sample)
	case "roots/list":
		return r.Session.ListRoots(ctx, q.roots)
	}
	return nil, fmt.Errorf("mcp: %q cannot be asked of the client", q.Method)
}

func (sessionEra) log(ctx context.Context, r *Request, level LoggingLevel, logger string, data any) error {
	return r.Session.log(ctx, r.related, level, logger, data)
}

func (sessionEra) logEnabled(r *Request, level LoggingLevel) bool {
	return r.Session.LogEnabled(level)
}
