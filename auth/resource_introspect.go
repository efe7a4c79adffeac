package auth

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
)

// IntrospectionConfig configures an IntrospectionVerifier.
type IntrospectionConfig struct {
	// Endpoint is the authorization server's introspection endpoint (RFC
	// 7662 section 2). Required.
	Endpoint string
	// ClientID and ClientSecret authenticate this server to the endpoint
	// (HTTP Basic, RFC 7662 section 2.1). Required.
	ClientID, ClientSecret string
	// Resource is this server's canonical URI; the response's "aud" must
	// contain it (a response without "aud" is refused), so that a token
	// issued for another resource is refused
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#token-audience-binding-and-validation).
	// Required.
	Resource string
	// Issuer, if set, must equal the response's "iss".
	Issuer string
	// HTTPClient calls the endpoint. If nil, http.DefaultClient.
	HTTPClient *http.Client
	// CacheTTL is how long an active answer is reused for the same token
	// (never past the token's "exp"); inactive answers are not cached.
	// A revoked token is thus accepted for up to CacheTTL. If zero, 30
	// seconds; if negative, nothing is cached.
	CacheTTL time.Duration
	// MaxCacheEntries bounds the cached answers; at the bound, expired
	// ones are dropped, then the cache is emptied. If zero, 10,000.
	MaxCacheEntries int
	// ClockSkew is the leeway on "exp" and "nbf". If zero, 30 seconds; if
	// negative, none.
	ClockSkew time.Duration
	// FetchTimeout bounds each call. If zero, 10 seconds.
	FetchTimeout time.Duration
	// MaxResponseBytes bounds a response. If zero, 1 MiB.
	MaxResponseBytes int64
	// Now is the clock. If nil, time.Now.
	Now func() time.Time
}

// IntrospectionVerifier verifies opaque access tokens with the
// authorization server's RFC 7662 introspection endpoint, keeping active
// answers for a short while.
type IntrospectionVerifier struct {
	cfg IntrospectionConfig

	mu    sync.Mutex
	cache map[[32]byte]cachedInfo
}

type cachedInfo struct {
	info  *mcp.TokenInfo
	until time.Time
}

var _ TokenVerifier = (*IntrospectionVerifier)(nil)

// NewIntrospectionVerifier returns a verifier for cfg.
func NewIntrospectionVerifier(cfg IntrospectionConfig) (*IntrospectionVerifier, error) {
	if cfg.Endpoint == "" || cfg.Resource == "" || cfg.ClientID == "" {
		return nil, errors.New("auth: IntrospectionConfig needs Endpoint, ClientID and Resource")
	}
	if _, err := checkURL(cfg.Endpoint); err != nil {
		return nil, fmt.Errorf("auth: IntrospectionConfig.Endpoint: %w", err)
	}
	if cfg.CacheTTL == 0 {
		cfg.CacheTTL = DefaultIntrospectionCacheTTL
	}
	cfg.MaxCacheEntries = positiveOr(cfg.MaxCacheEntries, DefaultIntrospectionCacheMax)
	verifierDefaults(&cfg.ClockSkew, &cfg.FetchTimeout, &cfg.MaxResponseBytes, &cfg.HTTPClient, &cfg.Now)
	return &IntrospectionVerifier{cfg: cfg}, nil
}

// VerifyToken implements TokenVerifier.
func (v *IntrospectionVerifier) VerifyToken(ctx context.Context, token string, _ *http.Request) (*mcp.TokenInfo, error) {
	key := sha256.Sum256([]byte(token))
	now := v.cfg.Now()
	if v.cfg.CacheTTL > 0 {
		v.mu.Lock()
		c, ok := v.cache[key]
		v.mu.Unlock()
		if ok && now.Before(c.until) {
			return c.info, nil
		}
	}
	body, err := v.introspect(ctx, token)
	if err != nil {
		return nil, err
	}
	var c claims
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.UseNumber()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("auth: introspection response: %w", err)
	}
	if c.Active == nil || !*c.Active {
		return nil, invalid("the token is not active")
	}
	info, err := c.check(v.cfg.Issuer, v.cfg.Resource, now, v.cfg.ClockSkew, false)
	if err != nil {
		return nil, err
	}
	info.Claims = json.RawMessage(body)
	if v.cfg.CacheTTL > 0 {
		until := now.Add(v.cfg.CacheTTL)
		if !info.Expiry.IsZero() && info.Expiry.Before(until) {
			until = info.Expiry
		}
		v.mu.Lock()
		if len(v.cache) >= v.cfg.MaxCacheEntries {
			for k, e := range v.cache {
				if !now.Before(e.until) {
					delete(v.cache, k)
				}
			}
			if len(v.cache) >= v.cfg.MaxCacheEntries {
				clear(v.cache)
			}
		}
		if v.cache == nil {
			v.cache = make(map[[32]byte]cachedInfo)
		}
		v.cache[key] = cachedInfo{info: info, until: until}
		v.mu.Unlock()
	}
	return info, nil
}

// introspect posts the token to the endpoint and returns its 200 answer.
func (v *IntrospectionVerifier) introspect(ctx context.Context, token string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, v.cfg.FetchTimeout)
	defer cancel()
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, v.cfg.Endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(v.cfg.ClientID), url.QueryEscape(v.cfg.ClientSecret))
	resp, err := v.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("auth: introspection: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("auth: introspection: HTTP %d", resp.StatusCode)
	}
	body, err := readLimited(resp.Body, v.cfg.MaxResponseBytes)
	if err != nil {
		return nil, fmt.Errorf("auth: introspection: %w", err)
	}
	return body, nil
}
