package mcp

import (
	"encoding/json"
	"slices"
	"time"
)

// TokenInfo is what an authorization layer verified about the access token
// of a request: who the token speaks for, which client holds it, what it
// allows, and until when. The MCP server is an OAuth 2.1 resource server
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#roles);
// a transport that authenticates requests (Streamable HTTP with
// mcphttp.Options.Authenticate) puts it on RequestExtra.Auth of every
// request it serves. Handlers must treat it as read-only.
type TokenInfo struct {
	// Subject is the resource owner the token was issued for (the JWT
	// "sub" claim, RFC 9068 section 2.2, or the introspection response's
	// "sub", RFC 7662 section 2.2).
	Subject string
	// ClientID is the OAuth client the token was issued to ("client_id").
	ClientID string
	// Scopes are the scopes the token grants ("scope", split on spaces).
	Scopes []string
	// Expiry is when the token expires ("exp"); the zero Time if it does
	// not say.
	Expiry time.Time
	// Issuer is the authorization server that issued the token ("iss").
	Issuer string
	// Audience lists the resources the token is meant for ("aud"); a
	// verifier accepts a token only if it names this server's canonical
	// URI, as the spec requires
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#token-audience-binding-and-validation).
	Audience []string
	// Claims holds the token's claims (or the introspection response) as
	// received, for what the fields above do not carry.
	Claims json.RawMessage
}

// HasScope reports whether the token grants scope.
func (t *TokenInfo) HasScope(scope string) bool {
	return t != nil && slices.Contains(t.Scopes, scope)
}

// OwnerKey returns the key that stands for the token's user wherever
// something a client creates must belong to someone: sessions, tasks. It
// is "user:" + issuer + "|" + subject, so that the same subject at two
// issuers names two users; "" for a nil TokenInfo.
func (t *TokenInfo) OwnerKey() string {
	if t == nil {
		return ""
	}
	return "user:" + t.Issuer + "|" + t.Subject
}

// authOf returns the verified token of r, or nil.
func authOf(r *Request) *TokenInfo {
	if r == nil || r.Extra == nil {
		return nil
	}
	return r.Extra.Auth
}
