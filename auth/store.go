package auth

import (
	"context"
	"sync"

	"golang.org/x/oauth2"
)

// Credentials are what a client holds for one MCP server: the client
// identity it has at one authorization server, and the token that server
// issued. They are bound to Issuer: when the server's protected resource
// metadata names another authorization server, they are dropped and
// never presented there
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization).
type Credentials struct {
	// Issuer is the authorization server the client id and token are from.
	Issuer string `json:"issuer"`
	// ClientID and ClientSecret are the client's identity at Issuer.
	ClientID     string `json:"client_id,omitempty"`
	ClientSecret string `json:"client_secret,omitempty"`
	// AuthMethod is the token endpoint authentication method:
	// "client_secret_basic", "client_secret_post", "private_key_jwt" or
	// "none".
	AuthMethod string `json:"token_endpoint_auth_method,omitempty"`
	// Registered is set when the client id came from dynamic client
	// registration.
	Registered bool `json:"registered,omitempty"`
	// Token is the last token; its TokenType is "Bearer" or "DPoP".
	Token *oauth2.Token `json:"token,omitempty"`
	// Resource is the RFC 8707 resource the token was requested for.
	Resource string `json:"resource,omitempty"`
	// Scope is the scope requested (or granted) for Token,
	// space-separated.
	Scope string `json:"scope,omitempty"`
}

// TokenStore keeps Credentials per MCP server URL. Implementations must
// be safe for concurrent use. Load returns nil, nil when it has none.
type TokenStore interface {
	Load(ctx context.Context, serverURL string) (*Credentials, error)
	Save(ctx context.Context, serverURL string, c *Credentials) error
}

// MemoryStore is the default TokenStore: a map in memory.
type MemoryStore struct {
	mu sync.Mutex
	m  map[string]Credentials
}

// Load implements TokenStore.
func (s *MemoryStore) Load(_ context.Context, serverURL string) (*Credentials, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.m[serverURL]
	if !ok {
		return nil, nil
	}
	return &c, nil
}

// Save implements TokenStore; nil deletes.
func (s *MemoryStore) Save(_ context.Context, serverURL string, c *Credentials) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c == nil {
		delete(s.m, serverURL)
		return nil
	}
	if s.m == nil {
		s.m = make(map[string]Credentials)
	}
	s.m[serverURL] = *c
	return nil
}
