package servercard_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpkit/mcpkit/ext/servercard"
	"github.com/mcpkit/mcpkit/internal/redistest"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// register gives s the features every test server has, always in the
// same calls: the tool is added before the one it sorts after, so that
// list order, not registration order, is what a card shows.
func register(t *testing.T, s *mcp.Server) {
	t.Helper()
	tool := func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}
	for _, name := range []string{"forecast", "alerts"} {
		if err := s.AddTool(&mcp.Tool{Name: name, Description: "The " + name + " of a city.", InputSchema: json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string"}}}`)}, tool); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddPrompt(&mcp.Prompt{Name: "plan", Description: "Plan a day outside."}, func(context.Context, *mcp.Request, *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddResource(&mcp.Resource{URI: "weather://stations", Name: "stations", MIMEType: "application/json"}, func(context.Context, *mcp.Request, *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	}); err != nil {
		t.Fatal(err)
	}
}

var weather = mcp.Implementation{Name: "com.example/weather", Title: "Weather", Version: "1.2.0", Description: "Forecasts and alerts by city."}

func newServer(t *testing.T, opts *mcp.ServerOptions) *mcp.Server {
	s := mcp.NewServer(weather, opts)
	register(t, s)
	return s
}

const (
	wantCard       = `{"$schema":"https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json","name":"com.example/weather","version":"1.2.0","description":"Forecasts and alerts by city.","title":"Weather","remotes":[{"type":"streamable-http","url":"https://example.com/mcp","supportedProtocolVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"]}]}`
	wantPrimitives = `{"$schema":"https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json","name":"com.example/weather","version":"1.2.0","description":"Forecasts and alerts by city.","title":"Weather","remotes":[{"type":"streamable-http","url":"https://example.com/mcp","supportedProtocolVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"]}],` +
		`"capabilities":{"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}},` +
		`"tools":[{"name":"alerts","description":"The alerts of a city.","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}},{"name":"forecast","description":"The forecast of a city.","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}}],` +
		`"prompts":[{"name":"plan","description":"Plan a day outside."}],` +
		`"resources":[{"uri":"weather://stations","name":"stations","mimeType":"application/json"}]}`
	wantCatalog = `{"specVersion":"draft","entries":[{"identifier":"urn:air:example.com:weather","displayName":"Weather","type":"application/mcp-server-card+json","url":"https://example.com/mcp/server-card"}]}`
)

// get sends method to path on h with the headers given as name, value
// pairs, and returns the recorded response.
func get(h http.Handler, method, path string, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, "http://example.com"+path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Add(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// wantHeaders checks every header of w exactly: those in want, no more.
func wantHeaders(t *testing.T, what string, w *httptest.ResponseRecorder, want map[string]string) {
	t.Helper()
	got := w.Result().Header
	for k, v := range want {
		if g := got.Values(k); len(g) != 1 || g[0] != v {
			t.Errorf("%s: %s = %q, want %q", what, k, g, v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected header %s: %q", what, k, got.Values(k))
		}
	}
}

func notFound() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Next", "1")
		http.NotFound(w, r)
	})
}

func newHandler(t *testing.T, src servercard.Source, opts *servercard.Options) http.Handler {
	t.Helper()
	h, err := servercard.Handler(notFound(), src, opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func etagOf(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	e := w.Header().Get("ETag")
	if len(e) != 34 || e[0] != '"' || e[33] != '"' {
		t.Fatalf("ETag %q: want a strong tag of 32 hex digits", e)
	}
	return e
}

// The generated card is exactly these bytes: identity from the
// Implementation, one streamable-HTTP remote listing every version
// mcpkit serves (both eras), and, when asked, the primitives in list
// order.
func TestGenerateBytes(t *testing.T) {
	s := newServer(t, nil)
	for _, c := range []struct {
		name string
		info servercard.Info
		want string
	}{
		{"identity", servercard.Info{URL: "https://example.com/mcp"}, wantCard},
		{"primitives", servercard.Info{URL: "https://example.com/mcp", Primitives: true}, wantPrimitives},
		{"no URL", servercard.Info{}, `{"$schema":"https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json","name":"com.example/weather","version":"1.2.0","description":"Forecasts and alerts by city.","title":"Weather"}`},
	} {
		w := get(newHandler(t, servercard.FromServer(s, c.info), nil), http.MethodGet, "/mcp/server-card")
		if w.Code != http.StatusOK || w.Body.String() != c.want {
			t.Errorf("%s: %d %s\nwant %s", c.name, w.Code, w.Body, c.want)
		}
	}
}

// GET and HEAD serve the card with its media type, a strong ETag,
// Cache-Control and the CORS headers; the catalog likewise as JSON.
func TestServeCard(t *testing.T) {
	h := newHandler(t, servercard.FromServer(newServer(t, nil), servercard.Info{URL: "https://example.com/mcp"}), nil)
	w := get(h, http.MethodGet, "/mcp/server-card")
	etag := etagOf(t, w)
	want := map[string]string{
		"Content-Type":                 "application/mcp-server-card+json",
		"Content-Length":               strconv.Itoa(len(wantCard)),
		"Etag":                         etag,
		"Cache-Control":                "public, max-age=3600",
		"Access-Control-Allow-Origin":  "*",
		"Access-Control-Allow-Methods": "GET",
		"Access-Control-Allow-Headers": "Content-Type",
		"X-Content-Type-Options":       "nosniff",
	}
	if w.Code != http.StatusOK || w.Body.String() != wantCard {
		t.Fatalf("GET: %d %s", w.Code, w.Body)
	}
	wantHeaders(t, "GET", w, want)
	w = get(h, http.MethodHead, "/mcp/server-card")
	if w.Code != http.StatusOK || w.Body.Len() != 0 {
		t.Errorf("HEAD: %d %q", w.Code, w.Body)
	}
	wantHeaders(t, "HEAD", w, want)

	w = get(h, http.MethodGet, servercard.CatalogPath)
	if w.Code != http.StatusOK || w.Body.String() != wantCatalog {
		t.Fatalf("catalog: %d %s", w.Code, w.Body)
	}
	want["Content-Type"] = "application/json"
	want["Content-Length"] = strconv.Itoa(len(wantCatalog))
	want["Etag"] = etagOf(t, w)
	wantHeaders(t, "catalog", w, want)
	if want["Etag"] == etag {
		t.Errorf("card and catalog share the ETag %s", etag)
	}
}

// If-None-Match naming the current tag (strongly, weakly, in a list, or
// "*") is 304 with the validators and no body; any other tag is 200.
func TestNotModified(t *testing.T) {
	h := newHandler(t, servercard.FromServer(newServer(t, nil), servercard.Info{URL: "https://example.com/mcp"}), &servercard.Options{MaxAge: -1})
	for _, path := range []string{"/mcp/server-card", servercard.CatalogPath} {
		etag := etagOf(t, get(h, http.MethodGet, path))
		for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
			for _, method := range []string{http.MethodGet, http.MethodHead} {
				w := get(h, method, path, "If-None-Match", inm)
				if w.Code != http.StatusNotModified || w.Body.Len() != 0 {
					t.Errorf("%s %s If-None-Match %s: %d %q", method, path, inm, w.Code, w.Body)
				}
				wantHeaders(t, method+" "+path+" 304", w, map[string]string{
					"Etag":                         etag,
					"Cache-Control":                "no-cache",
					"Access-Control-Allow-Origin":  "*",
					"Access-Control-Allow-Methods": "GET",
					"Access-Control-Allow-Headers": "Content-Type",
				})
			}
		}
		for _, inm := range []string{`"other"`, strings.Trim(etag, `"`), `W/"x", "y"`} {
			if w := get(h, http.MethodGet, path, "If-None-Match", inm); w.Code != http.StatusOK || w.Body.Len() == 0 {
				t.Errorf("GET %s If-None-Match %s: %d", path, inm, w.Code)
			}
		}
	}
}

// OPTIONS is a CORS preflight: 204 with the CORS headers and no body.
func TestPreflight(t *testing.T) {
	h := newHandler(t, servercard.FromServer(newServer(t, nil), servercard.Info{URL: "https://example.com/mcp"}), nil)
	for _, path := range []string{"/mcp/server-card", servercard.CatalogPath} {
		w := get(h, http.MethodOptions, path, "Origin", "https://app.example.org", "Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "content-type")
		if w.Code != http.StatusNoContent || w.Body.Len() != 0 {
			t.Errorf("OPTIONS %s: %d %q", path, w.Code, w.Body)
		}
		wantHeaders(t, "OPTIONS "+path, w, map[string]string{
			"Allow":                        "GET, HEAD, OPTIONS",
			"Access-Control-Allow-Origin":  "*",
			"Access-Control-Allow-Methods": "GET",
			"Access-Control-Allow-Headers": "Content-Type",
		})
	}
}

// Any method other than GET, HEAD and OPTIONS is 405 with Allow and a
// message naming it; nothing reaches next.
func TestOtherMethods(t *testing.T) {
	h := newHandler(t, servercard.FromServer(newServer(t, nil), servercard.Info{URL: "https://example.com/mcp"}), nil)
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, "PROPFIND"} {
		w := get(h, method, "/mcp/server-card")
		if want := "servercard: method " + method + " is not allowed on /mcp/server-card: read it with GET\n"; w.Code != http.StatusMethodNotAllowed || w.Body.String() != want {
			t.Errorf("%s: %d %q, want 405 %q", method, w.Code, w.Body, want)
		}
		wantHeaders(t, method, w, map[string]string{
			"Allow":                        "GET, HEAD, OPTIONS",
			"Content-Type":                 "text/plain; charset=utf-8",
			"X-Content-Type-Options":       "nosniff",
			"Access-Control-Allow-Origin":  "*",
			"Access-Control-Allow-Methods": "GET",
			"Access-Control-Allow-Headers": "Content-Type",
		})
	}
}

// Every other path goes to next, the catalog too when there is none.
func TestPassThrough(t *testing.T) {
	s := newServer(t, nil)
	h := newHandler(t, servercard.FromServer(s, servercard.Info{URL: "https://example.com/mcp"}), nil)
	for _, path := range []string{"/mcp", "/mcp/server-card/", "/server-card", "/mcp/server-cards", "/.well-known/mcp/catalog"} {
		if w := get(h, http.MethodGet, path); w.Code != http.StatusNotFound || w.Header().Get("X-Next") != "1" {
			t.Errorf("GET %s: %d, not handed to next", path, w.Code)
		}
	}
	noURL := newHandler(t, servercard.FromServer(s, servercard.Info{}), nil)
	if w := get(noURL, http.MethodGet, servercard.CatalogPath); w.Header().Get("X-Next") != "1" {
		t.Errorf("catalog without a URL: %d, not handed to next", w.Code)
	}
	if w := get(noURL, http.MethodGet, "/mcp/server-card"); w.Code != http.StatusOK {
		t.Errorf("card without a URL at /mcp/server-card: %d", w.Code)
	}
	noCat := newHandler(t, servercard.FromServer(s, servercard.Info{URL: "https://example.com/mcp"}), &servercard.Options{NoCatalog: true, Path: "/api/"})
	if w := get(noCat, http.MethodGet, servercard.CatalogPath); w.Header().Get("X-Next") != "1" {
		t.Errorf("NoCatalog: %d, not handed to next", w.Code)
	}
	if w := get(noCat, http.MethodGet, "/api/server-card"); w.Code != http.StatusOK {
		t.Errorf("Path /api/: %d", w.Code)
	}
}

// A Static card and an explicit catalog are served as given.
func TestStatic(t *testing.T) {
	card := &servercard.Card{
		Schema: servercard.SchemaURL, Name: "io.github.someone/tools", Version: "0.1.0", Description: "Tools.",
		Remotes: []servercard.Remote{{Type: "streamable-http", URL: "https://{tenant}.example.com/mcp", Variables: map[string]servercard.Input{"tenant": {IsRequired: true}}}},
	}
	cat := &servercard.Catalog{SpecVersion: "draft", Entries: []servercard.CatalogEntry{}}
	h := newHandler(t, servercard.Static(card), &servercard.Options{Catalog: cat})
	if w := get(h, http.MethodGet, "/mcp/server-card"); w.Body.String() != `{"$schema":"https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json","name":"io.github.someone/tools","version":"0.1.0","description":"Tools.","remotes":[{"type":"streamable-http","url":"https://{tenant}.example.com/mcp","variables":{"tenant":{"isRequired":true}}}]}` {
		t.Errorf("static card: %d %s", w.Code, w.Body)
	}
	if w := get(h, http.MethodGet, servercard.CatalogPath); w.Body.String() != `{"specVersion":"draft","entries":[]}` {
		t.Errorf("empty catalog: %d %s", w.Code, w.Body)
	}
}

// A card that breaks the draft schema, or a catalog entry of another
// type, is refused when the Handler is made, with every reason.
func TestRefused(t *testing.T) {
	s := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "^1.0"}, nil)
	_, err := servercard.Handler(notFound(), servercard.FromServer(s, servercard.Info{URL: "ftp://example.com/mcp"}), nil)
	const want = "servercard: invalid card: name \"weather\" is not a reverse-DNS namespace/name (such as com.example/weather) of 3 to 200 characters\n" +
		"version \"^1.0\" is a range, not a version\n" +
		"description has 0 characters, want 1 to 100\n" +
		"remotes[0].url \"ftp://example.com/mcp\" does not start with http://, https:// or a {variable}"
	if err == nil || err.Error() != want {
		t.Errorf("invalid card: %v\nwant %s", err, want)
	}
	_, err = servercard.Handler(notFound(), servercard.Static(&servercard.Card{Schema: "https://static.modelcontextprotocol.io/schemas/v1/server.schema.json", Name: "a.b/c", Version: "1", Description: "d"}), nil)
	if want := `servercard: invalid card: $schema is "https://static.modelcontextprotocol.io/schemas/v1/server.schema.json", want "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"`; err == nil || err.Error() != want {
		t.Errorf("wrong $schema: %v", err)
	}
	cat := &servercard.Catalog{SpecVersion: "draft", Entries: []servercard.CatalogEntry{{Identifier: "urn:air:a:b", DisplayName: "B", Type: "application/json", URL: "https://a/b"}}}
	_, err = servercard.Handler(notFound(), servercard.FromServer(newServer(t, nil), servercard.Info{}), &servercard.Options{Catalog: cat})
	if want := `servercard: catalog entry 0 has type "application/json", want "application/mcp-server-card+json"`; err == nil || err.Error() != want {
		t.Errorf("catalog entry type: %v", err)
	}
}

// With Primitives, a feature added after the Handler is made changes
// the card and its ETag; the old tag is then 200, not 304.
func TestCardFollowsFeatures(t *testing.T) {
	s := newServer(t, nil)
	h := newHandler(t, servercard.FromServer(s, servercard.Info{URL: "https://example.com/mcp", Primitives: true}), nil)
	before := get(h, http.MethodGet, "/mcp/server-card")
	old := etagOf(t, before)
	if err := s.AddTool(&mcp.Tool{Name: "radar"}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	w := get(h, http.MethodGet, "/mcp/server-card", "If-None-Match", old)
	if w.Code != http.StatusOK || etagOf(t, w) == old || !strings.Contains(w.Body.String(), `{"name":"radar","inputSchema":{"type":"object"}}`) {
		t.Errorf("after AddTool: %d %s %s", w.Code, w.Header().Get("ETag"), w.Body)
	}
}

// Wrapped around mcphttp, the card is served beside the endpoint, and
// clients of both eras still reach the server through the wrapper.
func TestBothEras(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	s := newServer(t, nil)
	mh := mcphttp.NewHandler(s, nil)
	ts := httptest.NewUnstartedServer(nil)
	h, err := servercard.Handler(mh, servercard.FromServer(s, servercard.Info{URL: "http://" + ts.Listener.Addr().String() + "/mcp", Primitives: true}), nil)
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = h
	ts.Start()
	defer ts.Close()
	defer mh.Close()
	ctx := context.Background()
	for _, era := range []mcp.ProtocolEra{mcp.EraSession, mcp.EraStateless} {
		c := mcp.NewClient(mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ProtocolEra: era})
		cs, err := c.Connect(ctx, &mcphttp.ClientTransport{URL: ts.URL + "/mcp"})
		if err != nil {
			t.Fatalf("%v: %v", era, err)
		}
		res, err := cs.ListTools(ctx, nil)
		if err != nil || len(res.Tools) != 2 {
			t.Errorf("%v: tools/list through the wrapper: %v", era, err)
		}
		if want := map[mcp.ProtocolEra]string{mcp.EraSession: mcp.Version20251125, mcp.EraStateless: mcp.Version20260728}[era]; cs.ProtocolVersion() != want {
			t.Errorf("%v: version %s, want %s", era, cs.ProtocolVersion(), want)
		}
		cs.Close()
	}
	resp, err := http.Get(ts.URL + "/mcp/server-card")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"supportedProtocolVersions":["2026-07-28","2025-11-25",`) || !strings.Contains(string(body), `"tools":[{"name":"alerts"`) {
		t.Errorf("card over HTTP: %d %s", resp.StatusCode, body)
	}
}
