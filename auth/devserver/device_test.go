package devserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/auth/devserver"
)

// deviceClient registers a public client of the device grant alone (no
// redirect URI) and returns its id.
func deviceClient(t *testing.T, hc *http.Client, s *devserver.Server) string {
	t.Helper()
	code, body := postJSON(t, hc, s.Issuer()+"/register", `{"grant_types":["urn:ietf:params:oauth:grant-type:device_code","refresh_token"],"token_endpoint_auth_method":"none","client_name":"tv"}`)
	var reg map[string]any
	if err := json.Unmarshal([]byte(body), &reg); code != http.StatusCreated || err != nil {
		t.Fatalf("register: %d %s", code, body)
	}
	if rt, _ := json.Marshal(reg["response_types"]); string(rt) != "[]" {
		t.Errorf("response_types %s, want []", rt)
	}
	return reg["client_id"].(string)
}

// The device grant step by step over HTTP: the codes, pending, slow_down
// to a client that polls too soon, the user's approval on the page's
// form, then a token for the resource and scope asked; a used device
// code is unknown; a denied one is access_denied.
func TestDeviceGrantHTTP(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s, logs := start(t, devserver.Options{DeviceInterval: time.Hour}) // every second poll is too soon
	defer s.Close()
	hc := noRedirect()
	defer hc.CloseIdleConnections()
	id := deviceClient(t, hc, s)

	codes := func() (device, user string) {
		t.Helper()
		code, body := post(t, hc, s.Issuer()+"/device_authorization", url.Values{"client_id": {id}, "resource": {"https://mcp.example/mcp"}, "scope": {"mcp"}})
		var d map[string]any
		if err := json.Unmarshal([]byte(body), &d); code != http.StatusOK || err != nil {
			t.Fatalf("device authorization: %d %s", code, body)
		}
		user, _ = d["user_code"].(string)
		if !regexp.MustCompile(`^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$`).MatchString(user) ||
			d["verification_uri"] != s.Issuer()+"/device" || d["verification_uri_complete"] != s.Issuer()+"/device?user_code="+user ||
			d["expires_in"] != 600.0 || d["interval"] != 3600.0 {
			t.Fatalf("device authorization answer %s", body)
		}
		return d["device_code"].(string), user
	}
	poll := func(device string) (int, string) {
		t.Helper()
		return post(t, hc, s.Issuer()+"/token", url.Values{"client_id": {id}, "grant_type": {"urn:ietf:params:oauth:grant-type:device_code"}, "device_code": {device}})
	}
	device, user := codes()
	if code, body := poll(device); code != 400 || body != `{"error":"authorization_pending","error_description":"the user code `+user+` is not approved yet"}`+"\n" {
		t.Errorf("first poll: %d %s", code, body)
	}
	if code, body := poll(device); code != 400 || body != `{"error":"slow_down","error_description":"polled sooner than the interval; it is now 5 seconds longer"}`+"\n" {
		t.Errorf("second poll: %d %s", code, body)
	}
	page, err := hc.Get(s.Issuer() + "/device?user_code=" + user)
	if err != nil {
		t.Fatal(err)
	}
	page.Body.Close()
	if page.StatusCode != http.StatusOK || !strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") {
		t.Errorf("GET /device: %d %s", page.StatusCode, page.Header.Get("Content-Type"))
	}
	// Typed in lower case, without the dash.
	if code, body := post(t, hc, s.Issuer()+"/device", url.Values{"user_code": {strings.ToLower(strings.ReplaceAll(user, "-", ""))}, "action": {"approve"}}); code != http.StatusOK || !strings.Contains(body, "approved: the device gets its token at its next poll") {
		t.Errorf("approve: %d %s", code, body)
	}
	if code, body := post(t, hc, s.Issuer()+"/device", url.Values{"user_code": {user}, "action": {"approve"}}); code != http.StatusNotFound || !strings.Contains(body, "unknown, already decided or expired user code") {
		t.Errorf("approving again: %d %s", code, body)
	}
	code, body := poll(device)
	var tok map[string]any
	if err := json.Unmarshal([]byte(body), &tok); code != http.StatusOK || err != nil || tok["refresh_token"] == "" {
		t.Fatalf("poll after the approval: %d %s", code, body)
	}
	checkClaims(t, claims(t, s, tok["access_token"].(string)), s.Issuer(), devserver.DefaultSubject, "https://mcp.example/mcp", "mcp", id)
	if code, body := poll(device); code != 400 || !strings.Contains(body, `"error":"invalid_grant"`) {
		t.Errorf("poll with the used device code: %d %s", code, body)
	}

	device, user = codes()
	if code, body := post(t, hc, s.Issuer()+"/device", url.Values{"user_code": {user}, "action": {"deny"}}); code != http.StatusOK || !strings.Contains(body, "denied: the device gets no token") {
		t.Errorf("deny: %d %s", code, body)
	}
	if code, body := poll(device); code != 400 || body != `{"error":"access_denied","error_description":"the user denied the authorization"}`+"\n" {
		t.Errorf("poll after the denial: %d %s", code, body)
	}
	if n := logs.count("devserver: authorization granted"); n != 1 {
		t.Errorf("%d grants logged, want 1", n)
	}
}

// The auth package's client runs the device grant against the dev
// server: registration without a redirect URI, the code shown, polls
// until the user approved on the page.
func TestFlowDeviceGrant(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s, _ := start(t, devserver.Options{DeviceInterval: time.Second})
	defer s.Close()
	rs := resourceServer(t, s.Issuer())
	defer rs.Close()
	hc := noRedirect()
	defer hc.CloseIdleConnections()
	approved := make(chan error, 1)
	a := auth.New(auth.Options{HTTPClient: hc, Grant: auth.GrantDeviceCode, DeviceCode: func(_ context.Context, d *auth.DeviceAuthorization) error {
		go func() {
			resp, err := hc.PostForm(s.Issuer()+"/device", url.Values{"user_code": {d.UserCode}, "action": {"approve"}})
			if err == nil {
				resp.Body.Close()
			}
			approved <- err
		}()
		return nil
	}})
	tok := authorize(t, a, hc, rs.URL+"/mcp")
	if err := <-approved; err != nil {
		t.Fatal(err)
	}
	c := a.Credentials()
	checkClaims(t, claims(t, s, tok), s.Issuer(), devserver.DefaultSubject, rs.URL+"/mcp", "mcp:tools", c.ClientID)
}
