package servercard_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/mcpkit/mcpkit/ext/servercard"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// A Streamable HTTP server that also serves its Server Card at
// /mcp/server-card and the catalog at /.well-known/mcp/catalog.json.
func Example() {
	s := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1.0.0", Description: "Forecasts."}, nil)
	card := servercard.FromServer(s, servercard.Info{Name: "com.example/weather", URL: "https://example.com/mcp"})
	h, err := servercard.Handler(mcphttp.NewHandler(s, nil), card, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	mux := http.NewServeMux()
	mux.Handle("/", h) // in a real server: http.ListenAndServe(addr, mux)

	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "https://example.com/mcp/server-card", nil))
	fmt.Println(rec.Code, rec.Header().Get("Content-Type"))
	// Output: 200 application/mcp-server-card+json
}
