package browsertest

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mcpkit/mcpkit/cmd/mcpkit/internal/inspect"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
	"github.com/mcpkit/mcpkit/mcpsse"
)

// serveEnv, set to 1, makes the test binary the reference server on
// stdio: the command the inspector starts in the stdio tests.
const serveEnv = "MCPKIT_BROWSERTEST_SERVE"

// Environment of the tests:
//
//	MCPKIT_CHROMIUM             the browser to run (default: chromium on PATH)
//	MCPKIT_REQUIRE_CHROMIUM=1   no browser is a failure, not a skip (CI)
//	MCPKIT_INSPECTOR_SCREENSHOTS=DIR   where the screenshots go (default: a temp dir)
const (
	chromiumEnv    = "MCPKIT_CHROMIUM"
	requireEnv     = "MCPKIT_REQUIRE_CHROMIUM"
	screenshotsEnv = "MCPKIT_INSPECTOR_SCREENSHOTS"
)

// browser is the one headless Chromium every test opens its tabs in.
var (
	browser     context.Context
	noBrowser   string // why there is none
	screenshots string
)

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		s := newServer()
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	path := os.Getenv(chromiumEnv)
	if path == "" {
		for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
			if p, err := osexec.LookPath(name); err == nil {
				path = p
				break
			}
		}
	}
	var cancel context.CancelFunc = func() {}
	if path == "" {
		noBrowser = "no chromium on PATH (install Debian's chromium package: scripts/chromium.sh; or set " + chromiumEnv + ")"
	} else {
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(path),
			chromedp.NoSandbox, // root in containers; the page is our own
			chromedp.WindowSize(1280, 860),
			chromedp.Flag("hide-scrollbars", true),
			// rebind.test resolves to 127.0.0.1: a DNS rebinding attack,
			// which the inspector's Host check must refuse.
			chromedp.Flag("host-resolver-rules", "MAP rebind.test 127.0.0.1"),
		)
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelCtx := chromedp.NewContext(alloc)
		cancel = func() { cancelCtx(); cancelAlloc() }
		if err := chromedp.Do(ctx); err != nil {
			noBrowser = fmt.Sprintf("starting %s: %v", path, err)
		} else {
			browser = ctx
		}
	}
	defer cancel()
	screenshots = os.Getenv(screenshotsEnv)
	if screenshots == "" {
		dir, err := os.MkdirTemp("", "mcpkit-inspector-screenshots-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		screenshots = dir
	} else if err := os.MkdirAll(screenshots, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// needBrowser skips the test when there is no browser, or fails it when
// MCPKIT_REQUIRE_CHROMIUM=1.
func needBrowser(t *testing.T) {
	t.Helper()
	if browser != nil {
		return
	}
	if os.Getenv(requireEnv) == "1" {
		t.Fatalf("%s=1 and %s", requireEnv, noBrowser)
	}
	t.Skip(noBrowser)
}

// server is the reference server over HTTP: Streamable HTTP at /mcp,
// HTTP+SSE at /sse.
func httpServer(t *testing.T) string {
	t.Helper()
	s := newServer()
	mux := http.NewServeMux()
	h := mcphttp.NewHandler(s, &mcphttp.Options{EventStore: &mcphttp.MemoryEventStore{}})
	mux.Handle("/mcp", h)
	skew := mcphttp.NewHandler(skewedSkills(), nil)
	mux.Handle("/skew", skew)
	sse := mcpsse.NewHandler(s, nil)
	mux.Handle("/sse", sse)
	mux.Handle("/messages", sse)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() {
		h.Close()
		skew.Close()
		sse.Close()
		srv.Close()
	})
	return "http://" + ln.Addr().String()
}

// stdioCommand is the reference server as a command: this test binary.
func stdioCommand(t *testing.T) []string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe, "serve"}
}

// dial builds transports as the CLI does, for the targets of the tests.
func dial(_ context.Context, t inspect.Target, stderr io.Writer) (*inspect.Dialed, error) {
	era := mcp.EraAuto
	switch t.Era {
	case "session":
		era = mcp.EraSession
	case "stateless":
		era = mcp.EraStateless
	}
	if t.URL != "" {
		header := http.Header{}
		for _, h := range t.Headers {
			k, v, _ := strings.Cut(h, ":")
			header.Add(k, strings.TrimSpace(v))
		}
		return &inspect.Dialed{Transport: &mcphttp.ClientTransport{URL: t.URL, Header: header}, Era: era, Args: "--url " + t.URL + " --era " + t.Era}, nil
	}
	if len(t.Command) == 0 {
		return nil, fmt.Errorf("no server: give a URL or a command")
	}
	cmd := osexec.Command(t.Command[0], t.Command[1:]...)
	cmd.Env = append(os.Environ(), serveEnv+"=1", "GORACE=atexit_sleep_ms=0")
	cmd.Stderr = stderr
	return &inspect.Dialed{Transport: &mcp.CommandTransport{Command: cmd}, Era: era, Args: "--era " + t.Era + " -- " + strings.Join(t.Command, " ")}, nil
}

// hit is one request the inspector answered.
type hit struct {
	method, path, origin string
	token                bool
	status               int
}

// fixture is an inspector serving the page, and a tab showing it.
type fixture struct {
	in   *inspect.Inspector
	url  string // the page's URL, with the token
	base string // http://127.0.0.1:PORT
	// sandbox is the sandbox proxy's origin: http://127.0.0.1:PORT.
	sandbox string
	ctx     context.Context
	// frameCtx is attached to the app's View at frameSrc (inApp).
	frameCtx context.Context
	frameSrc string

	mu   sync.Mutex
	hits []hit
}

// statusRecorder records the status of an answer.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// open starts an inspector (connected to initial, if not nil) and opens
// its page in a new tab.
func open(t *testing.T, initial *inspect.Target) *fixture {
	t.Helper()
	return openDial(t, initial, nil)
}

// dialFunc is inspect.Options.Dial.
type dialFunc = func(context.Context, inspect.Target, io.Writer) (*inspect.Dialed, error)

// openDial is open with the Dial that mk makes for the inspector (nil:
// dial).
func openDial(t *testing.T, initial *inspect.Target, mk func(in *inspect.Inspector) dialFunc) *fixture {
	t.Helper()
	needBrowser(t)
	var self *inspect.Inspector
	d := dial
	if mk != nil {
		d = func(ctx context.Context, tg inspect.Target, stderr io.Writer) (*inspect.Dialed, error) {
			return mk(self)(ctx, tg, stderr)
		}
	}
	in, err := inspect.New(inspect.Options{Dial: d})
	if err != nil {
		t.Fatal(err)
	}
	self = in
	ln, err := in.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{in: in, url: in.URL(), base: strings.TrimSuffix(in.URL(), "/?token="+in.Token())}
	f.sandbox = "http://" + in.SandboxListener().Addr().String()
	recorded := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := &statusRecorder{ResponseWriter: w}
			h.ServeHTTP(rec, r)
			f.mu.Lock()
			f.hits = append(f.hits, hit{r.Method, r.URL.Path, r.Header.Get("Origin"), r.Header.Get(inspect.TokenHeader) != "" || r.URL.Query().Has("token"), rec.status})
			f.mu.Unlock()
		})
	}
	srv := &http.Server{Handler: recorded(in.Handler())}
	sandbox := &http.Server{Handler: recorded(in.SandboxHandler())}
	go srv.Serve(ln)
	go sandbox.Serve(in.SandboxListener())
	t.Cleanup(func() {
		in.Close()
		srv.Close()
		sandbox.Close()
	})
	if initial != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if s := in.Connect(ctx, *initial); s.Status != "connected" {
			t.Fatalf("connecting to %+v: %+v", initial, s)
		}
	}
	tab, cancelTab := chromedp.NewContext(browser)
	ctx, cancel := context.WithTimeout(tab, 60*time.Second)
	t.Cleanup(func() { cancel(); cancelTab() })
	f.ctx = ctx
	f.run(t, chromedp.Navigate(f.url), chromedp.WaitVisible(css(`body[data-ready="true"]`)))
	return f
}

func css(sel string) chromedp.CSS { return chromedp.CSS(sel) }

// run runs the steps in the tab; a failure writes a screenshot.
func (f *fixture) run(t *testing.T, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(f.ctx, steps...); err != nil {
		f.shot(t, "failed-"+strings.ReplaceAll(t.Name(), "/", "-"))
		t.Fatalf("in the browser: %v", err)
	}
}

// get runs an action that gives a value.
func get[T any](t *testing.T, f *fixture, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(f.ctx, a)
	if err != nil {
		f.shot(t, "failed-"+strings.ReplaceAll(t.Name(), "/", "-"))
		t.Fatalf("in the browser: %v", err)
	}
	return v
}

// eval evaluates a JavaScript expression, awaiting a promise.
func eval[T any](t *testing.T, f *fixture, js string) T {
	t.Helper()
	return get(t, f, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
}

// void drops the value of an action, to run it among steps.
func void[T any](a chromedp.Action[T]) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := a(ctx, tg)
		return chromedp.Void{}, err
	}
}

// exec evaluates a JavaScript expression for its effect.
func exec(js string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Evaluate[any](js)(ctx, tg)
		return chromedp.Void{}, err
	}
}

func (f *fixture) text(t *testing.T, sel string) string {
	t.Helper()
	return get(t, f, chromedp.Text(css(sel)))
}

func (f *fixture) attr(t *testing.T, sel, name string) string {
	t.Helper()
	return get(t, f, chromedp.AttributeValue(css(sel), name)).Value
}

// shot writes a screenshot of the viewport as NAME.png.
func (f *fixture) shot(t *testing.T, name string) {
	t.Helper()
	png, err := chromedp.Run(f.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	path := filepath.Join(screenshots, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Errorf("screenshot: %v", err)
	}
}

func (f *fixture) hitsTo(path string) []hit {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []hit
	for _, h := range f.hits {
		if h.path == path {
			out = append(out, h)
		}
	}
	return out
}
