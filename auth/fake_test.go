package auth

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// seen is one request the fake servers received.
type seen struct {
	Method string
	Path   string
	Query  url.Values
	Form   url.Values
	Header http.Header
	Body   string
}

// fake is an MCP server's metadata and an authorization server in one
// httptest server on 127.0.0.1. Handlers are per path; every request is
// recorded.
type fake struct {
	t   *testing.T
	srv *httptest.Server

	once     sync.Once
	mu       sync.Mutex
	reqs     []seen
	handlers map[string]http.HandlerFunc
}

func newFake(t *testing.T) *fake {
	t.Helper()
	f := &fake{t: t, handlers: map[string]http.HandlerFunc{}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(f.serve))
	f.srv.Listener.Close()
	f.srv.Listener = l
	f.srv.Start()
	t.Cleanup(f.close)
	return f
}

// close stops the server and drops the idle client connections to it, so
// that a goroutine leak check deferred before newFake passes.
func (f *fake) close() {
	f.once.Do(func() {
		f.srv.Close()
		http.DefaultClient.CloseIdleConnections()
	})
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s := seen{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header.Clone(), Body: string(body)}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		s.Form, _ = url.ParseQuery(string(body))
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, s)
	h := f.handlers[r.Method+" "+r.URL.Path]
	f.mu.Unlock()
	if h == nil {
		http.NotFound(w, r)
		return
	}
	h(w, r)
}

// handle sets the handler of "METHOD /path".
func (f *fake) handle(pattern string, h http.HandlerFunc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handlers[pattern] = h
}

// json serves v as JSON at "GET /path".
func (f *fake) json(path string, v any) {
	f.handle("GET "+path, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, v) })
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// requests returns the requests so far, as "METHOD /path".
func (f *fake) paths() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.reqs {
		out = append(out, r.Method+" "+r.Path)
	}
	return out
}

// last returns the last request to "METHOD /path".
func (f *fake) last(pattern string) (seen, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := len(f.reqs) - 1; i >= 0; i-- {
		if f.reqs[i].Method+" "+f.reqs[i].Path == pattern {
			return f.reqs[i], true
		}
	}
	return seen{}, false
}

// count returns how many requests went to "METHOD /path".
func (f *fake) count(pattern string) int {
	n := 0
	for _, p := range f.paths() {
		if p == pattern {
			n++
		}
	}
	return n
}

func (f *fake) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = nil
}

func (f *fake) url(p string) string { return f.srv.URL + p }

// asOptions configures setupAS.
type asOptions struct {
	prefix   string         // issuer path, such as "/tenant1"
	mdPath   string         // where the metadata is served; "" = RFC 8414 insertion
	extra    map[string]any // merged into the metadata
	issuer   string         // the metadata's issuer; "" = the right one
	issParam string         // "correct" (default), "omit", "wrong", "normalized"
}

// setupAS serves an authorization server under prefix: metadata,
// /authorize (auto-approved), /token (test-token-N), /register.
func (f *fake) setupAS(o asOptions) string {
	issuer := f.url(o.prefix)
	md := map[string]any{
		"issuer":                                         issuer,
		"authorization_endpoint":                         issuer + "/authorize",
		"token_endpoint":                                 issuer + "/token",
		"registration_endpoint":                          issuer + "/register",
		"response_types_supported":                       []string{"code"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"none"},
		"authorization_response_iss_parameter_supported": true,
	}
	if o.issuer != "" {
		md["issuer"] = o.issuer
	}
	for k, v := range o.extra {
		if v == nil {
			delete(md, k)
		} else {
			md[k] = v
		}
	}
	mdPath := o.mdPath
	if mdPath == "" {
		mdPath = "/.well-known/oauth-authorization-server" + o.prefix
	}
	f.json(mdPath, md)
	f.handle("GET "+o.prefix+"/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		back, _ := url.Parse(q.Get("redirect_uri"))
		bq := back.Query()
		bq.Set("code", "code-1")
		bq.Set("state", q.Get("state"))
		switch o.issParam {
		case "", "correct":
			bq.Set("iss", issuer)
		case "wrong":
			bq.Set("iss", "https://evil.example")
		case "normalized":
			bq.Set("iss", issuer+"/")
		case "error-wrong":
			bq.Del("code")
			bq.Set("error", "access_denied")
			bq.Set("iss", "https://evil.example")
		case "error":
			bq.Del("code")
			bq.Set("error", "access_denied")
			bq.Set("iss", issuer)
		}
		back.RawQuery = bq.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	n := 0
	var nmu sync.Mutex
	f.handle("POST "+o.prefix+"/token", func(w http.ResponseWriter, r *http.Request) {
		nmu.Lock()
		n++
		tok := "test-token-" + string(rune('0'+n))
		nmu.Unlock()
		writeJSON(w, 200, map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600})
	})
	f.handle("POST "+o.prefix+"/register", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 201, map[string]any{"client_id": "registered-" + strings.Trim(o.prefix, "/"), "client_secret": "secret"})
	})
	return issuer
}

// setupPRM serves protected resource metadata at path naming issuer.
func (f *fake) setupPRM(path, resource string, issuer string, scopes []string) {
	prm := map[string]any{"resource": resource, "authorization_servers": []string{issuer}}
	if scopes != nil {
		prm["scopes_supported"] = scopes
	}
	f.json(path, prm)
}

// follow is the test's redirect handler: it GETs the authorization URL
// without following the redirect and returns its Location.
func follow(ctx context.Context, authURL string) (*url.URL, error) {
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	return url.Parse(resp.Header.Get("Location"))
}

const testRedirect = "http://127.0.0.1:9/callback"

// codeOptions are Options for the authorization code grant against f.
func codeOptions() Options {
	return Options{RedirectURL: testRedirect, Redirect: follow}
}

// challenge calls a.Reauthorize as the transport does for a request to
// the MCP server that got status with the given WWW-Authenticate.
func (f *fake) challenge(a *Authorizer, status int, wwwAuth string) error {
	f.t.Helper()
	req, err := http.NewRequest(http.MethodPost, f.url("/mcp"), nil)
	if err != nil {
		f.t.Fatal(err)
	}
	if err := a.Authorize(context.Background(), req); err != nil {
		f.t.Fatal(err)
	}
	resp := &http.Response{StatusCode: status, Header: http.Header{}}
	if wwwAuth != "" {
		resp.Header.Set("WWW-Authenticate", wwwAuth)
	}
	return a.Reauthorize(context.Background(), req, resp)
}
