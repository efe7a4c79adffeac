package interop

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// recorder is an http.RoundTripper that notes each request's method and
// path (with the query), for checks on what went over the wire.
type recorder struct {
	mu   sync.Mutex
	seen []string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	status := 0
	if err == nil {
		status = resp.StatusCode
	}
	r.mu.Lock()
	r.seen = append(r.seen, req.Method+" "+req.URL.RequestURI()+" "+http.StatusText(status))
	r.mu.Unlock()
	return resp, err
}

func (r *recorder) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.seen)
}

// TestHTTPSSETypeScriptServer drives server-everything's 2024-11-05
// HTTP+SSE server (the v1 SDK's SSEServerTransport, ts/everything-sse.mjs)
// with mcpkit's Streamable HTTP client given only the /sse URL, with the
// default era (EraAuto): its POSTs are refused (404), and it falls back
// by itself to the GET stream, on which it calls tools, reads resources
// and gets prompts (issue 17).
func TestHTTPSSETypeScriptServer(t *testing.T) {
	node := requireNode(t)
	url := startHTTPServerAt(t, sseURLLine, node, "ts/everything-sse.mjs")
	rec := &recorder{}
	tr := &mcphttp.ClientTransport{URL: url, HTTPClient: &http.Client{Transport: rec}}
	s := connectTransport(t, clientConfig{era: mcp.EraAuto}, "http+sse", tr)
	checks := slices.Concat([]check{
		{"fell back to HTTP+SSE: a POST refused, then GET /sse and POSTs to the endpoint", func(t *testing.T, _ *session) {
			seen := rec.requests()
			get := slices.Index(seen, "GET /sse OK")
			if get < 1 || !strings.HasPrefix(seen[get-1], "POST /sse ") {
				t.Fatalf("requests %q: want a refused POST /sse, then GET /sse", seen)
			}
			posted := regexp.MustCompile(`^POST /message\?sessionId=[-0-9a-f]+ Accepted$`)
			if !slices.ContainsFunc(seen[get+1:], posted.MatchString) {
				t.Fatalf("requests %q: want POSTs to /message?sessionId=… answered 202", seen)
			}
		}},
		eraCheck(false, mcp.LatestVersion),
	}, commonChecks("mcp-servers/everything"), everythingChecks)
	runChecks(t, "TestHTTPSSETypeScriptServer", s, checks)
}

var sseURLLine = regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+/sse)`)
