package browsertest

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/auth/devserver"
	"github.com/mcpkit/mcpkit/cmd/mcpkit/internal/inspect"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// protectedServer is the reference server behind OAuth: its tokens come
// from issuer, for the resource URL/mcp, with the scope mcp.
func protectedServer(t *testing.T, issuer string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	verifier, err := auth.NewJWTVerifier(auth.JWTConfig{Issuer: issuer, Resource: base + "/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	server := newServer()
	rs, err := auth.NewResourceServer(auth.ResourceServerConfig{Resource: base + "/mcp", AuthorizationServers: []string{issuer}, Verifier: verifier, Scopes: []string{"mcp"}, Server: server})
	if err != nil {
		t.Fatal(err)
	}
	opts := &mcphttp.Options{}
	auth.Protect(opts, rs)
	h := mcphttp.NewHandler(server, opts)
	mux := http.NewServeMux()
	for _, path := range rs.MetadataPaths() {
		mux.Handle(path, rs.MetadataHandler())
	}
	mux.Handle("/mcp", h)
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { h.Close(); srv.Close() })
	return base + "/mcp"
}

// TestOAuthLogin logs in to a server protected by OAuth through the page:
// the inspector shows the authorization URL, the user opens it in a new
// tab, the development authorization server (mcpkit dev-auth-server)
// approves and sends the tab back to the inspector's own address, and the
// page connects and shows the token's scopes and expiry.
func TestOAuthLogin(t *testing.T) {
	needBrowser(t)
	as, err := devserver.Start(devserver.Options{Scopes: []string{"mcp"}, TokenLifetime: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { as.Close() })
	serverURL := protectedServer(t, as.Issuer())

	f := openDial(t, nil, func(in *inspect.Inspector) dialFunc {
		return func(_ context.Context, tg inspect.Target, _ io.Writer) (*inspect.Dialed, error) {
			a := auth.New(auth.Options{RedirectURL: in.OAuthRedirectURL(), Redirect: in.AuthorizeInBrowser, ClientName: "mcpkit inspect (test)"})
			return &inspect.Dialed{Transport: &mcphttp.ClientTransport{URL: tg.URL, Authorizer: a}, Args: "--url " + tg.URL, Credentials: a.Credentials}, nil
		}
	})
	// Nothing waits: the callback refuses an answer.
	resp, err := http.Get(f.base + "/oauth/callback?code=x&state=y")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict || string(body) != "mcpkit inspect: no login waits for an answer\n" {
		t.Errorf("callback with no login waiting: %d %q", resp.StatusCode, body)
	}

	f.run(t,
		chromedp.SetValue(css(`#transport`), "http"),
		exec(`document.getElementById('transport').dispatchEvent(new Event('change'))`),
		chromedp.SendKeys(css(`#url`), serverURL),
		chromedp.SetValue(css(`#era`), "session"),
		chromedp.Click(css(`#connect`)),
		chromedp.WaitVisible(css(`#asks-list .ask[data-kind="login"] #login-link`)),
	)
	href := f.attr(t, `#login-link`, "href")
	if !strings.HasPrefix(href, as.Issuer()+"/") || !strings.Contains(href, "redirect_uri="+urlQueryEscape(f.base+"/oauth/callback")) {
		t.Fatalf("login link %q: not the issuer's, or another redirect URI", href)
	}
	if target, rel := f.attr(t, `#login-link`, "target"), f.attr(t, `#login-link`, "rel"); target != "_blank" || rel != "noopener noreferrer" {
		t.Errorf("login link target %q rel %q", target, rel)
	}
	f.shot(t, "oauth-login")
	f.checkKeyboard(t, "login")

	// The user opens it in another tab: the authorization server approves
	// at once and sends the tab back to the inspector.
	tab, cancelTab := chromedp.NewContext(browser)
	defer cancelTab()
	tctx, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(tctx, chromedp.Navigate(href)); err != nil {
		t.Fatal(err)
	}
	back, err := chromedp.Run(tctx, chromedp.Text(css(`body`)))
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(back) != "mcpkit inspect: the authorization server answered; close this tab and go back to the inspector." {
		t.Errorf("the tab came back to %q", back)
	}

	f.run(t,
		chromedp.WaitVisible(css(`#status[data-status="connected"]`)),
		chromedp.WaitNotPresent(css(`#login-card`)),
	)
	if got := f.fact(t, "scopes"); got != "mcp" {
		t.Errorf("scopes shown %q, want mcp", got)
	}
	if got := f.fact(t, "token"); got != "Bearer from "+as.Issuer() {
		t.Errorf("token shown %q", got)
	}
	expiry, err := time.Parse(time.RFC3339Nano, f.attr(t, `#server-facts dd[data-fact="expires"]`, "data-expiry"))
	if err != nil {
		t.Fatal(err)
	}
	if left := time.Until(expiry); left <= 50*time.Minute || left > time.Hour {
		t.Errorf("expiry shown %v, %v from now; want about an hour", expiry, left)
	}
	if text := f.fact(t, "expires"); !strings.Contains(text, "(in 60 min)") && !strings.Contains(text, "(in 59 min)") {
		t.Errorf("expires shown %q", text)
	}
	f.run(t, exec(`document.getElementById('server-facts').scrollIntoView()`))
	f.shot(t, "oauth-connected")

	// The token works: a call goes through.
	f.pickTool(t, "echo")
	f.run(t, chromedp.SendKeys(css(`#tool-detail input[name="text"]`), "authorized"))
	if outcome, text := f.call(t); outcome != "ok" || !strings.Contains(text, "authorized") {
		t.Errorf("echo: %q %q", outcome, text)
	}
	// The page's token never went to the MCP server or the authorization
	// server: it is in no URL the login used.
	if strings.Contains(href, f.in.Token()) {
		t.Errorf("the authorization URL carries the inspector's token")
	}
}

func urlQueryEscape(s string) string { return url.QueryEscape(s) }
