// Command authserver is a stand-in for `mcpkit serve --http ADDR
// --auth-issuer URL --auth-audience URI [--auth-scopes a,b]` in the
// interop tests (interop/run.sh, ts/client-auth.mjs), until that command
// exists: the reference server (internal/everything, what `mcpkit serve`
// runs) over Streamable HTTP at /mcp, behind a bearer check of the
// issuer's JWT access tokens (RFC 9068) against its JWKS.
//
//   - A request to /mcp without a valid token gets 401 with
//     `WWW-Authenticate: Bearer resource_metadata="…", scope="…"` (and
//     error="invalid_token" when a token was sent); a valid token without
//     every --auth-scopes scope gets 403 with error="insufficient_scope".
//   - A token is valid when its ES256 signature verifies with the issuer's
//     JWKS, iss is the issuer, aud names the audience (RFC 8707: no token
//     passthrough), and exp/nbf hold (one minute of skew).
//   - The protected resource metadata (RFC 9728) is served at
//     /.well-known/oauth-protected-resource/mcp and
//     /.well-known/oauth-protected-resource.
//
// It logs "url=http://ADDR/mcp" on stderr once it listens, and a line per
// refused request. For tests only: the key set is read once at start.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jwt"
	"github.com/mcpkit/mcpkit/internal/everything"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

func main() {
	addr := flag.String("http", "127.0.0.1:0", "serve Streamable HTTP on `ADDR`")
	issuer := flag.String("auth-issuer", "", "the authorization server's issuer `URL` (required)")
	audience := flag.String("auth-audience", "", "this server's resource `URI`, the aud of its tokens (default: http://ADDR/mcp)")
	scopes := flag.String("auth-scopes", "", "comma-separated `SCOPES` every token must carry")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if *issuer == "" {
		fmt.Fprintln(os.Stderr, "authserver: --auth-issuer is required")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *addr, *issuer, *audience, splitScopes(*scopes), logger); err != nil {
		fmt.Fprintln(os.Stderr, "authserver:", err)
		os.Exit(1)
	}
}

func splitScopes(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

func run(ctx context.Context, addr, issuer, audience string, scopes []string, logger *slog.Logger) error {
	keys, err := fetchKeys(ctx, issuer)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	if audience == "" {
		audience = base + "/mcp"
	}
	h := mcphttp.NewHandler(everything.NewServer(&everything.Options{ServerOptions: &mcp.ServerOptions{Logger: logger}}),
		&mcphttp.Options{EventStore: &mcphttp.MemoryEventStore{}, Logger: logger})
	defer h.Close()
	g := &guard{next: h, keys: keys, issuer: issuer, audience: audience, scopes: scopes,
		metadataURL: base + "/.well-known/oauth-protected-resource/mcp", logger: logger}
	prm := map[string]any{
		"resource":                 audience,
		"authorization_servers":    []string{issuer},
		"bearer_methods_supported": []string{"header"},
	}
	if len(scopes) > 0 {
		prm["scopes_supported"] = scopes
	}
	metadata := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Access-Control-Allow-Origin", "*")
		_ = json.NewEncoder(w).Encode(prm)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", g)
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", metadata)
	mux.HandleFunc("GET /.well-known/oauth-protected-resource", metadata)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	logger.Info("authserver: serving the reference server behind bearer tokens", "url", base+"/mcp", "issuer", issuer, "audience", audience, "scopes", strings.Join(scopes, " "))
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	h.Close()
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdown)
	<-done
	return nil
}

// fetchKeys reads the issuer's key set from the jwks_uri of its RFC 8414
// metadata, after checking that the metadata names the issuer.
func fetchKeys(ctx context.Context, issuer string) (jwk.Set, error) {
	var md struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := getJSON(ctx, strings.TrimSuffix(issuer, "/")+"/.well-known/oauth-authorization-server", &md); err != nil {
		return nil, err
	}
	if md.Issuer != issuer || md.JWKSURI == "" {
		return nil, fmt.Errorf("authorization server metadata: issuer %q, jwks_uri %q; want issuer %q and a jwks_uri", md.Issuer, md.JWKSURI, issuer)
	}
	var raw json.RawMessage
	if err := getJSON(ctx, md.JWKSURI, &raw); err != nil {
		return nil, err
	}
	keys, err := jwk.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", md.JWKSURI, err)
	}
	return keys, nil
}

func getJSON(ctx context.Context, url string, v any) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(v); err != nil {
		return fmt.Errorf("GET %s: %w", url, err)
	}
	return nil
}

// guard lets through the requests with a valid bearer token.
type guard struct {
	next        http.Handler
	keys        jwk.Set
	issuer      string
	audience    string
	scopes      []string
	metadataURL string
	logger      *slog.Logger
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	challenge := `Bearer resource_metadata="` + g.metadataURL + `"`
	if len(g.scopes) > 0 {
		challenge += `, scope="` + strings.Join(g.scopes, " ") + `"`
	}
	refuse := func(status int, errCode, why string) {
		h := challenge
		if errCode != "" {
			h += `, error="` + errCode + `"`
		}
		w.Header().Set("WWW-Authenticate", h)
		g.logger.Info("authserver: refused", "status", status, "method", r.Method, "why", why)
		http.Error(w, why, status)
	}
	if r.URL.Query().Has("access_token") {
		refuse(http.StatusBadRequest, "invalid_request", "a token in the query string is not accepted")
		return
	}
	values := r.Header.Values("Authorization")
	if len(values) == 0 {
		refuse(http.StatusUnauthorized, "", "no token")
		return
	}
	raw, ok := strings.CutPrefix(values[0], "Bearer ")
	if len(values) > 1 || !ok || raw == "" {
		refuse(http.StatusBadRequest, "invalid_request", "malformed Authorization")
		return
	}
	tok, err := jwt.Parse([]byte(raw), jwt.WithKeySet(g.keys), jwt.WithValidate(true),
		jwt.WithIssuer(g.issuer), jwt.WithAudience(g.audience), jwt.WithAcceptableSkew(time.Minute))
	if err != nil {
		refuse(http.StatusUnauthorized, "invalid_token", err.Error())
		return
	}
	var scope string
	if err := tok.Get("scope", &scope); err != nil && !errors.Is(err, jwt.ClaimNotFoundError()) {
		refuse(http.StatusUnauthorized, "invalid_token", "scope: "+err.Error())
		return
	}
	granted := strings.Fields(scope)
	for _, s := range g.scopes {
		if !slices.Contains(granted, s) {
			refuse(http.StatusForbidden, "insufficient_scope", "the token lacks scope "+s)
			return
		}
	}
	g.next.ServeHTTP(w, r)
}
