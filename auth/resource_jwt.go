package auth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"

	"github.com/mcpkit/mcpkit/mcp"
)

// JWTConfig configures a JWTVerifier.
type JWTConfig struct {
	// Issuer is the authorization server's issuer identifier; a token's
	// "iss" must equal it. Required.
	Issuer string
	// Resource is this server's canonical URI (RFC 8707 section 2), such
	// as "https://mcp.example.com/mcp"; a token's "aud" must contain it, so
	// that a token issued for another resource is refused
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#token-audience-binding-and-validation).
	// Required.
	Resource string
	// JWKSURL is where the issuer's signing keys are. If empty, it is the
	// jwks_uri of the issuer's metadata (RFC 8414, then OpenID Connect
	// Discovery), fetched on first use.
	JWKSURL string
	// HTTPClient fetches the metadata and the keys. If nil,
	// http.DefaultClient.
	HTTPClient *http.Client
	// ClockSkew is the leeway on "exp" and "nbf". If zero, 30 seconds; if
	// negative, none.
	ClockSkew time.Duration
	// RefreshInterval is the least time between two fetches of the keys
	// caused by tokens naming an unknown "kid": a flood of such tokens
	// costs one fetch per interval, and is refused meanwhile. If zero, 30
	// seconds.
	RefreshInterval time.Duration
	// MaxAge is how long fetched keys are used before they are fetched
	// again, so that a key the issuer withdrew stops being accepted. If
	// zero, one hour.
	MaxAge time.Duration
	// FetchTimeout bounds each fetch. If zero, 10 seconds.
	FetchTimeout time.Duration
	// MaxResponseBytes bounds the metadata and key set documents. If
	// zero, 1 MiB.
	MaxResponseBytes int64
	// AcceptAnyType accepts tokens whatever their "typ" header. If false,
	// "typ" must be "at+jwt" or "application/at+jwt", as RFC 9068 section
	// 4 requires, so that an ID token or another JWT the issuer signs
	// cannot pass for an access token; set it for issuers that do not
	// follow RFC 9068.
	AcceptAnyType bool
	// Now is the clock. If nil, time.Now.
	Now func() time.Time
}

// JWTVerifier verifies JWT access tokens (RFC 9068) against the issuer's
// JSON Web Key Set: the "typ" header, the "crit" header (RFC 7515 section
// 4.1.11: no extension is understood, so a token listing any is refused),
// the signature (asymmetric algorithms only), "iss", "aud", "exp"
// (required) and "nbf". Keys are cached, and fetched again
// when a token names a key id the cache lacks (at most once per
// RefreshInterval) or when they are older than MaxAge.
type JWTVerifier struct {
	cfg JWTConfig

	mu        sync.Mutex
	jwksURL   string
	keys      jwk.Set
	fetchedAt time.Time // last fetch attempt
	loadedAt  time.Time // last successful fetch
}

var _ TokenVerifier = (*JWTVerifier)(nil)

// NewJWTVerifier returns a verifier for cfg; it fetches nothing until
// the first token.
func NewJWTVerifier(cfg JWTConfig) (*JWTVerifier, error) {
	if cfg.Issuer == "" || cfg.Resource == "" {
		return nil, errors.New("auth: JWTConfig needs Issuer and Resource")
	}
	if _, err := checkURL(cfg.Issuer); err != nil {
		return nil, fmt.Errorf("auth: JWTConfig.Issuer: %w", err)
	}
	if cfg.JWKSURL != "" {
		if _, err := checkURL(cfg.JWKSURL); err != nil {
			return nil, fmt.Errorf("auth: JWTConfig.JWKSURL: %w", err)
		}
	}
	cfg.RefreshInterval = positiveOr(cfg.RefreshInterval, DefaultJWKSRefreshInterval)
	cfg.MaxAge = positiveOr(cfg.MaxAge, DefaultJWKSMaxAge)
	verifierDefaults(&cfg.ClockSkew, &cfg.FetchTimeout, &cfg.MaxResponseBytes, &cfg.HTTPClient, &cfg.Now)
	return &JWTVerifier{cfg: cfg, jwksURL: cfg.JWKSURL}, nil
}

// positiveOr returns v if it is above zero, else def.
func positiveOr[T ~int | ~int64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// verifierDefaults fills in the settings JWTConfig and IntrospectionConfig
// share: a zero clock skew becomes DefaultClockSkew and a negative one none;
// a fetch timeout or response bound of zero or less becomes
// DefaultVerifierFetchTimeout or DefaultVerifierMaxResponse; a nil client
// becomes http.DefaultClient and a nil clock time.Now.
func verifierDefaults(skew, fetchTimeout *time.Duration, maxResponse *int64, client **http.Client, now *func() time.Time) {
	if *skew == 0 {
		*skew = DefaultClockSkew
	} else if *skew < 0 {
		*skew = 0
	}
	*fetchTimeout = positiveOr(*fetchTimeout, DefaultVerifierFetchTimeout)
	*maxResponse = positiveOr(*maxResponse, DefaultVerifierMaxResponse)
	if *client == nil {
		*client = http.DefaultClient
	}
	if *now == nil {
		*now = time.Now
	}
}

// jwtHeader is the protected header of a compact JWS.
type jwtHeader struct {
	Alg string `json:"alg"`
	Kid string `json:"kid"`
	Typ string `json:"typ"`
}

// hasCrit reports whether the protected header raw has a member named
// exactly "crit", whatever its value. mcpkit understands no JWS extension,
// so any "crit" (RFC 7515 section 4.1.11) makes the token invalid: one
// listing an extension, and the malformed empty list or one naming a
// registered parameter.
func hasCrit(raw []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return true
	}
	_, ok := m["crit"]
	return ok
}

// VerifyToken implements TokenVerifier.
func (v *JWTVerifier) VerifyToken(ctx context.Context, token string, _ *http.Request) (*mcp.TokenInfo, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, invalid("not a compact JWS")
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return nil, invalid("malformed JWS header")
	}
	var hdr jwtHeader
	if err := json.Unmarshal(raw, &hdr); err != nil {
		return nil, invalid("malformed JWS header")
	}
	if hasCrit(raw) {
		return nil, invalid(`"crit" header: no JWS extension is understood (RFC 7515 section 4.1.11)`)
	}
	switch {
	case hdr.Alg == "" || strings.EqualFold(hdr.Alg, "none"):
		return nil, invalid("unsigned token")
	case strings.HasPrefix(hdr.Alg, "HS"):
		// A symmetric key would have to be shared with every client.
		return nil, invalid("symmetric algorithm %s refused", hdr.Alg)
	case !v.cfg.AcceptAnyType && !strings.EqualFold(hdr.Typ, "at+jwt") && !strings.EqualFold(hdr.Typ, "application/at+jwt"):
		return nil, invalid("typ %q is not at+jwt (RFC 9068)", hdr.Typ)
	}
	keys, err := v.keySet(ctx, hdr.Kid)
	if err != nil {
		return nil, err
	}
	// hasCrit refused every "crit" above; WithCritValidation (no
	// WithCritExtension: none is understood) makes the library refuse one
	// too, should its reading of the header differ from ours.
	payload, err := jws.Verify([]byte(token),
		jws.WithKeySet(keys, jws.WithInferAlgorithmFromKey(true), jws.WithRequireKid(false)),
		jws.WithCritValidation(true))
	if err != nil {
		return nil, invalid("signature: %v", err)
	}
	var c claims
	dec := json.NewDecoder(strings.NewReader(string(payload)))
	dec.UseNumber()
	if err := dec.Decode(&c); err != nil {
		return nil, invalid("claims: %v", err)
	}
	info, err := c.check(v.cfg.Issuer, v.cfg.Resource, v.cfg.Now(), v.cfg.ClockSkew, true)
	if err != nil {
		return nil, err
	}
	info.Claims = json.RawMessage(payload)
	return info, nil
}

// keySet returns the cached keys, fetched first if there are none, if
// they are older than MaxAge, or if they lack kid and the last fetch is
// older than RefreshInterval.
func (v *JWTVerifier) keySet(ctx context.Context, kid string) (jwk.Set, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	now := v.cfg.Now()
	stale := v.keys == nil || now.Sub(v.loadedAt) >= v.cfg.MaxAge
	if !stale && kid != "" {
		if _, ok := v.keys.LookupKeyID(kid); !ok {
			stale = true
		}
	}
	if !stale {
		return v.keys, nil
	}
	if !v.fetchedAt.IsZero() && now.Sub(v.fetchedAt) < v.cfg.RefreshInterval {
		if v.keys == nil {
			return nil, fmt.Errorf("auth: the issuer's keys are unavailable (next fetch in %s)", v.cfg.RefreshInterval-now.Sub(v.fetchedAt))
		}
		return v.keys, nil // an unknown kid then fails verification
	}
	v.fetchedAt = now
	keys, err := v.fetchKeys(ctx)
	if err != nil {
		if v.keys != nil && now.Sub(v.loadedAt) < 2*v.cfg.MaxAge {
			return v.keys, nil
		}
		return nil, err
	}
	v.keys, v.loadedAt = keys, now
	return keys, nil
}

// fetchKeys fetches the key set, finding its URL in the issuer's
// metadata first if needed. Called with mu held.
func (v *JWTVerifier) fetchKeys(ctx context.Context) (jwk.Set, error) {
	ctx, cancel := context.WithTimeout(ctx, v.cfg.FetchTimeout)
	defer cancel()
	if v.jwksURL == "" {
		u, err := v.discoverJWKS(ctx)
		if err != nil {
			return nil, err
		}
		v.jwksURL = u
	}
	body, err := v.get(ctx, v.jwksURL)
	if err != nil {
		return nil, err
	}
	set, err := jwk.Parse(body)
	if err != nil {
		return nil, fmt.Errorf("auth: the key set at %s: %w", v.jwksURL, err)
	}
	return set, nil
}

// discoverJWKS reads jwks_uri from the issuer's metadata (RFC 8414
// section 3, then OpenID Connect Discovery), whose issuer must be ours.
func (v *JWTVerifier) discoverJWKS(ctx context.Context) (string, error) {
	iss, _ := checkURL(v.cfg.Issuer)
	var errs []error
	for _, u := range asMetadataURLs(iss) {
		body, err := v.get(ctx, u)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var md struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		if err := json.Unmarshal(body, &md); err != nil {
			errs = append(errs, fmt.Errorf("auth: %s: %w", u, err))
			continue
		}
		if md.Issuer != v.cfg.Issuer {
			errs = append(errs, fmt.Errorf("auth: %s names issuer %q, not %q", u, md.Issuer, v.cfg.Issuer))
			continue
		}
		if _, err := checkURL(md.JWKSURI); err != nil {
			errs = append(errs, fmt.Errorf("auth: %s: jwks_uri: %w", u, err))
			continue
		}
		return md.JWKSURI, nil
	}
	return "", fmt.Errorf("auth: no jwks_uri for issuer %s: %w", v.cfg.Issuer, errors.Join(errs...))
}

// get fetches u, which must answer 200 within MaxResponseBytes.
func (v *JWTVerifier) get(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := v.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("auth: fetching %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("auth: fetching %s: HTTP %d", u, resp.StatusCode)
	}
	body, err := readLimited(resp.Body, v.cfg.MaxResponseBytes)
	if err != nil {
		return nil, fmt.Errorf("auth: fetching %s: %w", u, err)
	}
	return body, nil
}
