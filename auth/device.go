package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// grantDeviceCode is the grant_type of the device access token request
// (RFC 8628 section 3.4).
const grantDeviceCode = "urn:ietf:params:oauth:grant-type:device_code"

// The device grant's polling interval when the authorization server
// names none, and what each slow_down adds to it (RFC 8628 sections 3.2
// and 3.5).
const (
	defaultDeviceInterval = 5 * time.Second
	slowDownStep          = 5 * time.Second
)

// DeviceAuthorization is what Options.DeviceCode shows the user for the
// device authorization grant (RFC 8628 section 3.2): the code to enter at
// the verification URI, on any device with a browser.
type DeviceAuthorization struct {
	// UserCode is the code the user enters.
	UserCode string
	// VerificationURI is where the user enters it.
	VerificationURI string
	// VerificationURIComplete, if the server gave one, is the
	// verification URI with the code in it, for a user who can open a
	// link (or scan it as a QR code). "" if none.
	VerificationURIComplete string
	// Expires is when the codes expire: the user must have approved
	// before.
	Expires time.Time
	// Interval is how often the Authorizer asks the token endpoint
	// whether the user approved.
	Interval time.Duration
}

// deviceAuthorizationResponse is the answer of the device authorization
// endpoint (RFC 8628 section 3.2).
type deviceAuthorizationResponse struct {
	DeviceCode              string      `json:"device_code"`
	UserCode                string      `json:"user_code"`
	VerificationURI         string      `json:"verification_uri"`
	VerificationURIComplete string      `json:"verification_uri_complete"`
	ExpiresIn               json.Number `json:"expires_in"`
	Interval                json.Number `json:"interval"`
}

// deviceCode runs the device authorization grant (RFC 8628): it asks the
// device authorization endpoint for a device code and a user code (with
// the scope and the RFC 8707 resource), shows the user code through
// Options.DeviceCode, then polls the token endpoint every interval until
// the user approved: authorization_pending waits one more interval,
// slow_down adds five seconds to it, access_denied ends with
// ErrAccessDenied, and expired_token (or the code's expiry) with
// ErrDeviceCodeExpired.
func (a *Authorizer) deviceCode(ctx context.Context, d *discovery, client *Credentials, scope []string) (*tokenResponse, error) {
	if a.opts.DeviceCode == nil {
		return nil, errors.New("auth: GrantDeviceCode needs Options.DeviceCode")
	}
	md := d.md
	if md.DeviceAuthorizationEndpoint == "" {
		return nil, fmt.Errorf("%w: the metadata of %q has no device_authorization_endpoint", ErrDeviceGrantUnsupported, md.Issuer)
	}
	if md.TokenEndpoint == "" {
		return nil, fmt.Errorf("%w: the metadata of %q has no token_endpoint", ErrNoAuthorizationServer, md.Issuer)
	}
	form := url.Values{"resource": {d.resource}}
	if len(scope) > 0 {
		form.Set("scope", strings.Join(scope, " "))
	}
	header := http.Header{}
	if err := a.clientAuth(d, client, form, header); err != nil {
		return nil, err
	}
	endpoint := md.DeviceAuthorizationEndpoint
	resp, data, err := a.postForm(ctx, endpoint, form, header)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, oauthError(endpoint, resp.StatusCode, data)
	}
	var dr deviceAuthorizationResponse
	if err := json.Unmarshal(data, &dr); err != nil {
		return nil, fmt.Errorf("auth: device authorization response of %s: %w", endpoint, err)
	}
	expiresIn, err := dr.ExpiresIn.Int64()
	if dr.DeviceCode == "" || dr.UserCode == "" || dr.VerificationURI == "" || err != nil || expiresIn <= 0 {
		return nil, fmt.Errorf("auth: device authorization response of %s lacks device_code, user_code, verification_uri or a positive expires_in", endpoint)
	}
	interval := defaultDeviceInterval
	if n, err := dr.Interval.Int64(); err == nil && n > 0 {
		interval = time.Duration(n) * time.Second
	}
	da := &DeviceAuthorization{
		UserCode:                dr.UserCode,
		VerificationURI:         dr.VerificationURI,
		VerificationURIComplete: dr.VerificationURIComplete,
		Expires:                 a.now().Add(time.Duration(expiresIn) * time.Second),
		Interval:                interval,
	}
	if err := a.opts.DeviceCode(ctx, da); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAccessDenied, err)
	}
	poll := url.Values{"grant_type": {grantDeviceCode}, "device_code": {dr.DeviceCode}}
	for {
		if !a.now().Add(interval).Before(da.Expires) {
			return nil, fmt.Errorf("%w: the user code %s was not approved before it expired", ErrDeviceCodeExpired, da.UserCode)
		}
		if err := a.pause(ctx, interval); err != nil {
			return nil, err
		}
		tok, err := a.token(ctx, d, client, cloneValues(poll), nil)
		var oe *OAuthError
		if !errors.As(err, &oe) {
			return tok, err
		}
		switch oe.Code {
		case "authorization_pending":
		case "slow_down":
			interval += slowDownStep
			a.logf("device grant: slow_down", "interval", interval)
		case "access_denied":
			return nil, fmt.Errorf("%w: the user code %s was refused: %w", ErrAccessDenied, da.UserCode, err)
		case "expired_token":
			return nil, fmt.Errorf("%w: %w", ErrDeviceCodeExpired, err)
		default:
			return nil, err
		}
	}
}

// now is the Authorizer's clock.
func (a *Authorizer) now() time.Time {
	if a.clock != nil {
		return a.clock()
	}
	return time.Now()
}

// pause waits d, or until ctx ends.
func (a *Authorizer) pause(ctx context.Context, d time.Duration) error {
	if a.wait != nil {
		return a.wait(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
