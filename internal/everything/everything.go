// Package everything is mcpkit's reference server: every feature the SDK
// supports, and every fixture the official MCP conformance suite calls
// (https://github.com/modelcontextprotocol/conformance), under the names
// and with the exact contents the suite expects. `mcpkit serve` runs it;
// the conformance and interop suites test against it.
//
// It serves both protocol eras on one server: the session era
// (2025-11-25 and earlier, after initialize) and the stateless era
// (2026-07-28, each request carrying its version in _meta), and each
// fixture reads the same in both where the protocol allows: input from
// the client is asked with mcp.Request.Input, which is a server-to-client
// request in the session era and a multi round-trip (input_required) in
// the stateless era.
package everything

import (
	"time"

	"github.com/mcpkit/mcpkit/mcp"
)

// Name and Version are what the reference server says about itself in
// initialize.
const (
	Name    = "mcpkit-everything"
	Version = "0.1.0"
)

// Options configures the reference server. The zero value (or nil) is the
// configuration `mcpkit serve` runs.
type Options struct {
	// ServerOptions are passed to mcp.NewServer: logger, page size,
	// session store, middleware. If nil, the zero mcp.ServerOptions.
	ServerOptions *mcp.ServerOptions
}

// NewServer returns the reference server with every fixture registered.
func NewServer(opts *Options) *mcp.Server {
	if opts == nil {
		opts = &Options{}
	}
	serverOpts := mcp.ServerOptions{}
	if opts.ServerOptions != nil {
		serverOpts = *opts.ServerOptions
	}
	if serverOpts.CompletionHandler == nil {
		serverOpts.CompletionHandler = complete // completion.go
	}
	if serverOpts.CacheHint == nil {
		serverOpts.CacheHint = cacheHint
	}
	if serverOpts.Logging == nil {
		// The reference server declares logging (utilities.go logs).
		serverOpts.Logging = &mcp.LoggingOptions{}
	}
	s := mcp.NewServer(mcp.Implementation{
		Name:        Name,
		Title:       "mcpkit reference server",
		Version:     Version,
		Description: "Every feature of mcpkit and every fixture of the MCP conformance suite.",
	}, &serverOpts)
	addTools(s)
	addResources(s)   // resources.go
	addPrompts(s)     // prompts.go
	addAskingTools(s) // asking.go
	addTaskTools(s)   // tasks.go

	addUtilityTools(s)                 // utilities.go
	addPendingTools(s)                 // pending.go
	for _, add := range fixtureHooks { // tasks_ext.go
		add(s)
	}

	addMRTRFixtures(s)    // mrtr.go
	addDiagnosticTools(s) // diagnostics.go
	addHeaderTools(s)     // headers.go
	addSkills(s)          // skills.go
	return s
}

// ListCacheTTL is how long stateless-era clients may reuse the server's
// discover and list results; resources/read results too.
const ListCacheTTL = 300 * time.Second

// cacheHint is the reference server's ServerOptions.CacheHint: discover
// and list results are the same for every client (public), a resource's
// contents are the reader's (private)
// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching).
// A change is announced on subscriptions/listen streams whatever the TTL.
func cacheHint(method string) mcp.CacheHint {
	if method == "resources/read" {
		return mcp.CacheHint{TTL: ListCacheTTL, Scope: mcp.CachePrivate}
	}
	return mcp.CacheHint{TTL: ListCacheTTL, Scope: mcp.CachePublic}
}
