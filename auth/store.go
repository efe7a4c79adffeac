package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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

// FileStore is a TokenStore that keeps one JSON file per server URL in
// Dir (created with mode 0700 when missing), each written with mode 0600
// through a temporary file and a rename: what mcpkit's CLI uses, under
// the user's config directory.
type FileStore struct {
	// Dir is the directory of the files; it must be set.
	Dir string
}

// path is the file of serverURL: the hex SHA-256 of the URL, so that any
// URL maps to a safe file name.
func (s *FileStore) path(serverURL string) (string, error) {
	if s.Dir == "" {
		return "", errors.New("auth: FileStore.Dir is empty")
	}
	sum := sha256.Sum256([]byte(serverURL))
	return filepath.Join(s.Dir, hex.EncodeToString(sum[:])+".json"), nil
}

// fileEntry is a FileStore file: the server URL it is for, and its
// credentials.
type fileEntry struct {
	Server      string       `json:"server"`
	Credentials *Credentials `json:"credentials"`
}

// Load implements TokenStore.
func (s *FileStore) Load(_ context.Context, serverURL string) (*Credentials, error) {
	p, err := s.path(serverURL)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	var e fileEntry
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("auth: %s: %w", p, err)
	}
	if e.Server != serverURL {
		return nil, nil
	}
	return e.Credentials, nil
}

// Save implements TokenStore; nil removes the file.
func (s *FileStore) Save(_ context.Context, serverURL string, c *Credentials) error {
	p, err := s.path(serverURL)
	if err != nil {
		return err
	}
	if c == nil {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("auth: %w", err)
		}
		return nil
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	data, err := json.MarshalIndent(fileEntry{Server: serverURL, Credentials: c}, "", "  ")
	if err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	f, err := os.CreateTemp(s.Dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("auth: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("auth: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	if err := os.Rename(f.Name(), p); err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	return nil
}
