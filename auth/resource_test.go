package auth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
	"go.uber.org/goleak"

	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// issuer is an authorization server on 127.0.0.1 that publishes its
// metadata and key set, and counts key set fetches.
type issuer struct {
	srv     *httptest.Server
	url     string
	mu      sync.Mutex
	keys    map[string]*ecdsa.PrivateKey // by kid, all published
	fetches atomic.Int32
}

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	is := &issuer{keys: map[string]*ecdsa.PrivateKey{}}
	is.addKey(t, "k1")
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"issuer": is.url, "jwks_uri": is.url + "/jwks"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		is.fetches.Add(1)
		set := jwk.NewSet()
		is.mu.Lock()
		for kid, k := range is.keys {
			pub, err := jwk.Import(&k.PublicKey)
			if err != nil {
				t.Error(err)
			}
			pub.Set(jwk.KeyIDKey, kid)
			pub.Set(jwk.AlgorithmKey, jwa.ES256())
			set.AddKey(pub)
		}
		is.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(set)
	})
	is.srv = httptest.NewServer(mux)
	is.url = is.srv.URL
	return is
}

func (is *issuer) close() {
	is.srv.Close()
	is.srv.Client().CloseIdleConnections()
}

func (is *issuer) addKey(t *testing.T, kid string) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	is.mu.Lock()
	is.keys[kid] = k
	is.mu.Unlock()
	return k
}

// sign signs claims with key under kid.
func sign(t *testing.T, key *ecdsa.PrivateKey, kid string, claims map[string]any) string {
	t.Helper()
	return signTyp(t, key, kid, "at+jwt", claims)
}

// signTyp is sign with a typ header (none if empty).
func signTyp(t *testing.T, key *ecdsa.PrivateKey, kid, typ string, claims map[string]any) string {
	t.Helper()
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	h := jws.NewHeaders()
	h.Set(jws.KeyIDKey, kid)
	if typ != "" {
		h.Set(jws.TypeKey, typ)
	}
	out, err := jws.Sign(payload, jws.WithKey(jwa.ES256(), key, jws.WithProtectedHeaders(h)))
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// signHeader signs claims with key (ES256) under exactly the protected
// header hdr, which jws.Sign would normalise.
func signHeader(t *testing.T, key *ecdsa.PrivateKey, hdr, claims map[string]any) string {
	t.Helper()
	h, err := json.Marshal(hdr)
	if err != nil {
		t.Fatal(err)
	}
	c, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	input := base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c)
	sum := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, key, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return input + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// protected is an MCP server (stateless, JSON replies) behind a
// ResourceServer whose tokens come from an issuer.
type protected struct {
	is       *issuer
	srv      *httptest.Server
	url      string // the MCP endpoint, the resource
	md       string // the metadata URL
	rs       *auth.ResourceServer
	ran      atomic.Int32 // tool handlers run
	lastUser atomic.Value // the OwnerKey of the last tool call
	h        *mcphttp.Handler
}

func newProtected(t *testing.T) *protected {
	t.Helper()
	p := &protected{is: newIssuer(t)}
	mux := http.NewServeMux()
	p.srv = httptest.NewServer(mux)
	p.url = p.srv.URL + "/mcp"
	s := mcp.NewServer(mcp.Implementation{Name: "rs", Version: "1"}, nil)
	tool := func(_ context.Context, r *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		p.ran.Add(1)
		p.lastUser.Store(r.Extra.Auth.OwnerKey())
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	}
	if err := s.AddTool(&mcp.Tool{Name: "echo", Description: "echo"}, tool); err != nil {
		t.Fatal(err)
	}
	if err := s.AddTool(&mcp.Tool{Name: "admin", Description: "admin", RequiredScopes: []string{"admin"}}, tool); err != nil {
		t.Fatal(err)
	}
	v, err := auth.NewJWTVerifier(auth.JWTConfig{Issuer: p.is.url, Resource: p.url})
	if err != nil {
		t.Fatal(err)
	}
	p.rs, err = auth.NewResourceServer(auth.ResourceServerConfig{
		Resource:             p.url,
		AuthorizationServers: []string{p.is.url},
		Verifier:             v,
		Scopes:               []string{"mcp"},
		MethodScopes:         map[string][]string{"tools/call": {"tools"}},
		Server:               s,
	})
	if err != nil {
		t.Fatal(err)
	}
	p.md = p.rs.MetadataURL()
	opts := &mcphttp.Options{Stateless: true, JSONResponse: true}
	auth.Protect(opts, p.rs)
	p.h = mcphttp.NewHandler(s, opts)
	mux.Handle("/mcp", p.h)
	for _, path := range p.rs.MetadataPaths() {
		mux.Handle(path, p.rs.MetadataHandler())
	}
	return p
}

func (p *protected) close() {
	p.h.Close()
	p.srv.Close()
	p.srv.Client().CloseIdleConnections()
	p.is.close()
}

// token returns a valid token for alice with scopes, changed by edit.
func (p *protected) token(t *testing.T, scope string, edit func(map[string]any)) string {
	t.Helper()
	c := map[string]any{
		"iss": p.is.url, "sub": "alice", "aud": p.url, "client_id": "c1", "scope": scope,
		"exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix(),
	}
	if edit != nil {
		edit(c)
	}
	p.is.mu.Lock()
	k := p.is.keys["k1"]
	p.is.mu.Unlock()
	return sign(t, k, "k1", c)
}

func callBody(tool string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `"}}`
}

// post sends body to the endpoint (query appended to the URL) with the
// given Authorization headers.
func (p *protected) post(t *testing.T, query string, authz []string, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, p.url+query, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	for _, a := range authz {
		req.Header.Add("Authorization", a)
	}
	resp, err := p.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestResourceServerMiddleware: every kind of request the resource
// server must refuse is answered with the exact status and challenge, and
// runs no handler; valid tokens reach the handler with their identity.
func TestResourceServerMiddleware(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	p := newProtected(t)
	defer p.close()
	other, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	md := `resource_metadata="` + p.md + `"`
	noToken := `Bearer ` + md + `, scope="mcp"`
	badReq := `Bearer error="invalid_request", ` + md
	invalid := `Bearer error="invalid_token", ` + md + `, scope="mcp"`
	valid := p.token(t, "mcp tools", nil)
	unsigned := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","kid":"k1"}`)) + "." +
		strings.Split(valid, ".")[1] + "."
	// byHand is a valid token under a protected header of our choosing.
	byHand := func(extra map[string]any) string {
		hdr := map[string]any{"alg": "ES256", "kid": "k1", "typ": "at+jwt"}
		for k, v := range extra {
			hdr[k] = v
		}
		return signHeader(t, p.is.keys["k1"], hdr, map[string]any{"iss": p.is.url, "sub": "alice", "aud": p.url, "scope": "mcp tools", "exp": time.Now().Add(time.Hour).Unix()})
	}
	for _, c := range []struct {
		name      string
		query     string
		authz     []string
		body      string
		status    int
		challenge string
		ran       bool
	}{
		{name: "no token", status: 401, challenge: noToken},
		{name: "another scheme", authz: []string{"Basic YWxpY2U6cHc="}, status: 401, challenge: noToken},
		{name: "bearer without token", authz: []string{"Bearer"}, status: 400, challenge: badReq},
		{name: "bearer with two words", authz: []string{"Bearer a b"}, status: 400, challenge: badReq},
		{name: "bearer with bad characters", authz: []string{"Bearer a,b"}, status: 400, challenge: badReq},
		{name: "empty header", authz: []string{""}, status: 400, challenge: badReq},
		{name: "two headers", authz: []string{"Bearer " + valid, "Bearer " + valid}, status: 400, challenge: badReq},
		{name: "query token", query: "?access_token=" + valid, status: 400, challenge: badReq},
		{name: "query token and header", query: "?access_token=" + valid, authz: []string{"Bearer " + valid}, status: 400, challenge: badReq},
		{name: "garbage token", authz: []string{"Bearer abc"}, status: 401, challenge: invalid},
		{name: "unsigned", authz: []string{"Bearer " + unsigned}, status: 401, challenge: invalid},
		{name: "bad signature", authz: []string{"Bearer " + sign(t, other, "k1", map[string]any{"iss": p.is.url, "sub": "alice", "aud": p.url, "scope": "mcp tools", "exp": time.Now().Add(time.Hour).Unix()})}, status: 401, challenge: invalid},
		{name: "not an access token (typ)", authz: []string{"Bearer " + signTyp(t, p.is.keys["k1"], "k1", "JWT", map[string]any{"iss": p.is.url, "sub": "alice", "aud": p.url, "scope": "mcp tools", "exp": time.Now().Add(time.Hour).Unix()})}, status: 401, challenge: invalid},
		{name: "no typ", authz: []string{"Bearer " + signTyp(t, p.is.keys["k1"], "k1", "", map[string]any{"iss": p.is.url, "sub": "alice", "aud": p.url, "scope": "mcp tools", "exp": time.Now().Add(time.Hour).Unix()})}, status: 401, challenge: invalid},
		// RFC 7515 section 4.1.11: an extension the server does not
		// understand marked critical, and two malformed crit lists.
		{name: "crit names an unknown extension", authz: []string{"Bearer " + byHand(map[string]any{"crit": []string{"x-unknown"}, "x-unknown": true})}, status: 401, challenge: invalid},
		{name: "crit is empty", authz: []string{"Bearer " + byHand(map[string]any{"crit": []string{}})}, status: 401, challenge: invalid},
		{name: "crit names alg", authz: []string{"Bearer " + byHand(map[string]any{"crit": []string{"alg"}})}, status: 401, challenge: invalid},
		{name: "valid, header signed by hand, no crit", authz: []string{"Bearer " + byHand(nil)}, status: 200, ran: true},
		{name: "valid, unknown header not critical", authz: []string{"Bearer " + byHand(map[string]any{"x-unknown": true})}, status: 200, ran: true},
		{name: "expired", authz: []string{"Bearer " + p.token(t, "mcp tools", func(c map[string]any) { c["exp"] = time.Now().Add(-time.Hour).Unix() })}, status: 401, challenge: invalid},
		{name: "no exp", authz: []string{"Bearer " + p.token(t, "mcp tools", func(c map[string]any) { delete(c, "exp") })}, status: 401, challenge: invalid},
		{name: "not yet valid", authz: []string{"Bearer " + p.token(t, "mcp tools", func(c map[string]any) { c["nbf"] = time.Now().Add(time.Hour).Unix() })}, status: 401, challenge: invalid},
		{name: "wrong issuer", authz: []string{"Bearer " + p.token(t, "mcp tools", func(c map[string]any) { c["iss"] = "https://evil.example" })}, status: 401, challenge: invalid},
		{name: "wrong audience", authz: []string{"Bearer " + p.token(t, "mcp tools", func(c map[string]any) { c["aud"] = "https://other.example/mcp" })}, status: 401, challenge: invalid},
		{name: "no audience", authz: []string{"Bearer " + p.token(t, "mcp tools", func(c map[string]any) { delete(c, "aud") })}, status: 401, challenge: invalid},
		{name: "missing scope of every request", authz: []string{"Bearer " + p.token(t, "tools", nil)}, status: 403,
			challenge: `Bearer error="insufficient_scope", ` + md + `, scope="mcp"`},
		{name: "missing scope of the method", authz: []string{"Bearer " + p.token(t, "mcp", nil)}, status: 403,
			challenge: `Bearer error="insufficient_scope", ` + md + `, scope="mcp tools"`},
		{name: "another method needs no more", authz: []string{"Bearer " + p.token(t, "mcp", nil)}, body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, status: 200},
		{name: "missing scope of the tool", authz: []string{"Bearer " + valid}, body: callBody("admin"), status: 403,
			challenge: `Bearer error="insufficient_scope", ` + md + `, scope="mcp tools admin"`},
		{name: "valid", authz: []string{"Bearer " + valid}, status: 200, ran: true},
		{name: "valid, lower-case scheme, audience in an array", authz: []string{"bearer " + p.token(t, "mcp tools", func(c map[string]any) { c["aud"] = []string{"x", p.url} })}, status: 200, ran: true},
		{name: "valid for the tool", authz: []string{"Bearer " + p.token(t, "mcp tools admin", nil)}, body: callBody("admin"), status: 200, ran: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := c.body
			if body == "" {
				body = callBody("echo")
			}
			before := p.ran.Load()
			resp, got := p.post(t, c.query, c.authz, body)
			if resp.StatusCode != c.status {
				t.Errorf("status %d, want %d: %s", resp.StatusCode, c.status, got)
			}
			if ch := resp.Header.Get("WWW-Authenticate"); ch != c.challenge {
				t.Errorf("WWW-Authenticate\n got %s\nwant %s", ch, c.challenge)
			}
			if ran := p.ran.Load() != before; ran != c.ran {
				t.Errorf("handler ran: %v, want %v", ran, c.ran)
			}
			if c.ran && p.lastUser.Load() != "user:"+p.is.url+"|alice" {
				t.Errorf("the handler saw %v", p.lastUser.Load())
			}
			if c.status >= 400 && !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":`) {
				t.Errorf("refusal without a JSON-RPC body: %s", got)
			}
		})
	}
	// The exact bodies of the refusals.
	_, got := p.post(t, "", nil, callBody("echo"))
	if want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Unauthorized: an access token is required"}}`; got != want {
		t.Errorf("401 body %s, want %s", got, want)
	}
	_, got = p.post(t, "", []string{"Bearer " + p.token(t, "mcp", nil)}, callBody("echo"))
	if want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Forbidden: tools/call requires the scopes tools, which the access token does not grant"}}`; got != want {
		t.Errorf("403 body %s, want %s", got, want)
	}
}

// TestProtectedResourceMetadata: the RFC 9728 document at both well-known
// paths, with CORS.
func TestProtectedResourceMetadata(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	p := newProtected(t)
	defer p.close()
	if want := p.srv.URL + "/.well-known/oauth-protected-resource/mcp"; p.md != want {
		t.Fatalf("MetadataURL %s, want %s", p.md, want)
	}
	want := `{"resource":"` + p.url + `","authorization_servers":["` + p.is.url + `"],"scopes_supported":["mcp","tools"],"bearer_methods_supported":["header"]}`
	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		req, _ := http.NewRequest(http.MethodGet, p.srv.URL+path, nil)
		req.Header.Set("Origin", "https://app.example")
		resp, err := p.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != want || resp.Header.Get("Access-Control-Allow-Origin") != "*" || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("GET %s: %d %q %s", path, resp.StatusCode, resp.Header, b)
		}
	}
	req, _ := http.NewRequest(http.MethodOptions, p.md, nil)
	req.Header.Set("Origin", "https://app.example")
	req.Header.Set("Access-Control-Request-Method", "GET")
	resp, err := p.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != "*" || resp.Header.Get("Access-Control-Allow-Methods") != "GET, HEAD, OPTIONS" {
		t.Errorf("preflight: %d %q", resp.StatusCode, resp.Header)
	}
}

// TestJWTKeyRotation: a token signed by a key the cache lacks makes the
// verifier fetch the key set again, at most once per RefreshInterval.
func TestJWTKeyRotation(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	is := newIssuer(t)
	defer is.close()
	var now atomic.Int64
	now.Store(time.Now().Unix())
	clock := func() time.Time { return time.Unix(now.Load(), 0) }
	const resource = "https://mcp.example/mcp"
	v, err := auth.NewJWTVerifier(auth.JWTConfig{Issuer: is.url, Resource: resource, Now: clock, RefreshInterval: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	tok := func(kid string) string {
		is.mu.Lock()
		k := is.keys[kid]
		is.mu.Unlock()
		if k == nil {
			k, _ = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		}
		return sign(t, k, kid, map[string]any{"iss": is.url, "sub": "alice", "aud": resource, "scope": "a b", "exp": clock().Add(time.Hour).Unix()})
	}
	ctx := context.Background()
	info, err := v.VerifyToken(ctx, tok("k1"), nil)
	if err != nil || info.Subject != "alice" || strings.Join(info.Scopes, " ") != "a b" || info.Issuer != is.url {
		t.Fatalf("k1: %+v, %v", info, err)
	}
	if _, err := v.VerifyToken(ctx, tok("k1"), nil); err != nil || is.fetches.Load() != 1 {
		t.Fatalf("cached: %v, %d fetches", err, is.fetches.Load())
	}
	now.Add(61)
	is.addKey(t, "k2")
	if _, err := v.VerifyToken(ctx, tok("k2"), nil); err != nil || is.fetches.Load() != 2 {
		t.Fatalf("rotated key: %v, %d fetches", err, is.fetches.Load())
	}
	// Unknown kids: one fetch, then none until the interval has passed.
	for range 5 {
		if _, err := v.VerifyToken(ctx, tok("k9"), nil); !errors.Is(err, auth.ErrInvalidToken) {
			t.Fatalf("unknown kid: %v", err)
		}
	}
	if n := is.fetches.Load(); n != 2 {
		t.Fatalf("%d fetches for a flood of unknown kids within the interval, want 2", n)
	}
	now.Add(61)
	v.VerifyToken(ctx, tok("k9"), nil)
	if n := is.fetches.Load(); n != 3 {
		t.Fatalf("%d fetches after the interval, want 3", n)
	}
	// An issuer that does not follow RFC 9068's typ.
	loose, err := auth.NewJWTVerifier(auth.JWTConfig{Issuer: is.url, Resource: resource, Now: clock, AcceptAnyType: true})
	if err != nil {
		t.Fatal(err)
	}
	is.mu.Lock()
	k1 := is.keys["k1"]
	is.mu.Unlock()
	jwtTyp := signTyp(t, k1, "k1", "JWT", map[string]any{"iss": is.url, "sub": "bob", "aud": resource, "exp": clock().Add(time.Hour).Unix()})
	if info, err := loose.VerifyToken(ctx, jwtTyp, nil); err != nil || info.Subject != "bob" {
		t.Fatalf("AcceptAnyType: %+v, %v", info, err)
	}
	if _, err := v.VerifyToken(ctx, jwtTyp, nil); !errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("typ JWT by default: %v", err)
	}
}

// TestJWTCrit: a token whose protected header has "crit" (RFC 7515
// section 4.1.11) is refused with ErrInvalidToken and mcpkit's own reason,
// whether it lists an extension or is malformed; one without passes.
func TestJWTCrit(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	is := newIssuer(t)
	defer is.close()
	const resource = "https://mcp.example/mcp"
	v, err := auth.NewJWTVerifier(auth.JWTConfig{Issuer: is.url, Resource: resource})
	if err != nil {
		t.Fatal(err)
	}
	is.mu.Lock()
	k1 := is.keys["k1"]
	is.mu.Unlock()
	tok := func(extra map[string]any) string {
		hdr := map[string]any{"alg": "ES256", "kid": "k1", "typ": "at+jwt"}
		for k, x := range extra {
			hdr[k] = x
		}
		return signHeader(t, k1, hdr, map[string]any{"iss": is.url, "sub": "alice", "aud": resource, "exp": time.Now().Add(time.Hour).Unix()})
	}
	ctx := context.Background()
	if info, err := v.VerifyToken(ctx, tok(map[string]any{"x-unknown": "not critical"}), nil); err != nil || info.Subject != "alice" {
		t.Fatalf("no crit: %+v, %v", info, err)
	}
	const want = `auth: invalid access token: "crit" header: no JWS extension is understood (RFC 7515 section 4.1.11)`
	for name, extra := range map[string]map[string]any{
		"unknown extension": {"crit": []string{"x-unknown"}, "x-unknown": true},
		"empty":             {"crit": []string{}},
		"registered alg":    {"crit": []string{"alg"}},
		"null":              {"crit": nil},
	} {
		_, err := v.VerifyToken(ctx, tok(extra), nil)
		if !errors.Is(err, auth.ErrInvalidToken) || err.Error() != want {
			t.Errorf("%s: %v, want %s", name, err, want)
		}
	}
}

// TestIntrospectionVerifier: active answers are used and cached (never
// past the TTL), inactive ones and other audiences refused and not
// cached.
func TestIntrospectionVerifier(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	const resource = "https://mcp.example/mcp"
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if id, secret, ok := r.BasicAuth(); !ok || id != "rs" || secret != "s3" || r.Method != http.MethodPost {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		r.ParseForm()
		w.Header().Set("Content-Type", "application/json")
		exp := time.Now().Add(time.Hour).Unix()
		switch r.PostForm.Get("token") {
		case "good":
			json.NewEncoder(w).Encode(map[string]any{"active": true, "sub": "alice", "client_id": "c1", "scope": "mcp tools", "aud": resource, "iss": "https://as.example", "exp": exp})
		case "other":
			json.NewEncoder(w).Encode(map[string]any{"active": true, "sub": "alice", "aud": "https://other.example", "exp": exp})
		default:
			io.WriteString(w, `{"active":false}`)
		}
	}))
	defer func() {
		srv.Close()
		srv.Client().CloseIdleConnections()
	}()
	var now atomic.Int64
	now.Store(time.Now().Unix())
	v, err := auth.NewIntrospectionVerifier(auth.IntrospectionConfig{
		Endpoint: srv.URL, ClientID: "rs", ClientSecret: "s3", Resource: resource, Issuer: "https://as.example",
		CacheTTL: 30 * time.Second, Now: func() time.Time { return time.Unix(now.Load(), 0) },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	info, err := v.VerifyToken(ctx, "good", nil)
	if err != nil || info.Subject != "alice" || info.ClientID != "c1" || strings.Join(info.Scopes, " ") != "mcp tools" || info.OwnerKey() != "user:https://as.example|alice" {
		t.Fatalf("good: %+v, %v", info, err)
	}
	if _, err := v.VerifyToken(ctx, "good", nil); err != nil || calls.Load() != 1 {
		t.Fatalf("cached: %v, %d calls", err, calls.Load())
	}
	now.Add(31)
	if _, err := v.VerifyToken(ctx, "good", nil); err != nil || calls.Load() != 2 {
		t.Fatalf("after the TTL: %v, %d calls", err, calls.Load())
	}
	for _, tok := range []string{"revoked", "revoked", "other"} {
		if _, err := v.VerifyToken(ctx, tok, nil); !errors.Is(err, auth.ErrInvalidToken) {
			t.Fatalf("%s: %v", tok, err)
		}
	}
	if n := calls.Load(); n != 5 {
		t.Fatalf("%d calls: refusals must not be cached", n)
	}
}

// Package auth's client and server sides plug into mcphttp's interfaces.
var (
	_ mcphttp.Authorizer  = (*auth.Authorizer)(nil)
	_ mcphttp.AuthRefusal = (*auth.BearerError)(nil)
)

// TestBearerErrorAnswer: an Options.Authenticate error that is (or wraps)
// a *BearerError is answered with its status (401 if zero), its challenge
// and its message (the status text if empty).
func TestBearerErrorAnswer(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s := mcp.NewServer(mcp.Implementation{Name: "auth", Version: "1"}, nil)
	for _, c := range []struct {
		name            string
		err             error
		status          int
		challenge, body string
	}{
		{"without status", fmt.Errorf("checking the token: %w", &auth.BearerError{Challenge: `Bearer realm="x"`}),
			401, `Bearer realm="x"`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Unauthorized"}}`},
		{"forbidden", &auth.BearerError{Status: 403, Challenge: `Bearer error="insufficient_scope"`, Message: "Forbidden: no", Err: errors.New("secret cause")},
			403, `Bearer error="insufficient_scope"`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Forbidden: no"}}`},
		{"without challenge", &auth.BearerError{Status: 503},
			503, "", `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Service Unavailable"}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := mcphttp.NewHandler(s, &mcphttp.Options{Stateless: true, JSONResponse: true,
				Authenticate: func(*http.Request) (*mcp.TokenInfo, error) { return nil, c.err }})
			defer h.Close()
			req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"ping"}`))
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != c.status || w.Header().Get("WWW-Authenticate") != c.challenge || w.Body.String() != c.body {
				t.Errorf("got %d %q %s\nwant %d %q %s", w.Code, w.Header().Get("WWW-Authenticate"), w.Body, c.status, c.challenge, c.body)
			}
		})
	}
}
