package mcp

// This file holds argument completion on the server side
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion):
// completion/complete for the arguments of prompts and the variables of
// resource templates.

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// The reference types of completion/complete.
const (
	refTypePrompt   = "ref/prompt"   // a prompt, by name
	refTypeResource = "ref/resource" // a resource template, by its URI template
)

// maxCompletionValues is the most values one completion result carries
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion#completion-results).
const maxCompletionValues = 100

// CompleteParams is the params of completion/complete
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion#requesting-completions).
type CompleteParams struct {
	Meta *RequestMeta `json:"_meta,omitempty"`
	// Ref is what is being completed: a prompt or a resource template.
	Ref *CompleteReference `json:"ref"`
	// Argument is the argument (or template variable) being completed and
	// what the user has typed so far.
	Argument CompleteArgument `json:"argument"`
	// Context holds the arguments already chosen, if any.
	Context *CompleteContext `json:"context,omitempty"`
}

// CompleteReference (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion#reference-types)
// is a PromptReference (Type "ref/prompt", with Name)
// or a ResourceTemplateReference (Type "ref/resource", with URI, the URI
// template).
type CompleteReference struct {
	Type  string `json:"type"`
	Name  string `json:"name,omitempty"`
	Title string `json:"title,omitempty"`
	URI   string `json:"uri,omitempty"`
}

// CompleteArgument is the argument being completed
// (https://modelcontextprotocol.io/specification/2025-11-25/schema#completerequest).
type CompleteArgument struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// CompleteContext carries the arguments already resolved, so that a
// completion can depend on them
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion#requesting-completions).
type CompleteContext struct {
	Arguments map[string]string `json:"arguments,omitempty"`
}

// CompleteResult is what completion/complete returns
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion#completion-results).
type CompleteResult struct {
	Meta       Meta       `json:"_meta,omitempty"`
	Completion Completion `json:"completion"`
}

// Completion is a list of suggested values, best first
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion#completion-results).
type Completion struct {
	// Values holds at most 100 suggestions.
	Values []string `json:"values"`
	// Total, when not zero, is how many values exist in all, which may be
	// more than those sent.
	Total int `json:"total,omitempty"`
	// HasMore says that more values exist than those sent.
	HasMore bool `json:"hasMore,omitempty"`
}

// A CompletionHandler suggests values for completion/complete
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion). The server
// has already checked that params.Ref names a registered prompt (and
// params.Argument one of its arguments) or a registered resource template
// (and params.Argument one of its variables). Values past
// the 100th are cut off by the server, which then sets HasMore
// and Total. A *jsonrpc.Error is sent as it is; any other error becomes
// -32603 with its text.
type CompletionHandler func(ctx context.Context, req *Request, params *CompleteParams) (*CompleteResult, error)

// CompletionValues is a helper for CompletionHandlers: the candidates that
// start with prefix, in their order, as a result (capped by the server to
// the 100 values the spec allows,
// https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion#completion-results).
func CompletionValues(candidates []string, prefix string) *CompleteResult {
	values := []string{}
	for _, c := range candidates {
		if strings.HasPrefix(c, prefix) {
			values = append(values, c)
		}
	}
	return &CompleteResult{Completion: Completion{Values: values, Total: len(values)}}
}

// complete implements completion/complete. Without a CompletionHandler
// the server does not declare completions and the method is -32601, as
// the spec says for a capability not supported; an unknown reference,
// prompt, template or argument is -32602.
func (s *Server) complete(ctx context.Context, r *Request) (any, error) {
	h := s.opts.CompletionHandler
	if h == nil {
		return nil, errMethodNotFound(r.Method)
	}
	var p CompleteParams
	if err := unmarshalParams(r.Params, &p); err != nil {
		return nil, err
	}
	r.setMeta(p.Meta)
	if err := s.checkCompletionRef(&p); err != nil {
		return nil, err
	}
	res, err := h(ctx, r, &p)
	if err != nil {
		return nil, handlerError(err)
	}
	return capCompletion(res), nil
}

// checkCompletionRef checks that the reference and the argument name
// something the server has.
func (s *Server) checkCompletionRef(p *CompleteParams) *jsonrpc.Error {
	if p.Ref == nil {
		return errInvalidParams("missing ref")
	}
	if p.Argument.Name == "" {
		return errInvalidParams("missing argument name")
	}
	switch p.Ref.Type {
	case refTypePrompt:
		sp, ok := s.promptByName(p.Ref.Name)
		if !ok {
			return errInvalidParams("Unknown prompt: " + p.Ref.Name)
		}
		if !slices.ContainsFunc(sp.prompt.Arguments, func(a *PromptArgument) bool { return a.Name == p.Argument.Name }) {
			return errInvalidParams("Unknown argument for prompt " + p.Ref.Name + ": " + p.Argument.Name)
		}
	case refTypeResource:
		st, ok := s.templateByURI(p.Ref.URI)
		if !ok {
			return errInvalidParams("Unknown resource template: " + p.Ref.URI)
		}
		if !slices.Contains(st.compiled.Varnames(), p.Argument.Name) {
			return errInvalidParams("Unknown variable for resource template " + p.Ref.URI + ": " + p.Argument.Name)
		}
	default:
		return errInvalidParams("unknown ref type " + strconv.Quote(p.Ref.Type) + ": want ref/prompt or ref/resource")
	}
	return nil
}

// capCompletion keeps at most maxCompletionValues values, saying how many
// there were when it cuts.
func capCompletion(res *CompleteResult) *CompleteResult {
	if res == nil {
		return &CompleteResult{Completion: Completion{Values: []string{}}}
	}
	n := len(res.Completion.Values)
	if n <= maxCompletionValues && res.Completion.Values != nil {
		return res
	}
	out := *res
	if n > maxCompletionValues {
		out.Completion.Values = res.Completion.Values[:maxCompletionValues:maxCompletionValues]
		out.Completion.HasMore = true
		out.Completion.Total = max(out.Completion.Total, n)
	} else {
		out.Completion.Values = []string{}
	}
	return &out
}

// completionsCapability is called with s.mu read-locked.
func (s *Server) completionsCapability() *struct{} {
	if s.opts.CompletionHandler == nil {
		return nil
	}
	return &struct{}{}
}
