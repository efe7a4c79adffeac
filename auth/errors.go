package auth

import (
	"errors"
	"fmt"
)

// The errors an authorization can end with. Each is wrapped with the
// details (errors.Is finds it); every one of them means the client did
// not get a token and must not retry the same authorization as is.
var (
	// ErrInsecureURL: a metadata document, an endpoint or a redirect named
	// a URL that is neither https nor http on a loopback host
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#communication-security).
	ErrInsecureURL = errors.New("auth: URL is neither https nor loopback http")
	// ErrResponseTooLarge: a metadata, registration or token response was
	// longer than Options.MaxResponseBytes.
	ErrResponseTooLarge = errors.New("auth: response too large")
	// ErrResourceMismatch: the protected resource metadata names a
	// resource that is not the MCP server (RFC 9728 section 3.3); no
	// authorization request is made.
	ErrResourceMismatch = errors.New("auth: protected resource metadata names another resource")
	// ErrIssuerMismatch: the authorization server metadata's issuer is not
	// the issuer it was fetched for (RFC 8414 section 3.3); none of its
	// endpoints is used.
	ErrIssuerMismatch = errors.New("auth: authorization server metadata issuer mismatch")
	// ErrNoAuthorizationServer: no usable authorization server was found.
	ErrNoAuthorizationServer = errors.New("auth: no authorization server")
	// ErrPKCEUnsupported: the authorization server does not list S256 in
	// code_challenge_methods_supported
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#authorization-code-protection).
	ErrPKCEUnsupported = errors.New("auth: authorization server does not support PKCE S256")
	// ErrNoClientIdentity: the client has no client id for the
	// authorization server: no metadata document URL it accepts, no
	// pre-registered credentials, no registration endpoint.
	ErrNoClientIdentity = errors.New("auth: no client identity for the authorization server")
	// ErrStateMismatch: the authorization response's state is not the one
	// sent (RFC 6749 section 10.12).
	ErrStateMismatch = errors.New("auth: authorization response state mismatch")
	// ErrIssMismatch: the authorization response's iss is missing although
	// the server advertises it, or differs from the issuer (RFC 9207
	// section 2.4).
	ErrIssMismatch = errors.New("auth: authorization response iss mismatch")
	// ErrAccessDenied: the authorization response carried an error, or no
	// code.
	ErrAccessDenied = errors.New("auth: authorization denied")
	// ErrDeviceGrantUnsupported: GrantDeviceCode is configured but the
	// authorization server's metadata lists no
	// device_authorization_endpoint (RFC 8628 section 4).
	ErrDeviceGrantUnsupported = errors.New("auth: authorization server does not support the device authorization grant")
	// ErrDeviceCodeExpired: the user did not approve the device grant's
	// user code before it expired (RFC 8628 section 3.5, expired_token).
	ErrDeviceCodeExpired = errors.New("auth: device code expired")
	// ErrNoRedirectHandler: the authorization code grant is needed but
	// Options.Redirect or Options.RedirectURL is unset.
	ErrNoRedirectHandler = errors.New("auth: no redirect handler for the authorization code grant")
)

// OAuthError is an error response of an authorization server's token,
// registration or exchange endpoint (RFC 6749 section 5.2).
type OAuthError struct {
	// Endpoint is the URL that answered.
	Endpoint string
	// StatusCode is the HTTP status.
	StatusCode int
	// Code is the error code, such as "invalid_grant"; "" if the body had
	// none.
	Code string
	// Description is error_description.
	Description string
}

func (e *OAuthError) Error() string {
	msg := fmt.Sprintf("auth: %s answered HTTP %d", e.Endpoint, e.StatusCode)
	if e.Code != "" {
		msg += ": " + e.Code
	}
	if e.Description != "" {
		msg += ": " + e.Description
	}
	return msg
}
