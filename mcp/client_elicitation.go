package mcp

// Elicitation, client side: answering elicitation/create in form mode
// (ClientOptions.ElicitationHandler) and URL mode
// (ClientOptions.URLElicitationHandler), and following the completion of
// URL-mode elicitations
// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation).

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

func (c *Client) addElicitationMethods() {
	if c.opts.ElicitationHandler != nil || c.opts.URLElicitationHandler != nil {
		c.methods["elicitation/create"] = c.elicit
	}
}

// elicitationCapability declares the modes the client has handlers for:
// {"form":{}}, {"url":{}} or both.
func (c *Client) elicitationCapability(caps *ClientCapabilities) {
	form, url := c.opts.ElicitationHandler != nil, c.opts.URLElicitationHandler != nil
	if !form && !url {
		return
	}
	caps.Elicitation = &ElicitationCapability{}
	if form {
		caps.Elicitation.Form = &struct{}{}
	}
	if url {
		caps.Elicitation.URL = &struct{}{}
	}
}

// elicit checks an elicitation request, passes it to the handler of its
// mode and checks the answer. A mode without a handler gets -32602, as
// the spec requires
// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#error-handling).
func (c *Client) elicit(ctx context.Context, cs *ClientSession, params json.RawMessage) (any, error) {
	if len(params) == 0 {
		return nil, errInvalidParams("missing params: elicitation/create requires message")
	}
	var p ElicitParams
	if err := unmarshalParams(params, &p); err != nil {
		return nil, err
	}
	var h func(context.Context, *ClientSession, *ElicitParams) (*ElicitResult, error)
	switch p.Mode {
	case "", ElicitationModeForm:
		h = c.opts.ElicitationHandler
		if h == nil {
			return nil, errInvalidParams("this client does not support form-mode elicitation")
		}
		if p.RequestedSchema == nil {
			return nil, errInvalidParams("form-mode elicitation requires requestedSchema")
		}
	case ElicitationModeURL:
		h = c.opts.URLElicitationHandler
		if h == nil {
			return nil, errInvalidParams("this client does not support URL-mode elicitation")
		}
		if p.URL == "" || (p.ElicitationID == "" && cs.era().urlElicitationID()) {
			return nil, errInvalidParams("URL-mode elicitation requires elicitationId and url")
		}
	default:
		return nil, errInvalidParams("unknown elicitation mode " + p.Mode)
	}
	res, err := h(ctx, cs, &p)
	if err != nil {
		return nil, err
	}
	if res == nil {
		c.logger.Error("mcp: client: elicitation handler returned no result and no error")
		return nil, errInternal()
	}
	switch res.Action {
	case ElicitActionAccept, ElicitActionDecline, ElicitActionCancel:
	default:
		c.logger.Error("mcp: client: elicitation handler returned an unknown action", "action", res.Action)
		return nil, errInternal()
	}
	out := *res
	if res.Action != ElicitActionAccept || p.isURL() {
		// Content goes only with an accepted form.
		out.Content = nil
		if p.isURL() && res.Action == ElicitActionAccept {
			cs.elicitations.await(c, p.ElicitationID)
		}
		return &out, nil
	}
	content := res.Content
	if len(content) == 0 {
		content = emptyObject
	}
	if c.opts.ElicitationApplyDefaults {
		if content, err = p.RequestedSchema.applyDefaults(content); err != nil {
			c.logger.Error("mcp: client: applying elicitation defaults", "err", err)
			return nil, errInternal()
		}
	}
	if err := p.RequestedSchema.checkContent(content); err != nil {
		c.logger.Error("mcp: client: elicitation handler's content not sent", "err", err)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error: the client's answer does not match the requested schema"}
	}
	out.Content = content
	return &out, nil
}

// urlElicitations are the ids of URL-mode elicitations whose
// notifications/elicitation/complete the session passes on. They are kept
// only when the client has an ElicitationCompleteHandler.
type urlElicitations struct {
	mu      sync.Mutex
	pending map[string]struct{}
}

func (u *urlElicitations) await(c *Client, id string) {
	if c.opts.ElicitationCompleteHandler == nil || id == "" {
		return
	}
	u.mu.Lock()
	if u.pending == nil {
		u.pending = make(map[string]struct{})
	}
	u.pending[id] = struct{}{}
	u.mu.Unlock()
}

// complete forgets id and reports whether the session was waiting for it.
func (u *urlElicitations) complete(id string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	_, ok := u.pending[id]
	delete(u.pending, id)
	return ok
}

// elicitationComplete passes notifications/elicitation/complete to the
// handler once for each id the session waits for; clients "MUST ignore
// notifications referencing unknown or already-completed IDs"
// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#completion-notifications-for-url-mode-elicitation).
func (cs *ClientSession) elicitationComplete(n *jsonrpc.Notification) {
	h := cs.client.opts.ElicitationCompleteHandler
	if h == nil {
		return
	}
	var p ElicitationCompleteParams
	if !cs.decodeNotification(n, &p) {
		return
	}
	if !cs.elicitations.complete(p.ElicitationID) {
		cs.client.logger.Debug("mcp: client: completion of an unknown elicitation ignored", "elicitationId", p.ElicitationID)
		return
	}
	cs.callback(n.Method, func() { h(cs.ctx, cs, &p) })
}

// URLElicitationRequired returns the elicitations of a -32042
// URLElicitationRequired error, and whether err is one
// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#url-elicitation-required-error).
// The client shows each URL to its user (with the same care as a URL-mode
// request) and may retry the failed request once they are complete. The
// session passes their notifications/elicitation/complete to
// ClientOptions.ElicitationCompleteHandler.
func (cs *ClientSession) URLElicitationRequired(err error) ([]*ElicitParams, bool) {
	els, ok := URLElicitations(err)
	for _, e := range els {
		if e != nil {
			cs.elicitations.await(cs.client, e.ElicitationID)
		}
	}
	return els, ok
}
