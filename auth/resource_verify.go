package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
)

// This file holds the resource server's token verification: the
// TokenVerifier interface, the function adapter, and what the JWT and
// introspection verifiers share
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#token-handling).

// ErrInvalidToken is matched (errors.Is) by the error of a verifier that
// refused a token: bad signature, expired, not yet valid, another issuer,
// another audience, inactive. A ResourceServer answers it 401
// error="invalid_token"; any other verifier error (the issuer's keys
// could not be fetched, say) 503.
var ErrInvalidToken = errors.New("auth: invalid access token")

// A TokenVerifier checks an access token presented to this server and
// returns what it verified. It must refuse a token that was not issued
// for this server (its audience), as the spec requires
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#token-audience-binding-and-validation),
// with an error wrapping ErrInvalidToken. r is the HTTP request that
// carried the token, for verifiers that bind tokens to it (DPoP); it
// must not be modified. VerifyToken must be safe for concurrent use.
type TokenVerifier interface {
	VerifyToken(ctx context.Context, token string, r *http.Request) (*mcp.TokenInfo, error)
}

// VerifierFunc adapts a function to a TokenVerifier, for tokens neither
// JWTVerifier nor IntrospectionVerifier can check. The function carries
// the whole duty of a verifier, audience check included.
type VerifierFunc func(ctx context.Context, token string, r *http.Request) (*mcp.TokenInfo, error)

// VerifyToken calls f.
func (f VerifierFunc) VerifyToken(ctx context.Context, token string, r *http.Request) (*mcp.TokenInfo, error) {
	return f(ctx, token, r)
}

// invalid returns an error wrapping ErrInvalidToken.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidToken, fmt.Sprintf(format, args...))
}

// claims are the token claims (RFC 9068 section 2.2, RFC 7662 section
// 2.2) a verifier reads.
type claims struct {
	Active   *bool           `json:"active,omitempty"` // introspection only
	Issuer   string          `json:"iss"`
	Subject  string          `json:"sub"`
	Audience audience        `json:"aud"`
	Expiry   *json.Number    `json:"exp"`
	NotAfter *json.Number    `json:"nbf"`
	ClientID string          `json:"client_id"`
	AZP      string          `json:"azp"`
	Scope    string          `json:"scope"`
	SCP      json.RawMessage `json:"scp"`
}

// audience is the "aud" claim: one string or an array of them.
type audience []string

func (a *audience) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*a = audience{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return errors.New(`"aud" is neither a string nor an array of strings`)
	}
	*a = many
	return nil
}

// numericTime converts a NumericDate; ok false if it is not a number.
func numericTime(n *json.Number) (time.Time, bool) {
	if n == nil {
		return time.Time{}, false
	}
	f, err := n.Float64()
	if err != nil {
		return time.Time{}, false
	}
	sec := int64(f)
	return time.Unix(sec, int64((f-float64(sec))*1e9)), true
}

// scopes returns the granted scopes: the space-separated "scope", or the
// "scp" claim some issuers use (a string or an array).
func (c *claims) scopes() []string {
	if c.Scope != "" {
		return strings.Fields(c.Scope)
	}
	if len(c.SCP) == 0 {
		return nil
	}
	var s string
	if json.Unmarshal(c.SCP, &s) == nil {
		return strings.Fields(s)
	}
	var many []string
	if json.Unmarshal(c.SCP, &many) == nil {
		return many
	}
	return nil
}

// check validates the claims every verifier checks: the issuer (when
// issuer is set), the audience, exp (required when requireExp) and nbf
// with skew.
func (c *claims) check(issuer, resource string, now time.Time, skew time.Duration, requireExp bool) (*mcp.TokenInfo, error) {
	if issuer != "" && c.Issuer != issuer {
		return nil, invalid("issued by %q, not %q", c.Issuer, issuer)
	}
	if !audienceHas(c.Audience, resource) {
		return nil, invalid("audience %q does not include this resource, %q", []string(c.Audience), resource)
	}
	exp, hasExp := numericTime(c.Expiry)
	switch {
	case c.Expiry != nil && !hasExp:
		return nil, invalid(`"exp" is not a number`)
	case !hasExp && requireExp:
		return nil, invalid(`the token has no "exp"`)
	case hasExp && !now.Before(exp.Add(skew)):
		return nil, invalid("expired at %s", exp.UTC().Format(time.RFC3339))
	}
	if nbf, ok := numericTime(c.NotAfter); ok && now.Add(skew).Before(nbf) {
		return nil, invalid("not valid before %s", nbf.UTC().Format(time.RFC3339))
	} else if c.NotAfter != nil && !ok {
		return nil, invalid(`"nbf" is not a number`)
	}
	if c.Subject == "" {
		return nil, invalid(`the token has no "sub"`)
	}
	clientID := c.ClientID
	if clientID == "" {
		clientID = c.AZP
	}
	return &mcp.TokenInfo{
		Subject:  c.Subject,
		ClientID: clientID,
		Scopes:   c.scopes(),
		Expiry:   exp,
		Issuer:   c.Issuer,
		Audience: c.Audience,
	}, nil
}

// audienceHas reports whether aud names resource, ignoring a trailing
// slash on either side (the canonical URI of RFC 8707 section 2 has none,
// but issuers differ).
func audienceHas(aud []string, resource string) bool {
	want := strings.TrimSuffix(resource, "/")
	for _, a := range aud {
		if a != "" && strings.TrimSuffix(a, "/") == want {
			return true
		}
	}
	return false
}

// readLimited reads at most limit bytes of a response body; more is an
// error.
func readLimited(body io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(body, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("auth: response larger than %d bytes", limit)
	}
	return b, nil
}

// Defaults of the verifiers' options.
const (
	DefaultClockSkew             = 30 * time.Second
	DefaultJWKSRefreshInterval   = 30 * time.Second
	DefaultJWKSMaxAge            = time.Hour
	DefaultIntrospectionCacheTTL = 30 * time.Second
	DefaultIntrospectionCacheMax = 10_000
	DefaultVerifierFetchTimeout  = 10 * time.Second
	DefaultVerifierMaxResponse   = 1 << 20
)
