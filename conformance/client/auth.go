package main

// The authorization scenarios of the suite (auth/*): the mock MCP server
// answers 401 until the client presents a token its fake authorization
// server issued. The client uses auth.Authorizer through
// mcphttp.ClientTransport.Authorizer, follows the suite's auto-approved
// authorization redirect without a browser (GET the authorization URL
// without following the redirect and read code, state and iss from its
// Location), then lists the tools and calls test-tool.

import (
	"context"
	"crypto"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// authScenarios are the auth/* scenarios of both suite releases,
// extensions included.
var authScenarios = []string{
	"auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
	"auth/basic-cimd", "auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback",
	"auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported", "auth/scope-omitted-when-undefined",
	"auth/scope-step-up", "auth/scope-retry-limit",
	"auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
	"auth/pre-registration", "auth/resource-mismatch", "auth/offline-access-scope", "auth/offline-access-not-supported",
	"auth/authorization-server-migration",
	"auth/iss-supported", "auth/iss-not-advertised", "auth/iss-supported-missing", "auth/iss-wrong-issuer",
	"auth/iss-unexpected", "auth/iss-normalized", "auth/metadata-issuer-mismatch",
	"auth/client-credentials-basic", "auth/client-credentials-jwt", "auth/cross-app-access-complete-flow",
	"auth/enterprise-managed-authorization", "auth/wif-jwt-bearer", "auth/dpop", "auth/dpop-nonce",
}

func init() {
	for _, name := range authScenarios {
		scenarios[name] = authorized
	}
}

// clientMetadataURL is the client ID metadata document URL the basic-cimd
// scenario expects.
const clientMetadataURL = "https://conformance-test.local/client-metadata.json"

// redirectURL is the redirect_uri registered; nothing listens there: the
// redirect is read from the authorization endpoint's Location.
const redirectURL = "http://127.0.0.1:3333/callback"

// authContext is MCP_CONFORMANCE_CONTEXT of the auth scenarios: the credentials and
// tokens some scenarios hand the client.
type authContext struct {
	Name             string `json:"name"`
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	Issuer           string `json:"issuer"`
	PrivateKeyPEM    string `json:"private_key_pem"`
	SigningAlgorithm string `json:"signing_algorithm"`
	IDPClientID      string `json:"idp_client_id"`
	IDPIDToken       string `json:"idp_id_token"`
	IDPIssuer        string `json:"idp_issuer"`
	IDPTokenEndpoint string `json:"idp_token_endpoint"`
	ValidJWT         string `json:"valid_jwt"`
	WrongAudienceJWT string `json:"wrong_audience_jwt"`
	ExpiredJWT       string `json:"expired_jwt"`
}

// followRedirect GETs the authorization URL without following the
// redirect and returns its Location: the suite approves every
// authorization request at once.
func followRedirect(ctx context.Context, authURL string) (*url.URL, error) {
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode/100 != 3 || loc == "" {
		return nil, fmt.Errorf("the authorization endpoint answered HTTP %d without a redirect", resp.StatusCode)
	}
	return url.Parse(loc)
}

// authOptions builds the Authorizer's options for the scenario.
func authOptions(name string) (auth.Options, error) {
	opts := auth.Options{
		RedirectURL:       redirectURL,
		Redirect:          followRedirect,
		ClientName:        "mcpkit-conformance-client",
		ClientMetadataURL: clientMetadataURL,
		OfflineAccess:     true,
		DPoP:              true,
		Logger:            logger,
		ProtocolVersion:   os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION"),
	}
	var cc authContext
	if raw := os.Getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &cc); err != nil {
			return opts, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
	}
	opts.ClientID, opts.ClientSecret = cc.ClientID, cc.ClientSecret
	switch name {
	case "auth/client-credentials-basic":
		opts.Grant = auth.GrantClientCredentials
	case "auth/client-credentials-jwt":
		opts.Grant = auth.GrantClientCredentials
		key, err := parsePrivateKey(cc.PrivateKeyPEM)
		if err != nil {
			return opts, err
		}
		opts.ClientKey, opts.ClientKeyAlg = key, cc.SigningAlgorithm
	case "auth/wif-jwt-bearer":
		opts.Grant = auth.GrantJWTBearer
		jwt := cc.ValidJWT
		opts.Assertion = func(context.Context, string) (string, error) { return jwt, nil }
	case "auth/enterprise-managed-authorization", "auth/cross-app-access-complete-flow":
		opts.Grant = auth.GrantEnterprise
		idToken := cc.IDPIDToken
		opts.Exchange = &auth.TokenExchange{
			TokenEndpoint: cc.IDPTokenEndpoint,
			ClientID:      cc.IDPClientID,
			SubjectToken:  func(context.Context) (string, error) { return idToken, nil },
		}
	}
	return opts, nil
}

// parsePrivateKey reads a PKCS #8 PEM private key.
func parsePrivateKey(p string) (crypto.Signer, error) {
	block, _ := pem.Decode([]byte(p))
	if block == nil {
		return nil, errors.New("private_key_pem: no PEM block")
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("private_key_pem: %w", err)
	}
	s, ok := k.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("private_key_pem: %T is not a signing key", k)
	}
	return s, nil
}

// authorized: connect through the Authorizer, list the tools, call
// test-tool twice (the migration scenario moves to another authorization
// server after the first authorized request).
func authorized(ctx context.Context, serverURL string) error {
	name := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	opts, err := authOptions(name)
	if err != nil {
		return err
	}
	a := auth.New(opts)
	copts := &mcp.ClientOptions{Logger: logger}
	if os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION") != mcp.Version20260728 {
		copts.ProtocolEra = mcp.EraSession
	}
	c := mcp.NewClient(mcp.Implementation{Name: "mcpkit-conformance-client", Version: "0.1.0"}, copts)
	cs, err := c.Connect(ctx, &mcphttp.ClientTransport{URL: serverURL, Logger: logger, Authorizer: a, NoStandaloneStream: true})
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	for range 2 {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test-tool", Arguments: json.RawMessage(`{}`)}); err != nil {
			return fmt.Errorf("tools/call test-tool: %w", err)
		}
	}
	if strings.HasPrefix(name, "auth/") {
		if cr := a.Credentials(); cr != nil {
			logger.Info("authorized", "issuer", cr.Issuer, "client_id", cr.ClientID, "scope", cr.Scope)
		}
	}
	return nil
}
