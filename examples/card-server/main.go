// Command card-server serves MCP over Streamable HTTP at
// http://127.0.0.1:8080/mcp with its Server Card (SEP-2127, experimental)
// at /mcp/server-card and the catalog at /.well-known/mcp/catalog.json:
//
//	mcpkit card http://127.0.0.1:8080/mcp
package main

import (
	"log"
	"net/http"

	"github.com/mcpkit/mcpkit/ext/servercard"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

func main() {
	s := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1.0.0", Description: "Forecasts."}, nil)
	card := servercard.FromServer(s, servercard.Info{Name: "com.example/weather", URL: "http://127.0.0.1:8080/mcp"})
	h, err := servercard.Handler(mcphttp.NewHandler(s, nil), card, nil)
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", h))
}
