// Package apps implements MCP Apps (io.modelcontextprotocol/ui, SEP-1865:
// https://github.com/modelcontextprotocol/ext-apps, specification
// 2026-01-26/apps.mdx and draft/apps.mdx): a tool declares a ui://
// resource holding an HTML app that a host renders in a sandboxed iframe.
// It is built on mcp's exported API only (mcp.Server.AddExtension, the
// resource and tool calls, a Middleware) and works in both protocol eras:
// a handler reads the host's capabilities from Request.ClientCapabilities,
// which the session era fills from initialize and the 2026-07-28 era from
// each request's _meta.
//
// Server side: New declares the extension; Server.AddApp serves an app
// with the mime type text/html;profile=mcp-app and its CSP and
// permissions as _meta.ui; Server.AddTool and Server.Link set a tool's
// _meta.ui (resourceUri, visibility); Result builds a result with text
// for the model and structured content for the app; Degrade, a
// middleware, serves a host that did not declare the extension (with the
// app mime type, HostSupports) as if the server had no apps.
//
// Host side: DeclareHost declares the extension in ClientOptions.Extensions;
// ToolUI reads a tool's _meta.ui, ModelTools and CheckAppCall apply
// visibility; Fetch and FetchForTool read and verify an app, giving a
// View with the CSP and allow attribute it must be loaded with; Open
// hands it to a Renderer (the renderer, the iframe and the View-host
// postMessage protocol are the inspector's, issue 27; this package gives
// the payload types and the helpers SandboxForwards, ServerMethod and
// DisplayMode).
//
// # The spec's requirements and their tests
//
// Every MUST (and MUST NOT) of both texts, where it is checked. "Renderer"
// marks requirements on the iframe or the View, which this package does
// not run: they belong to the renderer (issue 27). "Inspector" names a
// test of mcpkit inspect's renderer (cmd/mcpkit/internal/inspect, its
// browser tests in browsertest), which runs the sandbox proxy.
//
//	requirement (section)                                              test
//	UI resource URI MUST use ui:// (UI Resource Format)                TestAddAppRefuses; host: TestVisibility (ToolUI), Fetch
//	mimeType MUST be text/html;profile=mcp-app (Content Requirements)  TestServeApp (exact contents); host refuses others: TestFetchRefuses
//	content MUST be text or base64 blob                                TestServeApp (text), TestFetchMeta (blob decoded), TestFetchRefuses (bad base64)
//	content MUST be a valid HTML5 document                             TestAddAppRefuses (doctype, UTF-8); host: TestFetchRefuses
//	host MUST construct CSP from the declared domains                  TestServeApp, TestFetchMeta (View.CSP exact)
//	restrictive default CSP when ui.csp is omitted (MUST; draft SHOULD) TestFetchMeta ("none", DefaultCSP exact)
//	host MUST NOT allow undeclared domains (No Loosening)              TestAddAppRefuses, TestFetchRefuses (CSP injection refused), TestFetchMeta
//	host MUST block connections to undeclared domains                  TestFetchMeta (connect-src lists only declared origins)
//	hosts MUST check _meta.ui on both the content and the listing,     TestFetchMeta ("content wins", "listing", "listing given")
//	  preferring the content item (draft, Metadata Location)
//	servers MUST consult host docs for domain (host-dependent)         not checkable; Domain is passed through, refused only if it could break the CSP
//	resource MUST exist on the server (Resource Discovery)             TestAddAppRefuses (Link to an app not added)
//	host MUST use resources/read to fetch the resource                 TestServeApp (Open makes exactly 1 resources/read)
//	host MUST NOT list for the agent tools without "model"             TestVisibility (ModelTools); server side for hosts without apps: TestDegrade
//	host MUST reject an app's tools/call of tools without "app"        TestVisibility (CheckAppCall)
//	mimeTypes is REQUIRED in the host's settings                       TestHostSupports (missing mimeTypes does not count), TestDegrade
//	tools MUST return meaningful content even with a UI                TestToolWithoutContent (AddTool, Result)
//	sandbox MUST forward all but ui/notifications/sandbox-*            TestViewHelpers (SandboxForwards); forwarding itself: inspector TestApps
//	host MUST NOT switch to a display mode the view did not declare,   TestViewHelpers (DisplayMode)
//	  and MUST return the resulting mode
//	payloads (ui/initialize, tool-input, sandbox-resource-ready, ...)  TestPayloads (member names exact)
//	web host MUST use a sandbox proxy of another origin with           inspector TestApps (frames, origins, the View's message
//	  allow-scripts and allow-same-origin; sandbox MUST load the View    past the proxy not read), TestAppAPI (the proxy's origin,
//	  with the CSP (View.CSP gives it)                                   the View served under View.CSP)
//	host MUST NOT message the View before ui/notifications/initialized renderer
//	host MUST send tool-input, tool-result, tool-cancelled, and        renderer
//	  ui/resource-teardown before teardown; MUST stop tool-input-partial
//	  after tool-input; MUST follow size-changed for flexible sizes
//	View MUST declare appCapabilities, its display modes, check them   renderer (the View)
//	  before asking; apps MUST implement tools handlers they declare
//	app tools MUST be tied to the app's lifecycle (draft)              renderer
//	all View content MUST be in sandboxed iframes                      inspector TestApps (the View's iframe: allow-scripts alone)
package apps
