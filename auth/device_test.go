package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// deviceFake serves the device authorization endpoint on f, and a token
// endpoint that answers the device grant's polls with the errors of
// answers, in order, then a token.
func deviceFake(t *testing.T, f *fake, answers ...string) string {
	t.Helper()
	issuer := f.setupAS(asOptions{extra: map[string]any{
		"device_authorization_endpoint": f.url("/device_authorization"),
		"scopes_supported":              []string{"mcp", "offline_access"},
	}})
	f.setupPRM("/.well-known/oauth-protected-resource/mcp", f.url("/mcp"), issuer, []string{"mcp"})
	f.handle("POST /device_authorization", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{
			"device_code": "dev-code-1", "user_code": "WDJB-MJHT",
			"verification_uri": issuer + "/device", "verification_uri_complete": issuer + "/device?user_code=WDJB-MJHT",
			"expires_in": 600, "interval": 2,
		})
	})
	var mu sync.Mutex
	f.handle("POST /token", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if len(answers) > 0 {
			code := answers[0]
			answers = answers[1:]
			writeJSON(w, 400, map[string]any{"error": code, "error_description": "as scripted"})
			return
		}
		writeJSON(w, 200, map[string]any{"access_token": "device-token", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "r1"})
	})
	return issuer
}

// deviceAuthorizer is a device-grant Authorizer whose clock only moves
// when it waits: it records the intervals it waited and the codes shown.
func deviceAuthorizer() (*Authorizer, *[]time.Duration, *[]DeviceAuthorization) {
	var waits []time.Duration
	var shown []DeviceAuthorization
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := New(Options{Grant: GrantDeviceCode, ClientID: "device-client", OfflineAccess: true,
		DeviceCode: func(_ context.Context, d *DeviceAuthorization) error {
			shown = append(shown, *d)
			return nil
		}})
	a.clock = func() time.Time { return now }
	a.wait = func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		now = now.Add(d)
		return nil
	}
	return a, &waits, &shown
}

// The device grant asks for the codes with the scope and the resource,
// shows them, and polls at the server's interval: authorization_pending
// waits one more interval, slow_down adds five seconds to it.
func TestDeviceGrant(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFake(t)
	defer f.close()
	issuer := deviceFake(t, f, "authorization_pending", "slow_down", "authorization_pending")
	a, waits, shown := deviceAuthorizer()
	if err := f.challenge(a, 401, ``); err != nil {
		t.Fatal(err)
	}
	assertPaths(t, f, "GET /.well-known/oauth-protected-resource/mcp", "GET /.well-known/oauth-authorization-server",
		"POST /device_authorization", "POST /token", "POST /token", "POST /token", "POST /token")
	da, _ := f.last("POST /device_authorization")
	if want := (url.Values{"client_id": {"device-client"}, "resource": {f.url("/mcp")}, "scope": {"mcp offline_access"}}); da.Form.Encode() != want.Encode() {
		t.Errorf("device authorization form %s, want %s", da.Form.Encode(), want.Encode())
	}
	tk, _ := f.last("POST /token")
	if want := (url.Values{"client_id": {"device-client"}, "device_code": {"dev-code-1"}, "grant_type": {"urn:ietf:params:oauth:grant-type:device_code"}, "resource": {f.url("/mcp")}}); tk.Form.Encode() != want.Encode() {
		t.Errorf("token form %s, want %s", tk.Form.Encode(), want.Encode())
	}
	if want := []time.Duration{2 * time.Second, 2 * time.Second, 7 * time.Second, 7 * time.Second}; !reflect.DeepEqual(*waits, want) {
		t.Errorf("waited %v, want %v", *waits, want)
	}
	if len(*shown) != 1 || (*shown)[0].UserCode != "WDJB-MJHT" || (*shown)[0].VerificationURI != issuer+"/device" ||
		(*shown)[0].VerificationURIComplete != issuer+"/device?user_code=WDJB-MJHT" || (*shown)[0].Interval != 2*time.Second ||
		!(*shown)[0].Expires.Equal(time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC)) {
		t.Errorf("shown %+v", *shown)
	}
	if c := a.Credentials(); c == nil || c.Token.AccessToken != "device-token" || c.Token.RefreshToken != "r1" || c.Scope != "mcp offline_access" {
		t.Errorf("credentials %+v", c)
	}
}

// access_denied and expired_token end the grant with their errors; so
// does a code the user has not approved when it expires.
func TestDeviceGrantEnds(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, tc := range []struct {
		answers []string
		want    error
		msg     string
	}{
		{[]string{"authorization_pending", "access_denied"}, ErrAccessDenied,
			"auth: authorization denied: the user code WDJB-MJHT was refused: auth: %s/token answered HTTP 400: access_denied: as scripted"},
		{[]string{"expired_token"}, ErrDeviceCodeExpired,
			"auth: device code expired: auth: %s/token answered HTTP 400: expired_token: as scripted"},
		{[]string{"invalid_client"}, nil,
			"auth: %s/token answered HTTP 400: invalid_client: as scripted"},
	} {
		f := newFake(t)
		deviceFake(t, f, tc.answers...)
		a, _, _ := deviceAuthorizer()
		err := f.challenge(a, 401, ``)
		var oe *OAuthError
		if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) || !errors.As(err, &oe) || err.Error() != fmt.Sprintf(tc.msg, f.url("")) {
			t.Errorf("%v: err %v, want %v: %s", tc.answers, err, tc.want, fmt.Sprintf(tc.msg, f.url("")))
		}
		f.close()
	}

	// Pending until it expires: 600s at a 2s interval.
	f := newFake(t)
	defer f.close()
	pending := make([]string, 400)
	for i := range pending {
		pending[i] = "authorization_pending"
	}
	deviceFake(t, f, pending...)
	a, waits, _ := deviceAuthorizer()
	err := f.challenge(a, 401, ``)
	if !errors.Is(err, ErrDeviceCodeExpired) || err.Error() != "auth: device code expired: the user code WDJB-MJHT was not approved before it expired" || len(*waits) != 299 {
		t.Errorf("err %v after %d polls", err, len(*waits))
	}
}

// A server without a device authorization endpoint is refused before
// anything is asked of the user.
func TestDeviceGrantUnsupported(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFake(t)
	defer f.close()
	issuer := f.setupAS(asOptions{})
	f.setupPRM("/.well-known/oauth-protected-resource/mcp", f.url("/mcp"), issuer, nil)
	a, _, shown := deviceAuthorizer()
	err := f.challenge(a, 401, ``)
	if !errors.Is(err, ErrDeviceGrantUnsupported) || len(*shown) != 0 {
		t.Errorf("err %v, shown %v", err, *shown)
	}
}

// Dynamic registration for the device grant asks for it, without a
// redirect URI.
func TestDeviceGrantRegistration(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFake(t)
	defer f.close()
	deviceFake(t, f)
	a, _, _ := deviceAuthorizer()
	a.opts.ClientID = ""
	if err := f.challenge(a, 401, ``); err != nil {
		t.Fatal(err)
	}
	reg, _ := f.last("POST /register")
	if want := `{"client_name":"mcpkit","grant_types":["urn:ietf:params:oauth:grant-type:device_code","refresh_token"],"token_endpoint_auth_method":"none","application_type":"native"}`; reg.Body != want {
		t.Errorf("registration %s, want %s", reg.Body, want)
	}
}
