package devserver_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
	"github.com/lestrrat-go/jwx/v3/jwt"
	"go.uber.org/goleak"
	"golang.org/x/oauth2"

	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/auth/devserver"
)

// logCounter counts the dev server's log lines by message.
type logCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *logCounter) Enabled(context.Context, slog.Level) bool { return true }
func (c *logCounter) Handle(_ context.Context, r slog.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = make(map[string]int)
	}
	c.n[r.Message]++
	return nil
}
func (c *logCounter) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c *logCounter) WithGroup(string) slog.Handler      { return c }
func (c *logCounter) count(msg string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[msg]
}

func start(t *testing.T, opts devserver.Options) (*devserver.Server, *logCounter) {
	t.Helper()
	logs := &logCounter{}
	opts.Logger = slog.New(logs)
	s, err := devserver.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, logs
}

// resourceServer is a protected MCP endpoint at /mcp whose protected
// resource metadata names the dev server; it answers 401 without a
// bearer token and 200 with any.
func resourceServer(t *testing.T, issuer string) *httptest.Server {
	t.Helper()
	var rs *httptest.Server
	rs = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/oauth-protected-resource/mcp":
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"resource": rs.URL + "/mcp", "authorization_servers": []string{issuer}, "scopes_supported": []string{"mcp:tools"}})
		case "/mcp":
			if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
				w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+rs.URL+`/.well-known/oauth-protected-resource/mcp"`)
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			w.WriteHeader(http.StatusOK)
		default:
			http.NotFound(w, r)
		}
	}))
	return rs
}

// noRedirect is an HTTP client that returns redirects instead of following
// them.
func noRedirect() *http.Client {
	return &http.Client{
		Transport:     &http.Transport{},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// autoApprove is an auth.Options.Redirect that follows the dev server's
// auto-approval: the Location of GET authorizationURL.
func autoApprove(hc *http.Client, seen *[]url.Values) func(ctx context.Context, authorizationURL string) (*url.URL, error) {
	return func(ctx context.Context, authorizationURL string) (*url.URL, error) {
		au, _ := url.Parse(authorizationURL)
		*seen = append(*seen, au.Query())
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, authorizationURL, nil)
		if err != nil {
			return nil, err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusFound {
			return nil, errors.New(resp.Status)
		}
		return url.Parse(resp.Header.Get("Location"))
	}
}

// authorize makes a's first request to the resource fail with 401 and
// reauthorize, and returns the access token it then presents.
func authorize(t *testing.T, a *auth.Authorizer, hc *http.Client, resource string) string {
	t.Helper()
	ctx := context.Background()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, resource, nil)
	if err := a.Authorize(ctx, req); err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized {
		if err := a.Reauthorize(ctx, req, resp); err != nil {
			t.Fatalf("Reauthorize: %v", err)
		}
	}
	return bearer(t, a, resource)
}

// bearer returns the token a presents now.
func bearer(t *testing.T, a *auth.Authorizer, resource string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, resource, nil)
	if err := a.Authorize(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	tok, ok := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	if !ok {
		t.Fatalf("Authorization %q after the authorization", req.Header.Get("Authorization"))
	}
	return tok
}

// claims verifies tok with the dev server's keys and returns its claims.
func claims(t *testing.T, s *devserver.Server, tok string) map[string]any {
	t.Helper()
	parsed, err := jwt.Parse([]byte(tok), jwt.WithKeySet(s.PublicKeys()), jwt.WithValidate(true))
	if err != nil {
		t.Fatalf("verifying the access token: %v", err)
	}
	msg, err := jws.Parse([]byte(tok))
	if err != nil {
		t.Fatal(err)
	}
	if typ, _ := msg.Signatures()[0].ProtectedHeaders().Type(); typ != "at+jwt" {
		t.Errorf("typ %q, want at+jwt", typ)
	}
	data, err := json.Marshal(parsed)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func checkClaims(t *testing.T, got map[string]any, issuer, sub, aud, scope, clientID string) {
	t.Helper()
	want := map[string]any{"iss": issuer, "sub": sub, "aud": []any{aud}, "scope": scope, "client_id": clientID}
	for k, v := range want {
		if !reflect.DeepEqual(got[k], v) {
			t.Errorf("claim %s = %v, want %v", k, got[k], v)
		}
	}
	exp, _ := got["exp"].(float64)
	iat, _ := got["iat"].(float64)
	if exp-iat != 3600 {
		t.Errorf("exp - iat = %v, want 3600 (the default token lifetime)", exp-iat)
	}
	if got["jti"] == "" || got["jti"] == nil {
		t.Errorf("no jti in %v", got)
	}
}

// TestFlowDynamicRegistration drives the auth package's client through
// discovery, RFC 7591 registration, the authorization code grant with
// PKCE and iss, and a refresh with rotation.
func TestFlowDynamicRegistration(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s, logs := start(t, devserver.Options{})
	defer s.Close()
	rs := resourceServer(t, s.Issuer())
	defer rs.Close()
	hc := noRedirect()
	defer hc.CloseIdleConnections()
	var seen []url.Values
	a := auth.New(auth.Options{
		HTTPClient:    hc,
		RedirectURL:   "http://127.0.0.1:9/callback", // never reached: the test follows the redirect
		Redirect:      autoApprove(hc, &seen),
		OfflineAccess: true,
	})
	resource := rs.URL + "/mcp"
	tok := authorize(t, a, hc, resource)
	c := a.Credentials()
	if !c.Registered || !strings.HasPrefix(c.ClientID, "dev-") || c.AuthMethod != "none" {
		t.Errorf("client %+v: want a registered public client", c)
	}
	checkClaims(t, claims(t, s, tok), s.Issuer(), "dev-user", resource, "mcp:tools offline_access", c.ClientID)
	if len(seen) != 1 || seen[0].Get("code_challenge_method") != "S256" || seen[0].Get("resource") != resource {
		t.Errorf("authorization requests %v", seen)
	}
	if n := logs.count("devserver: authorization granted"); n != 1 {
		t.Errorf("%d authorizations granted, want 1", n)
	}

	// The client's own refresh path: a 401 with a token makes it refresh
	// (not authorize again) with the refresh token it holds.
	oldRefresh := c.Token.RefreshToken
	if oldRefresh == "" {
		t.Fatal("no refresh token")
	}
	ctx := context.Background()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, resource, nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp := &http.Response{StatusCode: http.StatusUnauthorized, Header: http.Header{"Www-Authenticate": {`Bearer error="invalid_token"`}}}
	if err := a.Reauthorize(ctx, req, resp); err != nil {
		t.Fatalf("Reauthorize with a refresh token: %v", err)
	}
	if n := logs.count("devserver: authorization granted"); n != 1 {
		t.Errorf("%d authorizations granted after the refresh, want still 1", n)
	}
	newRefresh := a.Credentials().Token.RefreshToken
	if newRefresh == oldRefresh || newRefresh == "" {
		t.Errorf("refresh token %q after the refresh: not rotated", newRefresh)
	}
	tok2 := bearer(t, a, resource)
	if tok2 == tok {
		t.Error("the same access token after the refresh")
	}
	checkClaims(t, claims(t, s, tok2), s.Issuer(), "dev-user", resource, "mcp:tools offline_access", c.ClientID)

	// Rotation: a refresh token works once.
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {oldRefresh}, "client_id": {c.ClientID}, "resource": {resource}}
	status, body := post(t, hc, s.Issuer()+"/token", form)
	if want := `{"error":"invalid_grant","error_description":"unknown or used refresh token"}` + "\n"; status != http.StatusBadRequest || body != want {
		t.Errorf("reused refresh token: %d %s, want 400 %s", status, body, want)
	}
	form.Set("refresh_token", newRefresh)
	form.Set("scope", "mcp:tools")
	status, body = post(t, hc, s.Issuer()+"/token", form)
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil || status != http.StatusOK {
		t.Fatalf("refresh: %d %s", status, body)
	}
	if m["refresh_token"] == newRefresh || m["token_type"] != "Bearer" || m["scope"] != "mcp:tools" || m["expires_in"] != float64(3600) {
		t.Errorf("refresh response %v", m)
	}
	checkClaims(t, claims(t, s, m["access_token"].(string)), s.Issuer(), "dev-user", resource, "mcp:tools", c.ClientID)
	form.Set("refresh_token", m["refresh_token"].(string))
	form.Set("scope", "mcp:admin")
	status, body = post(t, hc, s.Issuer()+"/token", form)
	if want := `{"error":"invalid_scope","error_description":"scope \"mcp:admin\" was not granted"}` + "\n"; status != http.StatusBadRequest || body != want {
		t.Errorf("wider scope on refresh: %d %s, want 400 %s", status, body, want)
	}
}

// TestFlowClientMetadataDocument uses a client ID metadata document
// served over loopback http, and a configured subject.
func TestFlowClientMetadataDocument(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s, logs := start(t, devserver.Options{Subject: "alice"})
	defer s.Close()
	rs := resourceServer(t, s.Issuer())
	defer rs.Close()
	const redirect = "http://127.0.0.1:9/callback"
	var doc *httptest.Server
	doc = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"client_id": doc.URL + "/client.json", "client_name": "test", "redirect_uris": []string{redirect}, "token_endpoint_auth_method": "none"})
	}))
	defer doc.Close()
	hc := noRedirect()
	defer hc.CloseIdleConnections()
	var seen []url.Values
	a := auth.New(auth.Options{HTTPClient: hc, RedirectURL: redirect, Redirect: autoApprove(hc, &seen), ClientMetadataURL: doc.URL + "/client.json"})
	resource := rs.URL + "/mcp"
	tok := authorize(t, a, hc, resource)
	checkClaims(t, claims(t, s, tok), s.Issuer(), "alice", resource, "mcp:tools", doc.URL+"/client.json")
	if n := logs.count("devserver: registered a client"); n != 0 {
		t.Errorf("%d registrations, want none with a metadata document", n)
	}
}

func post(t *testing.T, hc *http.Client, u string, form url.Values) (int, string) {
	t.Helper()
	resp, err := hc.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

func postJSON(t *testing.T, hc *http.Client, u, body string) (int, string) {
	t.Helper()
	resp, err := hc.Post(u, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// TestMetadata checks the RFC 8414 document.
func TestMetadata(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s, _ := start(t, devserver.Options{Scopes: []string{"mcp:tools"}})
	defer s.Close()
	hc := noRedirect()
	defer hc.CloseIdleConnections()
	resp, err := hc.Get(s.Issuer() + "/.well-known/oauth-authorization-server")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"issuer":                                         s.Issuer(),
		"authorization_endpoint":                         s.Issuer() + "/authorize",
		"token_endpoint":                                 s.Issuer() + "/token",
		"registration_endpoint":                          s.Issuer() + "/register",
		"device_authorization_endpoint":                  s.Issuer() + "/device_authorization",
		"jwks_uri":                                       s.Issuer() + "/jwks",
		"scopes_supported":                               []any{"mcp:tools", "offline_access"},
		"response_types_supported":                       []any{"code"},
		"grant_types_supported":                          []any{"authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code"},
		"code_challenge_methods_supported":               []any{"S256"},
		"token_endpoint_auth_methods_supported":          []any{"none", "client_secret_basic", "client_secret_post"},
		"authorization_response_iss_parameter_supported": true,
		"client_id_metadata_document_supported":          true,
	}
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if !bytes.Equal(gj, wj) {
		t.Errorf("metadata\n got %s\nwant %s", gj, wj)
	}
}

// TestRefusals checks what the server refuses, with the exact answers.
func TestRefusals(t *testing.T) {
	// A refused oversized body makes net/http linger on the connection
	// half a second before closing it.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(), goleak.IgnoreAnyFunction("net/http.(*conn).closeWriteAndWait"))
	s, _ := start(t, devserver.Options{MaxClients: 2, MaxBodyBytes: 1024})
	defer s.Close()
	hc := noRedirect()
	defer hc.CloseIdleConnections()
	is := s.Issuer()
	const redirect = "http://127.0.0.1:5555/cb"

	status, body := postJSON(t, hc, is+"/register", `{"redirect_uris":["http://example.com/cb"]}`)
	if want := `{"error":"invalid_redirect_uri","error_description":"\"http://example.com/cb\" is not an https, loopback http or private-use redirect URI"}` + "\n"; status != 400 || body != want {
		t.Errorf("register with a non-loopback http redirect: %d %s", status, body)
	}
	status, body = postJSON(t, hc, is+"/register", `{"redirect_uris":["`+redirect+`"],"token_endpoint_auth_method":"client_secret_post"}`)
	var secretClient struct{ ClientID, ClientSecret string }
	var reg map[string]any
	json.Unmarshal([]byte(body), &reg)
	if status != 201 || reg["client_secret"] == "" || reg["token_endpoint_auth_method"] != "client_secret_post" {
		t.Fatalf("register: %d %s", status, body)
	}
	secretClient.ClientID, secretClient.ClientSecret = reg["client_id"].(string), reg["client_secret"].(string)
	status, body = postJSON(t, hc, is+"/register", `{"redirect_uris":["`+redirect+`"],"token_endpoint_auth_method":"none"}`)
	json.Unmarshal([]byte(body), &reg)
	public := reg["client_id"].(string)
	if status != 201 || reg["client_secret"] != "" {
		t.Fatalf("register a public client: %d %s", status, body)
	}
	status, body = postJSON(t, hc, is+"/register", `{"redirect_uris":["`+redirect+`"]}`)
	if want := `{"error":"invalid_client_metadata","error_description":"too many clients: the development server keeps at most 2 (Options.MaxClients)"}` + "\n"; status != 400 || body != want {
		t.Errorf("third client: %d %s, want 400 %s", status, body, want)
	}
	status, body = postJSON(t, hc, is+"/register", `{"redirect_uris":["`+strings.Repeat("a", 2000)+`"]}`)
	if want := `{"error":"invalid_request","error_description":"request body too large"}` + "\n"; status != 400 || body != want {
		t.Errorf("long registration: %d %s, want 400 %s", status, body, want)
	}

	authz := func(q url.Values) *http.Response {
		t.Helper()
		resp, err := hc.Get(is + "/authorize?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	const verifier = "0123456789012345678901234567890123456789abcdef"
	challenge := oauth2.S256ChallengeFromVerifier(verifier)
	good := url.Values{"response_type": {"code"}, "client_id": {public}, "redirect_uri": {"http://127.0.0.1:6000/cb"}, "state": {"st"}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}, "resource": {"http://127.0.0.1:1/mcp"}, "scope": {"a b"}}
	with := func(k, v string) url.Values {
		q := url.Values{}
		for kk, vv := range good {
			q[kk] = vv
		}
		if v == "" {
			q.Del(k)
		} else {
			q.Set(k, v)
		}
		return q
	}
	for _, tc := range []struct {
		name     string
		q        url.Values
		status   int
		location string
	}{
		{"unknown client", with("client_id", "nobody"), 400, ""},
		{"unregistered redirect", with("redirect_uri", "http://127.0.0.1:6000/other"), 400, ""},
		{"no PKCE", with("code_challenge", ""), 302, "http://127.0.0.1:6000/cb?error=invalid_request&error_description=code_challenge+is+required+%28PKCE%29&iss=" + url.QueryEscape(is) + "&state=st"},
		{"plain PKCE", with("code_challenge_method", "plain"), 302, "http://127.0.0.1:6000/cb?error=invalid_request&error_description=code_challenge_method+must+be+S256&iss=" + url.QueryEscape(is) + "&state=st"},
		{"no resource", with("resource", ""), 302, "http://127.0.0.1:6000/cb?error=invalid_target&error_description=resource+is+required+%28RFC+8707%29%3A+the+MCP+server%27s+URI&iss=" + url.QueryEscape(is) + "&state=st"},
	} {
		resp := authz(tc.q)
		if resp.StatusCode != tc.status || resp.Header.Get("Location") != tc.location {
			t.Errorf("%s: %d %q, want %d %q", tc.name, resp.StatusCode, resp.Header.Get("Location"), tc.status, tc.location)
		}
	}

	// A loopback redirect URI on another port is the same one (RFC 8252).
	code := func() string {
		t.Helper()
		resp := authz(good)
		loc, _ := url.Parse(resp.Header.Get("Location"))
		if resp.StatusCode != 302 || loc.Query().Get("code") == "" || loc.Query().Get("iss") != is || loc.Query().Get("state") != "st" {
			t.Fatalf("authorize: %d %s", resp.StatusCode, loc)
		}
		return loc.Query().Get("code")
	}
	exchange := url.Values{"grant_type": {"authorization_code"}, "client_id": {public}, "redirect_uri": {"http://127.0.0.1:6000/cb"}, "code_verifier": {verifier}, "resource": {"http://127.0.0.1:1/mcp"}}
	for _, tc := range []struct {
		name, key, value, want string
		status                 int
	}{
		{"wrong verifier", "code_verifier", strings.Repeat("x", 43), `{"error":"invalid_grant","error_description":"code_verifier does not match the code_challenge"}`, 400},
		{"wrong redirect", "redirect_uri", "http://127.0.0.1:6001/cb", `{"error":"invalid_grant","error_description":"redirect_uri differs from the authorization request's"}`, 400},
		{"wrong resource", "resource", "http://127.0.0.1:2/mcp", `{"error":"invalid_target","error_description":"resource \"http://127.0.0.1:2/mcp\" differs from the authorization request's \"http://127.0.0.1:1/mcp\""}`, 400},
		{"unknown client", "client_id", "nobody", `{"error":"invalid_client","error_description":"unknown client \"nobody\""}`, 401},
		{"secret of a public client", "client_secret", "x", `{"error":"invalid_client","error_description":"client authentication failed: the client is registered with none"}`, 401},
	} {
		f := url.Values{"code": {code()}}
		for k, v := range exchange {
			f[k] = v
		}
		f.Set(tc.key, tc.value)
		status, body := post(t, hc, is+"/token", f)
		if status != tc.status || body != tc.want+"\n" {
			t.Errorf("%s: %d %s, want %d %s", tc.name, status, body, tc.status, tc.want)
		}
	}
	// A code works once.
	f := url.Values{"code": {code()}}
	for k, v := range exchange {
		f[k] = v
	}
	if status, body := post(t, hc, is+"/token", f); status != 200 {
		t.Fatalf("exchange: %d %s", status, body)
	}
	if status, body := post(t, hc, is+"/token", f); status != 400 || body != `{"error":"invalid_grant","error_description":"unknown, used or expired authorization code"}`+"\n" {
		t.Errorf("second exchange: %d %s", status, body)
	}
	// client_secret_post clients must send their secret.
	status, body = post(t, hc, is+"/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"x"}, "client_id": {secretClient.ClientID}, "client_secret": {"wrong"}})
	if status != 401 || body != `{"error":"invalid_client","error_description":"client authentication failed: the client is registered with client_secret_post"}`+"\n" {
		t.Errorf("wrong secret: %d %s", status, body)
	}
}

// TestStartRefusesNonLoopback: the server never listens beyond loopback.
func TestStartRefusesNonLoopback(t *testing.T) {
	_, err := devserver.Start(devserver.Options{Addr: "0.0.0.0:0"})
	want := `devserver: address "0.0.0.0:0": the development server listens only on a loopback IP address such as 127.0.0.1`
	if err == nil || err.Error() != want {
		t.Errorf("Start(0.0.0.0:0) = %v, want %s", err, want)
	}
}

// TestLoadKey: a loaded key is the one the JWKS publishes.
func TestLoadKey(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	if _, err := devserver.LoadKey([]byte("nothing")); err == nil || err.Error() != "devserver: no PEM block in the key" {
		t.Errorf("LoadKey(garbage) = %v", err)
	}
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := devserver.LoadKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	if err != nil {
		t.Fatal(err)
	}
	s, err := devserver.Start(devserver.Options{Key: loaded})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pub, ok := s.PublicKeys().Key(0)
	if !ok {
		t.Fatal("empty JWKS")
	}
	var raw ecdsa.PublicKey
	if err := jwk.Export(pub, &raw); err != nil {
		t.Fatal(err)
	}
	if !raw.Equal(&k.PublicKey) {
		t.Error("the JWKS does not publish the loaded key")
	}
}

// TestGrantLimit: past MaxGrants outstanding codes and refresh tokens,
// /authorize redirects with temporarily_unavailable.
func TestGrantLimit(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s, _ := start(t, devserver.Options{MaxGrants: 1})
	defer s.Close()
	hc := noRedirect()
	defer hc.CloseIdleConnections()
	_, body := postJSON(t, hc, s.Issuer()+"/register", `{"redirect_uris":["http://127.0.0.1:7000/cb"],"token_endpoint_auth_method":"none"}`)
	var reg struct {
		ClientID string `json:"client_id"`
	}
	json.Unmarshal([]byte(body), &reg)
	q := url.Values{"response_type": {"code"}, "client_id": {reg.ClientID}, "redirect_uri": {"http://127.0.0.1:7000/cb"}, "code_challenge": {"x"}, "code_challenge_method": {"S256"}, "resource": {"http://127.0.0.1:1/mcp"}}
	var locs []string
	for range 2 {
		resp, err := hc.Get(s.Issuer() + "/authorize?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		locs = append(locs, resp.Header.Get("Location"))
	}
	if !strings.Contains(locs[0], "code=") {
		t.Errorf("first authorization: %s", locs[0])
	}
	if want := "http://127.0.0.1:7000/cb?error=temporarily_unavailable&error_description=too+many+outstanding+grants%3A+at+most+1+%28Options.MaxGrants%29&iss=" + url.QueryEscape(s.Issuer()); locs[1] != want {
		t.Errorf("second authorization: %s, want %s", locs[1], want)
	}
}

// TestClientMetadataDocumentRefused: a document whose client_id is not
// its URL is refused before any redirect.
func TestClientMetadataDocumentRefused(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s, _ := start(t, devserver.Options{})
	defer s.Close()
	doc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"client_id":"https://elsewhere.example/client.json","redirect_uris":["http://127.0.0.1:7000/cb"]}`)
	}))
	defer doc.Close()
	hc := noRedirect()
	defer hc.CloseIdleConnections()
	q := url.Values{"response_type": {"code"}, "client_id": {doc.URL + "/client.json"}, "redirect_uri": {"http://127.0.0.1:7000/cb"}, "code_challenge": {"x"}, "code_challenge_method": {"S256"}, "resource": {"http://127.0.0.1:1/mcp"}}
	resp, err := hc.Get(s.Issuer() + "/authorize?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := "devserver: client metadata document: the document's client_id \"https://elsewhere.example/client.json\" is not its URL\n"; resp.StatusCode != 400 || string(data) != want {
		t.Errorf("%d %q, want 400 %q", resp.StatusCode, data, want)
	}
}
