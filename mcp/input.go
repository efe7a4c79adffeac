package mcp

// How handlers ask the client for input in both eras: a server-to-client
// request in the session era; an input_required result and a retry in the
// stateless era
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/internal/jsonenc"
)

// ErrInputRequired is what Request.Input (and Elicit, CreateMessage,
// ListRoots) return in the stateless era until the client answers; the
// handler returns it and is run again on the client's retry, so it should
// do nothing unrepeatable before asking
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).
var ErrInputRequired = errors.New("mcp: input required from the client")

// An InputRequest is one thing a handler asks the client for: an
// elicitation, a sampling request or the client's roots. Make one with
// ElicitationInput, SamplingInput or RootsInput.
type InputRequest struct {
	// Method is "elicitation/create", "sampling/createMessage" or
	// "roots/list".
	Method string
	elicit *ElicitParams
	sample *CreateMessageParams
	roots  *ListRootsParams
}

// ElicitationInput asks the client's user for input
// (https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation).
func ElicitationInput(p *ElicitParams) *InputRequest {
	return &InputRequest{Method: "elicitation/create", elicit: p}
}

// SamplingInput asks the client to sample its LLM
// (https://modelcontextprotocol.io/specification/2026-07-28/client/sampling).
func SamplingInput(p *CreateMessageParams) *InputRequest {
	return &InputRequest{Method: "sampling/createMessage", sample: p}
}

// RootsInput asks the client for its roots
// (https://modelcontextprotocol.io/specification/2026-07-28/client/roots).
func RootsInput() *InputRequest {
	return &InputRequest{Method: "roots/list", roots: &ListRootsParams{}}
}

// params returns the request's params, for the input_required result.
// A URL-mode elicitation goes without elicitationId: the stateless era
// has none (the requestState tells the retry apart)
// (https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation).
func (q *InputRequest) params() any {
	switch {
	case q.elicit != nil && q.elicit.ElicitationID != "":
		p := *q.elicit
		p.ElicitationID = ""
		return &p
	case q.elicit != nil:
		return q.elicit
	case q.sample != nil:
		return q.sample
	default:
		return struct{}{}
	}
}

// MarshalJSON encodes the request as an InputRequests entry: method and
// params, without id or jsonrpc.
func (q *InputRequest) MarshalJSON() ([]byte, error) {
	return jsonenc.Marshal(struct {
		Method string `json:"method"`
		Params any    `json:"params"`
	}{q.Method, q.params()})
}

// check refuses, without asking, input the client did not declare it can
// give: the server must not ask for it
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).
func (q *InputRequest) check(caps *ClientCapabilities) error {
	switch q.Method {
	case "elicitation/create":
		if q.elicit == nil {
			return fmt.Errorf("%w: params are required", errInvalidElicitRequest)
		}
		if err := checkElicitationCapability(caps.Elicitation, q.elicit.Mode); err != nil {
			return err
		}
		return q.elicit.validate()
	case "sampling/createMessage":
		if q.sample == nil {
			return errors.New("mcp: sampling/createMessage: params are required")
		}
		if err := checkSamplingCapability(caps, q.sample); err != nil {
			return err
		}
		return q.sample.validate()
	case "roots/list":
		if caps.Roots == nil {
			return &capabilityError{Method: "roots/list", Capability: "roots"}
		}
		return nil
	}
	return fmt.Errorf("mcp: %q cannot be asked of the client", q.Method)
}

// InputResponses are the client's answers to a handler's input requests,
// by the key the handler gave each.
type InputResponses map[string]json.RawMessage

// Elicitation decodes the answer to the elicitation asked under key.
func (rs InputResponses) Elicitation(key string) (*ElicitResult, error) {
	return decodeInput[ElicitResult](rs, key)
}

// Sampling decodes the answer to the sampling request asked under key.
func (rs InputResponses) Sampling(key string) (*CreateMessageResult, error) {
	return decodeInput[CreateMessageResult](rs, key)
}

// Roots decodes the answer to the roots request asked under key.
func (rs InputResponses) Roots(key string) (*ListRootsResult, error) {
	return decodeInput[ListRootsResult](rs, key)
}

// decodeInput decodes the answer under key as a T.
func decodeInput[T any](rs InputResponses, key string) (*T, error) {
	raw, ok := rs[key]
	if !ok {
		return nil, fmt.Errorf("mcp: no input response %q", key)
	}
	var res T
	if err := exactjson.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("mcp: input response %q: %w", key, err)
	}
	return &res, nil
}

// Input asks the client for everything in requests at once, keyed by names
// the handler chooses, and returns the answers under the same keys.
//
// In the session era each request is sent to the client, in key order, on
// the request's stream, and Input waits for the answers. In the stateless
// era, Input returns the answers the client sent with its retry (and those
// of earlier rounds, which the signed requestState carries); if any is
// missing it returns ErrInputRequired, which the handler returns so that
// the server answers with an input_required result
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).
//
// Either way, a request the client did not declare the capability for is
// not sent: Input returns an error matching ErrCapabilityNotDeclared,
// which in the stateless era becomes -32021 when returned by the handler.
// An answer of the wrong shape is an error wrapping a -32602
// *jsonrpc.Error.
func (r *Request) Input(ctx context.Context, requests map[string]*InputRequest) (InputResponses, error) {
	keys := make([]string, 0, len(requests))
	for k, q := range requests {
		if q == nil {
			return nil, fmt.Errorf("mcp: input request %q is nil", k)
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return r.inEra().input(ctx, r, keys, requests)
}

// checkInputs refuses, before anything is asked, the first request the
// client cannot be asked, with the era's check.
func checkInputs(r *Request, keys []string, requests map[string]*InputRequest, check func(*InputRequest, *ClientCapabilities) error) error {
	caps := r.ClientCapabilities
	if caps == nil {
		caps = &ClientCapabilities{}
	}
	for _, k := range keys {
		if err := check(requests[k], caps); err != nil {
			return err
		}
	}
	return nil
}

// checkInputResponse checks one answer as the session era checks the
// result of the same request.
func checkInputResponse(q *InputRequest, raw json.RawMessage) error {
	if len(raw) == 0 || raw[0] != '{' {
		return errors.New("must be an object")
	}
	switch q.Method {
	case "elicitation/create":
		var res ElicitResult
		if err := exactjson.Unmarshal(raw, &res); err != nil {
			return err
		}
		switch res.Action {
		case ElicitActionAccept, ElicitActionDecline, ElicitActionCancel:
		default:
			return fmt.Errorf("action %q is not accept, decline or cancel", res.Action)
		}
		if res.Action == ElicitActionAccept && !q.elicit.isURL() {
			content := res.Content
			if content == nil {
				content = emptyObject
			}
			return q.elicit.RequestedSchema.checkContent(content)
		}
	case "sampling/createMessage":
		var res CreateMessageResult
		if err := exactjson.Unmarshal(raw, &res); err != nil {
			return err
		}
		return res.validate()
	case "roots/list":
		var res ListRootsResult
		if err := exactjson.Unmarshal(raw, &res); err != nil {
			return err
		}
		for i, root := range res.Roots {
			if root == nil || root.URI == "" {
				return fmt.Errorf("root %d has no uri", i)
			}
		}
	}
	return nil
}
