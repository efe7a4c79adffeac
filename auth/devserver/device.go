package devserver

import (
	"crypto/rand"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// This file holds the device authorization grant (RFC 8628): the device
// authorization endpoint, the page where the user code is approved or
// denied, and the device grant of the token endpoint.

const grantDeviceCode = "urn:ietf:params:oauth:grant-type:device_code"

// userCodeAlphabet is RFC 8628 section 6.1's: consonants only, so that
// no word is spelt and no letter is mistaken for a digit.
const userCodeAlphabet = "BCDFGHJKLMNPQRSTVWXZ"

// newUserCode returns a user code such as WDJB-MJHT.
func newUserCode() string {
	var b [8]byte
	rand.Read(b[:])
	code := make([]byte, 0, 9)
	for i, x := range b {
		if i == 4 {
			code = append(code, '-')
		}
		code = append(code, userCodeAlphabet[int(x)%len(userCodeAlphabet)])
	}
	return string(code)
}

// normalUserCode is a user code as typed, upper case, without the dash
// and blanks.
func normalUserCode(code string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '-' || r == ' ':
			return -1
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		}
		return r
	}, code)
}

// deviceAuthorization answers POST /device_authorization (RFC 8628
// section 3.1): a device code, a user code and where to enter it.
func (s *Server) deviceAuthorization(w http.ResponseWriter, r *http.Request) {
	if !s.readForm(w, r) {
		return
	}
	c := s.authenticate(w, r)
	if c == nil {
		return
	}
	resource := r.PostForm.Get("resource")
	if msg := checkResource(resource); msg != "" {
		s.oauthError(w, http.StatusBadRequest, "invalid_target", msg)
		return
	}
	d := &deviceGrant{
		grant:    grant{clientID: c.ID, resource: resource, scope: r.PostForm.Get("scope"), expires: time.Now().Add(s.opts.DeviceCodeLifetime)},
		userCode: newUserCode(),
		interval: s.opts.DeviceInterval,
	}
	deviceCode := rand.Text()
	s.mu.Lock()
	full := s.fullLocked()
	if !full {
		s.devices[deviceCode] = d
		s.users[normalUserCode(d.userCode)] = deviceCode
	}
	s.mu.Unlock()
	if full {
		s.oauthError(w, http.StatusServiceUnavailable, "temporarily_unavailable", fmt.Sprintf("too many outstanding grants: at most %d (Options.MaxGrants)", s.opts.MaxGrants))
		return
	}
	s.logf("device code issued", "client_id", c.ID, "user_code", d.userCode, "resource", resource, "scope", d.scope)
	writeJSON(w, http.StatusOK, map[string]any{
		"device_code":               deviceCode,
		"user_code":                 d.userCode,
		"verification_uri":          s.issuer + "/device",
		"verification_uri_complete": s.issuer + "/device?user_code=" + url.QueryEscape(d.userCode),
		"expires_in":                int64(s.opts.DeviceCodeLifetime / time.Second),
		"interval":                  int64(d.interval / time.Second),
	})
}

// dropDeviceLocked forgets a device grant; s.mu is held.
func (s *Server) dropDeviceLocked(deviceCode string) {
	if d := s.devices[deviceCode]; d != nil {
		delete(s.users, normalUserCode(d.userCode))
		delete(s.devices, deviceCode)
	}
}

// deviceToken answers a device access token request (RFC 8628 section
// 3.5): authorization_pending until the user code is approved,
// slow_down (and an interval five seconds longer) to a client that polls
// sooner than its interval, access_denied or expired_token, or a token.
func (s *Server) deviceToken(w http.ResponseWriter, c *client, deviceCode string, f url.Values) {
	now := time.Now()
	s.mu.Lock()
	d := s.devices[deviceCode]
	var code string
	switch {
	case d == nil:
		code = "invalid_grant"
	case d.clientID != c.ID:
		code = "invalid_grant"
		d = nil
	case now.After(d.expires):
		code = "expired_token"
		s.dropDeviceLocked(deviceCode)
	case d.state == deviceDenied:
		code = "access_denied"
		s.dropDeviceLocked(deviceCode)
	case d.state == deviceApproved:
		s.dropDeviceLocked(deviceCode)
	case !d.lastPoll.IsZero() && now.Sub(d.lastPoll) < d.interval:
		code = "slow_down"
		d.interval += 5 * time.Second
		d.lastPoll = now
	default:
		code = "authorization_pending"
		d.lastPoll = now
	}
	s.mu.Unlock()
	switch {
	case code == "invalid_grant" && d == nil:
		s.oauthError(w, http.StatusBadRequest, code, "unknown, used or expired device code, or one issued to another client")
	case code == "":
		if f.Has("resource") && f.Get("resource") != d.resource {
			s.oauthError(w, http.StatusBadRequest, "invalid_target", fmt.Sprintf("resource %q differs from the device authorization request's %q", f.Get("resource"), d.resource))
			return
		}
		g := d.grant
		s.issue(w, c, &g)
	case code == "authorization_pending":
		// Not logged: a client asks every few seconds.
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": code, "error_description": "the user code " + d.userCode + " is not approved yet"})
	default:
		s.oauthError(w, http.StatusBadRequest, code, deviceErrorText[code])
	}
}

var deviceErrorText = map[string]string{
	"slow_down":     "polled sooner than the interval; it is now 5 seconds longer",
	"expired_token": "the device code expired before its user code was approved",
	"access_denied": "the user denied the authorization",
}

// devicePage is the page at the verification URI: a form to enter the
// user code (filled in from ?user_code=), approve it or deny it.
func (s *Server) devicePage(w http.ResponseWriter, r *http.Request) {
	s.writeDevicePage(w, http.StatusOK, r.URL.Query().Get("user_code"), "")
}

// deviceDecision answers the page's form, POST /device with user_code
// and action=approve or deny: the grant waiting for that user code is
// approved for Options.Subject, or denied.
func (s *Server) deviceDecision(w http.ResponseWriter, r *http.Request) {
	if !s.readForm(w, r) {
		return
	}
	userCode, action := r.PostForm.Get("user_code"), r.PostForm.Get("action")
	if action != "approve" && action != "deny" {
		s.writeDevicePage(w, http.StatusBadRequest, userCode, "action must be approve or deny")
		return
	}
	s.mu.Lock()
	d := s.devices[s.users[normalUserCode(userCode)]]
	ok := d != nil && d.state == devicePending && time.Now().Before(d.expires)
	if ok {
		d.state = deviceApproved
		if action == "deny" {
			d.state = deviceDenied
		}
	}
	s.mu.Unlock()
	if !ok {
		s.logf("refused", "error", "invalid_request", "description", "unknown, decided or expired user code", "user_code", userCode)
		s.writeDevicePage(w, http.StatusNotFound, userCode, "unknown, already decided or expired user code")
		return
	}
	if action == "deny" {
		s.logf("device authorization denied", "client_id", d.clientID, "user_code", d.userCode)
		s.writeDevicePage(w, http.StatusOK, "", "denied: the device gets no token")
		return
	}
	s.logf("authorization granted", "client_id", d.clientID, "sub", s.opts.Subject, "resource", d.resource, "scope", d.scope, "user_code", d.userCode)
	s.writeDevicePage(w, http.StatusOK, "", "approved: the device gets its token at its next poll")
}

var devicePageTemplate = template.Must(template.New("device").Parse(`<!doctype html>
<title>mcpkit development authorization server</title>
<h1>Authorize a device</h1>
{{if .Message}}<p>{{.Message}}</p>{{end}}
<form method="post" action="/device">
<label>User code <input name="user_code" value="{{.UserCode}}" autofocus></label>
<button name="action" value="approve">Approve as {{.Subject}}</button>
<button name="action" value="deny">Deny</button>
</form>
`))

func (s *Server) writeDevicePage(w http.ResponseWriter, status int, userCode, message string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = devicePageTemplate.Execute(w, map[string]string{"UserCode": userCode, "Message": message, "Subject": s.opts.Subject})
}
