package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// This file makes an MCP server an OAuth 2.1 resource server
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization):
// it takes the bearer token from the Authorization header, has a
// TokenVerifier check it, answers what fails with the right challenge,
// and serves the protected resource metadata (RFC 9728) that tells
// clients where to obtain tokens. Protect plugs it into a Streamable HTTP
// handler.

// BearerError is an authentication or authorization refusal: the HTTP
// status, the WWW-Authenticate challenge (RFC 6750 section 3) and a
// message for the JSON-RPC error of the body. ResourceServer.Authenticate
// returns it. It implements mcphttp.AuthRefusal, so mcphttp answers any
// Options.Authenticate error that is (or wraps) one with exactly these.
type BearerError struct {
	// Status is the HTTP status: 400 (invalid_request), 401 (no token,
	// invalid_token), 403 (insufficient_scope) or 503 (the token could
	// not be verified). If zero, 401.
	Status int
	// Challenge is the WWW-Authenticate value; none is sent if empty.
	Challenge string
	// Message is the JSON-RPC error message. If empty, the status text.
	Message string
	// Err is the cause, for logs; it is never sent to the client.
	Err error
}

// Error implements error.
func (e *BearerError) Error() string {
	if e.Err != nil {
		return e.Text() + ": " + e.Err.Error()
	}
	return e.Text()
}

// Unwrap returns the cause.
func (e *BearerError) Unwrap() error { return e.Err }

// HTTPStatus returns Status, or 401 if it is zero.
func (e *BearerError) HTTPStatus() int {
	if e.Status == 0 {
		return http.StatusUnauthorized
	}
	return e.Status
}

// WWWAuthenticate returns Challenge.
func (e *BearerError) WWWAuthenticate() string { return e.Challenge }

// Text returns Message, or the status text if it is empty.
func (e *BearerError) Text() string {
	if e.Message != "" {
		return e.Message
	}
	return http.StatusText(e.HTTPStatus())
}

// Protect makes the handler opts configures an OAuth 2.1 resource server
// with rs: it sets opts.Authenticate, opts.RequiredScopes and
// opts.ScopeChallenge to rs's methods. Mount rs.MetadataHandler() at each
// of rs.MetadataPaths() beside the handler, so that clients find the
// authorization server (RFC 9728).
func Protect(opts *mcphttp.Options, rs *ResourceServer) {
	opts.Authenticate = rs.Authenticate
	opts.RequiredScopes = rs.RequiredScopes
	opts.ScopeChallenge = rs.ScopeChallenge
}

// ResourceServerConfig configures a ResourceServer.
type ResourceServerConfig struct {
	// Resource is the canonical URI of the MCP endpoint (RFC 8707 section
	// 2, RFC 9728 section 2 "resource"), such as
	// "https://mcp.example.com/mcp": https (or http on a loopback host),
	// no fragment, no query. Tokens must name it in their audience.
	// Required.
	Resource string
	// AuthorizationServers are the issuer identifiers of the
	// authorization servers that issue tokens for this server, published
	// in the metadata. Required (at least one).
	AuthorizationServers []string
	// Verifier checks tokens. Required.
	Verifier TokenVerifier
	// Scopes are required of every request, and named in the scope
	// parameter of every 401 challenge, so that clients ask for them. If
	// empty, a valid token is enough.
	Scopes []string
	// MethodScopes are scopes required, in addition to Scopes, by
	// JSON-RPC method ("tools/call", "resources/read", ...).
	MethodScopes map[string][]string
	// Server, if set, is where tools declare scopes of their own
	// (mcp.Tool.RequiredScopes): a tools/call of such a tool requires
	// them too.
	Server *mcp.Server
	// ScopesSupported is the metadata's scopes_supported. If nil, the
	// union of Scopes and MethodScopes (tools' scopes are not listed, as
	// tools come and go).
	ScopesSupported []string
	// ResourceName is the metadata's human-readable resource_name; none
	// if empty.
	ResourceName string
}

// ResourceServer authenticates requests to an MCP server and serves its
// protected resource metadata. Create it with NewResourceServer; it is
// safe for concurrent use.
type ResourceServer struct {
	cfg         ResourceServerConfig
	metadataURL string
	paths       []string
	doc         []byte
	// challenge401 is the challenge of a request without a token.
	challenge401 string
}

// NewResourceServer checks cfg and returns its ResourceServer.
func NewResourceServer(cfg ResourceServerConfig) (*ResourceServer, error) {
	if cfg.Verifier == nil {
		return nil, errors.New("auth: ResourceServerConfig.Verifier is required")
	}
	if len(cfg.AuthorizationServers) == 0 {
		return nil, errors.New("auth: ResourceServerConfig.AuthorizationServers is required")
	}
	u, err := checkURL(cfg.Resource)
	if err != nil {
		return nil, fmt.Errorf("auth: ResourceServerConfig.Resource: %w", err)
	}
	if u.RawQuery != "" {
		return nil, fmt.Errorf("auth: ResourceServerConfig.Resource %q has a query", cfg.Resource)
	}
	for _, s := range append(slices.Clone(cfg.Scopes), flatten(cfg.MethodScopes)...) {
		if !validScopeToken(s) {
			return nil, fmt.Errorf("auth: scope %q is not a valid scope token (RFC 6749 section 3.3)", s)
		}
	}
	const wk = "/.well-known/oauth-protected-resource"
	rs := &ResourceServer{cfg: cfg}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	rs.metadataURL = originOf(u) + wk + path
	rs.paths = []string{wk}
	if path != "" {
		rs.paths = append(rs.paths, wk+path)
	}
	supported := cfg.ScopesSupported
	if supported == nil {
		supported = slices.Clone(cfg.Scopes)
		for _, s := range flatten(cfg.MethodScopes) {
			if !slices.Contains(supported, s) {
				supported = append(supported, s)
			}
		}
	}
	rs.doc, err = json.Marshal(ResourceMetadata{
		Resource:               cfg.Resource,
		AuthorizationServers:   cfg.AuthorizationServers,
		ScopesSupported:        supported,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           cfg.ResourceName,
	})
	if err != nil {
		return nil, err
	}
	rs.challenge401 = rs.challenge("", cfg.Scopes)
	return rs, nil
}

// flatten returns the scopes of m, each once, in a stable order.
func flatten(m map[string][]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		for _, s := range m[k] {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// validScopeToken reports whether s is a scope-token: %x21 / %x23-5B /
// %x5D-7E, one or more.
func validScopeToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// MetadataURL returns the URL of the protected resource metadata that
// challenges name in resource_metadata: the path-based well-known URL of
// the resource (RFC 9728 section 3.1).
func (rs *ResourceServer) MetadataURL() string { return rs.metadataURL }

// MetadataPaths returns the paths MetadataHandler serves:
// "/.well-known/oauth-protected-resource" and, when the resource has a
// path, the same followed by it.
func (rs *ResourceServer) MetadataPaths() []string { return slices.Clone(rs.paths) }

// MetadataHandler returns the handler of the protected resource metadata
// document (RFC 9728 section 3), to be mounted at each of MetadataPaths.
// It answers GET and HEAD with the document, and OPTIONS as a CORS
// preflight; every answer allows any origin, so that browser-based
// clients can discover the authorization server
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#protected-resource-metadata-discovery-requirements).
func (rs *ResourceServer) MetadataHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Authorization, Mcp-Protocol-Version")
		h.Set("Access-Control-Max-Age", "86400")
		switch r.Method {
		case http.MethodOptions:
			w.WriteHeader(http.StatusNoContent)
			return
		case http.MethodGet, http.MethodHead:
		default:
			h.Set("Allow", "GET, HEAD, OPTIONS")
			http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
			return
		}
		if !slices.Contains(rs.paths, r.URL.EscapedPath()) && !slices.Contains(rs.paths, r.URL.Path) {
			http.NotFound(w, r)
			return
		}
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "public, max-age=3600")
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = w.Write(rs.doc)
		}
	})
}

// challenge builds a Bearer challenge with the given error code (none if
// empty), the metadata URL and the scopes (none if empty).
func (rs *ResourceServer) challenge(code string, scopes []string) string {
	var b strings.Builder
	b.WriteString("Bearer ")
	if code != "" {
		b.WriteString(`error="` + code + `", `)
	}
	b.WriteString(`resource_metadata="` + rs.metadataURL + `"`)
	if len(scopes) > 0 {
		b.WriteString(`, scope="` + strings.Join(scopes, " ") + `"`)
	}
	return b.String()
}

// Authenticate takes the bearer token of r from its Authorization header
// (the only place the spec allows:
// https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#token-requirements)
// and verifies it. It is mcphttp.Options.Authenticate's implementation.
// Its errors are *BearerError:
//   - no Authorization header, or one of another scheme: 401
//     `Bearer resource_metadata="<MetadataURL>", scope="<Scopes>"`
//     (scope only when Scopes is set), message "Unauthorized: an access
//     token is required";
//   - several Authorization headers, a Bearer header without a well-formed
//     token, or an access_token query parameter: 400
//     `Bearer error="invalid_request", resource_metadata="…"`, message
//     "Bad Request: <why>";
//   - a token the verifier refuses (ErrInvalidToken) or whose audience
//     lacks Resource: 401 `Bearer error="invalid_token",
//     resource_metadata="…", scope="…"`, message "Unauthorized: invalid
//     access token";
//   - a verifier failure of another kind: 503, no challenge, message
//     "Service Unavailable: the access token could not be verified";
//   - a valid token lacking one of Scopes: 403 `Bearer
//     error="insufficient_scope", resource_metadata="…", scope="<Scopes>"`,
//     message "Forbidden: the access token lacks the scopes <missing>".
func (rs *ResourceServer) Authenticate(r *http.Request) (*mcp.TokenInfo, error) {
	if r.URL != nil && strings.Contains(r.URL.RawQuery, "access_token") {
		if q, err := url.ParseQuery(r.URL.RawQuery); err != nil || q.Has("access_token") {
			return nil, rs.badRequest("access tokens are not accepted in the query string")
		}
	}
	values := r.Header.Values("Authorization")
	switch {
	case len(values) == 0:
		return nil, &BearerError{Status: http.StatusUnauthorized, Challenge: rs.challenge401, Message: "Unauthorized: an access token is required"}
	case len(values) > 1:
		return nil, rs.badRequest("several Authorization headers")
	}
	scheme, token, found := strings.Cut(values[0], " ")
	if !strings.EqualFold(scheme, "Bearer") {
		if strings.TrimSpace(values[0]) == "" {
			return nil, rs.badRequest("empty Authorization header")
		}
		// Another scheme: as if no credentials were sent (RFC 6750
		// section 3.1).
		return nil, &BearerError{Status: http.StatusUnauthorized, Challenge: rs.challenge401, Message: "Unauthorized: an access token is required"}
	}
	if !found || !validToken68(token) {
		return nil, rs.badRequest("malformed Bearer token")
	}
	info, err := rs.cfg.Verifier.VerifyToken(r.Context(), token, r)
	switch {
	case errors.Is(err, ErrInvalidToken):
		return nil, rs.invalidToken(err)
	case err != nil:
		return nil, &BearerError{Status: http.StatusServiceUnavailable, Message: "Service Unavailable: the access token could not be verified", Err: err}
	case info == nil:
		return nil, rs.invalidToken(errors.New("the verifier returned no token info"))
	case len(info.Audience) > 0 && !audienceHas(info.Audience, rs.cfg.Resource):
		// No token passthrough, whatever the verifier.
		return nil, rs.invalidToken(invalid("audience %q does not include this resource, %q", info.Audience, rs.cfg.Resource))
	}
	if missing := missingOf(info, rs.cfg.Scopes); len(missing) > 0 {
		return nil, &BearerError{
			Status:    http.StatusForbidden,
			Challenge: rs.challenge("insufficient_scope", rs.cfg.Scopes),
			Message:   "Forbidden: the access token lacks the scopes " + strings.Join(missing, " "),
		}
	}
	return info, nil
}

func (rs *ResourceServer) badRequest(why string) *BearerError {
	return &BearerError{Status: http.StatusBadRequest, Challenge: rs.challenge("invalid_request", nil), Message: "Bad Request: " + why}
}

func (rs *ResourceServer) invalidToken(err error) *BearerError {
	return &BearerError{Status: http.StatusUnauthorized, Challenge: rs.challenge("invalid_token", rs.cfg.Scopes), Message: "Unauthorized: invalid access token", Err: err}
}

// missingOf returns the scopes of need that info does not grant.
func missingOf(info *mcp.TokenInfo, need []string) []string {
	var missing []string
	for _, s := range need {
		if !info.HasScope(s) {
			missing = append(missing, s)
		}
	}
	return missing
}

// validToken68 reports whether s is a token68 (RFC 9110 section 11.2):
// ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/", then "=" padding.
func validToken68(s string) bool {
	if s == "" {
		return false
	}
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' {
			continue
		}
		break
	}
	if i == 0 {
		return false
	}
	for ; i < len(s); i++ {
		if s[i] != '=' {
			return false
		}
	}
	return true
}

// RequiredScopes returns the scopes a request needs beyond Scopes (which
// Authenticate checks): MethodScopes[method], and for tools/call the
// tool's own mcp.Tool.RequiredScopes. It is
// mcphttp.Options.RequiredScopes's implementation.
func (rs *ResourceServer) RequiredScopes(method, name string) []string {
	need := rs.cfg.MethodScopes[method]
	if method == "tools/call" && rs.cfg.Server != nil && name != "" {
		if tool, ok := rs.cfg.Server.Host().Tool(name); ok && len(tool.RequiredScopes) > 0 {
			out := slices.Clone(need)
			for _, s := range tool.RequiredScopes {
				if !slices.Contains(out, s) {
					out = append(out, s)
				}
			}
			return out
		}
	}
	return need
}

// ScopeChallenge returns the challenge of a 403 for a request that needs
// scopes its token lacks: `Bearer error="insufficient_scope",
// resource_metadata="<MetadataURL>", scope="<Scopes and scopes>"`, the
// scope parameter naming every scope the operation needs, so that a
// client stepping up keeps what it has
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#runtime-insufficient-scope-errors).
// It is mcphttp.Options.ScopeChallenge's implementation.
func (rs *ResourceServer) ScopeChallenge(_ *http.Request, scopes []string) string {
	all := slices.Clone(rs.cfg.Scopes)
	for _, s := range scopes {
		if !slices.Contains(all, s) {
			all = append(all, s)
		}
	}
	return rs.challenge("insufficient_scope", all)
}
