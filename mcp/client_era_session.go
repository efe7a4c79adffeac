package mcp

// The session era on the client side: initialize starts the session
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization)
// and requests are sent as they are.

import (
	"context"
	"encoding/json"
	"fmt"
)

// clientSessionEra is the clientEra of a session started with initialize.
type clientSessionEra struct{}

func (clientSessionEra) call(ctx context.Context, cs *ClientSession, method string, params json.RawMessage) (json.RawMessage, error) {
	return cs.call(ctx, method, params) // send.go
}

func (clientSessionEra) params(params json.RawMessage) (json.RawMessage, error) { return params, nil }

func (clientSessionEra) lacks(method string) error {
	switch method {
	case "server/discover", "subscriptions/listen":
		return errStatelessEraOnly
	}
	return nil
}

func (clientSessionEra) pingMethod() string { return "ping" }

func (clientSessionEra) setLogLevel(ctx context.Context, cs *ClientSession, params *SetLevelParams) error {
	return cs.Call(ctx, "logging/setLevel", params, nil)
}

func (clientSessionEra) discover(context.Context, *ClientSession) (*DiscoverResult, error) {
	return nil, errStatelessEraOnly
}

func (clientSessionEra) hello(cs *ClientSession) serverHello {
	res := cs.initializeResult()
	if res == nil {
		return serverHello{}
	}
	return serverHello{
		version:      res.ProtocolVersion,
		info:         &res.ServerInfo,
		capabilities: &res.Capabilities,
		instructions: res.Instructions,
	}
}

func (clientSessionEra) urlElicitationID() bool { return true }

// initialize performs the session era's initialization phase, asking for
// version
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization).
func (cs *ClientSession) initialize(ctx context.Context, version string) error {
	c := cs.client
	var res InitializeResult
	params := &initializeParams{
		ProtocolVersion: version,
		Capabilities:    c.capabilities(),
		ClientInfo:      &c.impl,
	}
	if err := cs.Call(ctx, "initialize", params, &res); err != nil {
		return callFailed("initialize", err)
	}
	if !isSessionVersion(res.ProtocolVersion) {
		return fmt.Errorf("%w: server answered %q, client supports %v", ErrUnsupportedVersion, res.ProtocolVersion, sessionVersions)
	}
	cs.mu.Lock()
	cs.initResult = &res
	cs.mu.Unlock()
	if err := cs.notify(ctx, "notifications/initialized", emptyObject); err != nil {
		return fmt.Errorf("mcp: sending notifications/initialized: %w", err)
	}
	c.roots.track(cs) // client_roots.go
	return nil
}
