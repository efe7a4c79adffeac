package mcphttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/mcpkit/mcpkit/internal/wwwauth"
)

// Authorizer adds credentials to the client transport's requests and
// obtains new ones when the server refuses them
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization).
// *auth.Authorizer implements it.
type Authorizer interface {
	// Authorize adds the current credentials (such as "Authorization:
	// Bearer …", or a DPoP token and proof) to req. It is called before
	// every request is sent, retries included.
	Authorize(ctx context.Context, req *http.Request) error
	// Reauthorize is called when resp, the answer to req, is a 401 or a
	// 403 whose WWW-Authenticate challenge says
	// error="insufficient_scope"; resp's body is already closed. It
	// obtains credentials that may succeed (a new token, a refreshed one,
	// a wider scope, a DPoP nonce) and returns nil if the request should
	// be sent again, or the reason it cannot.
	Reauthorize(ctx context.Context, req *http.Request, resp *http.Response) error
}

// ErrUnauthorized is matched (errors.Is) by every error of a request the
// server refused for want of authorization (401, or 403 with
// error="insufficient_scope") and that the transport could not
// authorize: the error is an *AuthError.
var ErrUnauthorized = errors.New("mcphttp: unauthorized")

// AuthError is a request refused for want of authorization.
type AuthError struct {
	// StatusCode is the HTTP status of the last answer: 401 or 403.
	StatusCode int
	// Challenges are the answer's parsed WWW-Authenticate challenges;
	// auth.Challenge names their type.
	Challenges []wwwauth.Challenge
	// Attempts is how many times the transport asked the Authorizer to
	// reauthorize the request.
	Attempts int
	// Err is why: the Authorizer's error, or nil when there is no
	// Authorizer or the attempts ran out.
	Err error
}

func (e *AuthError) Error() string {
	msg := fmt.Sprintf("mcphttp: HTTP %d: unauthorized", e.StatusCode)
	if c, ok := firstChallenge(e.Challenges); ok && c.Param("error") != "" {
		msg += " (" + c.Param("error") + ")"
	}
	switch {
	case e.Err != nil:
		return fmt.Sprintf("%s: authorization failed after %d attempt(s): %v", msg, e.Attempts, e.Err)
	case e.Attempts > 0:
		return fmt.Sprintf("%s: still refused after %d authorization attempt(s) (ClientTransport.MaxAuthAttempts)", msg, e.Attempts)
	}
	return msg + ": no Authorizer"
}

// Is reports whether target is ErrUnauthorized.
func (e *AuthError) Is(target error) bool { return target == ErrUnauthorized }

// Unwrap returns the Authorizer's error.
func (e *AuthError) Unwrap() error { return e.Err }

func firstChallenge(cs []wwwauth.Challenge) (wwwauth.Challenge, bool) {
	for _, s := range []string{"DPoP", "Bearer"} {
		if c, ok := wwwauth.FindChallenge(cs, s); ok {
			return c, true
		}
	}
	if len(cs) > 0 {
		return cs[0], true
	}
	return wwwauth.Challenge{}, false
}

// maxAuthAttempts is the bound of ClientTransport.MaxAuthAttempts.
func (c *clientConn) maxAuthAttempts() int {
	if c.t.MaxAuthAttempts <= 0 {
		return 3
	}
	return c.t.MaxAuthAttempts
}

// needsAuth reports whether resp refuses the request for want of
// authorization, and returns its challenges.
func needsAuth(resp *http.Response) (bool, []wwwauth.Challenge) {
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		return false, nil
	}
	cs, _ := wwwauth.ParseChallenges(resp.Header.Values("WWW-Authenticate"))
	if resp.StatusCode == http.StatusUnauthorized {
		return true, cs
	}
	c, ok := firstChallenge(cs)
	return ok && c.Param("error") == "insufficient_scope", cs
}

// do sends req with the transport's HTTP client, through the Authorizer:
// it authorizes the request, and on a 401 (or 403 insufficient_scope)
// asks the Authorizer to reauthorize and sends the request again, at most
// MaxAuthAttempts times. A request still refused is an *AuthError. req's
// body must be replayable (GetBody), as http.NewRequest makes it for a
// bytes.Reader.
func (c *clientConn) do(req *http.Request) (*http.Response, error) {
	a := c.t.Authorizer
	if a == nil {
		return c.client.Do(req)
	}
	ctx := req.Context()
	for attempt := 0; ; attempt++ {
		if err := safeAuthorize(ctx, a, req); err != nil {
			return nil, &AuthError{Attempts: attempt, Err: err, StatusCode: http.StatusUnauthorized}
		}
		resp, err := c.client.Do(req)
		if err != nil {
			return nil, err
		}
		refused, cs := needsAuth(resp)
		if !refused {
			return resp, nil
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		if attempt >= c.maxAuthAttempts() {
			return nil, &AuthError{StatusCode: resp.StatusCode, Challenges: cs, Attempts: attempt}
		}
		c.logger.Debug("mcphttp: reauthorizing", "status", resp.StatusCode, "challenge", strings.Join(resp.Header.Values("WWW-Authenticate"), "; "), "attempt", attempt+1)
		if err := safeReauthorize(ctx, a, req, resp); err != nil {
			return nil, &AuthError{StatusCode: resp.StatusCode, Challenges: cs, Attempts: attempt + 1, Err: err}
		}
		next := req.Clone(ctx)
		if req.Body != nil && req.Body != http.NoBody {
			if req.GetBody == nil {
				return nil, &AuthError{StatusCode: resp.StatusCode, Challenges: cs, Attempts: attempt + 1, Err: errors.New("mcphttp: the request body cannot be sent again")}
			}
			body, err := req.GetBody()
			if err != nil {
				return nil, fmt.Errorf("mcphttp: %w", err)
			}
			next.Body = body
		}
		req = next
	}
}

// safeAuthorize calls a.Authorize, turning a panic into an error.
func safeAuthorize(ctx context.Context, a Authorizer, req *http.Request) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("mcphttp: Authorizer.Authorize panicked: %v", r)
		}
	}()
	return a.Authorize(ctx, req)
}

// safeReauthorize calls a.Reauthorize, turning a panic into an error.
func safeReauthorize(ctx context.Context, a Authorizer, req *http.Request, resp *http.Response) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("mcphttp: Authorizer.Reauthorize panicked: %v", r)
		}
	}()
	return a.Reauthorize(ctx, req, resp)
}

// doOnce sends req with the Authorizer's credentials but never
// reauthorizes: for the best-effort DELETE of Close.
func (c *clientConn) doOnce(req *http.Request) (*http.Response, error) {
	if a := c.t.Authorizer; a != nil {
		if err := safeAuthorize(req.Context(), a, req); err != nil {
			return nil, &AuthError{Err: err, StatusCode: http.StatusUnauthorized}
		}
	}
	return c.client.Do(req)
}
