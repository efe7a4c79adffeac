// Package servercard serves MCP Server Cards and the MCP Catalog, the
// pre-connection discovery documents of SEP-2127
// (https://github.com/modelcontextprotocol/experimental-ext-server-card:
// schema.ts and docs/discovery.md).
//
// Experimental: SEP-2127 is a draft and this package follows it; its
// API and the bytes it serves may change with the draft.
//
// A card is generated from a Server's Implementation (name, version,
// title, description, website, icons) and where it is served
// (Info.URL), and, with Info.Primitives, from its capabilities, tools,
// prompts and resources (mcp.Server.Features), which SEP-2127's text
// lists and the draft schema leaves out; or it is given whole (Static).
// Handler wraps the mcphttp handler: it serves the card at
// <endpoint>/server-card and the catalog at /.well-known/mcp/catalog.json
// and hands every other request to the handler it wraps. The bytes
// depend only on the registrations, so every replica serves the same
// card under the same ETag.
//
//	s := mcp.NewServer(mcp.Implementation{Name: "com.example/weather", Version: "1.0.0", Description: "Forecasts."}, nil)
//	h, err := servercard.Handler(mcphttp.NewHandler(s, nil),
//		servercard.FromServer(s, servercard.Info{URL: "https://example.com/mcp"}), nil)
//	http.Handle("/", h)
//
// What the draft requires, and the test that checks it:
//
//	Requirement (discovery.md unless said)                          Test
//	$schema is the server-card schema URL (schema.ts)               TestGenerateBytes, TestRefused
//	name has exactly one "/" between namespace and name (schema.ts) TestRefused
//	version is not a range; description 1-100 chars (schema.ts)     TestRefused
//	remote url starts http://, https:// or {var} (schema.ts)        TestRefused, TestStatic
//	catalog MUST contain specVersion and entries (may be empty)     TestServeCard, TestStatic
//	entry MUST have identifier, displayName, type, url              TestServeCard, TestRefused
//	entry type MUST be application/mcp-server-card+json             TestServeCard, TestRefused
//	discovery endpoints MUST include the CORS headers               TestServeCard, TestNotModified,
//	  (Allow-Origin *, Allow-Methods GET, Allow-Headers              TestPreflight, TestOtherMethods
//	  Content-Type)
//	catalog MUST be accessible via HTTPS (HTTP for development)     not this package's: TLS is the
//	                                                                  http.Server's (the handler
//	                                                                  serves either)
//	entries MUST NOT include sensitive information                  by construction: a generated
//	                                                                  card holds only the
//	                                                                  Implementation, Info and the
//	                                                                  listed features
//	clients MUST NOT treat a card as authoritative                  a client rule: mcpkit card only
//	                                                                  prints the card
//
// And the SHOULDs it follows: the card is served as
// application/mcp-server-card+json to any GET, Accept or not
// (TestServeCard); Cache-Control: public, max-age=3600 (Options.MaxAge;
// TestServeCard, TestNotModified); the same card on every replica
// (TestReplicasSameCard). Beyond the draft, a strong ETag with
// If-None-Match answered 304 (TestNotModified, TestCardFollowsFeatures),
// OPTIONS answered as a CORS preflight (TestPreflight), other methods
// 405 (TestOtherMethods), both protocol eras' clients served through the
// wrapper (TestBothEras). The draft's rate limiting SHOULD is left to
// the server's own middleware.
package servercard
