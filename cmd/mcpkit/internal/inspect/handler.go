package inspect

import (
	"bytes"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"html/template"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

//go:embed web
var webFiles embed.FS

// web is the page's files: index.html (a template that gets the token),
// app.js and app.css.
var web, _ = fs.Sub(webFiles, "web")

var indexTemplate = template.Must(template.ParseFS(web, "index.html"))

// TokenHeader is the header that carries the token on the page's fetches.
const TokenHeader = "X-Mcpkit-Token"

// pageCSP is the page's Content-Security-Policy: its own script, style
// and API and nothing else: no inline script, no eval, no other origin.
// Images and audio from the server arrive as data: URLs; the only frames
// are the MCP Apps sandbox proxy's, from its own origin (apps.go).
func (in *Inspector) pageCSP() string {
	return "default-src 'none'; script-src 'self'; style-src 'self'; " +
		"img-src 'self' data:; media-src 'self' data:; connect-src 'self'; frame-src " + in.sandboxOrigin() + "; " +
		"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}

// Handler is the Inspector's HTTP handler: the page, its files and its
// API, each behind the checks of guard.
func (in *Inspector) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", in.serveIndex)
	mux.HandleFunc("GET /app.js", in.serveFile)
	mux.HandleFunc("GET /app.css", in.serveFile)
	mux.HandleFunc("GET /api/events", in.serveEvents)
	mux.HandleFunc("POST /api/connect", in.apiConnect)
	mux.HandleFunc("POST /api/reconnect", in.apiReconnect)
	mux.HandleFunc("POST /api/disconnect", in.apiDisconnect)
	mux.HandleFunc("POST /api/request", in.apiRequest)
	mux.HandleFunc("POST /api/cancel", in.apiCancel)
	mux.HandleFunc("POST /api/set-level", in.apiSetLevel)
	mux.HandleFunc("POST /api/answer", in.apiAnswer)
	mux.HandleFunc("POST /api/roots", in.apiRoots)
	mux.HandleFunc("POST /api/validate", in.apiValidate)
	mux.HandleFunc("POST /api/login-cancel", in.apiLoginCancel)
	mux.HandleFunc("POST /api/app", in.apiApp)
	mux.HandleFunc("POST /api/app-call", in.apiAppCall)
	mux.HandleFunc("POST /api/app-read", in.apiAppRead)
	mux.HandleFunc("POST /api/skill-read", in.apiSkillRead)
	guarded := in.guard(mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The authorization server's redirect carries no token: only
		// the Host is checked (oauth.go).
		if r.URL.Path == callbackPath && r.Method == http.MethodGet {
			in.securityHeaders(w)
			if !in.hostAllowed(r.Host) {
				httpError(w, http.StatusForbidden, "Host "+quote(r.Host)+" is not the inspector's address")
				return
			}
			in.oauthCallback(w, r)
			return
		}
		guarded.ServeHTTP(w, r)
	})
}

// securityHeaders are the headers of every answer.
func (in *Inspector) securityHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", in.pageCSP())
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
}

// guard refuses, with 403, a request that did not come from the page:
// a Host other than the Inspector's own address (DNS rebinding), an
// Origin other than the page's, a cross-site fetch, or a missing or
// wrong token. Every answer gets the page's security headers.
func (in *Inspector) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in.securityHeaders(w)
		if !in.hostAllowed(r.Host) {
			httpError(w, http.StatusForbidden, "Host "+quote(r.Host)+" is not the inspector's address")
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !in.hostAllowed(strings.TrimPrefix(o, "http://")) {
			httpError(w, http.StatusForbidden, "Origin "+quote(o)+" is not the inspector's page")
			return
		}
		if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
			httpError(w, http.StatusForbidden, "cross-site request")
			return
		}
		token := r.Header.Get(TokenHeader)
		if token == "" {
			token = r.URL.Query().Get("token")
		}
		if subtle.ConstantTimeCompare([]byte(token), []byte(in.token)) != 1 {
			httpError(w, http.StatusForbidden, "missing or wrong token: open the URL mcpkit inspect printed")
			return
		}
		if r.Method == http.MethodPost {
			if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
				httpError(w, http.StatusUnsupportedMediaType, "want Content-Type: application/json")
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, in.opts.MaxBodyBytes)
		}
		next.ServeHTTP(w, r)
	})
}

// hostAllowed reports whether host (a Host header, or an Origin without
// its scheme) names the Inspector: 127.0.0.1 or localhost with its port.
func (in *Inspector) hostAllowed(host string) bool {
	_, port, ok := strings.Cut(in.addr, ":")
	if !ok {
		return false
	}
	return host == "127.0.0.1:"+port || host == "localhost:"+port
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// httpError answers {"error": msg} with status.
func httpError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": "mcpkit inspect: " + msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"mcpkit inspect: encoding the answer failed"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// decodeBody decodes the JSON body of a POST into v: 400 for bad JSON,
// 413 for a body over Options.MaxBodyBytes.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			httpError(w, http.StatusRequestEntityTooLarge, "request body too large")
			return false
		}
		httpError(w, http.StatusBadRequest, "bad request body: "+err.Error())
		return false
	}
	return true
}

// serveIndex serves the page, its token written in.
func (in *Inspector) serveIndex(w http.ResponseWriter, _ *http.Request) {
	var b bytes.Buffer
	if err := indexTemplate.Execute(&b, struct{ Token string }{in.token}); err != nil {
		httpError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(b.Bytes())
}

// serveFile serves app.js or app.css.
func (in *Inspector) serveFile(w http.ResponseWriter, r *http.Request) {
	name := path.Base(r.URL.Path)
	b, err := fs.ReadFile(web, name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	ctype := "text/css; charset=utf-8"
	if path.Ext(name) == ".js" {
		ctype = "text/javascript; charset=utf-8"
	}
	w.Header().Set("Content-Type", ctype)
	w.Write(b)
}
