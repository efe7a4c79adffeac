package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// `mcpkit serve --http` serves the reference server's card and catalog,
// and `mcpkit card URL` prints the card: indented, or as served with
// --json; a missing card, a body that is not JSON, a card that breaks
// the draft and a wrong command line fail with their exit statuses.
func TestCard(t *testing.T) {
	srv := startServeHTTP(t)
	url := srv.find(t, `url=(http://127\.0\.0\.1:\d+/mcp)`)
	card := `{"$schema":"https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json","name":"io.github.mcpkit/everything","version":"0.1.0","description":"Every feature of mcpkit and every fixture of the MCP conformance suite.","title":"mcpkit reference server","remotes":[{"type":"streamable-http","url":"` + url + `","supportedProtocolVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"]}]}`

	c, out, errOut := runCLI(t, "", "card", "--json", url)
	if c != 0 || out != card+"\n" || errOut != "" {
		t.Errorf("card --json: exit %d, stdout %q, stderr %q\nwant %s", c, out, errOut, card)
	}
	c, out, _ = runCLI(t, "", "card", url+"/server-card")
	if c != 0 || !strings.HasPrefix(out, "{\n  \"$schema\": \"https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json\",\n  \"name\": \"io.github.mcpkit/everything\",\n") {
		t.Errorf("card: exit %d, stdout %q", c, out)
	}
	resp, err := http.Get(strings.TrimSuffix(url, "/mcp") + "/.well-known/mcp/catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("catalog: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	c, _, errOut = runCLI(t, "", "card", strings.TrimSuffix(url, "/mcp")+"/other")
	if want := "mcpkit: card: GET " + strings.TrimSuffix(url, "/mcp") + "/other/server-card: 404 Not Found\n"; c != exitError || errOut != want {
		t.Errorf("no card: exit %d, stderr %q, want %q", c, errOut, want)
	}
	srv.end(t)

	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") != "application/mcp-server-card+json" {
			http.Error(w, "no Accept", http.StatusNotAcceptable)
			return
		}
		switch r.URL.Path {
		case "/text/server-card":
			w.Write([]byte("hello"))
		default:
			w.Write([]byte(`{"$schema":"x","name":"weather","version":"1","description":"d"}`))
		}
	}))
	defer bad.Close()
	c, _, errOut = runCLI(t, "", "card", bad.URL+"/text")
	if c != exitError || !strings.HasPrefix(errOut, "mcpkit: card: "+bad.URL+"/text/server-card sent no JSON object: ") {
		t.Errorf("not JSON: exit %d, stderr %q", c, errOut)
	}
	c, out, errOut = runCLI(t, "", "card", "--json", bad.URL+"/mcp")
	if c != exitError || out == "" || !strings.HasPrefix(errOut, "mcpkit: card: the card at "+bad.URL+"/mcp/server-card breaks the draft schema: servercard: invalid card: $schema is \"x\"") {
		t.Errorf("invalid card: exit %d, stdout %q, stderr %q", c, out, errOut)
	}
	for _, args := range [][]string{{"card"}, {"card", "ftp://x/mcp"}, {"card", "a", "b"}, {"card", "--nope", url}} {
		if c, _, errOut := runCLI(t, "", args...); c != exitUsage || !strings.Contains(errOut, "Run 'mcpkit help card' for usage.") {
			t.Errorf("%q: exit %d, stderr %q", args, c, errOut)
		}
	}
}
