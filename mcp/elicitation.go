package mcp

// This file holds elicitation, server side: the types of
// elicitation/create in form and URL mode, the server's typed methods to
// send it and notifications/elicitation/complete, and the -32042
// URLElicitationRequired error
// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// ErrInvalidElicitation is matched (with errors.Is) by the error returned,
// without sending anything, for an elicitation the spec does not allow
// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation):
// by Elicit and URLElicitationRequiredError for params not allowed in
// their mode, by Elicit and ElicitSchema.Validate for a requested schema
// outside the flat shapes the spec allows, and for form content that does
// not match the requested schema (by Elicit for what the client sent, on
// the client for what its ElicitationHandler returned). The error's text
// says which and names what is at fault.
var ErrInvalidElicitation = errors.New("mcp: invalid elicitation")

// errInvalidElicitRequest is the ErrInvalidElicitation of params.
var errInvalidElicitRequest = &kindError{"mcp: invalid elicitation/create params", ErrInvalidElicitation}

// Elicitation modes
// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#elicitation-requests).
const (
	// ElicitationModeForm collects structured data through the client.
	ElicitationModeForm = "form"
	// ElicitationModeURL sends the user to a URL, out of the client's
	// sight (2025-11-25).
	ElicitationModeURL = "url"
)

// Actions of an ElicitResult
// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#response-actions).
const (
	// ElicitActionAccept: the user submitted the form (with Content) or
	// consented to open the URL (which does not mean the interaction is
	// complete).
	ElicitActionAccept = "accept"
	// ElicitActionDecline: the user explicitly declined.
	ElicitActionDecline = "decline"
	// ElicitActionCancel: the user dismissed the request without choosing.
	ElicitActionCancel = "cancel"
)

// ElicitParams is the params of elicitation/create, in form or URL mode
// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#protocol-messages).
//
// Form mode (Mode empty or ElicitationModeForm) needs RequestedSchema and
// must not ask for secrets such as passwords, API keys or payment data;
// URL mode (ElicitationModeURL) needs ElicitationID and URL instead.
type ElicitParams struct {
	Meta *RequestMeta `json:"_meta,omitempty"`
	// Mode is ElicitationModeURL, ElicitationModeForm, or empty for form
	// mode sent without a mode member, as clients before 2025-11-25 expect.
	Mode string `json:"mode,omitempty"`
	// Message tells the user why the interaction is needed.
	Message string `json:"message"`
	// RequestedSchema is the form, in form mode only.
	RequestedSchema *ElicitSchema `json:"requestedSchema,omitempty"`
	// ElicitationID identifies a URL-mode elicitation, uniquely within the
	// server; notifications/elicitation/complete names it.
	ElicitationID string `json:"elicitationId,omitempty"`
	// URL is where the user goes, in URL mode only. It must not carry
	// credentials or personal data, nor be pre-authenticated
	// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#safe-url-handling).
	URL string `json:"url,omitempty"`
}

// isURL reports whether the params are for URL mode.
func (p *ElicitParams) isURL() bool { return p.Mode == ElicitationModeURL }

// ElicitResult is the client's answer to elicitation/create.
type ElicitResult struct {
	Meta Meta `json:"_meta,omitempty"`
	// Action is ElicitActionAccept, ElicitActionDecline or
	// ElicitActionCancel.
	Action string `json:"action"`
	// Content is the submitted form, a JSON object whose members match the
	// requested schema (strings, numbers, booleans and lists of strings).
	// It is present only when a form-mode request was accepted.
	Content json.RawMessage `json:"content,omitempty"`
}

// ElicitationCompleteParams is the params of
// notifications/elicitation/complete, which tells the client that the
// out-of-band interaction of a URL-mode elicitation is over
// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#completion-notifications-for-url-mode-elicitation).
type ElicitationCompleteParams struct {
	ElicitationID string `json:"elicitationId"`
}

// Elicit asks the client to get information from its user
// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#elicitation-requests),
// on the stream of the request whose handler's ctx it is given. Nothing is
// sent when the client did not declare the mode (ErrCapabilityNotDeclared; an
// empty elicitation capability means form), or for an invalid schema or
// params (ErrInvalidElicitation). An accepted form's content is checked
// against the schema (ErrInvalidElicitation); a client's error is a
// *jsonrpc.Error.
func (ss *ServerSession) Elicit(ctx context.Context, params *ElicitParams) (*ElicitResult, error) {
	const method = "elicitation/create"
	if err := mayCallClient(ctx, method); err != nil { // era_stateless.go
		return nil, err
	}
	if params == nil {
		return nil, fmt.Errorf("%w: params are required", errInvalidElicitRequest)
	}
	caps := ss.clientCapabilities()
	if err := checkElicitationCapability(caps.Elicitation, params.Mode); err != nil {
		return nil, err
	}
	if err := params.validate(); err != nil {
		return nil, err
	}
	var res ElicitResult
	if err := ss.Call(ctx, method, params, &res); err != nil {
		return nil, err
	}
	switch res.Action {
	case ElicitActionAccept, ElicitActionDecline, ElicitActionCancel:
	default:
		return nil, fmt.Errorf("mcp: %s: the client answered action %q, not accept, decline or cancel", method, res.Action)
	}
	if res.Action != ElicitActionAccept || params.isURL() {
		res.Content = nil
		return &res, nil
	}
	if res.Content == nil {
		res.Content = emptyObject
	}
	if err := params.RequestedSchema.checkContent(res.Content); err != nil {
		return nil, fmt.Errorf("mcp: %s: the client's content: %w", method, err)
	}
	return &res, nil
}

// Elicit is ServerSession.Elicit on the request's session. In the
// stateless era it is one Request.Input: until the client's answer arrives
// it returns ErrInputRequired, which the handler must return
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).
func (r *Request) Elicit(ctx context.Context, params *ElicitParams) (*ElicitResult, error) {
	return ask[ElicitResult](ctx, r, ElicitationInput(params))
}

// elicitationModes reports which modes a declared elicitation capability
// allows: an empty object means form mode only
// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#capabilities).
func elicitationModes(c *ElicitationCapability) (form, url bool) {
	if c == nil {
		return false, false
	}
	return c.Form != nil || c.URL == nil, c.URL != nil
}

// checkElicitationCapability refuses a mode the client did not declare.
func checkElicitationCapability(c *ElicitationCapability, mode string) error {
	const method = "elicitation/create"
	if c == nil {
		return &capabilityError{Method: method, Capability: "elicitation"}
	}
	form, url := elicitationModes(c)
	switch mode {
	case "", ElicitationModeForm:
		if !form {
			return &capabilityError{Method: method, Capability: "elicitation.form"}
		}
	case ElicitationModeURL:
		if !url {
			return &capabilityError{Method: method, Capability: "elicitation.url"}
		}
	}
	return nil
}

// validate checks the params of their mode.
func (p *ElicitParams) validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", errInvalidElicitRequest, fmt.Sprintf(format, args...))
	}
	if p.Message == "" {
		return bad("message is required")
	}
	switch p.Mode {
	case "", ElicitationModeForm:
		if p.RequestedSchema == nil {
			return bad("form mode needs a requestedSchema")
		}
		if p.ElicitationID != "" || p.URL != "" {
			return bad("elicitationId and url belong to URL mode")
		}
		return p.RequestedSchema.Validate()
	case ElicitationModeURL:
		if p.RequestedSchema != nil {
			return bad("requestedSchema belongs to form mode")
		}
		if p.ElicitationID == "" {
			return bad("URL mode needs an elicitationId")
		}
		if u, err := url.Parse(p.URL); err != nil || u.Scheme == "" || u.Host == "" {
			return bad("URL mode needs an absolute url, not %q", p.URL)
		}
		return nil
	}
	return bad("mode %q is not form or url", p.Mode)
}

// NotifyElicitationComplete tells the client that the URL-mode
// elicitation id is over
// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#completion-notifications-for-url-mode-elicitation),
// on the session it was for. Without elicitation.url declared it sends
// nothing and returns an error matching ErrCapabilityNotDeclared.
func (ss *ServerSession) NotifyElicitationComplete(ctx context.Context, elicitationID string) error {
	const method = "notifications/elicitation/complete"
	caps := ss.clientCapabilities()
	if _, url := elicitationModes(caps.Elicitation); !url {
		return &capabilityError{Method: method, Capability: "elicitation.url"}
	}
	if elicitationID == "" {
		return fmt.Errorf("%w: %s needs an elicitationId", errInvalidElicitRequest, method)
	}
	return ss.Notify(ctx, method, &ElicitationCompleteParams{ElicitationID: elicitationID})
}

// urlElicitationRequiredData is the data of a -32042 URLElicitationRequired
// error: the URL-mode elicitations to complete before the request is
// retried.
type urlElicitationRequiredData struct {
	Elicitations []*ElicitParams `json:"elicitations"`
}

// URLElicitationRequiredError returns the -32042 error a handler returns
// when its request cannot go on until the user completes the given
// URL-mode elicitations, each with an elicitationId (empty Mode becomes
// "url")
// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#url-elicitation-required-error).
// It is a *jsonrpc.Error, or an error matching ErrInvalidElicitation for
// an invalid elicitation.
func URLElicitationRequiredError(elicitations ...*ElicitParams) error {
	if len(elicitations) == 0 {
		return fmt.Errorf("%w: URLElicitationRequired needs at least one elicitation", errInvalidElicitRequest)
	}
	data := urlElicitationRequiredData{Elicitations: make([]*ElicitParams, len(elicitations))}
	for i, e := range elicitations {
		if e == nil {
			return fmt.Errorf("%w: elicitation %d is nil", errInvalidElicitRequest, i)
		}
		cp := *e
		if cp.Mode == "" {
			cp.Mode = ElicitationModeURL
		}
		if cp.Mode != ElicitationModeURL {
			return fmt.Errorf("%w: elicitation %d: URLElicitationRequired allows URL mode only", errInvalidElicitRequest, i)
		}
		if err := cp.validate(); err != nil {
			return fmt.Errorf("elicitation %d: %w", i, err)
		}
		data.Elicitations[i] = &cp
	}
	return jsonrpc.NewError(jsonrpc.CodeURLElicitationRequired, "This request requires more information.", &data)
}

// URLElicitations returns the elicitations of a -32042
// URLElicitationRequired error, and whether err is one. A client shows
// them to its user (see ClientSession.URLElicitationRequired, which also
// watches for their completion).
func URLElicitations(err error) ([]*ElicitParams, bool) {
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeURLElicitationRequired {
		return nil, false
	}
	var data urlElicitationRequiredData
	if exactjson.Unmarshal(rpcErr.Data, &data) != nil {
		return nil, true
	}
	return data.Elicitations, true
}
