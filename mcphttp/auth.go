package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/internal/httpguard"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// This file holds the resource-server side of authorization: the
// Authenticate hook that runs before anything else, the per-method scope
// check, and the binding of sessions to the user who created them
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization).
// Package auth fills the hooks (auth.Protect); this package needs nothing
// of it, and must not import it: auth builds on mcphttp.

// AuthRefusal is an Options.Authenticate error that says how to answer
// the request it refuses. The handler finds it with errors.As, so it may
// be wrapped; *auth.BearerError implements it.
type AuthRefusal interface {
	error
	// HTTPStatus is the status of the answer, such as 401 or 403.
	HTTPStatus() int
	// WWWAuthenticate is the WWW-Authenticate header value (RFC 9110
	// section 11.6.1, RFC 6750 section 3); none is sent if it is "".
	WWWAuthenticate() string
	// Text is the message of the JSON-RPC error -32000 (id null) in the
	// body.
	Text() string
}

// authKey is the context key of a request's authResult.
type authKey struct{}

// authResult is what Authenticate found for an HTTP request.
type authResult struct {
	info  *mcp.TokenInfo
	owner string // info.OwnerKey(), the registry's owner of sessions
}

// authenticate runs Options.Authenticate on r. It returns r carrying the
// verified token, or false when it has answered the request itself.
func (h *Handler) authenticate(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	info, err := h.callAuthenticate(r)
	if err != nil {
		status, challenge, text := http.StatusUnauthorized, "Bearer", http.StatusText(http.StatusUnauthorized)
		if ar, ok := errors.AsType[AuthRefusal](err); ok {
			h.logger.Debug("mcphttp: authentication refused", "err", err)
			status, challenge, text = ar.HTTPStatus(), ar.WWWAuthenticate(), ar.Text()
		} else {
			h.logger.Error("mcphttp: Authenticate failed", "err", err)
		}
		if challenge != "" {
			w.Header().Set("WWW-Authenticate", challenge)
		}
		h.refuse(w, r, status, jsonrpc.ID{}, httpguard.ServerError(text))
		return r, false
	}
	if info == nil {
		return r, true
	}
	res := &authResult{info: info, owner: info.OwnerKey()}
	return r.WithContext(context.WithValue(r.Context(), authKey{}, res)), true
}

// callAuthenticate calls the hook, a panic becoming an error.
func (h *Handler) callAuthenticate(r *http.Request) (info *mcp.TokenInfo, err error) {
	defer func() {
		if p := recover(); p != nil {
			info, err = nil, fmt.Errorf("mcphttp: Authenticate panicked: %v", p)
		}
	}()
	return h.opts.Authenticate(r)
}

// authOf returns the verified token of r and the owner key of the
// sessions it may use; nil and "" without authentication.
func (h *Handler) authOf(r *http.Request) (*mcp.TokenInfo, string) {
	if h.opts.Authenticate == nil {
		return nil, ""
	}
	if res, ok := r.Context().Value(authKey{}).(*authResult); ok {
		return res.info, res.owner
	}
	return nil, ""
}

// checkScopes refuses with 403 a request whose token lacks a scope that
// Options.RequiredScopes asks of it. It reports whether the request may
// go on.
func (h *Handler) checkScopes(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) bool {
	if h.opts.RequiredScopes == nil {
		return true
	}
	need, missing := h.missingScopes(r, req)
	if missing == nil {
		return true
	}
	challenge := ""
	if h.opts.ScopeChallenge != nil {
		challenge = h.opts.ScopeChallenge(r, need)
	}
	if challenge == "" {
		challenge = `Bearer error="insufficient_scope"`
		if len(need) > 0 {
			challenge += `, scope="` + strings.Join(need, " ") + `"`
		}
	}
	w.Header().Set("WWW-Authenticate", challenge)
	h.refuse(w, r, http.StatusForbidden, req.ID, errInsufficientScope(req.Method, missing))
	return false
}

// missingScopes returns the scopes req needs, and those of them r's token
// does not grant (nil if none is missing). A panic in RequiredScopes is
// recovered and refuses the request.
func (h *Handler) missingScopes(r *http.Request, req *jsonrpc.Request) (need, missing []string) {
	name := scopedName(req)
	func() {
		defer func() {
			if p := recover(); p != nil {
				h.logger.Error("mcphttp: RequiredScopes panicked", "panic", p)
				need = nil
				missing = []string{}
			}
		}()
		need = h.opts.RequiredScopes(req.Method, name)
	}()
	if missing != nil || len(need) == 0 {
		return need, missing
	}
	info, _ := h.authOf(r)
	for _, s := range need {
		if !info.HasScope(s) {
			missing = append(missing, s)
		}
	}
	return need, missing
}

// scopedName returns the name a method's scopes may depend on: the tool
// or prompt name of tools/call and prompts/get, the URI of resources/read.
func scopedName(req *jsonrpc.Request) string {
	var field string
	switch req.Method {
	case "tools/call", "prompts/get":
		field = "name"
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		field = "uri"
	default:
		return ""
	}
	var p map[string]json.RawMessage
	if exactjson.Unmarshal(req.Params, &p) != nil {
		return ""
	}
	var s string
	if exactjson.Unmarshal(p[field], &s) != nil {
		return ""
	}
	return s
}

// errInsufficientScope is the JSON-RPC error of a 403 for missing scopes.
func errInsufficientScope(method string, missing []string) *jsonrpc.Error {
	if len(missing) == 0 {
		// RequiredScopes panicked.
		return httpguard.ServerError("Forbidden: the scopes " + method + " requires could not be determined")
	}
	return httpguard.ServerError("Forbidden: " + method + " requires the scopes " + strings.Join(missing, " ") + ", which the access token does not grant")
}

// notificationExtra is the RequestExtra of a notification POSTed with r:
// its headers, as a request's, so that middleware (tracing) sees that it
// came over HTTP, and its token when there is authentication.
func (h *Handler) notificationExtra(r *http.Request) *mcp.RequestExtra {
	info, _ := h.authOf(r)
	return &mcp.RequestExtra{Header: r.Header, Auth: info}
}
