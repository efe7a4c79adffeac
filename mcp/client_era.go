package mcp

// This file chooses a ClientSession's era when it starts
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility-with-initialization-based-versions)
// and declares clientEra, the operations that differ by era.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// ProtocolEra chooses the protocol era a Client speaks with a server
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#terminology):
// the session era (initialize; 2025-11-25 and earlier) or the stateless
// era (2026-07-28). docs/design.md says when to pin one.
type ProtocolEra int

const (
	// EraAuto probes with server/discover and falls back to initialize
	// unless the answer names a stateless-era version the client speaks
	// or is one of that era's errors
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio#backward-compatibility).
	EraAuto ProtocolEra = iota
	// EraSession starts every session with initialize
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization).
	EraSession
	// EraStateless speaks only the stateless era: Connect fails unless the
	// server's server/discover names a version the client speaks
	// (https://modelcontextprotocol.io/specification/2026-07-28/server/discover).
	EraStateless
)

// String returns "auto", "session" or "stateless".
func (e ProtocolEra) String() string {
	switch e {
	case EraAuto:
		return "auto"
	case EraSession:
		return "session"
	case EraStateless:
		return "stateless"
	}
	return fmt.Sprintf("ProtocolEra(%d)", int(e))
}

// ErrWrongEra is matched (with errors.Is) by the error a ClientSession
// method of one protocol era returns, without sending anything, on a
// session of the other
// (https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta):
// Subscribe and Unsubscribe on a stateless-era session, Listen and
// Discover on a session-era session. The error's text says which era the
// method needs.
var ErrWrongEra = errors.New("mcp: not available in this session's protocol era")

var (
	errSessionEraOnly   = &kindError{"mcp: not available in the stateless era (2026-07-28)", ErrWrongEra}
	errStatelessEraOnly = &kindError{"mcp: only available in the stateless era (2026-07-28)", ErrWrongEra}
)

// clientEra is what a ClientSession does differently in each era:
// clientSessionEra (client_era_session.go) and *clientStatelessEra
// (client_era_stateless.go).
type clientEra interface {
	// call sends a request and returns its complete result.
	call(ctx context.Context, cs *ClientSession, method string, params json.RawMessage) (json.RawMessage, error)
	// params returns a request's params as the era sends them.
	params(params json.RawMessage) (json.RawMessage, error)
	// lacks returns the error of a method the era does not have (one
	// wrapping errSessionEraOnly or errStatelessEraOnly), nil otherwise.
	lacks(method string) error
	// pingMethod is the request Ping sends.
	pingMethod() string
	// setLogLevel is SetLogLevel.
	setLogLevel(ctx context.Context, cs *ClientSession, params *SetLevelParams) error
	// discover is Discover.
	discover(ctx context.Context, cs *ClientSession) (*DiscoverResult, error)
	// hello is what the server said about itself when the session started.
	hello(cs *ClientSession) serverHello
	// urlElicitationID reports whether a URL-mode elicitation/create must
	// carry an elicitationId.
	urlElicitationID() bool
}

// serverHello is what a server told the client about itself, in
// initialize or server/discover.
type serverHello struct {
	version      string
	info         *Implementation
	capabilities *ServerCapabilities
	instructions string
}

// era returns the era the session speaks.
func (cs *ClientSession) era() clientEra {
	if e := cs.stateless.Load(); e != nil {
		return e
	}
	return clientSessionEra{}
}

// start starts the session in the era ClientOptions.ProtocolEra chooses.
func (cs *ClientSession) start(ctx context.Context) error {
	switch cs.client.opts.ProtocolEra {
	case EraSession:
		return cs.initialize(ctx, LatestVersion)
	case EraStateless:
		return cs.startStateless(ctx)
	default:
		return cs.startAuto(ctx)
	}
}

// defaultProbeTimeout is ClientOptions.ProbeTimeout's zero value.
const defaultProbeTimeout = 10 * time.Second

// discovered is what server/discover told the client.
type discovered struct {
	// version is the newest stateless-era version both sides speak, ""
	// if none.
	version    string
	result     *DiscoverResult
	serverInfo *Implementation
	// legacy is a session-era version both sides speak, named by a
	// -32022 error that named no stateless-era one.
	legacy string
}

// probeKey marks the context of the probe's server/discover: ending it
// sends no notifications/cancelled, which a session-era server would get
// before initialize.
type probeKey struct{}

// isStatelessEraError reports whether err is a JSON-RPC error only a
// stateless-era server sends
// (https://modelcontextprotocol.io/specification/2026-07-28/basic#error-codes).
func isStatelessEraError(err error) bool {
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) {
		return false
	}
	switch rpcErr.Code {
	case jsonrpc.CodeHeaderMismatch, jsonrpc.CodeMissingClientCapability, jsonrpc.CodeUnsupportedProtocolVersion:
		return true
	}
	return false
}

// unsupportedVersionData returns data.supported of a -32022
// UnsupportedProtocolVersion error, and whether err is one
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#protocol-version-negotiation).
func unsupportedVersionData(err error) ([]string, bool) {
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeUnsupportedProtocolVersion {
		return nil, false
	}
	var data struct {
		Supported []string `json:"supported"`
	}
	if len(rpcErr.Data) > 0 {
		_ = exactjson.Unmarshal(rpcErr.Data, &data)
	}
	return data.Supported, true
}

// newestShared returns the first of ours (newest first) that theirs lists,
// or "".
func newestShared(theirs, ours []string) string {
	for _, v := range ours {
		if slices.Contains(theirs, v) {
			return v
		}
	}
	return ""
}

// discover calls server/discover asking for the newest stateless-era
// version, and once more with the version a -32022 error names
// (https://modelcontextprotocol.io/specification/2026-07-28/server/discover).
func (cs *ClientSession) discover(ctx context.Context) (*discovered, error) {
	version := statelessVersions[0]
	for retried := false; ; retried = true {
		params, _ := cs.client.statelessEra(version).params(nil)
		raw, err := cs.call(ctx, "server/discover", params)
		if err != nil {
			supported, ok := unsupportedVersionData(err)
			if !ok || retried {
				return nil, callFailed("server/discover", err)
			}
			if v := newestShared(supported, statelessVersions); v != "" {
				version = v
				continue
			}
			if v := newestShared(supported, sessionVersions); v != "" {
				return &discovered{legacy: v}, nil
			}
			return nil, fmt.Errorf("%w: the server speaks %v, the client %v: %w", ErrUnsupportedVersion, supported, allClientVersions(), err)
		}
		return parseDiscover(raw)
	}
}

func allClientVersions() []string {
	return append(slices.Clone(statelessVersions), sessionVersions...)
}

// parseDiscover reads a DiscoverResult leniently: the server's identity
// from _meta (or, as some servers send it, a top-level serverInfo), and
// no ttlMs or cacheScope required.
func parseDiscover(raw json.RawMessage) (*discovered, error) {
	if rt, err := resultTypeOf(raw); err != nil {
		return nil, fmt.Errorf("mcp: server/discover: %w", err)
	} else if rt != "" && rt != resultTypeComplete {
		return nil, fmt.Errorf("mcp: server/discover: %w %q", ErrUnknownResultType, rt)
	}
	var res struct {
		DiscoverResult
		ServerInfo *Implementation `json:"serverInfo"`
		Meta       struct {
			ServerInfo *Implementation `json:"io.modelcontextprotocol/serverInfo"`
		} `json:"_meta"`
	}
	if err := exactjson.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("mcp: decoding server/discover result: %w", err)
	}
	d := &discovered{result: &res.DiscoverResult, serverInfo: res.Meta.ServerInfo}
	if d.serverInfo == nil {
		d.serverInfo = res.ServerInfo
	}
	d.version = newestShared(res.SupportedVersions, statelessVersions)
	return d, nil
}

// startStateless starts a session pinned to the stateless era.
func (cs *ClientSession) startStateless(ctx context.Context) error {
	d, err := cs.discover(ctx)
	if err != nil {
		return err
	}
	if d.version == "" {
		var theirs []string
		if d.result != nil {
			theirs = d.result.SupportedVersions
		} else {
			theirs = []string{d.legacy}
		}
		return fmt.Errorf("%w: the server speaks %v; the stateless-era versions the client speaks are %v", ErrUnsupportedVersion, theirs, statelessVersions)
	}
	cs.adopt(d)
	return nil
}

type probeAnswer struct {
	d   *discovered
	err error
}

// startAuto probes with server/discover and falls back to initialize. The
// probe runs on its own goroutine, which ends before startAuto returns, so
// that a late answer is still used if initialize fails.
func (cs *ClientSession) startAuto(ctx context.Context) error {
	pctx, stop := context.WithCancel(context.WithValue(ctx, probeKey{}, true))
	answers := make(chan probeAnswer, 1)
	go func() {
		d, err := cs.discover(pctx)
		answers <- probeAnswer{d, err}
	}()
	pending := true // the probe's answer is yet to be read
	defer func() {
		stop()
		if pending {
			<-answers
		}
	}()
	wait := cs.client.opts.ProbeTimeout
	var timeout <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case a := <-answers:
		pending = false
		return cs.afterProbe(ctx, a)
	case <-ctx.Done():
		return fmt.Errorf("mcp: server/discover: %w", ctx.Err())
	case <-timeout:
	}

	// No answer in time: a session-era server that ignores requests before
	// initialize, or a stateless-era one still starting.
	initErr := cs.initialize(ctx, LatestVersion)
	if initErr == nil {
		return nil
	}
	var late <-chan time.Time
	if ctx.Err() == nil {
		t := time.NewTimer(wait)
		defer t.Stop()
		late = t.C
	}
	select {
	case a := <-answers:
		pending = false
		if a.err == nil && a.d.version != "" {
			cs.adopt(a.d)
			return nil
		}
	case <-late:
	case <-ctx.Done():
	}
	return fmt.Errorf("%w (server/discover had no answer within %v before it)", initErr, wait)
}

// afterProbe starts the session from the probe's answer.
func (cs *ClientSession) afterProbe(ctx context.Context, a probeAnswer) error {
	switch {
	case a.err == nil && a.d.version != "":
		cs.adopt(a.d)
		return nil
	case a.err == nil && a.d.legacy != "":
		// A stateless-era server whose -32022 named only session-era
		// versions the client speaks: a version both sides speak.
		return cs.initialize(ctx, a.d.legacy)
	case a.err == nil:
		// A DiscoverResult without a version the client speaks in the
		// stateless era: a session-era server that answers
		// server/discover (go-sdk#1025).
	case isStatelessEraError(a.err):
		return a.err
	case ctx.Err() != nil:
		return a.err
	}
	err := cs.initialize(ctx, LatestVersion)
	if err != nil && a.err != nil && rootCause(err).Error() != rootCause(a.err).Error() {
		return fmt.Errorf("%w (after %v)", err, a.err)
	}
	return err
}

// callFailed names the handshake method whose call failed, unless the
// error names it already.
func callFailed(method string, err error) error {
	msg := err.Error()
	if errors.Is(err, ErrRequestTimeout) || strings.HasPrefix(msg, "mcp: "+method+": ") || strings.HasPrefix(msg, "mcp: sending "+method+": ") {
		return err
	}
	return fmt.Errorf("mcp: %s: %w", method, err)
}

// rootCause is the innermost error of err's chain of single wraps.
func rootCause(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}
