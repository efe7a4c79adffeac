package inspect

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/mcpkit/mcpkit/auth"
)

// OAuth through the page: when a protected server answers 401, the
// client's auth.Authorizer (built by Options.Dial) shows the user the
// authorization URL in the page and waits for the authorization server
// to send the browser back to the Inspector's own address, at
// /oauth/callback: a loopback redirect URI
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization,
// RFC 8252 section 7.3) on the port the page is served from.

// callbackPath is the path of OAuthRedirectURL.
const callbackPath = "/oauth/callback"

// login is an authorization waiting for the browser to come back.
type login struct {
	url       string
	done      chan *url.URL // the redirect, once
	cancelled chan struct{} // closed by the page's Cancel
}

// Login is the "login" event: the authorization URL for the user to open.
type Login struct {
	URL string `json:"url"`
}

// Token is what the page shows of the OAuth token a connection uses
// (never the token itself).
type Token struct {
	Issuer    string `json:"issuer,omitempty"`
	TokenType string `json:"tokenType,omitempty"`
	// Scope is the scope granted (or, when the server did not say, the
	// one requested), space-separated.
	Scope string `json:"scope,omitempty"`
	// Expiry is when the access token expires; zero if the server did
	// not say.
	Expiry time.Time `json:"expiry,omitzero"`
	// Refreshable says whether there is a refresh token.
	Refreshable bool `json:"refreshable,omitempty"`
}

// tokenOf describes the credentials' token, or nil without one.
func tokenOf(c *auth.Credentials) *Token {
	if c == nil || c.Token == nil {
		return nil
	}
	return &Token{Issuer: c.Issuer, TokenType: c.Token.TokenType, Scope: c.Scope, Expiry: c.Token.Expiry, Refreshable: c.Token.RefreshToken != ""}
}

// OAuthRedirectURL is the redirect URI an auth.Authorizer of Options.Dial
// registers (auth.Options.RedirectURL): the Inspector's address, once
// Listen has run, at /oauth/callback.
func (in *Inspector) OAuthRedirectURL() string { return "http://" + in.addr + callbackPath }

// AuthorizeInBrowser is auth.Options.Redirect for the page: it shows the
// user the authorization URL (the "login" event) and returns the URL the
// authorization server sent the browser back to, at OAuthRedirectURL. It
// fails when the user cancels in the page, when another login waits
// already, or when ctx ends.
func (in *Inspector) AuthorizeInBrowser(ctx context.Context, authorizationURL string) (*url.URL, error) {
	l := &login{url: authorizationURL, done: make(chan *url.URL, 1), cancelled: make(chan struct{})}
	in.mu.Lock()
	if in.login != nil {
		in.mu.Unlock()
		return nil, errors.New("mcpkit inspect: another login waits for the browser already")
	}
	in.login = l
	in.mu.Unlock()
	in.hub.publish("login", Login{URL: authorizationURL}, false)
	defer func() {
		in.mu.Lock()
		if in.login == l {
			in.login = nil
		}
		in.mu.Unlock()
		in.hub.publish("login-done", struct{}{}, false)
	}()
	select {
	case u := <-l.done:
		return u, nil
	case <-l.cancelled:
		return nil, errors.New("mcpkit inspect: the login was cancelled in the page")
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// oauthCallback is GET /oauth/callback, where the authorization server
// sends the browser back. It needs no token (the authorization server
// cannot know it, and it must not learn it) but the Host check holds; a
// forged answer gets nowhere, as the Authorizer checks its state. It is
// taken once, and only while a login waits.
func (in *Inspector) oauthCallback(w http.ResponseWriter, r *http.Request) {
	in.mu.Lock()
	l := in.login
	if l != nil {
		in.login = nil
	}
	in.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if l == nil {
		w.WriteHeader(http.StatusConflict)
		w.Write([]byte("mcpkit inspect: no login waits for an answer\n"))
		return
	}
	u := *r.URL
	u.Scheme, u.Host = "http", r.Host
	l.done <- &u
	w.Write([]byte("mcpkit inspect: the authorization server answered; close this tab and go back to the inspector.\n"))
}

// apiLoginCancel is POST /api/login-cancel: the waiting login fails.
func (in *Inspector) apiLoginCancel(w http.ResponseWriter, r *http.Request) {
	var none struct{}
	if !decodeBody(w, r, &none) {
		return
	}
	in.mu.Lock()
	l := in.login
	if l != nil {
		in.login = nil
	}
	in.mu.Unlock()
	if l == nil {
		httpError(w, http.StatusNotFound, "no login waits")
		return
	}
	close(l.cancelled)
	writeJSON(w, http.StatusOK, struct{}{})
}
