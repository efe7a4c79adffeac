package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/mcpkit/mcpkit/auth"
)

// autoApproveEnv, set to 1, is --auth-auto-approve for every client verb.
const autoApproveEnv = "MCPKIT_AUTH_AUTO_APPROVE"

// authFlags are the OAuth options of the client verbs with --url.
type authFlags struct {
	clientID     string
	clientSecret string
	autoApprove  bool
	// device is auth login's --device: the device authorization grant
	// instead of a browser on this machine.
	device bool
	// page, when set, is the redirect target of mcpkit inspect: the
	// inspector's own address and its login in the page, so that no
	// listener of the CLI's own is opened.
	page *pageRedirect
}

// pageRedirect is where mcpkit inspect's logins come back to: the
// inspector's /oauth/callback (inspect.Inspector's OAuthRedirectURL and
// AuthorizeInBrowser).
type pageRedirect struct {
	url      string
	redirect func(ctx context.Context, authorizationURL string) (*url.URL, error)
}

// listenRedirect opens the CLI's loopback OAuth redirect listener; a
// variable so that tests count the listeners opened.
var listenRedirect = net.Listen

func (f *authFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.clientID, "client-id", "", "with --url, the OAuth client `ID` registered with the server's authorization server (default: a client ID metadata document or dynamic registration)")
	fs.StringVar(&f.clientSecret, "client-secret", "", "with --client-id, the client's `SECRET`")
	fs.BoolVar(&f.autoApprove, "auth-auto-approve", os.Getenv(autoApproveEnv) == "1", "with --url, follow the authorization URL without a browser, for authorization servers that approve at once (mcpkit dev-auth-server); also "+autoApproveEnv+"=1")
}

// check refuses OAuth flags without --url.
func (f *authFlags) check(url string) error {
	if url == "" && (f.clientID != "" || f.clientSecret != "") {
		return usagef("--client-id and --client-secret go with --url")
	}
	if f.clientSecret != "" && f.clientID == "" {
		return usagef("--client-secret needs --client-id")
	}
	return nil
}

// credentialsDir is where the CLI keeps its OAuth credentials: one file
// per server, mode 0600, in a directory of mode 0700.
func credentialsDir() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("finding where to keep OAuth credentials: %w", err)
	}
	return filepath.Join(dir, "mcpkit", "auth"), nil
}

// unavailableStore is the token store when there is no config directory:
// nothing is recalled, and saving says why it cannot.
type unavailableStore struct{ err error }

func (s unavailableStore) Load(context.Context, string) (*auth.Credentials, error) { return nil, nil }
func (s unavailableStore) Save(context.Context, string, *auth.Credentials) error   { return s.err }

// tokenStore is the CLI's credential store.
func tokenStore() auth.TokenStore {
	dir, err := credentialsDir()
	if err != nil {
		return unavailableStore{err}
	}
	return &auth.FileStore{Dir: dir}
}

// storeKey is the key an auth.Authorizer keeps the credentials of the
// server at raw under: the URL without query, fragment or user info.
func storeKey(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", usagef("--url %q: want an http or https URL", raw)
	}
	u.RawQuery, u.Fragment, u.RawFragment, u.User = "", "", "", nil
	return u.String(), nil
}

// authorizer returns the OAuth client of a client verb with --url: it
// answers the server's 401 by authorizing through a loopback redirect
// listener on 127.0.0.1 (RFC 8252 section 7.3), or, with f.page, through
// mcpkit inspect's page and address (no listener of its own), the authorization URL
// printed on stderr and opened in a browser when there is a display, and
// keeps the tokens in the user's config directory. The listener and the
// client's connections are closed when the command ends.
func (f *authFlags) authorizer(e *env, serverURL string) (*auth.Authorizer, error) {
	if f.device {
		return f.deviceAuthorizer(e), nil
	}
	if f.page != nil {
		// mcpkit inspect: the inspector is the redirect target.
		tr := &http.Transport{Proxy: http.ProxyFromEnvironment}
		e.closers = append(e.closers, tr.CloseIdleConnections)
		return auth.New(auth.Options{
			HTTPClient:    &http.Client{Transport: tr},
			RedirectURL:   f.page.url,
			Redirect:      f.page.redirect,
			ClientName:    "mcpkit inspect",
			ClientID:      f.clientID,
			ClientSecret:  f.clientSecret,
			OfflineAccess: true,
			Store:         tokenStore(),
		}), nil
	}
	ln, err := listenRedirect("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("opening the OAuth redirect listener: %w", err)
	}
	redirectURL := "http://" + ln.Addr().String() + "/callback"
	responses := make(chan *url.URL, 1)
	srv := &http.Server{
		ReadHeaderTimeout: 10 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/callback" {
				http.NotFound(w, r)
				return
			}
			select {
			case responses <- r.URL:
				fmt.Fprintln(w, "mcpkit: authorization response received; you may close this window.")
			default:
				http.Error(w, "mcpkit: not waiting for an authorization response", http.StatusConflict)
			}
		}),
	}
	go srv.Serve(ln)
	tr := &http.Transport{Proxy: http.ProxyFromEnvironment}
	hc := &http.Client{Transport: tr}
	e.closers = append(e.closers, func() {
		srv.Close()
		tr.CloseIdleConnections()
	})
	prompts := 0
	redirect := func(ctx context.Context, authorizationURL string) (*url.URL, error) {
		// Drop a response left by an earlier attempt.
		select {
		case <-responses:
		default:
		}
		if prompts++; prompts > 1 {
			// A new flow (the server asked again, for another scope
			// say): its URL replaces the one printed before.
			fmt.Fprintf(e.stderr, "mcpkit: the server asked to authorize mcpkit again; the URL printed before no longer works, open this one instead:\n  %s\n", authorizationURL)
		} else {
			fmt.Fprintf(e.stderr, "mcpkit: to authorize mcpkit, open this URL in a browser:\n  %s\n", authorizationURL)
		}
		if f.autoApprove {
			if err := followApproval(ctx, tr, authorizationURL, redirectURL); err != nil {
				return nil, err
			}
		} else {
			fmt.Fprintf(e.stderr, "mcpkit: waiting%s for the browser to come back to %s once you logged in and approved;\n"+
				"  with no browser on this machine, use: mcpkit auth login --device --url %s\n", waitBound(ctx), redirectURL, shellQuote(serverURL))
			if hasDisplay() {
				openBrowser(authorizationURL)
			}
		}
		select {
		case u := <-responses:
			return u, nil
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				e.setLoginTimedOut("the browser login was not completed")
			}
			return nil, fmt.Errorf("no authorization response reached %s: %w", redirectURL, context.Cause(ctx))
		}
	}
	return auth.New(auth.Options{
		HTTPClient:    hc,
		RedirectURL:   redirectURL,
		Redirect:      redirect,
		ClientName:    "mcpkit CLI",
		ClientID:      f.clientID,
		ClientSecret:  f.clientSecret,
		OfflineAccess: true,
		Store:         tokenStore(),
	}), nil
}

// deviceAuthorizer is auth login --device's OAuth client: the device
// authorization grant (RFC 8628), its code and URI printed on stderr.
func (f *authFlags) deviceAuthorizer(e *env) *auth.Authorizer {
	tr := &http.Transport{Proxy: http.ProxyFromEnvironment}
	e.closers = append(e.closers, tr.CloseIdleConnections)
	return auth.New(auth.Options{
		HTTPClient: &http.Client{Transport: tr},
		Grant:      auth.GrantDeviceCode,
		DeviceCode: func(ctx context.Context, d *auth.DeviceAuthorization) error {
			fmt.Fprintf(e.stderr, "mcpkit: to authorize mcpkit, visit\n  %s\non any device and enter the code\n  %s\n", d.VerificationURI, d.UserCode)
			if d.VerificationURIComplete != "" {
				fmt.Fprintf(e.stderr, "(or open %s, which carries the code)\n", d.VerificationURIComplete)
			}
			fmt.Fprintf(e.stderr, "mcpkit: waiting%s for the approval; the code expires in %v\n", waitBound(ctx), time.Until(d.Expires).Round(time.Second))
			// The polling that follows ends with this context.
			context.AfterFunc(ctx, func() {
				if errors.Is(ctx.Err(), context.DeadlineExceeded) {
					e.setLoginTimedOut("the device login was not approved")
				}
			})
			return nil
		},
		ClientName:    "mcpkit CLI",
		ClientID:      f.clientID,
		ClientSecret:  f.clientSecret,
		OfflineAccess: true,
		Store:         tokenStore(),
	})
}

// waitBound says how long a login may take: " up to D (see --timeout)"
// with ctx's deadline, "" without one.
func waitBound(ctx context.Context) string {
	deadline, ok := ctx.Deadline()
	if !ok {
		return ""
	}
	return fmt.Sprintf(" up to %v (see --timeout)", time.Until(deadline).Round(time.Second))
}

// onceAuthorizer is the CLI's Authorizer: an authorization that failed,
// or ran out of time, is not tried again in the same run (the
// handshake's fallback from server/discover to initialize would
// otherwise start a second login with a new URL); the same error is
// returned at once.
type onceAuthorizer struct {
	*auth.Authorizer
	mu     sync.Mutex
	failed error
}

// Reauthorize implements mcphttp.Authorizer.
func (o *onceAuthorizer) Reauthorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.failed != nil {
		return o.failed
	}
	err := o.Authorizer.Reauthorize(ctx, req, resp)
	if err != nil {
		o.failed = err
	}
	return err
}

// followApproval is --auth-auto-approve: it GETs the authorization URL
// without following redirects and delivers the redirect's Location to
// the loopback listener at redirectURL, as a browser would after the
// user approved.
func followApproval(ctx context.Context, tr http.RoundTripper, authorizationURL, redirectURL string) error {
	hc := &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	get := func(u string) (*http.Response, string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, "", err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, "", err
		}
		defer resp.Body.Close()
		var body [512]byte
		n, _ := resp.Body.Read(body[:])
		return resp, string(body[:n]), nil
	}
	resp, body, err := get(authorizationURL)
	if err != nil {
		return fmt.Errorf("--auth-auto-approve: %w", err)
	}
	loc := resp.Header.Get("Location")
	if resp.StatusCode < 300 || resp.StatusCode > 399 || loc == "" {
		return fmt.Errorf("--auth-auto-approve: the authorization server answered %s, not a redirect: %q", resp.Status, strings.TrimSpace(body))
	}
	back, err := resp.Request.URL.Parse(loc)
	if err != nil {
		return fmt.Errorf("--auth-auto-approve: redirect %q: %w", loc, err)
	}
	want, _ := url.Parse(redirectURL)
	if back.Scheme != want.Scheme || back.Host != want.Host || back.Path != want.Path {
		return fmt.Errorf("--auth-auto-approve: the authorization server redirected to %s, not to mcpkit's redirect URI %s (it did not approve at once)", back.Redacted(), redirectURL)
	}
	if resp, body, err = get(back.String()); err != nil {
		return fmt.Errorf("--auth-auto-approve: delivering the authorization response: %w", err)
	} else if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("--auth-auto-approve: delivering the authorization response: %s: %q", resp.Status, strings.TrimSpace(body))
	}
	return nil
}

// hasDisplay reports whether a browser can be opened for the user.
func hasDisplay() bool {
	switch runtime.GOOS {
	case "darwin", "windows":
		return true
	}
	return os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
}

// openBrowser opens u with the platform's opener, best effort: the URL
// is printed anyway.
func openBrowser(u string) {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", u)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", u)
	default:
		cmd = exec.Command("xdg-open", u)
	}
	if cmd.Start() == nil {
		go cmd.Wait()
	}
}

// authCommand implements `mcpkit auth login|logout|status`.
func authCommand(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return usagef("auth: want a subcommand: login, logout or status")
	}
	switch args[0] {
	case "login":
		return authLogin(ctx, e, args[1:])
	case "logout":
		return authLogout(ctx, e, args[1:])
	case "status":
		return authStatus(ctx, e, args[1:])
	}
	return usagef("auth: unknown subcommand %q: want login, logout or status", args[0])
}

// authLogin implements `mcpkit auth login --url URL`: a new authorization
// with the server's authorization server, keeping the client identity
// already registered there.
func authLogin(ctx context.Context, e *env, args []string) error {
	f := &clientFlags{}
	fs := newFlagSet("auth login")
	f.register(fs)
	fs.BoolVar(&f.auth.device, "device", false, "log in with the device authorization grant (RFC 8628), for a machine without a browser: mcpkit prints a code to enter at a URI on any other device, and waits for the approval")
	// A login waits for a person: its default --timeout is longer.
	timeout := fs.Lookup("timeout")
	timeout.DefValue = defaultLoginTimeout.String()
	f.timeout = defaultLoginTimeout
	positional, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(positional) > 0 {
		return usagef("auth login: unexpected argument %q", positional[0])
	}
	if f.url == "" {
		return usagef("auth login: --url is required")
	}
	if f.auth.device && f.auth.autoApprove {
		return usagef("auth login: --device and --auth-auto-approve: give one (the device grant waits for a person's approval)")
	}
	if h, err := parseHeaders(f.headers); err != nil {
		return err
	} else if h.Get("Authorization") != "" {
		return usagef("auth login: --header Authorization: there is nothing to log in to when the token is given")
	}
	key, err := storeKey(f.url)
	if err != nil {
		return err
	}
	store := tokenStore()
	if c, err := store.Load(ctx, key); err != nil {
		return err
	} else if c != nil && c.Token != nil {
		c.Token = nil
		if err := store.Save(ctx, key, c); err != nil {
			return err
		}
	}
	cs, err := f.connect(ctx, e, nil)
	if errors.Is(err, auth.ErrDeviceGrantUnsupported) {
		return &explainedError{msg: fmt.Sprintf("auth login --device: the authorization server of %s does not offer the device authorization grant (its metadata has no device_authorization_endpoint); log in without --device", f.url), err: err}
	}
	if err != nil {
		return err
	}
	closeSession(e, cs)
	c, err := store.Load(ctx, key)
	if err != nil {
		return err
	}
	if c == nil || c.Token == nil {
		return &exitCodeError{code: exitError, msg: fmt.Sprintf("auth login: %s did not ask for authorization; nothing was stored", f.url)}
	}
	fmt.Fprintf(e.stdout, "logged in to %s (authorization server %s, scope %q)\n", key, c.Issuer, c.Scope)
	return nil
}

// defaultLoginTimeout is auth login's default --timeout: how long a
// person has to log in and approve.
const defaultLoginTimeout = 5 * time.Minute

// authLogout implements `mcpkit auth logout --url URL`: it forgets the
// server's tokens and client identity.
func authLogout(ctx context.Context, e *env, args []string) error {
	var rawURL string
	fs := newFlagSet("auth logout")
	fs.StringVar(&rawURL, "url", "", "the MCP server `URL`")
	positional, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(positional) > 0 {
		return usagef("auth logout: unexpected argument %q", positional[0])
	}
	if rawURL == "" {
		return usagef("auth logout: --url is required")
	}
	key, err := storeKey(rawURL)
	if err != nil {
		return err
	}
	store := tokenStore()
	c, err := store.Load(ctx, key)
	if err != nil {
		return err
	}
	if c == nil {
		fmt.Fprintf(e.stdout, "not logged in to %s\n", key)
		return nil
	}
	if err := store.Save(ctx, key, nil); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "logged out of %s\n", key)
	return nil
}

// authStatus implements `mcpkit auth status`: the servers the CLI holds
// credentials for.
func authStatus(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("auth status")
	positional, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(positional) > 0 {
		return usagef("auth status: unexpected argument %q", positional[0])
	}
	dir, err := credentialsDir()
	if err != nil {
		return err
	}
	store := &auth.FileStore{Dir: dir}
	servers, err := store.Servers(ctx)
	if err != nil {
		return err
	}
	if len(servers) == 0 {
		fmt.Fprintln(e.stdout, "not logged in to any server")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tAUTHORIZATION SERVER\tSCOPE\tTOKEN")
	for _, s := range servers {
		c, err := store.Load(ctx, s)
		if err != nil {
			return err
		}
		if c == nil {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s, c.Issuer, orDash(c.Scope), tokenState(c))
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// tokenState describes the stored token.
func tokenState(c *auth.Credentials) string {
	t := c.Token
	switch {
	case t == nil || t.AccessToken == "":
		return "none"
	case t.Expiry.IsZero():
		return "valid"
	case time.Now().After(t.Expiry) && t.RefreshToken != "":
		return "expired (refreshable)"
	case time.Now().After(t.Expiry):
		return "expired"
	}
	return "valid until " + t.Expiry.UTC().Format(time.RFC3339)
}
