// Package targets holds the servers under test: the same echo tool served
// by mcpkit, the official go-sdk, mark3labs/mcp-go and a plain net/http
// handler with no MCP logic (the practical limit). Each target serves
// Streamable HTTP on a handler and stdio on the process's own streams.
package targets

import (
	"context"
	"fmt"
	"net/http"
	"sort"
)

// HTTPMode selects how a target answers a POSTed request.
type HTTPMode int

const (
	// SSE is the target's default reply: an SSE stream where the target
	// offers one (mcp-go answers plain JSON unless a handler streams).
	SSE HTTPMode = iota
	// JSON asks for single application/json replies.
	JSON
	// Stateless is how the target serves the 2026-07-28 era: go-sdk
	// with Stateless, mcp-go with WithStateLess, mcpkit and plain as
	// in JSON (mcpkit decides the era per request). Replies are JSON
	// where the target can be told.
	Stateless
)

// A Target builds one server implementation.
type Target struct {
	Name string
	// HasJSONMode reports that the target can be told to answer with a
	// single JSON body.
	HasJSONMode bool
	// SSEIsJSON reports that the target's default mode still answers a
	// plain tools/call with a JSON body (mcp-go).
	SSEIsJSON bool
	// OptIn leaves the target out of the default run: it is measured only
	// when -targets names it.
	OptIn bool
	// ScaleOut marks the scale-out targets (issue 14): replicas behind
	// a round-robin proxy. The scale-out scenarios (14x) run on them and
	// on mcpkit, and only there.
	ScaleOut bool
	// HTTP returns the Streamable HTTP handler, to be mounted at /mcp. Nil
	// when the target cannot serve HTTP (yet).
	HTTP func(mode HTTPMode) (http.Handler, error)
	// HTTPDefaults, if set, returns the HTTP handler with the library's
	// default options but for the session cap, maxSessions (0: the
	// library's default). The soak serves it.
	HTTPDefaults func(maxSessions int) (http.Handler, error)
	// Stdio serves one session over stdin/stdout until EOF.
	Stdio func(ctx context.Context) error
}

var registry = map[string]*Target{}

func register(t *Target) { registry[t.Name] = t }

// Get returns the named target.
func Get(name string) (*Target, error) {
	t, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown target %q (have %v, and the opt-in floor)", name, Names())
	}
	return t, nil
}

// Names lists the targets a default run measures, in a fixed order.
func Names() []string {
	order := map[string]int{"mcpkit": 0, "go-sdk": 1, "mcp-go": 2, "plain": 3}
	var names []string
	for n, t := range registry {
		if !t.OptIn {
			names = append(names, n)
		}
	}
	sort.Slice(names, func(i, j int) bool { return order[names[i]] < order[names[j]] })
	return names
}

// EchoIn is the echo tool's arguments.
type EchoIn struct {
	Text string `json:"text"`
}
