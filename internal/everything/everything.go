// Package everything is mcpkit's reference server: every feature the SDK
// supports, and every fixture the official MCP conformance suite calls
// (https://github.com/modelcontextprotocol/conformance), under the names
// and with the exact contents the suite expects. `mcpkit serve` runs it;
// the conformance and interop suites test against it.
//
// For now it holds the tools that need nothing but tools: echo and the
// conformance tool fixtures test_simple_text, test_image_content,
// test_audio_content, test_embedded_resource, test_multiple_content_types
// and test_error_handling.
package everything

import (
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

	addUtilityTools(s) // utilities.go
	addPendingTools(s) // pending.go
	return s
}
