package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
	"github.com/lestrrat-go/jwx/v3/jwt"
	"go.uber.org/goleak"
	"golang.org/x/oauth2"
)

func assertPaths(t *testing.T, f *fake, want ...string) {
	t.Helper()
	if got := f.paths(); !slices.Equal(got, want) {
		t.Fatalf("requests:\n got %q\nwant %q", got, want)
	}
}

// The challenge's resource_metadata is used first, and the root PRM is
// never fetched when it answers; AS metadata of an issuer without a path
// at the RFC 8414 URL.
func TestDiscoveryPRMFromChallenge(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFake(t)
	defer f.close()
	issuer := f.setupAS(asOptions{})
	f.setupPRM("/custom/prm.json", f.url("/mcp"), issuer, nil)
	a := New(codeOptions())
	if err := f.challenge(a, 401, `Bearer resource_metadata="`+f.url("/custom/prm.json")+`"`); err != nil {
		t.Fatal(err)
	}
	assertPaths(t, f,
		"GET /custom/prm.json",
		"GET /.well-known/oauth-authorization-server",
		"POST /register",
		"GET /authorize",
		"POST /token")
	if c := a.Credentials(); c.Token.AccessToken != "test-token-1" || c.Issuer != issuer || c.ClientID != "registered-" {
		t.Fatalf("credentials %+v", c)
	}
}

// Without a header URL: the path-based PRM URL, then the root one (whose
// resource, the origin, covers the server URL by prefix); then, for an
// issuer with a path: RFC 8414 insertion, OIDC insertion, OIDC appending,
// never the root metadata.
func TestDiscoveryOrderIssuerWithPath(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFake(t)
	defer f.close()
	issuer := f.setupAS(asOptions{prefix: "/tenant1", mdPath: "/tenant1/.well-known/openid-configuration"})
	f.setupPRM("/.well-known/oauth-protected-resource", f.url(""), issuer, nil)
	a := New(codeOptions())
	if err := f.challenge(a, 401, `Bearer`); err != nil {
		t.Fatal(err)
	}
	assertPaths(t, f,
		"GET /.well-known/oauth-protected-resource/mcp",
		"GET /.well-known/oauth-protected-resource",
		"GET /.well-known/oauth-authorization-server/tenant1",
		"GET /.well-known/openid-configuration/tenant1",
		"GET /tenant1/.well-known/openid-configuration",
		"POST /tenant1/register",
		"GET /tenant1/authorize",
		"POST /tenant1/token")
	s, _ := f.last("GET /tenant1/authorize")
	if got := s.Query.Get("resource"); got != f.url("") {
		t.Fatalf("resource %q, want the PRM's %q", got, f.url(""))
	}
}

// An issuer without a path: RFC 8414, then OIDC.
func TestDiscoveryOrderIssuerWithoutPath(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFake(t)
	defer f.close()
	issuer := f.setupAS(asOptions{mdPath: "/.well-known/openid-configuration"})
	f.setupPRM("/.well-known/oauth-protected-resource/mcp", f.url("/mcp"), issuer, nil)
	a := New(codeOptions())
	if err := f.challenge(a, 401, ``); err != nil {
		t.Fatal(err)
	}
	assertPaths(t, f,
		"GET /.well-known/oauth-protected-resource/mcp",
		"GET /.well-known/oauth-authorization-server",
		"GET /.well-known/openid-configuration",
		"POST /register",
		"GET /authorize",
		"POST /token")
}

// A PRM whose resource is another origin stops before any authorization
// server request.
func TestResourceMismatch(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFake(t)
	defer f.close()
	issuer := f.setupAS(asOptions{})
	f.setupPRM("/.well-known/oauth-protected-resource/mcp", "https://evil.example.com/mcp", issuer, nil)
	a := New(codeOptions())
	err := f.challenge(a, 401, `Bearer resource_metadata="`+f.url("/.well-known/oauth-protected-resource/mcp")+`"`)
	if !errors.Is(err, ErrResourceMismatch) {
		t.Fatalf("err %v, want ErrResourceMismatch", err)
	}
	assertPaths(t, f, "GET /.well-known/oauth-protected-resource/mcp")
	// A resource on the same origin whose path is not a prefix.
	f.reset()
	f.setupPRM("/.well-known/oauth-protected-resource/mcp", f.url("/other"), issuer, nil)
	if err := f.challenge(a, 401, ``); !errors.Is(err, ErrResourceMismatch) {
		t.Fatalf("err %v, want ErrResourceMismatch", err)
	}
}

// Metadata whose issuer differs is not used: no registration,
// authorization or token request.
func TestIssuerMismatch(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFake(t)
	defer f.close()
	issuer := f.setupAS(asOptions{issuer: "https://attacker.example.com"})
	f.setupPRM("/.well-known/oauth-protected-resource/mcp", f.url("/mcp"), issuer, nil)
	a := New(codeOptions())
	err := f.challenge(a, 401, ``)
	if !errors.Is(err, ErrIssuerMismatch) {
		t.Fatalf("err %v, want ErrIssuerMismatch", err)
	}
	assertPaths(t, f, "GET /.well-known/oauth-protected-resource/mcp", "GET /.well-known/oauth-authorization-server")
}

// No PRM and no metadata: the 2025-03-26 default endpoints on the
// server's origin.
func TestLegacyEndpointFallback(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFake(t)
	defer f.close()
	issuer := f.setupAS(asOptions{mdPath: "/nowhere", issParam: "omit"})
	_ = issuer
	a := New(codeOptions())
	if err := f.challenge(a, 401, `Bearer`); err != nil {
		t.Fatal(err)
	}
	assertPaths(t, f,
		"GET /.well-known/oauth-protected-resource/mcp",
		"GET /.well-known/oauth-protected-resource",
		"GET /.well-known/oauth-authorization-server",
		"POST /register",
		"GET /authorize",
		"POST /token")
	s, _ := f.last("POST /token")
	if got := s.Form.Get("resource"); got != f.url("/mcp") {
		t.Fatalf("resource %q", got)
	}
}

// The authorization request and the token request, exactly: PKCE S256
// (the verifier matches the challenge), state, resource, scope from the
// challenge; the DCR body with application_type native and, with
// OfflineAccess, the refresh_token grant.
func TestAuthorizationCodeRequests(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFake(t)
	defer f.close()
	issuer := f.setupAS(asOptions{})
	f.setupPRM("/.well-known/oauth-protected-resource/mcp", f.url("/mcp"), issuer, []string{"a", "b"})
	opts := codeOptions()
	opts.OfflineAccess = true
	opts.ClientName = "tester"
	a := New(opts)
	if err := f.challenge(a, 401, `Bearer scope="mcp:basic"`); err != nil {
		t.Fatal(err)
	}
	reg, _ := f.last("POST /register")
	var body map[string]any
	if err := json.Unmarshal([]byte(reg.Body), &body); err != nil {
		t.Fatal(err)
	}
	wantReg := `{"application_type":"native","client_name":"tester","grant_types":["authorization_code","refresh_token"],"redirect_uris":["http://127.0.0.1:9/callback"],"response_types":["code"],"token_endpoint_auth_method":"none"}`
	if got, _ := json.Marshal(body); string(got) != wantReg {
		t.Fatalf("registration body\n got %s\nwant %s", got, wantReg)
	}
	az, _ := f.last("GET /authorize")
	q := az.Query
	state, challenge := q.Get("state"), q.Get("code_challenge")
	if state == "" || challenge == "" {
		t.Fatalf("authorization query %v", q)
	}
	want := url.Values{
		"response_type": {"code"}, "client_id": {"registered-"}, "redirect_uri": {testRedirect},
		"state": {state}, "code_challenge": {challenge}, "code_challenge_method": {"S256"},
		"resource": {f.url("/mcp")}, "scope": {"mcp:basic"},
	}
	if q.Encode() != want.Encode() {
		t.Fatalf("authorization query\n got %s\nwant %s", q.Encode(), want.Encode())
	}
	tk, _ := f.last("POST /token")
	v := tk.Form.Get("code_verifier")
	if oauth2.S256ChallengeFromVerifier(v) != challenge {
		t.Fatalf("verifier %q does not match challenge %q", v, challenge)
	}
	wantTok := url.Values{
		"grant_type": {"authorization_code"}, "code": {"code-1"}, "redirect_uri": {testRedirect},
		"code_verifier": {v}, "resource": {f.url("/mcp")}, "client_id": {"registered-"},
	}
	if tk.Form.Encode() != wantTok.Encode() {
		t.Fatalf("token form\n got %s\nwant %s", tk.Form.Encode(), wantTok.Encode())
	}
	if tk.Header.Get("Authorization") != "" {
		t.Fatalf("auth method none sent Authorization %q", tk.Header.Get("Authorization"))
	}
}

// Scope: the challenge's, else the PRM's scopes_supported, else none;
// offline_access only when the AS lists it.
func TestScopeSelection(t *testing.T) {
	for _, tc := range []struct {
		name      string
		challenge string
		prm       []string
		asScopes  []string
		want      string
		present   bool
	}{
		{"challenge", `Bearer scope="x y"`, []string{"p"}, nil, "x y", true},
		{"prm", `Bearer`, []string{"p", "q"}, nil, "p q", true},
		{"none", `Bearer`, nil, nil, "", false},
		{"offline offered", `Bearer`, []string{"p"}, []string{"p", "offline_access"}, "p offline_access", true},
		{"offline not offered", `Bearer`, []string{"p"}, []string{"p"}, "p", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			defer f.close()
			extra := map[string]any{}
			if tc.asScopes != nil {
				extra["scopes_supported"] = tc.asScopes
			}
			issuer := f.setupAS(asOptions{extra: extra})
			f.setupPRM("/.well-known/oauth-protected-resource/mcp", f.url("/mcp"), issuer, tc.prm)
			opts := codeOptions()
			opts.OfflineAccess = true
			if err := f.challenge(New(opts), 401, tc.challenge); err != nil {
				t.Fatal(err)
			}
			az, _ := f.last("GET /authorize")
			if _, ok := az.Query["scope"]; ok != tc.present || az.Query.Get("scope") != tc.want {
				t.Fatalf("scope %q (present %v), want %q (present %v)", az.Query.Get("scope"), ok, tc.want, tc.present)
			}
		})
	}
}

// state and iss: a wrong state, an advertised iss missing, a wrong iss,
// an iss with a trailing slash, an unadvertised but wrong iss: no token
// request. An unadvertised absent iss and a correct one proceed.
func TestRedirectChecks(t *testing.T) {
	for _, tc := range []struct {
		name       string
		iss        string
		advertised bool
		badState   bool
		want       error
	}{
		{"correct", "correct", true, false, nil},
		{"not advertised, absent", "omit", false, false, nil},
		{"advertised, missing", "omit", true, false, ErrIssMismatch},
		{"wrong", "wrong", true, false, ErrIssMismatch},
		{"normalized", "normalized", true, false, ErrIssMismatch},
		{"unexpected", "wrong", false, false, ErrIssMismatch},
		{"state", "correct", true, true, ErrStateMismatch},
		{"error with a wrong iss", "error-wrong", true, false, ErrIssMismatch},
		{"error", "error", true, false, ErrAccessDenied},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			defer f.close()
			extra := map[string]any{}
			if !tc.advertised {
				extra["authorization_response_iss_parameter_supported"] = nil
			}
			issuer := f.setupAS(asOptions{issParam: tc.iss, extra: extra})
			f.setupPRM("/.well-known/oauth-protected-resource/mcp", f.url("/mcp"), issuer, nil)
			opts := codeOptions()
			if tc.badState {
				opts.Redirect = func(ctx context.Context, u string) (*url.URL, error) {
					back, err := follow(ctx, u)
					if err == nil {
						q := back.Query()
						q.Set("state", "forged")
						back.RawQuery = q.Encode()
					}
					return back, err
				}
			}
			err := f.challenge(New(opts), 401, ``)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			if n := f.count("POST /token"); (n == 1) != (tc.want == nil) {
				t.Fatalf("%d token requests", n)
			}
		})
	}
}

// Client identity: a metadata document URL when the AS supports it (no
// registration); pre-registered credentials with client_secret_basic;
// client_secret_post when that is the only method.
func TestClientIdentity(t *testing.T) {
	t.Run("cimd", func(t *testing.T) {
		f := newFake(t)
		defer f.close()
		issuer := f.setupAS(asOptions{extra: map[string]any{"client_id_metadata_document_supported": true}})
		f.setupPRM("/.well-known/oauth-protected-resource/mcp", f.url("/mcp"), issuer, nil)
		opts := codeOptions()
		opts.ClientMetadataURL = "https://client.example/meta.json"
		if err := f.challenge(New(opts), 401, ``); err != nil {
			t.Fatal(err)
		}
		if f.count("POST /register") != 0 {
			t.Fatal("registered although CIMD is supported")
		}
		az, _ := f.last("GET /authorize")
		tk, _ := f.last("POST /token")
		if az.Query.Get("client_id") != opts.ClientMetadataURL || tk.Form.Get("client_id") != opts.ClientMetadataURL {
			t.Fatalf("client_id %q / %q", az.Query.Get("client_id"), tk.Form.Get("client_id"))
		}
	})
	for _, tc := range []struct {
		name    string
		methods []string
		basic   bool
	}{
		{"pre-registered basic", []string{"client_secret_basic"}, true},
		{"pre-registered post", []string{"client_secret_post"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			defer f.close()
			issuer := f.setupAS(asOptions{extra: map[string]any{"registration_endpoint": nil, "token_endpoint_auth_methods_supported": tc.methods}})
			f.setupPRM("/.well-known/oauth-protected-resource/mcp", f.url("/mcp"), issuer, nil)
			opts := codeOptions()
			opts.ClientID, opts.ClientSecret = "pre id", "pre:secret"
			if err := f.challenge(New(opts), 401, ``); err != nil {
				t.Fatal(err)
			}
			tk, _ := f.last("POST /token")
			if tc.basic {
				want := "Basic " + base64.StdEncoding.EncodeToString([]byte("pre+id:pre%3Asecret"))
				if tk.Header.Get("Authorization") != want || tk.Form.Has("client_secret") {
					t.Fatalf("Authorization %q, form %v", tk.Header.Get("Authorization"), tk.Form)
				}
			} else if tk.Header.Get("Authorization") != "" || tk.Form.Get("client_id") != "pre id" || tk.Form.Get("client_secret") != "pre:secret" {
				t.Fatalf("Authorization %q, form %v", tk.Header.Get("Authorization"), tk.Form)
			}
		})
	}
	t.Run("none", func(t *testing.T) {
		f := newFake(t)
		defer f.close()
		issuer := f.setupAS(asOptions{extra: map[string]any{"registration_endpoint": nil}})
		f.setupPRM("/.well-known/oauth-protected-resource/mcp", f.url("/mcp"), issuer, nil)
		if err := f.challenge(New(codeOptions()), 401, ``); !errors.Is(err, ErrNoClientIdentity) {
			t.Fatalf("err %v, want ErrNoClientIdentity", err)
		}
	})
}

// A 403 insufficient_scope asks for the union of the granted and the
// challenged scopes.
func TestStepUpScopeUnion(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFake(t)
	defer f.close()
	issuer := f.setupAS(asOptions{})
	f.setupPRM("/.well-known/oauth-protected-resource/mcp", f.url("/mcp"), issuer, nil)
	a := New(codeOptions())
	if err := f.challenge(a, 401, `Bearer scope="mcp:basic"`); err != nil {
		t.Fatal(err)
	}
	if err := f.challenge(a, 403, `Bearer error="insufficient_scope", scope="mcp:write"`); err != nil {
		t.Fatal(err)
	}
	if n := f.count("GET /authorize"); n != 2 {
		t.Fatalf("%d authorization requests", n)
	}
	az, _ := f.last("GET /authorize")
	if got := az.Query.Get("scope"); got != "mcp:basic mcp:write" {
		t.Fatalf("step-up scope %q", got)
	}
	if f.count("POST /register") != 1 {
		t.Fatal("registered twice at the same server")
	}
	if c := a.Credentials(); c.Token.AccessToken != "test-token-2" || c.Scope != "mcp:basic mcp:write" {
		t.Fatalf("credentials %+v", c)
	}
}

// A 401 with a refresh token refreshes before authorizing again.
func TestRefresh(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFake(t)
	defer f.close()
	issuer := f.setupAS(asOptions{})
	f.setupPRM("/.well-known/oauth-protected-resource/mcp", f.url("/mcp"), issuer, nil)
	store := &MemoryStore{}
	store.Save(context.Background(), f.url("/mcp"), &Credentials{
		Issuer: issuer, ClientID: "stored", AuthMethod: "none", Resource: f.url("/mcp"),
		Token: &oauth2.Token{AccessToken: "old", TokenType: "Bearer", RefreshToken: "rt-1"},
	})
	opts := codeOptions()
	opts.Store = store
	a := New(opts)
	if err := f.challenge(a, 401, `Bearer error="invalid_token"`); err != nil {
		t.Fatal(err)
	}
	assertPaths(t, f,
		"GET /.well-known/oauth-protected-resource/mcp",
		"GET /.well-known/oauth-authorization-server",
		"POST /token")
	tk, _ := f.last("POST /token")
	want := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"rt-1"}, "resource": {f.url("/mcp")}, "client_id": {"stored"}}
	if tk.Form.Encode() != want.Encode() {
		t.Fatalf("refresh form %s", tk.Form.Encode())
	}
	c, _ := store.Load(context.Background(), f.url("/mcp"))
	if c.Token.AccessToken != "test-token-1" || c.Token.RefreshToken != "rt-1" {
		t.Fatalf("stored %+v", c.Token)
	}
	// A failed refresh falls back to a new authorization.
	f.reset()
	f.handle("POST /token", func(w http.ResponseWriter, r *http.Request) {
		if s, _ := f.last("POST /token"); s.Form.Get("grant_type") == "refresh_token" {
			writeJSON(w, 400, map[string]any{"error": "invalid_grant"})
			return
		}
		writeJSON(w, 200, map[string]any{"access_token": "fresh", "token_type": "Bearer"})
	})
	if err := f.challenge(a, 401, ``); err != nil {
		t.Fatal(err)
	}
	if f.count("GET /authorize") != 1 || a.Credentials().Token.AccessToken != "fresh" {
		t.Fatalf("requests %q", f.paths())
	}
}

// When the PRM names another authorization server, the client registers
// there and never presents the old client id or token to it.
func TestAuthorizationServerMigration(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFake(t)
	defer f.close()
	as1 := f.setupAS(asOptions{prefix: "/as1"})
	as2 := f.setupAS(asOptions{prefix: "/as2"})
	f.setupPRM("/.well-known/oauth-protected-resource/mcp", f.url("/mcp"), as1, nil)
	a := New(codeOptions())
	if err := f.challenge(a, 401, ``); err != nil {
		t.Fatal(err)
	}
	if c := a.Credentials(); c.ClientID != "registered-as1" || c.Issuer != as1 {
		t.Fatalf("credentials %+v", c)
	}
	f.reset()
	f.setupPRM("/.well-known/oauth-protected-resource/mcp", f.url("/mcp"), as2, nil)
	if err := f.challenge(a, 401, `Bearer error="invalid_token"`); err != nil {
		t.Fatal(err)
	}
	assertPaths(t, f,
		"GET /.well-known/oauth-protected-resource/mcp",
		"GET /.well-known/oauth-authorization-server/as2",
		"POST /as2/register",
		"GET /as2/authorize",
		"POST /as2/token")
	az, _ := f.last("GET /as2/authorize")
	tk, _ := f.last("POST /as2/token")
	if az.Query.Get("client_id") != "registered-as2" || tk.Form.Get("client_id") != "registered-as2" || strings.Contains(tk.Body, "as1") {
		t.Fatalf("authorize %v, token %s", az.Query, tk.Body)
	}
	if c := a.Credentials(); c.Issuer != as2 || c.ClientID != "registered-as2" {
		t.Fatalf("credentials %+v", c)
	}
	// Back to AS1: its own registration again, no AS2 credential there.
	f.reset()
	f.setupPRM("/.well-known/oauth-protected-resource/mcp", f.url("/mcp"), as1, nil)
	if err := f.challenge(a, 401, `Bearer error="invalid_token"`); err != nil {
		t.Fatal(err)
	}
	assertPaths(t, f,
		"GET /.well-known/oauth-protected-resource/mcp",
		"GET /as1/authorize",
		"POST /as1/token")
	tk, _ = f.last("POST /as1/token")
	if tk.Form.Get("client_id") != "registered-as1" || strings.Contains(tk.Body, "as2") {
		t.Fatalf("token %s", tk.Body)
	}
}

// Authorize presents the stored token; without one it adds nothing.
func TestAuthorizeHeader(t *testing.T) {
	store := &MemoryStore{}
	a := New(Options{Store: store})
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/mcp", nil)
	if err := a.Authorize(context.Background(), req); err != nil || req.Header.Get("Authorization") != "" {
		t.Fatalf("err %v, Authorization %q", err, req.Header.Get("Authorization"))
	}
	store.Save(context.Background(), "http://127.0.0.1:1/mcp", &Credentials{Issuer: "x", Token: &oauth2.Token{AccessToken: "tok", TokenType: "Bearer"}})
	a = New(Options{Store: store})
	if err := a.Authorize(context.Background(), req); err != nil || req.Header.Get("Authorization") != "Bearer tok" {
		t.Fatalf("err %v, Authorization %q", err, req.Header.Get("Authorization"))
	}
}

// Discovery refuses http URLs that are not loopback, and caps response
// sizes.
func TestFetchLimits(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, u := range []string{"http://example.com/x", "ftp://127.0.0.1/x", "/relative", "https://h/x#frag"} {
		if _, err := checkURL(u); !errors.Is(err, ErrInsecureURL) {
			t.Errorf("checkURL(%q) = %v", u, err)
		}
	}
	for _, u := range []string{"https://example.com/x", "http://127.0.0.1:1/x", "http://localhost/x", "http://[::1]:8/x"} {
		if _, err := checkURL(u); err != nil {
			t.Errorf("checkURL(%q) = %v", u, err)
		}
	}
	f := newFake(t)
	defer f.close()
	f.handle("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"resource":"` + strings.Repeat("a", 2000) + `"}`))
	})
	a := New(Options{MaxResponseBytes: 1000, RedirectURL: testRedirect, Redirect: follow})
	if err := f.challenge(a, 401, ``); !errors.Is(err, ErrResponseTooLarge) {
		t.Fatalf("err %v, want ErrResponseTooLarge", err)
	}
	// A resource_metadata URL that is not https is never fetched.
	f.reset()
	issuer := f.setupAS(asOptions{})
	f.setupPRM("/.well-known/oauth-protected-resource/mcp", f.url("/mcp"), issuer, nil)
	if err := f.challenge(New(codeOptions()), 401, `Bearer resource_metadata="http://example.invalid/prm"`); err != nil {
		t.Fatal(err)
	}
	if p := f.paths(); p[0] != "GET /.well-known/oauth-protected-resource/mcp" {
		t.Fatalf("requests %q", p)
	}
}

// client_credentials with client_secret_basic.
func TestClientCredentialsBasic(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFake(t)
	defer f.close()
	issuer := f.setupAS(asOptions{extra: map[string]any{"token_endpoint_auth_methods_supported": []string{"client_secret_basic"}}})
	f.setupPRM("/.well-known/oauth-protected-resource/mcp", f.url("/mcp"), issuer, []string{"s"})
	a := New(Options{Grant: GrantClientCredentials, ClientID: "cc", ClientSecret: "sec"})
	if err := f.challenge(a, 401, ``); err != nil {
		t.Fatal(err)
	}
	assertPaths(t, f, "GET /.well-known/oauth-protected-resource/mcp", "GET /.well-known/oauth-authorization-server", "POST /token")
	tk, _ := f.last("POST /token")
	want := url.Values{"grant_type": {"client_credentials"}, "resource": {f.url("/mcp")}, "scope": {"s"}}
	if tk.Form.Encode() != want.Encode() || tk.Header.Get("Authorization") != "Basic "+base64.StdEncoding.EncodeToString([]byte("cc:sec")) {
		t.Fatalf("form %s, Authorization %q", tk.Form.Encode(), tk.Header.Get("Authorization"))
	}
}

// client_credentials with private_key_jwt: an ES256 assertion with iss =
// sub = client id and aud = the issuer, verified with the public key.
func TestClientCredentialsPrivateKeyJWT(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFake(t)
	defer f.close()
	issuer := f.setupAS(asOptions{extra: map[string]any{"token_endpoint_auth_methods_supported": []string{"private_key_jwt"}}})
	f.setupPRM("/.well-known/oauth-protected-resource/mcp", f.url("/mcp"), issuer, nil)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	a := New(Options{Grant: GrantClientCredentials, ClientID: "jwt-client", ClientKey: key, ClientKeyAlg: "ES256"})
	if err := f.challenge(a, 401, ``); err != nil {
		t.Fatal(err)
	}
	tk, _ := f.last("POST /token")
	if tk.Form.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" || tk.Header.Get("Authorization") != "" {
		t.Fatalf("form %v", tk.Form)
	}
	tok, err := jwt.ParseString(tk.Form.Get("client_assertion"), jwt.WithKey(jwa.ES256(), &key.PublicKey), jwt.WithAudience(issuer), jwt.WithIssuer("jwt-client"), jwt.WithSubject("jwt-client"))
	if err != nil {
		t.Fatalf("assertion: %v", err)
	}
	if _, ok := tok.JwtID(); !ok {
		t.Fatal("assertion has no jti")
	}
}

// The JWT bearer grant sends the assertion; a refused grant is returned,
// not retried.
func TestJWTBearerNoRetry(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFake(t)
	defer f.close()
	issuer := f.setupAS(asOptions{extra: map[string]any{"registration_endpoint": nil}})
	f.setupPRM("/.well-known/oauth-protected-resource/mcp", f.url("/mcp"), issuer, nil)
	var gotIssuer string
	a := New(Options{Grant: GrantJWTBearer, ClientID: "wl", Assertion: func(_ context.Context, iss string) (string, error) {
		gotIssuer = iss
		return "the.jwt.assertion", nil
	}})
	if err := f.challenge(a, 401, ``); err != nil {
		t.Fatal(err)
	}
	tk, _ := f.last("POST /token")
	want := url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {"the.jwt.assertion"}, "resource": {f.url("/mcp")}, "client_id": {"wl"}}
	if tk.Form.Encode() != want.Encode() || gotIssuer != issuer {
		t.Fatalf("form %s, issuer %q", tk.Form.Encode(), gotIssuer)
	}
	f.reset()
	f.handle("POST /token", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 400, map[string]any{"error": "invalid_grant", "error_description": "expired"})
	})
	err := f.challenge(a, 401, ``)
	var oe *OAuthError
	if !errors.As(err, &oe) || oe.Code != "invalid_grant" || oe.StatusCode != 400 || oe.Description != "expired" {
		t.Fatalf("err %v", err)
	}
	if n := f.count("POST /token"); n != 1 {
		t.Fatalf("%d token requests after a refusal", n)
	}
}

// Enterprise-managed authorization: the RFC 8693 exchange at the IdP,
// then the JWT bearer grant with the ID-JAG and client_secret_basic.
func TestEnterpriseManaged(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFake(t)
	defer f.close()
	issuer := f.setupAS(asOptions{prefix: "/as", extra: map[string]any{"token_endpoint_auth_methods_supported": []string{"client_secret_basic"}}})
	f.setupPRM("/.well-known/oauth-protected-resource/mcp", f.url("/mcp"), issuer, nil)
	f.handle("POST /idp/token", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"access_token": "id-jag", "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag", "token_type": "N_A"})
	})
	a := New(Options{Grant: GrantEnterprise, ClientID: "xaa", ClientSecret: "xs", Exchange: &TokenExchange{
		TokenEndpoint: f.url("/idp/token"), ClientID: "idp-client",
		SubjectToken: func(context.Context) (string, error) { return "id-token", nil },
	}})
	if err := f.challenge(a, 401, ``); err != nil {
		t.Fatal(err)
	}
	assertPaths(t, f, "GET /.well-known/oauth-protected-resource/mcp", "GET /.well-known/oauth-authorization-server/as", "POST /idp/token", "POST /as/token")
	ex, _ := f.last("POST /idp/token")
	wantEx := url.Values{
		"grant_type": {"urn:ietf:params:oauth:grant-type:token-exchange"}, "requested_token_type": {"urn:ietf:params:oauth:token-type:id-jag"},
		"audience": {issuer}, "resource": {f.url("/mcp")}, "subject_token": {"id-token"},
		"subject_token_type": {"urn:ietf:params:oauth:token-type:id_token"}, "client_id": {"idp-client"},
	}
	if ex.Form.Encode() != wantEx.Encode() {
		t.Fatalf("exchange form\n got %s\nwant %s", ex.Form.Encode(), wantEx.Encode())
	}
	tk, _ := f.last("POST /as/token")
	wantTok := url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {"id-jag"}, "resource": {f.url("/mcp")}}
	if tk.Form.Encode() != wantTok.Encode() || tk.Header.Get("Authorization") != "Basic "+base64.StdEncoding.EncodeToString([]byte("xaa:xs")) {
		t.Fatalf("token form %s, Authorization %q", tk.Form.Encode(), tk.Header.Get("Authorization"))
	}
}

// verifyProof checks a DPoP proof's header and claims and returns them.
func verifyProof(t *testing.T, proof, method, htu string) (jwt.Token, jwk.Key) {
	t.Helper()
	msg, err := jws.ParseString(proof)
	if err != nil {
		t.Fatalf("proof: %v", err)
	}
	h := msg.Signatures()[0].ProtectedHeaders()
	typ, _ := h.Type()
	key, ok := h.JWK()
	if typ != "dpop+jwt" || !ok {
		t.Fatalf("proof header typ %q jwk %v", typ, ok)
	}
	if key.Has("d") {
		t.Fatal("proof jwk has the private key")
	}
	alg, _ := h.Algorithm()
	tok, err := jwt.ParseString(proof, jwt.WithKey(alg, key))
	if err != nil {
		t.Fatalf("proof signature: %v", err)
	}
	var htm, gotHTU string
	tok.Get("htm", &htm)
	tok.Get("htu", &gotHTU)
	iat, _ := tok.IssuedAt()
	if _, ok := tok.JwtID(); !ok || htm != method || gotHTU != htu || time.Since(iat) > time.Minute {
		t.Fatalf("proof claims htm %q htu %q iat %v", htm, gotHTU, iat)
	}
	return tok, key
}

// DPoP: a proof at the token endpoint, retried with the AS's nonce; the
// DPoP token presented with "DPoP" and a fresh proof with ath; the RS's
// nonce recorded from a use_dpop_nonce 401 and sent in the next proof.
func TestDPoP(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFake(t)
	defer f.close()
	issuer := f.setupAS(asOptions{extra: map[string]any{"dpop_signing_alg_values_supported": []string{"ES256"}}})
	f.setupPRM("/.well-known/oauth-protected-resource/mcp", f.url("/mcp"), issuer, nil)
	f.handle("POST /token", func(w http.ResponseWriter, r *http.Request) {
		var nonce string
		if tok, err := jwt.ParseInsecure([]byte(r.Header.Get("DPoP"))); err == nil {
			tok.Get("nonce", &nonce)
		}
		if nonce != "as-nonce" {
			w.Header().Set("DPoP-Nonce", "as-nonce")
			writeJSON(w, 400, map[string]any{"error": "use_dpop_nonce"})
			return
		}
		writeJSON(w, 200, map[string]any{"access_token": "dpop-token", "token_type": "DPoP"})
	})
	a := New(Options{RedirectURL: testRedirect, Redirect: follow, DPoP: true})
	if err := f.challenge(a, 401, `DPoP`); err != nil {
		t.Fatal(err)
	}
	if n := f.count("POST /token"); n != 2 {
		t.Fatalf("%d token requests, want 2 (the nonce retry)", n)
	}
	tk, _ := f.last("POST /token")
	_, tokenKey := verifyProof(t, tk.Header.Get("DPoP"), "POST", f.url("/token"))

	req, _ := http.NewRequest(http.MethodPost, f.url("/mcp?x=1"), nil)
	if err := a.Authorize(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if req.Header.Get("Authorization") != "DPoP dpop-token" {
		t.Fatalf("Authorization %q", req.Header.Get("Authorization"))
	}
	p1, key := verifyProof(t, req.Header.Get("DPoP"), "POST", f.url("/mcp"))
	tp1, _ := key.Thumbprint(crypto.SHA256)
	tp2, _ := tokenKey.Thumbprint(crypto.SHA256)
	if string(tp1) != string(tp2) {
		t.Fatal("the resource proof's key is not the token request's")
	}
	var ath string
	p1.Get("ath", &ath)
	sum := sha256.Sum256([]byte("dpop-token"))
	if want := base64.RawURLEncoding.EncodeToString(sum[:]); ath != want {
		t.Fatalf("ath %q, want %q", ath, want)
	}
	// The RS asks for a nonce: recorded, no new authorization.
	f.reset()
	resp := &http.Response{StatusCode: 401, Header: http.Header{"Www-Authenticate": {`DPoP error="use_dpop_nonce"`}, "Dpop-Nonce": {"rs-nonce"}}}
	if err := a.Reauthorize(context.Background(), req, resp); err != nil {
		t.Fatal(err)
	}
	if len(f.paths()) != 0 {
		t.Fatalf("requests %q", f.paths())
	}
	req2, _ := http.NewRequest(http.MethodGet, f.url("/mcp"), nil)
	a.Authorize(context.Background(), req2)
	p2, _ := verifyProof(t, req2.Header.Get("DPoP"), "GET", f.url("/mcp"))
	var nonce string
	p2.Get("nonce", &nonce)
	j1, _ := p1.JwtID()
	j2, _ := p2.JwtID()
	if nonce != "rs-nonce" || j1 == j2 {
		t.Fatalf("nonce %q, jti %q %q", nonce, j1, j2)
	}
}

// A metadata server that never answers fails the discovery after
// FetchTimeout with context.DeadlineExceeded.
func TestFetchTimeout(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFake(t)
	defer f.close()
	release := make(chan struct{})
	defer close(release)
	f.handle("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	a := New(Options{FetchTimeout: 50 * time.Millisecond, RedirectURL: testRedirect, Redirect: follow})
	if err := f.challenge(a, 401, ``); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want context.DeadlineExceeded", err)
	}
}
