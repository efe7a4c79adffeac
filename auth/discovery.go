package auth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// ResourceMetadata is an OAuth 2.0 protected resource metadata document
// (RFC 9728 section 2).
type ResourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers,omitempty"`
	ScopesSupported        []string `json:"scopes_supported,omitempty"`
	BearerMethodsSupported []string `json:"bearer_methods_supported,omitempty"`
	ResourceName           string   `json:"resource_name,omitempty"`
}

// ServerMetadata is an authorization server metadata document (RFC 8414
// section 2, and the OpenID Connect Discovery fields the client reads).
type ServerMetadata struct {
	Issuer                                     string   `json:"issuer"`
	AuthorizationEndpoint                      string   `json:"authorization_endpoint,omitempty"`
	TokenEndpoint                              string   `json:"token_endpoint,omitempty"`
	RegistrationEndpoint                       string   `json:"registration_endpoint,omitempty"`
	DeviceAuthorizationEndpoint                string   `json:"device_authorization_endpoint,omitempty"`
	ScopesSupported                            []string `json:"scopes_supported,omitempty"`
	ResponseTypesSupported                     []string `json:"response_types_supported,omitempty"`
	GrantTypesSupported                        []string `json:"grant_types_supported,omitempty"`
	CodeChallengeMethodsSupported              []string `json:"code_challenge_methods_supported,omitempty"`
	TokenEndpointAuthMethodsSupported          []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	TokenEndpointAuthSigningAlgValuesSupported []string `json:"token_endpoint_auth_signing_alg_values_supported,omitempty"`
	DPoPSigningAlgValuesSupported              []string `json:"dpop_signing_alg_values_supported,omitempty"`
	ClientIDMetadataDocumentSupported          bool     `json:"client_id_metadata_document_supported,omitempty"`
	AuthorizationResponseIssParameterSupported bool     `json:"authorization_response_iss_parameter_supported,omitempty"`

	// legacy is set for the 2025-03-26 fallback endpoints, when no
	// metadata document was found.
	legacy bool
}

// discovery is what one discovery pass found.
type discovery struct {
	prm      *ResourceMetadata // nil: the 2025-03-26 fallback
	resource string            // the RFC 8707 resource to request
	issuer   string
	md       *ServerMetadata
}

// originOf returns scheme://host of u.
func originOf(u *url.URL) string {
	return u.Scheme + "://" + u.Host
}

// prmURLs lists where the protected resource metadata of serverURL is
// looked for, in the spec's order: the challenge's resource_metadata,
// then the path-based well-known URL, then the root one (RFC 9728
// section 3.1;
// https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#protected-resource-metadata-discovery-requirements).
func prmURLs(server *url.URL, fromChallenge string) []string {
	var out []string
	if fromChallenge != "" {
		out = append(out, fromChallenge)
	}
	const wk = "/.well-known/oauth-protected-resource"
	if p := strings.TrimSuffix(server.EscapedPath(), "/"); p != "" {
		out = append(out, originOf(server)+wk+p)
	}
	root := originOf(server) + wk
	if !slices.Contains(out, root) {
		out = append(out, root)
	}
	return out
}

// asMetadataURLs lists where the metadata of issuer is looked for: for an
// issuer with a path, RFC 8414 path insertion, OIDC path insertion, OIDC
// path appending; without a path, RFC 8414 then OIDC
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#authorization-server-metadata-discovery).
func asMetadataURLs(issuer *url.URL) []string {
	o := originOf(issuer)
	p := strings.TrimSuffix(issuer.EscapedPath(), "/")
	if p == "" {
		return []string{o + "/.well-known/oauth-authorization-server", o + "/.well-known/openid-configuration"}
	}
	return []string{
		o + "/.well-known/oauth-authorization-server" + p,
		o + "/.well-known/openid-configuration" + p,
		o + p + "/.well-known/openid-configuration",
	}
}

// resourceMatches reports whether the resource a PRM names covers the
// server URL: same scheme and authority, and a path that is the server's
// path or a prefix of it at a segment boundary.
func resourceMatches(resource string, server *url.URL) bool {
	r, err := url.Parse(resource)
	if err != nil || r.Fragment != "" || r.RawQuery != "" {
		return false
	}
	if !strings.EqualFold(r.Scheme, server.Scheme) || !strings.EqualFold(r.Host, server.Host) {
		return false
	}
	rp := strings.TrimSuffix(r.EscapedPath(), "/")
	sp := strings.TrimSuffix(server.EscapedPath(), "/")
	return rp == "" || sp == rp || strings.HasPrefix(sp, rp+"/")
}

// discover finds the protected resource metadata and the authorization
// server's metadata for the MCP server at server.
func (a *Authorizer) discover(ctx context.Context, server *url.URL, fromChallenge string) (*discovery, error) {
	var prm *ResourceMetadata
	for _, raw := range prmURLs(server, fromChallenge) {
		if _, err := checkURL(raw); err != nil {
			a.logf("skipping protected resource metadata URL", "url", raw, "err", err)
			continue
		}
		var m ResourceMetadata
		err := a.getJSON(ctx, raw, &m)
		if err == nil {
			prm = &m
			break
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("auth: discovery: %w", ctx.Err())
		}
		if errors.Is(err, ErrResponseTooLarge) || errors.Is(err, context.DeadlineExceeded) {
			// A hostile or stuck server ends the discovery.
			return nil, err
		}
		a.logf("no protected resource metadata", "url", raw, "err", err)
	}
	if prm == nil {
		return a.discoverLegacy(ctx, server)
	}
	if prm.Resource == "" || !resourceMatches(prm.Resource, server) {
		return nil, fmt.Errorf("%w: %q does not cover %s", ErrResourceMismatch, prm.Resource, server)
	}
	if len(prm.AuthorizationServers) == 0 {
		return nil, fmt.Errorf("%w: the protected resource metadata of %s lists none", ErrNoAuthorizationServer, server)
	}
	issuer := prm.AuthorizationServers[0]
	md, err := a.serverMetadata(ctx, issuer)
	if err != nil {
		return nil, err
	}
	return &discovery{prm: prm, resource: prm.Resource, issuer: issuer, md: md}, nil
}

// serverMetadata fetches (or recalls) the metadata of issuer, checking
// that it names the same issuer.
func (a *Authorizer) serverMetadata(ctx context.Context, issuer string) (*ServerMetadata, error) {
	a.mu.Lock()
	md := a.metadata[issuer]
	a.mu.Unlock()
	if md != nil {
		return md, nil
	}
	iu, err := checkURL(issuer)
	if err != nil {
		return nil, fmt.Errorf("auth: issuer: %w", err)
	}
	for _, raw := range asMetadataURLs(iu) {
		var m ServerMetadata
		err := a.getJSON(ctx, raw, &m)
		if errors.Is(err, errNotFound) {
			a.logf("no authorization server metadata", "url", raw)
			continue
		}
		if err != nil {
			return nil, err
		}
		if m.Issuer != issuer {
			return nil, fmt.Errorf("%w: %s says %q, fetched for %q", ErrIssuerMismatch, raw, m.Issuer, issuer)
		}
		if err := m.checkEndpoints(); err != nil {
			return nil, err
		}
		a.mu.Lock()
		a.metadata[issuer] = &m
		a.mu.Unlock()
		return &m, nil
	}
	return nil, fmt.Errorf("%w: no metadata for issuer %q", ErrNoAuthorizationServer, issuer)
}

func (m *ServerMetadata) checkEndpoints() error {
	for _, e := range []string{m.AuthorizationEndpoint, m.TokenEndpoint, m.RegistrationEndpoint} {
		if e == "" {
			continue
		}
		if _, err := checkURL(e); err != nil {
			return fmt.Errorf("auth: authorization server metadata of %q: %w", m.Issuer, err)
		}
	}
	if m.TokenEndpoint == "" {
		return fmt.Errorf("%w: the metadata of %q has no token_endpoint", ErrNoAuthorizationServer, m.Issuer)
	}
	return nil
}

// discoverLegacy is the 2025-03-26 discovery, for a server with no
// protected resource metadata: the authorization server is the MCP
// server's origin, its metadata at the RFC 8414 root URL, and, failing
// that, the default endpoints /authorize, /token and /register
// (https://modelcontextprotocol.io/specification/2025-03-26/basic/authorization#2-3-2-authorization-server-metadata-discovery).
func (a *Authorizer) discoverLegacy(ctx context.Context, server *url.URL) (*discovery, error) {
	issuer := originOf(server)
	resource := canonicalResource(server)
	var m ServerMetadata
	err := a.getJSON(ctx, issuer+"/.well-known/oauth-authorization-server", &m)
	switch {
	case err == nil:
		// The 2025-03-26 authorization base URL is the origin, and that
		// revision's servers may name an issuer with a path under it: the
		// issuer must be on the MCP server's origin, and is the one
		// recorded (for the RFC 9207 iss check).
		iu, perr := url.Parse(m.Issuer)
		if perr != nil || iu.Scheme+"://"+iu.Host != issuer || iu.RawQuery != "" || iu.Fragment != "" {
			return nil, fmt.Errorf("%w: %s/.well-known/oauth-authorization-server says %q, not an issuer on that origin", ErrIssuerMismatch, issuer, m.Issuer)
		}
		if err := m.checkEndpoints(); err != nil {
			return nil, err
		}
		issuer = m.Issuer
	case errors.Is(err, errNotFound):
		m = ServerMetadata{
			Issuer:                        issuer,
			AuthorizationEndpoint:         issuer + "/authorize",
			TokenEndpoint:                 issuer + "/token",
			RegistrationEndpoint:          issuer + "/register",
			CodeChallengeMethodsSupported: []string{"S256"},
			legacy:                        true,
		}
	default:
		return nil, err
	}
	return &discovery{resource: resource, issuer: issuer, md: &m}, nil
}

// canonicalResource is the RFC 8707 resource of an MCP server URL:
// lower-case scheme and host, no fragment, no query
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#canonical-server-uri).
func canonicalResource(u *url.URL) string {
	c := url.URL{Scheme: strings.ToLower(u.Scheme), Host: strings.ToLower(u.Host), Path: u.Path, RawPath: u.RawPath}
	return c.String()
}
