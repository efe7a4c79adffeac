// Package auth is mcpkit's OAuth 2.1 client for MCP servers behind an
// authorization server
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization).
//
// An Authorizer plugs into mcphttp.ClientTransport.Authorizer. It adds
// the access token to every request and, when the server answers 401 (or
// 403 insufficient_scope), discovers the authorization server (RFC 9728
// protected resource metadata, RFC 8414 / OpenID Connect metadata, the
// 2025-03-26 fallbacks), obtains a client identity (a client ID metadata
// document, pre-registered credentials, or RFC 7591 registration) and a
// token (authorization code with PKCE, refresh, or one of the extension
// grants: client credentials, RFC 7523 JWT bearer, RFC 8693 token
// exchange for enterprise-managed authorization; or the RFC 8628 device
// authorization grant for machines without a browser), optionally bound to a
// DPoP key (RFC 9449).
package auth

import (
	"context"
	"crypto"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// Grant selects how the Authorizer obtains tokens.
type Grant int

const (
	// GrantAuthorizationCode is the authorization code grant with PKCE
	// (the default): the user approves in a browser, and Options.Redirect
	// returns where the authorization server sent them back.
	GrantAuthorizationCode Grant = iota
	// GrantClientCredentials is the client credentials grant (the
	// io.modelcontextprotocol/oauth-client-credentials extension), with
	// client_secret_basic (Options.ClientSecret) or private_key_jwt
	// (Options.ClientKey).
	GrantClientCredentials
	// GrantJWTBearer is the RFC 7523 JWT bearer grant with the assertion
	// Options.Assertion returns (workload identity federation,
	// io.modelcontextprotocol/auth/wif). A refused grant is not retried.
	GrantJWTBearer
	// GrantEnterprise is enterprise-managed authorization
	// (io.modelcontextprotocol/enterprise-managed-authorization): an RFC
	// 8693 token exchange of Options.Exchange's identity token for an
	// ID-JAG at the identity provider, then the JWT bearer grant with it.
	GrantEnterprise
	// GrantDeviceCode is the device authorization grant (RFC 8628), for
	// a client on a machine without a browser: Options.DeviceCode shows
	// the user a code to enter at a URI on any other device, and the
	// Authorizer polls the token endpoint until the user approved. The
	// authorization server's metadata must list a
	// device_authorization_endpoint (else ErrDeviceGrantUnsupported).
	GrantDeviceCode
)

// TokenExchange configures the identity provider step of GrantEnterprise.
type TokenExchange struct {
	// TokenEndpoint is the identity provider's token endpoint.
	TokenEndpoint string
	// ClientID and ClientSecret authenticate the client there
	// (client_secret_basic when ClientSecret is set, else client_id in
	// the body).
	ClientID     string
	ClientSecret string
	// SubjectToken returns the user's identity token (an OpenID Connect
	// ID token).
	SubjectToken func(ctx context.Context) (string, error)
}

// Options configures an Authorizer. The zero value of each field is a
// documented default.
type Options struct {
	// HTTPClient sends discovery, registration and token requests. If nil,
	// http.DefaultClient. Its redirects are held to https or loopback http.
	HTTPClient *http.Client
	// Grant is how tokens are obtained; the zero value is
	// GrantAuthorizationCode.
	Grant Grant

	// RedirectURL is the redirect_uri of the authorization code grant,
	// such as http://127.0.0.1:8765/callback.
	RedirectURL string
	// Redirect presents the authorization URL to the user and returns the
	// URL the authorization server redirected back to (carrying code,
	// state and iss). Required for GrantAuthorizationCode.
	Redirect func(ctx context.Context, authorizationURL string) (*url.URL, error)

	// ClientName is client_name in dynamic registration. If "", "mcpkit".
	ClientName string
	// ClientMetadataURL is the https URL of the client's ID metadata
	// document, used as client_id when the authorization server says
	// client_id_metadata_document_supported
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#client-id-metadata-documents).
	// If "", the client never uses one.
	ClientMetadataURL string
	// ClientID and ClientSecret are pre-registered credentials. If
	// ClientIssuer is set they are used only with that authorization
	// server; otherwise with any. Empty: none.
	ClientID     string
	ClientSecret string
	ClientIssuer string
	// ClientKey, if set, authenticates the client with private_key_jwt
	// (RFC 7523 section 2.2): a *ecdsa.PrivateKey or *rsa.PrivateKey
	// signing an assertion whose iss and sub are ClientID and aud the
	// issuer. ClientKeyAlg names the algorithm ("ES256", "RS256"); "":
	// from the key.
	ClientKey    crypto.Signer
	ClientKeyAlg string

	// DeviceCode shows the user the code of GrantDeviceCode and where to
	// enter it; the Authorizer then polls until the user approved, the
	// code expired, or the context ended. An error it returns ends the
	// authorization. Required for GrantDeviceCode.
	DeviceCode func(ctx context.Context, d *DeviceAuthorization) error

	// Assertion returns the JWT of GrantJWTBearer for the given issuer.
	Assertion func(ctx context.Context, issuer string) (string, error)
	// Exchange configures GrantEnterprise.
	Exchange *TokenExchange

	// OfflineAccess asks for a refresh token: offline_access is added to
	// the scope when the authorization server lists it in
	// scopes_supported, and registration asks for the refresh_token grant
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization).
	// False: neither.
	OfflineAccess bool
	// DPoP binds tokens to a key (RFC 9449) when the authorization server
	// lists the key's algorithm in dpop_signing_alg_values_supported.
	// DPoPKey is that key; nil with DPoP set: a new P-256 key.
	DPoP    bool
	DPoPKey crypto.Signer

	// Store keeps credentials per server. If nil, an in-memory store.
	Store TokenStore
	// ProtocolVersion, if set, is sent as MCP-Protocol-Version on
	// discovery requests.
	ProtocolVersion string

	// MaxResponseBytes bounds every metadata, registration and token
	// response body. If zero, 1 MiB; a longer one fails with
	// ErrResponseTooLarge.
	MaxResponseBytes int64
	// FetchTimeout bounds each discovery, registration and token request.
	// If zero, 30 seconds.
	FetchTimeout time.Duration
	// Logger receives diagnostics. If nil, nothing is logged.
	Logger *slog.Logger
}

// Authorizer is an OAuth 2.1 client for one MCP server; it implements
// mcphttp.Authorizer. It is safe for concurrent use.
type Authorizer struct {
	opts Options

	mu       sync.Mutex
	server   string // the MCP server URL, learnt from the first request
	loaded   bool
	creds    *Credentials
	metadata map[string]*ServerMetadata
	clients  map[string]Credentials // client identities by issuer, without tokens
	rsNonce  string
	asNonce  string
	dpop     *dpopKey

	authMu sync.Mutex // one (re)authorization at a time

	// Tests' clock and wait of the device grant's polling; nil: the
	// time package's.
	clock func() time.Time
	wait  func(ctx context.Context, d time.Duration) error
}

// New returns an Authorizer.
func New(opts Options) *Authorizer {
	if opts.Store == nil {
		opts.Store = &MemoryStore{}
	}
	return &Authorizer{opts: opts, metadata: make(map[string]*ServerMetadata), clients: make(map[string]Credentials)}
}

func (a *Authorizer) maxResponseBytes() int64 {
	if a.opts.MaxResponseBytes <= 0 {
		return 1 << 20
	}
	return a.opts.MaxResponseBytes
}

func (a *Authorizer) fetchTimeout() time.Duration {
	if a.opts.FetchTimeout <= 0 {
		return 30 * time.Second
	}
	return a.opts.FetchTimeout
}

func (a *Authorizer) logf(msg string, args ...any) {
	if a.opts.Logger != nil {
		a.opts.Logger.Debug("auth: "+msg, args...)
	}
}

// serverKey is the URL an Authorizer serves: scheme, host and path.
func serverKey(u *url.URL) string {
	c := *u
	c.RawQuery, c.Fragment, c.RawFragment, c.User = "", "", "", nil
	return c.String()
}

// load recalls the stored credentials of the server once.
func (a *Authorizer) load(ctx context.Context, u *url.URL) error {
	a.mu.Lock()
	if a.server == "" {
		a.server = serverKey(u)
	}
	if a.loaded {
		a.mu.Unlock()
		return nil
	}
	server := a.server
	a.mu.Unlock()
	c, err := a.opts.Store.Load(ctx, server)
	if err != nil {
		return fmt.Errorf("auth: loading credentials: %w", err)
	}
	a.mu.Lock()
	if !a.loaded {
		a.loaded = true
		a.creds = c
	}
	a.mu.Unlock()
	return nil
}

// save stores c as the server's credentials.
func (a *Authorizer) save(ctx context.Context, c *Credentials) error {
	a.mu.Lock()
	a.creds = c
	server := a.server
	a.mu.Unlock()
	if err := a.opts.Store.Save(ctx, server, c); err != nil {
		return fmt.Errorf("auth: saving credentials: %w", err)
	}
	return nil
}

// Credentials returns a copy of the current credentials, or nil.
func (a *Authorizer) Credentials() *Credentials {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.creds == nil {
		return nil
	}
	c := *a.creds
	return &c
}

// Authorize adds the current access token to req: "Authorization: Bearer
// …", or "Authorization: DPoP …" with a fresh DPoP proof. Without a token
// it adds nothing (the server's 401 starts the authorization). An
// expired token with a refresh token is refreshed first.
func (a *Authorizer) Authorize(ctx context.Context, req *http.Request) error {
	if err := a.load(ctx, req.URL); err != nil {
		return err
	}
	a.mu.Lock()
	c := a.creds
	a.mu.Unlock()
	if c == nil || c.Token == nil || c.Token.AccessToken == "" {
		return nil
	}
	if !c.Token.Expiry.IsZero() && time.Until(c.Token.Expiry) < 10*time.Second && c.Token.RefreshToken != "" {
		a.authMu.Lock()
		if err := a.refreshLocked(ctx, req.URL); err != nil {
			a.logf("refresh failed", "err", err)
		}
		a.authMu.Unlock()
		a.mu.Lock()
		c = a.creds
		a.mu.Unlock()
		if c == nil || c.Token == nil {
			return nil
		}
	}
	return a.present(req, c.Token)
}

// present sets the Authorization (and DPoP) headers for tok.
func (a *Authorizer) present(req *http.Request, tok *oauth2.Token) error {
	req.Header.Del("DPoP")
	if strings.EqualFold(tok.TokenType, "DPoP") {
		a.mu.Lock()
		key, nonce := a.dpop, a.rsNonce
		a.mu.Unlock()
		if key == nil {
			return errors.New("auth: a DPoP-bound token but no DPoP key")
		}
		p, err := key.proof(req.Method, req.URL.String(), nonce, tok.AccessToken)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "DPoP "+tok.AccessToken)
		req.Header.Set("DPoP", p)
		return nil
	}
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	return nil
}

// presentedToken returns the access token req carried.
func presentedToken(req *http.Request) string {
	h := req.Header.Get("Authorization")
	if i := strings.IndexByte(h, ' '); i > 0 {
		return strings.TrimSpace(h[i+1:])
	}
	return ""
}

// Reauthorize handles a 401, or a 403 with error="insufficient_scope",
// that answered req: it records a DPoP nonce the server asks for, or
// re-runs discovery (the challenge's resource_metadata first), drops
// credentials of another authorization server, refreshes the token, or
// obtains a new one, with the scope the challenge asks for (on a 403,
// the union of the granted and the challenged scopes). A nil return means
// the request may be sent again.
func (a *Authorizer) Reauthorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	if err := a.load(ctx, req.URL); err != nil {
		return err
	}
	cs, err := ParseChallenges(resp.Header.Values("WWW-Authenticate"))
	if err != nil {
		a.logf("ignoring the challenge", "err", err)
		cs = nil
	}
	ch, ok := FindChallenge(cs, "DPoP")
	if !ok {
		ch, _ = FindChallenge(cs, "Bearer")
	}
	if ch.Param("error") == "use_dpop_nonce" {
		if n := resp.Header.Get("DPoP-Nonce"); n != "" {
			a.mu.Lock()
			changed := a.rsNonce != n
			a.rsNonce = n
			a.mu.Unlock()
			if changed {
				return nil
			}
		}
	}
	stepUp := resp.StatusCode == http.StatusForbidden

	a.authMu.Lock()
	defer a.authMu.Unlock()
	a.mu.Lock()
	c := a.creds
	a.mu.Unlock()
	if !stepUp && c != nil && c.Token != nil && c.Token.AccessToken != presentedToken(req) {
		// Another request got a new token meanwhile.
		return nil
	}
	d, err := a.discover(ctx, req.URL, ch.Param("resource_metadata"))
	if err != nil {
		return err
	}
	if c != nil && c.Issuer != d.issuer {
		// The resource moved to another authorization server: nothing of
		// the old one is presented to the new one.
		a.logf("authorization server changed; dropping credentials", "from", c.Issuer, "to", d.issuer)
		c = nil
		if err := a.save(ctx, nil); err != nil {
			return err
		}
	}
	scope := a.selectScope(d, ch.Param("scope"), c, stepUp)
	if !stepUp && c != nil && c.Token != nil && c.Token.RefreshToken != "" {
		if err := a.refreshLocked(ctx, req.URL); err == nil {
			return nil
		} else {
			a.logf("refresh failed; authorizing again", "err", err)
		}
	}
	return a.obtain(ctx, d, c, scope)
}

// selectScope picks the scope to request: the challenge's, else the
// protected resource's scopes_supported, else none; on a step-up, the
// union with what was granted; offline_access when wanted and offered
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#scope-selection-strategy).
func (a *Authorizer) selectScope(d *discovery, challenged string, c *Credentials, stepUp bool) []string {
	var scopes []string
	switch {
	case challenged != "":
		scopes = strings.Fields(challenged)
	case d.prm != nil && len(d.prm.ScopesSupported) > 0:
		scopes = slices.Clone(d.prm.ScopesSupported)
	}
	if stepUp && c != nil {
		scopes = union(strings.Fields(c.Scope), scopes)
	}
	if a.opts.OfflineAccess && (a.opts.Grant == GrantAuthorizationCode || a.opts.Grant == GrantDeviceCode) && slices.Contains(d.md.ScopesSupported, "offline_access") {
		scopes = union(scopes, []string{"offline_access"})
	}
	return scopes
}

// union returns a followed by the members of b not in a.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// obtain gets a new token with the configured grant and stores it.
func (a *Authorizer) obtain(ctx context.Context, d *discovery, c *Credentials, scope []string) error {
	if err := a.setupDPoP(d.md); err != nil {
		return err
	}
	client, err := a.clientFor(ctx, d, c)
	if err != nil {
		return err
	}
	var tok *tokenResponse
	switch a.opts.Grant {
	case GrantAuthorizationCode:
		tok, err = a.authorizationCode(ctx, d, client, scope)
	case GrantClientCredentials:
		form := url.Values{"grant_type": {"client_credentials"}}
		tok, err = a.token(ctx, d, client, form, scope)
	case GrantJWTBearer:
		if a.opts.Assertion == nil {
			return errors.New("auth: GrantJWTBearer needs Options.Assertion")
		}
		var assertion string
		if assertion, err = a.opts.Assertion(ctx, d.issuer); err != nil {
			return fmt.Errorf("auth: assertion: %w", err)
		}
		form := url.Values{"grant_type": {grantJWTBearer}, "assertion": {assertion}}
		tok, err = a.token(ctx, d, client, form, scope)
	case GrantEnterprise:
		tok, err = a.enterprise(ctx, d, client, scope)
	case GrantDeviceCode:
		tok, err = a.deviceCode(ctx, d, client, scope)
	default:
		return fmt.Errorf("auth: unknown grant %d", a.opts.Grant)
	}
	if err != nil {
		return err
	}
	nc := *client
	nc.Token = tok.token
	nc.Resource = d.resource
	nc.Scope = strings.Join(scope, " ")
	if tok.scope != "" {
		nc.Scope = strings.Join(union(scope, strings.Fields(tok.scope)), " ")
	}
	return a.save(ctx, &nc)
}

// setupDPoP makes the DPoP key when DPoP is wanted and the server offers
// the key's algorithm.
func (a *Authorizer) setupDPoP(md *ServerMetadata) error {
	if !a.opts.DPoP || len(md.DPoPSigningAlgValuesSupported) == 0 {
		a.mu.Lock()
		a.dpop = nil
		a.mu.Unlock()
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.dpop == nil {
		k, err := newDPoPKey(a.opts.DPoPKey)
		if err != nil {
			return err
		}
		a.dpop = k
	}
	if !slices.Contains(md.DPoPSigningAlgValuesSupported, a.dpop.alg.String()) {
		a.dpop = nil
	}
	return nil
}

// authorizationCode runs the authorization code grant with PKCE S256,
// state, RFC 8707 resource and RFC 9207 iss checks.
func (a *Authorizer) authorizationCode(ctx context.Context, d *discovery, client *Credentials, scope []string) (*tokenResponse, error) {
	if a.opts.Redirect == nil || a.opts.RedirectURL == "" {
		return nil, ErrNoRedirectHandler
	}
	md := d.md
	if !slices.Contains(md.CodeChallengeMethodsSupported, "S256") {
		return nil, fmt.Errorf("%w: code_challenge_methods_supported is %q", ErrPKCEUnsupported, md.CodeChallengeMethodsSupported)
	}
	if md.AuthorizationEndpoint == "" {
		return nil, fmt.Errorf("%w: the metadata of %q has no authorization_endpoint", ErrNoAuthorizationServer, md.Issuer)
	}
	verifier := oauth2.GenerateVerifier()
	state := rand.Text()
	au, err := url.Parse(md.AuthorizationEndpoint)
	if err != nil {
		return nil, fmt.Errorf("auth: authorization_endpoint: %w", err)
	}
	q := au.Query()
	q.Set("response_type", "code")
	q.Set("client_id", client.ClientID)
	q.Set("redirect_uri", a.opts.RedirectURL)
	q.Set("state", state)
	q.Set("code_challenge", oauth2.S256ChallengeFromVerifier(verifier))
	q.Set("code_challenge_method", "S256")
	q.Set("resource", d.resource)
	if len(scope) > 0 {
		q.Set("scope", strings.Join(scope, " "))
	}
	au.RawQuery = q.Encode()
	back, err := a.opts.Redirect(ctx, au.String())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAccessDenied, err)
	}
	r := back.Query()
	// RFC 9207 first: on a mismatch, not even an error response is acted
	// on (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization).
	if iss, ok := r["iss"]; ok {
		if len(iss) != 1 || iss[0] != md.Issuer {
			return nil, fmt.Errorf("%w: got %q, want %q", ErrIssMismatch, iss, md.Issuer)
		}
	} else if md.AuthorizationResponseIssParameterSupported {
		return nil, fmt.Errorf("%w: the server advertises iss but the response has none", ErrIssMismatch)
	}
	if r.Get("state") != state {
		return nil, fmt.Errorf("%w: got %q", ErrStateMismatch, r.Get("state"))
	}
	if e := r.Get("error"); e != "" {
		return nil, fmt.Errorf("%w: %s: %s", ErrAccessDenied, e, r.Get("error_description"))
	}
	code := r.Get("code")
	if code == "" {
		return nil, fmt.Errorf("%w: the response has no code", ErrAccessDenied)
	}
	form := url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"redirect_uri":  {a.opts.RedirectURL},
		"code_verifier": {verifier},
	}
	return a.token(ctx, d, client, form, nil)
}

// refreshLocked refreshes the token with its refresh token; authMu is
// held.
func (a *Authorizer) refreshLocked(ctx context.Context, server *url.URL) error {
	a.mu.Lock()
	c := a.creds
	a.mu.Unlock()
	if c == nil || c.Token == nil || c.Token.RefreshToken == "" {
		return errors.New("auth: no refresh token")
	}
	md, err := a.serverMetadata(ctx, c.Issuer)
	if err != nil {
		return err
	}
	resource := c.Resource
	if resource == "" {
		resource = canonicalResource(server)
	}
	d := &discovery{issuer: c.Issuer, md: md, resource: resource}
	if err := a.setupDPoP(md); err != nil {
		return err
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {c.Token.RefreshToken}}
	tok, err := a.token(ctx, d, c, form, nil)
	if err != nil {
		return err
	}
	nc := *c
	nc.Token = tok.token
	if nc.Token.RefreshToken == "" {
		nc.Token.RefreshToken = c.Token.RefreshToken
	}
	return a.save(ctx, &nc)
}
