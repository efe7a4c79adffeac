// Package devserver is a small OAuth 2.1 authorization server for
// developing and testing MCP servers and clients on one machine.
//
// NOT FOR PRODUCTION: it approves every authorization request at once for
// a fixed subject, keeps everything in memory, and listens only on a
// loopback address. What it does implement follows the specifications an
// MCP client meets in the field
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization):
//
//   - RFC 8414 metadata at /.well-known/oauth-authorization-server, with
//     authorization_response_iss_parameter_supported and
//     client_id_metadata_document_supported;
//   - the authorization code grant with PKCE (S256 only): GET /authorize
//     redirects straight back to the client with code, state and iss
//     (RFC 9207), no page shown;
//   - dynamic client registration (RFC 7591) at /register;
//   - client ID metadata documents: a client_id that is an https URL (or
//     http on a loopback host) is fetched and its redirect_uris honoured;
//   - the device authorization grant (RFC 8628) for clients on machines
//     without a browser: POST /device_authorization gives a device code
//     and a user code; the user (or a test) approves or denies the user
//     code at /device, a page with a form (POST /device with user_code
//     and action=approve or deny); until then the token endpoint answers
//     authorization_pending, or slow_down to a client that polls faster
//     than the interval;
//   - refresh tokens, rotated on every use;
//   - JWT access tokens (RFC 9068, ES256) with iss, sub, aud (the RFC 8707
//     resource the client asked for), scope, exp, iat, jti and client_id,
//     verifiable with the key set at /jwks.
package devserver

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
	"github.com/lestrrat-go/jwx/v3/jwt"
)

// Defaults of Options.
const (
	DefaultAddr          = "127.0.0.1:0"
	DefaultSubject       = "dev-user"
	DefaultTokenLifetime = time.Hour
	DefaultCodeLifetime  = time.Minute
	DefaultMaxClients    = 1000
	DefaultMaxGrants     = 10000
	DefaultMaxBodyBytes  = 64 << 10
	DefaultFetchTimeout  = 10 * time.Second

	DefaultDeviceCodeLifetime = 10 * time.Minute
	DefaultDeviceInterval     = 5 * time.Second
)

// Options configures a Server. The zero value of each field is a
// documented default.
type Options struct {
	// Addr is the loopback address to listen on. If "", DefaultAddr
	// (127.0.0.1 on a free port). A host that is not a loopback address
	// is refused.
	Addr string
	// Subject is the sub claim of every token: the one user this server
	// knows. If "", DefaultSubject ("dev-user").
	Subject string
	// Key signs the access tokens (ES256): a P-256 key. If nil, a new one
	// is generated at start. See LoadKey.
	Key *ecdsa.PrivateKey
	// Scopes are listed in scopes_supported besides offline_access. Any
	// requested scope is granted.
	Scopes []string
	// TokenLifetime is how long an access token is valid. If zero,
	// DefaultTokenLifetime (1 hour).
	TokenLifetime time.Duration
	// CodeLifetime is how long an authorization code may be redeemed. If
	// zero, DefaultCodeLifetime (1 minute).
	CodeLifetime time.Duration
	// DeviceCodeLifetime is how long a device grant's codes may be
	// approved and redeemed. If zero, DefaultDeviceCodeLifetime (10
	// minutes).
	DeviceCodeLifetime time.Duration
	// DeviceInterval is the least time between two polls of a device
	// grant's client (the interval it is told, in whole seconds; at least
	// one). If zero, DefaultDeviceInterval (5 seconds).
	DeviceInterval time.Duration
	// MaxClients bounds the registered clients. If zero,
	// DefaultMaxClients (1000); past it /register answers 400
	// invalid_client_metadata "too many clients".
	MaxClients int
	// MaxGrants bounds the outstanding authorization codes, device codes
	// and refresh tokens together. If zero, DefaultMaxGrants (10000); past it
	// /authorize redirects with error=temporarily_unavailable. Refresh
	// tokens do not expire (each is replaced when used), so a server that
	// reached it needs a restart.
	MaxGrants int
	// MaxBodyBytes bounds the body of a registration or token request. If
	// zero, DefaultMaxBodyBytes (64 KiB); a longer one gets 400
	// invalid_request "request body too large".
	MaxBodyBytes int64
	// FetchTimeout bounds the fetch of a client ID metadata document
	// (whose size MaxBodyBytes also bounds). If zero, DefaultFetchTimeout
	// (10 seconds).
	FetchTimeout time.Duration
	// Logger receives a line per grant and refusal. If nil, nothing is
	// logged.
	Logger *slog.Logger
}

// Server is a running development authorization server.
type Server struct {
	opts     Options
	issuer   string
	priv     jwk.Key
	public   jwk.Set
	srv      *http.Server
	ln       net.Listener
	fetch    *http.Client
	fetchTr  *http.Transport
	serveErr chan error

	mu      sync.Mutex
	clients map[string]*client
	codes   map[string]*grant
	refresh map[string]*grant
	devices map[string]*deviceGrant // by device code
	users   map[string]string       // user code to device code
}

// deviceGrant is a device authorization grant (RFC 8628) waiting for its
// user code's approval.
type deviceGrant struct {
	grant
	userCode string
	interval time.Duration
	lastPoll time.Time
	state    deviceState
}

type deviceState int

const (
	devicePending deviceState = iota
	deviceApproved
	deviceDenied
)

// client is a registered client.
type client struct {
	ID           string   `json:"client_id"`
	Secret       string   `json:"client_secret,omitempty"`
	RedirectURIs []string `json:"redirect_uris"`
	AuthMethod   string   `json:"token_endpoint_auth_method"`
}

// grant is an authorization code or a refresh token.
type grant struct {
	clientID    string
	redirectURI string
	challenge   string
	resource    string
	scope       string
	expires     time.Time // zero: never (refresh tokens)
}

// LoadKey parses a PEM-encoded P-256 private key (PKCS #8 "PRIVATE KEY"
// or SEC 1 "EC PRIVATE KEY") for Options.Key.
func LoadKey(pemData []byte) (*ecdsa.PrivateKey, error) {
	b, _ := pem.Decode(pemData)
	if b == nil {
		return nil, errors.New("devserver: no PEM block in the key")
	}
	var k any
	var err error
	switch b.Type {
	case "EC PRIVATE KEY":
		k, err = x509.ParseECPrivateKey(b.Bytes)
	default:
		k, err = x509.ParsePKCS8PrivateKey(b.Bytes)
	}
	if err != nil {
		return nil, fmt.Errorf("devserver: key: %w", err)
	}
	ec, ok := k.(*ecdsa.PrivateKey)
	if !ok || ec.Curve != elliptic.P256() {
		return nil, fmt.Errorf("devserver: key: want a P-256 ECDSA key, got %T", k)
	}
	return ec, nil
}

// positiveOr returns v if it is above zero, else def.
func positiveOr[T ~int | ~int64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Start listens on Options.Addr and serves until Close or Shutdown.
func Start(opts Options) (*Server, error) {
	if opts.Addr == "" {
		opts.Addr = DefaultAddr
	}
	host, _, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("devserver: address %q: %w", opts.Addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("devserver: address %q: the development server listens only on a loopback IP address such as 127.0.0.1", opts.Addr)
	}
	if opts.Subject == "" {
		opts.Subject = DefaultSubject
	}
	opts.TokenLifetime = positiveOr(opts.TokenLifetime, DefaultTokenLifetime)
	opts.CodeLifetime = positiveOr(opts.CodeLifetime, DefaultCodeLifetime)
	opts.MaxClients = positiveOr(opts.MaxClients, DefaultMaxClients)
	opts.MaxGrants = positiveOr(opts.MaxGrants, DefaultMaxGrants)
	opts.MaxBodyBytes = positiveOr(opts.MaxBodyBytes, DefaultMaxBodyBytes)
	opts.FetchTimeout = positiveOr(opts.FetchTimeout, DefaultFetchTimeout)
	opts.DeviceCodeLifetime = positiveOr(opts.DeviceCodeLifetime, DefaultDeviceCodeLifetime)
	opts.DeviceInterval = max(positiveOr(opts.DeviceInterval, DefaultDeviceInterval).Round(time.Second), time.Second)
	key := opts.Key
	if key == nil {
		if key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			return nil, fmt.Errorf("devserver: generating the signing key: %w", err)
		}
	} else if key.Curve != elliptic.P256() {
		return nil, errors.New("devserver: Options.Key must be a P-256 key (ES256)")
	}
	priv, err := jwk.Import(key)
	if err != nil {
		return nil, fmt.Errorf("devserver: signing key: %w", err)
	}
	if err := jwk.AssignKeyID(priv); err != nil {
		return nil, fmt.Errorf("devserver: signing key: %w", err)
	}
	if err := priv.Set(jwk.AlgorithmKey, jwa.ES256()); err != nil {
		return nil, fmt.Errorf("devserver: signing key: %w", err)
	}
	if err := priv.Set(jwk.KeyUsageKey, "sig"); err != nil {
		return nil, fmt.Errorf("devserver: signing key: %w", err)
	}
	pub, err := jwk.PublicKeyOf(priv)
	if err != nil {
		return nil, fmt.Errorf("devserver: signing key: %w", err)
	}
	set := jwk.NewSet()
	if err := set.AddKey(pub); err != nil {
		return nil, fmt.Errorf("devserver: signing key: %w", err)
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("devserver: %w", err)
	}
	tr := &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 1}
	s := &Server{
		opts:    opts,
		issuer:  "http://" + ln.Addr().String(),
		priv:    priv,
		public:  set,
		ln:      ln,
		fetchTr: tr,
		fetch: &http.Client{
			Transport: tr,
			Timeout:   opts.FetchTimeout,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return errors.New("devserver: a client ID metadata document must not redirect")
			},
		},
		serveErr: make(chan error, 1),
		clients:  make(map[string]*client),
		codes:    make(map[string]*grant),
		refresh:  make(map[string]*grant),
		devices:  make(map[string]*deviceGrant),
		users:    make(map[string]string),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.metadata)
	mux.HandleFunc("GET /jwks", s.jwks)
	mux.HandleFunc("POST /register", s.register)
	mux.HandleFunc("GET /authorize", s.authorize)
	mux.HandleFunc("POST /token", s.token)
	mux.HandleFunc("POST /device_authorization", s.deviceAuthorization)
	mux.HandleFunc("GET /device", s.devicePage)
	mux.HandleFunc("POST /device", s.deviceDecision)
	s.srv = &http.Server{Handler: cors(mux), ReadHeaderTimeout: 10 * time.Second}
	go func() { s.serveErr <- s.srv.Serve(ln) }()
	return s, nil
}

// Issuer is the server's issuer identifier and base URL, such as
// http://127.0.0.1:41234.
func (s *Server) Issuer() string { return s.issuer }

// PublicKeys is the key set served at /jwks: what verifies the access
// tokens.
func (s *Server) PublicKeys() jwk.Set { return s.public }

// Shutdown stops the server gracefully (http.Server.Shutdown).
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	s.fetchTr.CloseIdleConnections()
	if err != nil {
		return fmt.Errorf("devserver: %w", err)
	}
	<-s.serveErr
	return nil
}

// Close stops the server at once.
func (s *Server) Close() error {
	err := s.srv.Close()
	s.fetchTr.CloseIdleConnections()
	if err != nil {
		return fmt.Errorf("devserver: %w", err)
	}
	<-s.serveErr
	return nil
}

func (s *Server) logf(msg string, args ...any) {
	if s.opts.Logger != nil {
		s.opts.Logger.Info("devserver: "+msg, args...)
	}
}

// cors lets browser-based clients read the server's answers.
func cors(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		if r.Method == http.MethodOptions {
			w.Header().Set("Access-Control-Allow-Methods", "GET, POST")
			w.Header().Set("Access-Control-Allow-Headers", "Authorization, Content-Type, MCP-Protocol-Version")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// oauthError answers an RFC 6749 section 5.2 error.
func (s *Server) oauthError(w http.ResponseWriter, status int, code, description string) {
	s.logf("refused", "error", code, "description", description)
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Basic realm="devserver"`)
	}
	writeJSON(w, status, map[string]string{"error": code, "error_description": description})
}

func (s *Server) metadata(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                         s.issuer,
		"authorization_endpoint":                         s.issuer + "/authorize",
		"token_endpoint":                                 s.issuer + "/token",
		"registration_endpoint":                          s.issuer + "/register",
		"device_authorization_endpoint":                  s.issuer + "/device_authorization",
		"jwks_uri":                                       s.issuer + "/jwks",
		"scopes_supported":                               append(slices.Clone(s.opts.Scopes), "offline_access"),
		"response_types_supported":                       []string{"code"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token", grantDeviceCode},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"none", "client_secret_basic", "client_secret_post"},
		"authorization_response_iss_parameter_supported": true,
		"client_id_metadata_document_supported":          true,
	})
}

func (s *Server) jwks(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, s.public)
}

// readForm parses a form body of at most MaxBodyBytes.
func (s *Server) readForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes)
	if err := r.ParseForm(); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			s.oauthError(w, http.StatusBadRequest, "invalid_request", "request body too large")
		} else {
			s.oauthError(w, http.StatusBadRequest, "invalid_request", "malformed form body")
		}
		return false
	}
	return true
}

// isLoopbackHost reports whether host is localhost or a loopback IP.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// validRedirectURI accepts an absolute URI without a fragment that is
// https, http on a loopback host, or a private-use scheme (RFC 8252).
func validRedirectURI(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Fragment != "" {
		return false
	}
	switch u.Scheme {
	case "https":
		return u.Host != ""
	case "http":
		return isLoopbackHost(u.Hostname())
	}
	return strings.Contains(u.Scheme, ".")
}

// redirectMatches compares a requested redirect URI with a registered
// one: exactly, except that the port of a loopback IP redirect URI may
// differ (RFC 8252 section 7.3).
func redirectMatches(registered, requested string) bool {
	if registered == requested {
		return true
	}
	a, err1 := url.Parse(registered)
	b, err2 := url.Parse(requested)
	if err1 != nil || err2 != nil || a.Scheme != "http" || b.Scheme != "http" {
		return false
	}
	ip := net.ParseIP(a.Hostname())
	if ip == nil || !ip.IsLoopback() || a.Hostname() != b.Hostname() {
		return false
	}
	return a.Path == b.Path && a.RawQuery == b.RawQuery
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes)
	var req struct {
		RedirectURIs            []string `json:"redirect_uris"`
		TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
		GrantTypes              []string `json:"grant_types"`
		ResponseTypes           []string `json:"response_types"`
		ClientName              string   `json:"client_name"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			s.oauthError(w, http.StatusBadRequest, "invalid_request", "request body too large")
			return
		}
		s.oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "the body is not a JSON object of client metadata")
		return
	}
	// Redirect URIs are for the authorization code grant, the default;
	// a client of the device grant alone has none.
	if len(req.RedirectURIs) == 0 && (len(req.GrantTypes) == 0 || slices.Contains(req.GrantTypes, "authorization_code")) {
		s.oauthError(w, http.StatusBadRequest, "invalid_redirect_uri", "redirect_uris is required")
		return
	}
	for _, u := range req.RedirectURIs {
		if !validRedirectURI(u) {
			s.oauthError(w, http.StatusBadRequest, "invalid_redirect_uri", fmt.Sprintf("%q is not an https, loopback http or private-use redirect URI", u))
			return
		}
	}
	method := req.TokenEndpointAuthMethod
	switch method {
	case "":
		method = "client_secret_basic" // RFC 7591 section 2
	case "none", "client_secret_basic", "client_secret_post":
	default:
		s.oauthError(w, http.StatusBadRequest, "invalid_client_metadata", fmt.Sprintf("token_endpoint_auth_method %q is not supported", method))
		return
	}
	for _, g := range req.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" && g != grantDeviceCode {
			s.oauthError(w, http.StatusBadRequest, "invalid_client_metadata", fmt.Sprintf("grant type %q is not supported", g))
			return
		}
	}
	c := &client{ID: "dev-" + rand.Text(), RedirectURIs: req.RedirectURIs, AuthMethod: method}
	if method != "none" {
		c.Secret = rand.Text()
	}
	s.mu.Lock()
	if len(s.clients) >= s.opts.MaxClients {
		s.mu.Unlock()
		s.oauthError(w, http.StatusBadRequest, "invalid_client_metadata", fmt.Sprintf("too many clients: the development server keeps at most %d (Options.MaxClients)", s.opts.MaxClients))
		return
	}
	s.clients[c.ID] = c
	s.mu.Unlock()
	s.logf("registered a client", "client_id", c.ID, "client_name", req.ClientName)
	grants := req.GrantTypes
	if len(grants) == 0 {
		grants = []string{"authorization_code"}
	}
	responseTypes := []string{"code"}
	if !slices.Contains(grants, "authorization_code") {
		responseTypes = []string{}
	}
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id":                  c.ID,
		"client_secret":              c.Secret,
		"client_id_issued_at":        time.Now().Unix(),
		"client_secret_expires_at":   0,
		"redirect_uris":              c.RedirectURIs,
		"token_endpoint_auth_method": c.AuthMethod,
		"grant_types":                grants,
		"response_types":             responseTypes,
		"client_name":                req.ClientName,
	})
}

// isMetadataURL reports whether a client_id is a client ID metadata
// document URL this server fetches: https, or http on a loopback host,
// with a path.
func isMetadataURL(id string) bool {
	u, err := url.Parse(id)
	if err != nil || u.Host == "" || u.Fragment != "" || u.Path == "" || u.Path == "/" {
		return false
	}
	return u.Scheme == "https" || (u.Scheme == "http" && isLoopbackHost(u.Hostname()))
}

// fetchClient gets the client ID metadata document at id
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#client-id-metadata-documents).
func (s *Server) fetchClient(ctx context.Context, id string) (*client, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.fetch.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: HTTP %d", id, resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, s.opts.MaxBodyBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > s.opts.MaxBodyBytes {
		return nil, fmt.Errorf("GET %s: longer than %d bytes (Options.MaxBodyBytes)", id, s.opts.MaxBodyBytes)
	}
	var c client
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("GET %s: %w", id, err)
	}
	if c.ID != id {
		return nil, fmt.Errorf("the document's client_id %q is not its URL", c.ID)
	}
	if c.AuthMethod != "" && c.AuthMethod != "none" {
		return nil, fmt.Errorf("token_endpoint_auth_method %q is not supported for metadata documents", c.AuthMethod)
	}
	c.AuthMethod = "none"
	c.Secret = ""
	return &c, nil
}

// authorize approves every valid request at once: it redirects back with
// a code, state and iss, or with an error when the request is wrong but
// its client and redirect URI are known (RFC 6749 section 4.1.2.1).
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	clientID, redirectURI := q.Get("client_id"), q.Get("redirect_uri")
	if clientID == "" || redirectURI == "" {
		s.logf("refused", "error", "invalid_request", "description", "client_id and redirect_uri are required")
		http.Error(w, "devserver: client_id and redirect_uri are required", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	c := s.clients[clientID]
	s.mu.Unlock()
	if c == nil && isMetadataURL(clientID) {
		var err error
		if c, err = s.fetchClient(r.Context(), clientID); err != nil {
			s.logf("refused", "error", "invalid_client", "description", err.Error())
			http.Error(w, "devserver: client metadata document: "+err.Error(), http.StatusBadRequest)
			return
		}
	}
	if c == nil {
		s.logf("refused", "error", "invalid_client", "client_id", clientID)
		http.Error(w, fmt.Sprintf("devserver: unknown client_id %q", clientID), http.StatusBadRequest)
		return
	}
	if !slices.ContainsFunc(c.RedirectURIs, func(reg string) bool { return redirectMatches(reg, redirectURI) }) {
		s.logf("refused", "error", "invalid_request", "description", "unregistered redirect_uri", "redirect_uri", redirectURI)
		http.Error(w, fmt.Sprintf("devserver: redirect_uri %q is not registered for the client", redirectURI), http.StatusBadRequest)
		return
	}
	back := func(params url.Values) {
		u, _ := url.Parse(redirectURI) // validated at registration
		v := u.Query()
		for k, vs := range params {
			v[k] = vs
		}
		if st := q.Get("state"); st != "" {
			v.Set("state", st)
		}
		v.Set("iss", s.issuer)
		u.RawQuery = v.Encode()
		http.Redirect(w, r, u.String(), http.StatusFound)
	}
	fail := func(code, description string) {
		s.logf("refused", "error", code, "description", description, "client_id", clientID)
		back(url.Values{"error": {code}, "error_description": {description}})
	}
	switch {
	case q.Get("response_type") != "code":
		fail("unsupported_response_type", "response_type must be code")
		return
	case q.Get("code_challenge") == "":
		fail("invalid_request", "code_challenge is required (PKCE)")
		return
	case q.Get("code_challenge_method") != "S256":
		fail("invalid_request", "code_challenge_method must be S256")
		return
	}
	resource := q.Get("resource")
	if msg := checkResource(resource); msg != "" {
		fail("invalid_target", msg)
		return
	}
	code := rand.Text()
	s.mu.Lock()
	full := s.fullLocked()
	if !full {
		s.codes[code] = &grant{
			clientID:    clientID,
			redirectURI: redirectURI,
			challenge:   q.Get("code_challenge"),
			resource:    resource,
			scope:       q.Get("scope"),
			expires:     time.Now().Add(s.opts.CodeLifetime),
		}
	}
	s.mu.Unlock()
	if full {
		fail("temporarily_unavailable", fmt.Sprintf("too many outstanding grants: at most %d (Options.MaxGrants)", s.opts.MaxGrants))
		return
	}
	s.logf("authorization granted", "client_id", clientID, "sub", s.opts.Subject, "resource", resource, "scope", q.Get("scope"))
	back(url.Values{"code": {code}})
}

// fullLocked reports whether MaxGrants grants are outstanding, once the
// expired codes are dropped; s.mu is held.
func (s *Server) fullLocked() bool {
	if s.grantsLocked() < s.opts.MaxGrants {
		return false
	}
	now := time.Now()
	for k, g := range s.codes {
		if now.After(g.expires) {
			delete(s.codes, k)
		}
	}
	for k, d := range s.devices {
		if now.After(d.expires) {
			s.dropDeviceLocked(k)
		}
	}
	return s.grantsLocked() >= s.opts.MaxGrants
}

func (s *Server) grantsLocked() int { return len(s.codes) + len(s.refresh) + len(s.devices) }

// checkResource validates an RFC 8707 resource: required here, an
// absolute URI without a fragment. It returns why not, or "".
func checkResource(resource string) string {
	if resource == "" {
		return "resource is required (RFC 8707): the MCP server's URI"
	}
	u, err := url.Parse(resource)
	if err != nil || !u.IsAbs() || u.Fragment != "" {
		return fmt.Sprintf("resource %q is not an absolute URI without a fragment", resource)
	}
	return ""
}

// authenticate identifies the client of a token request: HTTP Basic,
// client_secret_post, or a public client's client_id. It answers the
// error itself and returns nil when the client is not authenticated.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) *client {
	id, secret, basic := r.BasicAuth()
	if basic {
		var err1, err2 error
		id, err1 = url.QueryUnescape(id)
		secret, err2 = url.QueryUnescape(secret)
		if err1 != nil || err2 != nil {
			s.oauthError(w, http.StatusUnauthorized, "invalid_client", "malformed HTTP Basic credentials")
			return nil
		}
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id == "" {
		s.oauthError(w, http.StatusUnauthorized, "invalid_client", "no client authentication")
		return nil
	}
	s.mu.Lock()
	c := s.clients[id]
	s.mu.Unlock()
	if c == nil && isMetadataURL(id) {
		c = &client{ID: id, AuthMethod: "none"}
	}
	if c == nil {
		s.oauthError(w, http.StatusUnauthorized, "invalid_client", fmt.Sprintf("unknown client %q", id))
		return nil
	}
	ok := false
	switch c.AuthMethod {
	case "none":
		ok = !basic && secret == ""
	case "client_secret_basic":
		ok = basic && subtle.ConstantTimeCompare([]byte(secret), []byte(c.Secret)) == 1
	case "client_secret_post":
		ok = !basic && subtle.ConstantTimeCompare([]byte(secret), []byte(c.Secret)) == 1
	}
	if !ok {
		s.oauthError(w, http.StatusUnauthorized, "invalid_client", fmt.Sprintf("client authentication failed: the client is registered with %s", c.AuthMethod))
		return nil
	}
	return c
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if !s.readForm(w, r) {
		return
	}
	c := s.authenticate(w, r)
	if c == nil {
		return
	}
	f := r.PostForm
	switch f.Get("grant_type") {
	case "authorization_code":
		s.mu.Lock()
		g := s.codes[f.Get("code")]
		delete(s.codes, f.Get("code")) // single use, even when refused
		s.mu.Unlock()
		switch {
		case g == nil || time.Now().After(g.expires):
			s.oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown, used or expired authorization code")
			return
		case g.clientID != c.ID:
			s.oauthError(w, http.StatusBadRequest, "invalid_grant", "the code was issued to another client")
			return
		case f.Get("redirect_uri") != g.redirectURI:
			s.oauthError(w, http.StatusBadRequest, "invalid_grant", "redirect_uri differs from the authorization request's")
			return
		case !verifierMatches(f.Get("code_verifier"), g.challenge):
			s.oauthError(w, http.StatusBadRequest, "invalid_grant", "code_verifier does not match the code_challenge")
			return
		case f.Has("resource") && f.Get("resource") != g.resource:
			s.oauthError(w, http.StatusBadRequest, "invalid_target", fmt.Sprintf("resource %q differs from the authorization request's %q", f.Get("resource"), g.resource))
			return
		}
		s.issue(w, c, g)
	case "refresh_token":
		s.mu.Lock()
		g := s.refresh[f.Get("refresh_token")]
		if g != nil && g.clientID == c.ID {
			delete(s.refresh, f.Get("refresh_token")) // rotation: each refresh token works once
		}
		s.mu.Unlock()
		switch {
		case g == nil:
			s.oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown or used refresh token")
			return
		case g.clientID != c.ID:
			s.oauthError(w, http.StatusBadRequest, "invalid_grant", "the refresh token was issued to another client")
			return
		case f.Has("resource") && f.Get("resource") != g.resource:
			s.oauthError(w, http.StatusBadRequest, "invalid_target", fmt.Sprintf("resource %q differs from the original grant's %q", f.Get("resource"), g.resource))
			return
		}
		ng := *g
		if sc := f.Get("scope"); sc != "" {
			granted := strings.Fields(g.scope)
			for _, x := range strings.Fields(sc) {
				if !slices.Contains(granted, x) {
					s.oauthError(w, http.StatusBadRequest, "invalid_scope", fmt.Sprintf("scope %q was not granted", x))
					return
				}
			}
			ng.scope = sc
		}
		s.issue(w, c, &ng)
	case grantDeviceCode:
		s.deviceToken(w, c, f.Get("device_code"), f)
	default:
		s.oauthError(w, http.StatusBadRequest, "unsupported_grant_type", fmt.Sprintf("grant_type %q is not supported", f.Get("grant_type")))
	}
}

// verifierMatches checks PKCE S256 (RFC 7636 section 4.6).
func verifierMatches(verifier, challenge string) bool {
	if len(verifier) < 43 || len(verifier) > 128 {
		return false
	}
	sum := sha256.Sum256([]byte(verifier))
	return subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(challenge)) == 1
}

// issue answers a token response for g: a JWT access token and a new
// refresh token.
func (s *Server) issue(w http.ResponseWriter, c *client, g *grant) {
	now := time.Now()
	b := jwt.NewBuilder().
		Issuer(s.issuer).
		Subject(s.opts.Subject).
		Audience([]string{g.resource}).
		IssuedAt(now).
		NotBefore(now).
		Expiration(now.Add(s.opts.TokenLifetime)).
		JwtID(rand.Text()).
		Claim("client_id", c.ID)
	if g.scope != "" {
		b = b.Claim("scope", g.scope)
	}
	tok, err := b.Build()
	if err != nil {
		s.oauthError(w, http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	h := jws.NewHeaders()
	if err := h.Set(jws.TypeKey, "at+jwt"); err != nil { // RFC 9068 section 2.1
		s.oauthError(w, http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	signed, err := jwt.Sign(tok, jwt.WithKey(jwa.ES256(), s.priv, jws.WithProtectedHeaders(h)))
	if err != nil {
		s.oauthError(w, http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	rt := rand.Text()
	s.mu.Lock()
	s.refresh[rt] = &grant{clientID: c.ID, resource: g.resource, scope: g.scope}
	s.mu.Unlock()
	s.logf("token issued", "client_id", c.ID, "sub", s.opts.Subject, "aud", g.resource, "scope", g.scope)
	resp := map[string]any{
		"access_token":  string(signed),
		"token_type":    "Bearer",
		"expires_in":    int64(s.opts.TokenLifetime / time.Second),
		"refresh_token": rt,
	}
	if g.scope != "" {
		resp["scope"] = g.scope
	}
	writeJSON(w, http.StatusOK, resp)
}
