package auth

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

const (
	grantJWTBearer      = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	grantTokenExchange  = "urn:ietf:params:oauth:grant-type:token-exchange"
	assertionTypeJWT    = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
	tokenTypeIDToken    = "urn:ietf:params:oauth:token-type:id_token"
	tokenTypeIDJAG      = "urn:ietf:params:oauth:token-type:id-jag"
	assertionLifetime   = 5 * time.Minute
	authMethodNone      = "none"
	authMethodBasic     = "client_secret_basic"
	authMethodPost      = "client_secret_post"
	authMethodKeyJWT    = "private_key_jwt"
	contentTypeFormPost = "application/x-www-form-urlencoded"
)

// clientFor returns the client identity to use with the authorization
// server of d: the stored one if it is from that server; else a client ID
// metadata document URL, pre-registered credentials, or a new dynamic
// registration, in that order
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#client-registration-approaches).
func (a *Authorizer) clientFor(ctx context.Context, d *discovery, c *Credentials) (*Credentials, error) {
	if c != nil && c.Issuer == d.issuer && c.ClientID != "" {
		return &Credentials{Issuer: c.Issuer, ClientID: c.ClientID, ClientSecret: c.ClientSecret, AuthMethod: c.AuthMethod, Registered: c.Registered}, nil
	}
	// A registration made earlier with this server (credentials are kept
	// per authorization server, never shared between them).
	a.mu.Lock()
	known, ok := a.clients[d.issuer]
	a.mu.Unlock()
	if ok {
		return &known, nil
	}
	md := d.md
	o := a.opts
	if o.Grant == GrantAuthorizationCode && o.ClientMetadataURL != "" && md.ClientIDMetadataDocumentSupported {
		return &Credentials{Issuer: d.issuer, ClientID: o.ClientMetadataURL, AuthMethod: authMethodNone}, nil
	}
	if o.ClientID != "" && (o.ClientIssuer == "" || o.ClientIssuer == d.issuer) {
		nc := &Credentials{Issuer: d.issuer, ClientID: o.ClientID, ClientSecret: o.ClientSecret}
		switch {
		case o.ClientKey != nil:
			nc.AuthMethod = authMethodKeyJWT
		case o.ClientSecret != "":
			nc.AuthMethod = secretMethod(md.TokenEndpointAuthMethodsSupported)
		default:
			nc.AuthMethod = authMethodNone
		}
		return nc, nil
	}
	if md.RegistrationEndpoint != "" && (o.Grant == GrantAuthorizationCode || o.Grant == GrantDeviceCode) {
		return a.register(ctx, d)
	}
	return nil, fmt.Errorf("%w: %q", ErrNoClientIdentity, d.issuer)
}

// secretMethod picks how to send a client secret: client_secret_basic
// unless the server lists only client_secret_post (RFC 8414 section 2:
// the default is client_secret_basic).
func secretMethod(supported []string) string {
	if !slices.Contains(supported, authMethodBasic) && slices.Contains(supported, authMethodPost) {
		return authMethodPost
	}
	return authMethodBasic
}

// registration is the RFC 7591 client metadata sent and answered.
type registration struct {
	ClientName              string   `json:"client_name,omitempty"`
	RedirectURIs            []string `json:"redirect_uris,omitempty"`
	GrantTypes              []string `json:"grant_types,omitempty"`
	ResponseTypes           []string `json:"response_types,omitempty"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
	ApplicationType         string   `json:"application_type,omitempty"`
	ClientID                string   `json:"client_id,omitempty"`
	ClientSecret            string   `json:"client_secret,omitempty"`
}

// register makes a dynamic client registration (RFC 7591) with
// application_type native for a loopback redirect URI, else web
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization).
func (a *Authorizer) register(ctx context.Context, d *discovery) (*Credentials, error) {
	md := d.md
	method := authMethodNone
	if sup := md.TokenEndpointAuthMethodsSupported; len(sup) > 0 && !slices.Contains(sup, authMethodNone) {
		method = secretMethod(sup)
	}
	appType := "web"
	if ru, err := url.Parse(a.opts.RedirectURL); err == nil && isLoopbackHost(ru.Hostname()) {
		appType = "native"
	}
	grants, redirects, responses := []string{"authorization_code"}, []string{a.opts.RedirectURL}, []string{"code"}
	if a.opts.Grant == GrantDeviceCode {
		// No redirect: the user approves on another device (RFC 8628).
		grants, redirects, responses, appType = []string{grantDeviceCode}, nil, nil, "native"
	}
	if a.opts.OfflineAccess {
		grants = append(grants, "refresh_token")
	}
	name := a.opts.ClientName
	if name == "" {
		name = "mcpkit"
	}
	body, err := json.Marshal(registration{
		ClientName:              name,
		RedirectURIs:            redirects,
		GrantTypes:              grants,
		ResponseTypes:           responses,
		TokenEndpointAuthMethod: method,
		ApplicationType:         appType,
	})
	if err != nil {
		return nil, fmt.Errorf("auth: registration: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, md.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("auth: registration: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, data, err := a.do(ctx, req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return nil, oauthError(md.RegistrationEndpoint, resp.StatusCode, data)
	}
	var r registration
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("auth: registration response of %s: %w", md.RegistrationEndpoint, err)
	}
	if r.ClientID == "" {
		return nil, fmt.Errorf("auth: registration response of %s has no client_id", md.RegistrationEndpoint)
	}
	if r.TokenEndpointAuthMethod != "" {
		method = r.TokenEndpointAuthMethod
	}
	nc := Credentials{Issuer: d.issuer, ClientID: r.ClientID, ClientSecret: r.ClientSecret, AuthMethod: method, Registered: true}
	a.mu.Lock()
	a.clients[d.issuer] = nc
	a.mu.Unlock()
	return &nc, nil
}

// oauthError builds an OAuthError from an error response body.
func oauthError(endpoint string, status int, data []byte) error {
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	_ = json.Unmarshal(data, &e)
	return &OAuthError{Endpoint: endpoint, StatusCode: status, Code: e.Error, Description: e.Description}
}

// tokenResponse is a successful token response.
type tokenResponse struct {
	token *oauth2.Token
	scope string
	raw   map[string]any
}

// token POSTs a token request to the server of d with client's
// authentication, the RFC 8707 resource and scope, and a DPoP proof when
// DPoP is on (retrying once with the server's nonce on use_dpop_nonce).
func (a *Authorizer) token(ctx context.Context, d *discovery, client *Credentials, form url.Values, scope []string) (*tokenResponse, error) {
	form.Set("resource", d.resource)
	if len(scope) > 0 {
		form.Set("scope", strings.Join(scope, " "))
	}
	a.mu.Lock()
	key := a.dpop
	a.mu.Unlock()
	for attempt := 0; ; attempt++ {
		f := cloneValues(form)
		header := http.Header{}
		if err := a.clientAuth(d, client, f, header); err != nil {
			return nil, err
		}
		if key != nil {
			a.mu.Lock()
			nonce := a.asNonce
			a.mu.Unlock()
			p, err := key.proof(http.MethodPost, d.md.TokenEndpoint, nonce, "")
			if err != nil {
				return nil, err
			}
			header.Set("DPoP", p)
		}
		resp, data, err := a.postForm(ctx, d.md.TokenEndpoint, f, header)
		if err != nil {
			return nil, err
		}
		if key != nil && resp.StatusCode == http.StatusBadRequest && attempt == 0 {
			if n := resp.Header.Get("DPoP-Nonce"); n != "" {
				if oe, ok := oauthError("", 0, data).(*OAuthError); ok && oe.Code == "use_dpop_nonce" {
					a.mu.Lock()
					a.asNonce = n
					a.mu.Unlock()
					continue
				}
			}
		}
		if resp.StatusCode != http.StatusOK {
			return nil, oauthError(d.md.TokenEndpoint, resp.StatusCode, data)
		}
		if n := resp.Header.Get("DPoP-Nonce"); n != "" && key != nil {
			a.mu.Lock()
			a.asNonce = n
			a.mu.Unlock()
		}
		return parseToken(d.md.TokenEndpoint, data, key != nil)
	}
}

// parseToken reads a token response (RFC 6749 section 5.1).
func parseToken(endpoint string, data []byte, dpop bool) (*tokenResponse, error) {
	var t struct {
		AccessToken  string      `json:"access_token"`
		TokenType    string      `json:"token_type"`
		ExpiresIn    json.Number `json:"expires_in"`
		RefreshToken string      `json:"refresh_token"`
		Scope        string      `json:"scope"`
	}
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("auth: token response of %s: %w", endpoint, err)
	}
	if t.AccessToken == "" {
		return nil, fmt.Errorf("auth: token response of %s has no access_token", endpoint)
	}
	tok := &oauth2.Token{AccessToken: t.AccessToken, TokenType: t.TokenType, RefreshToken: t.RefreshToken}
	switch {
	case strings.EqualFold(t.TokenType, "DPoP"):
		if !dpop {
			return nil, fmt.Errorf("auth: %s issued a DPoP token without a DPoP proof", endpoint)
		}
		tok.TokenType = "DPoP"
	default:
		tok.TokenType = "Bearer"
	}
	if n, err := t.ExpiresIn.Int64(); err == nil && n > 0 {
		tok.ExpiresIn = n
		tok.Expiry = time.Now().Add(time.Duration(n) * time.Second)
	}
	var raw map[string]any
	_ = json.Unmarshal(data, &raw)
	return &tokenResponse{token: tok.WithExtra(raw), scope: t.Scope, raw: raw}, nil
}

func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v))
	for k, vs := range v {
		out[k] = slices.Clone(vs)
	}
	return out
}

// clientAuth adds the client's token endpoint authentication to a
// request: HTTP Basic (RFC 6749 section 2.3.1, id and secret
// form-encoded), the secret in the body, a signed assertion (RFC 7523
// section 2.2, aud = the issuer), or the bare client_id.
func (a *Authorizer) clientAuth(d *discovery, client *Credentials, form url.Values, header http.Header) error {
	switch client.AuthMethod {
	case authMethodBasic:
		cred := url.QueryEscape(client.ClientID) + ":" + url.QueryEscape(client.ClientSecret)
		header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(cred)))
	case authMethodPost:
		form.Set("client_id", client.ClientID)
		form.Set("client_secret", client.ClientSecret)
	case authMethodKeyJWT:
		if a.opts.ClientKey == nil {
			return fmt.Errorf("auth: private_key_jwt needs Options.ClientKey")
		}
		jwt, err := signAssertion(a.opts.ClientKey, a.opts.ClientKeyAlg, client.ClientID, client.ClientID, d.issuer, assertionLifetime)
		if err != nil {
			return err
		}
		form.Set("client_id", client.ClientID)
		form.Set("client_assertion_type", assertionTypeJWT)
		form.Set("client_assertion", jwt)
	default:
		if client.ClientID != "" {
			form.Set("client_id", client.ClientID)
		}
	}
	return nil
}

// postForm POSTs a form and reads the answer.
func (a *Authorizer) postForm(ctx context.Context, endpoint string, form url.Values, header http.Header) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, nil, fmt.Errorf("auth: %w", err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", contentTypeFormPost)
	req.Header.Set("Accept", "application/json")
	return a.do(ctx, req)
}

// enterprise is enterprise-managed authorization: an RFC 8693 token
// exchange of the identity token for an ID-JAG at the identity provider
// (audience = the authorization server's issuer, resource = the MCP
// server), then the JWT bearer grant with it at the authorization server.
func (a *Authorizer) enterprise(ctx context.Context, d *discovery, client *Credentials, scope []string) (*tokenResponse, error) {
	x := a.opts.Exchange
	if x == nil || x.SubjectToken == nil || x.TokenEndpoint == "" {
		return nil, fmt.Errorf("auth: GrantEnterprise needs Options.Exchange")
	}
	idToken, err := x.SubjectToken(ctx)
	if err != nil {
		return nil, fmt.Errorf("auth: identity token: %w", err)
	}
	form := url.Values{
		"grant_type":           {grantTokenExchange},
		"requested_token_type": {tokenTypeIDJAG},
		"audience":             {d.issuer},
		"resource":             {d.resource},
		"subject_token":        {idToken},
		"subject_token_type":   {tokenTypeIDToken},
	}
	if len(scope) > 0 {
		form.Set("scope", strings.Join(scope, " "))
	}
	header := http.Header{}
	if x.ClientSecret != "" {
		cred := url.QueryEscape(x.ClientID) + ":" + url.QueryEscape(x.ClientSecret)
		header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(cred)))
	} else if x.ClientID != "" {
		form.Set("client_id", x.ClientID)
	}
	resp, data, err := a.postForm(ctx, x.TokenEndpoint, form, header)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, oauthError(x.TokenEndpoint, resp.StatusCode, data)
	}
	var ex struct {
		AccessToken     string `json:"access_token"`
		IssuedTokenType string `json:"issued_token_type"`
	}
	if err := json.Unmarshal(data, &ex); err != nil {
		return nil, fmt.Errorf("auth: token exchange response of %s: %w", x.TokenEndpoint, err)
	}
	if ex.AccessToken == "" || ex.IssuedTokenType != tokenTypeIDJAG {
		return nil, fmt.Errorf("auth: token exchange at %s issued %q, not an ID-JAG", x.TokenEndpoint, ex.IssuedTokenType)
	}
	return a.token(ctx, d, client, url.Values{"grant_type": {grantJWTBearer}, "assertion": {ex.AccessToken}}, scope)
}
