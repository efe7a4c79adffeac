package mcp

// This file decides which protocol era a ClientSession speaks: the session
// era (initialize, 2025-11-25 and earlier) or the stateless era (2026-07-28,
// no handshake), by the probe and fallback the spec gives dual-era clients
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility-with-initialization-based-versions).
// The stateless era's requests themselves are in client_modern.go.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// ProtocolEra chooses the protocol era a Client speaks with a server
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#terminology):
// the session era of initialize and sessions, 2025-11-25 and earlier, or
// the stateless era of 2026-07-28, where every request carries the
// client's version, capabilities and info.
//
// The default, EraAuto, is what the spec asks of a client that must work
// with both kinds of servers, and what a demanding user wants: it speaks
// the current revision to every server that does, and still reaches every
// session-era server, at the cost of one server/discover round trip when
// the server is of the session era (one more timeout, ProbeTimeout, for the
// rare server that never answers a request sent before initialize). Pin
// EraSession to keep a session, with what only sessions offer: ping,
// logging/setLevel, resources/subscribe and requests from the server while
// a call runs. Pin EraStateless for a server known to be of the stateless era.
type ProtocolEra int

const (
	// EraAuto probes with server/discover and falls back to initialize on
	// any answer that does not name a stateless-era version the client
	// speaks, on any error that is not one of the stateless era's, and on
	// no answer within ClientOptions.ProbeTimeout
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio#backward-compatibility).
	EraAuto ProtocolEra = iota
	// EraSession starts every session with initialize, as clients of
	// 2025-11-25 and earlier do
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

var (
	// ErrSessionEraOnly is returned, without sending anything, by the
	// methods of a stateless-era session that exist only in the session
	// era (Subscribe, Unsubscribe): 2026-07-28 removed them
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta).
	ErrSessionEraOnly = errors.New("mcp: not available in the stateless era (2026-07-28)")
	// ErrStatelessEraOnly is returned, without sending anything, by the
	// methods of a session-era session that exist only in the stateless
	// era (Listen, Discover).
	ErrStatelessEraOnly = errors.New("mcp: only available in the stateless era (2026-07-28)")
)

// defaultProbeTimeout is ClientOptions.ProbeTimeout's zero value: long
// enough for a server started by npx or uvx to read its first line.
const defaultProbeTimeout = 10 * time.Second

func (c *Client) probeTimeout() time.Duration {
	switch d := c.opts.ProbeTimeout; {
	case d == 0:
		return defaultProbeTimeout
	case d < 0:
		return 0
	default:
		return d
	}
}

// sessionEra is what a stateless-era session knows of its server. It is
// replaced whole (ClientSession.era), never changed in place.
type sessionEra struct {
	// version is the stateless-era version every request carries.
	version string
	// meta holds the _meta members every request carries:
	// protocolVersion, clientCapabilities and clientInfo, encoded.
	meta     []byte
	discover *DiscoverResult
	// serverInfo is the identity the discover result carried.
	serverInfo *Implementation
}

// discovered is what server/discover told the client.
type discovered struct {
	// version is the newest stateless-era version both sides speak, ""
	// if none.
	version    string
	result     *DiscoverResult
	serverInfo *Implementation
	// legacy is a session-era version both sides speak, named by a
	// -32022 error that named no stateless-era one: the session is then
	// started with initialize asking for it.
	legacy string
}

// probeKey marks the context of the probe's server/discover: ending it
// sends no notifications/cancelled, which a session-era server would get
// before initialize.
type probeKey struct{}

// isModernError reports whether err is a JSON-RPC error only a stateless-era
// server sends (https://modelcontextprotocol.io/specification/2026-07-28/basic#error-codes):
// it identifies such a server, so the client must not fall back to
// initialize.
func isModernError(err error) bool {
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
		raw, err := cs.call(ctx, "server/discover", cs.client.discoverParams(version))
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
	} else if rt != "" && rt != ResultTypeComplete {
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

// startModern starts a session pinned to the stateless era.
func (cs *ClientSession) startModern(ctx context.Context) error {
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

// startAuto probes with server/discover and falls back to initialize
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility-with-initialization-based-versions).
// The probe runs on its own goroutine so that, when it times out, a late
// answer can still rescue a slow modern server whose refusal of initialize
// arrives after it; the goroutine always ends before startAuto returns.
func (cs *ClientSession) startAuto(ctx context.Context) error {
	pctx, stop := context.WithCancel(context.WithValue(ctx, probeKey{}, true))
	defer stop()
	answers := make(chan probeAnswer, 1)
	go func() {
		d, err := cs.discover(pctx)
		answers <- probeAnswer{d, err}
	}()
	wait := cs.client.probeTimeout()
	var timeout <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case a := <-answers:
		return cs.afterProbe(ctx, a)
	case <-ctx.Done():
		stop()
		<-answers
		return fmt.Errorf("mcp: server/discover: %w", ctx.Err())
	case <-timeout:
	}

	// No answer in time: a session-era server that ignores requests before
	// initialize, or a modern one still starting.
	initErr := cs.initialize(ctx, LatestVersion)
	if initErr == nil {
		stop()
		<-answers
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
		if a.err == nil && a.d.version != "" {
			cs.adopt(a.d)
			return nil
		}
	case <-late:
		stop()
		<-answers
	case <-ctx.Done():
		stop()
		<-answers
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
	case isModernError(a.err):
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
// error names it already: the errors of a call that are not the server's
// answer (sending, the session ending, a timeout) do.
func callFailed(method string, err error) error {
	msg := err.Error()
	if errors.Is(err, ErrRequestTimeout) || strings.HasPrefix(msg, "mcp: "+method+": ") || strings.HasPrefix(msg, "mcp: sending "+method+": ") {
		return err
	}
	return fmt.Errorf("mcp: %s: %w", method, err)
}

// rootCause is the innermost error of err's chain of single wraps: the
// probe's failure is worth reporting next to initialize's only when
// their causes differ (not when, say, both found the server unreachable).
func rootCause(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

// adopt makes cs a stateless-era session.
func (cs *ClientSession) adopt(d *discovered) {
	cs.era.Store(&sessionEra{
		version:    d.version,
		meta:       cs.client.metaMembers(d.version),
		discover:   d.result,
		serverInfo: d.serverInfo,
	})
}

// setVersion switches a stateless-era session to version, which a -32022
// error named.
func (cs *ClientSession) setVersion(version string) {
	for {
		old := cs.era.Load()
		if old == nil || old.version == version {
			return
		}
		e := *old
		e.version = version
		e.meta = cs.client.metaMembers(version)
		if cs.era.CompareAndSwap(old, &e) {
			return
		}
	}
}

// Stateless reports whether the session speaks the stateless era
// (2026-07-28): no initialize, every request carrying the client's version,
// capabilities and info in _meta
// (https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta).
// It is false for a session started with initialize.
func (cs *ClientSession) Stateless() bool { return cs.era.Load() != nil }

// ProtocolVersion returns the protocol version the session speaks: the one
// initialize negotiated, or the stateless-era version its requests carry.
func (cs *ClientSession) ProtocolVersion() string {
	if e := cs.era.Load(); e != nil {
		return e.version
	}
	if res := cs.InitializeResult(); res != nil {
		return res.ProtocolVersion
	}
	return ""
}

// DiscoverResult returns what the server answered to the server/discover
// that started a stateless-era session: its versions, capabilities and
// instructions
// (https://modelcontextprotocol.io/specification/2026-07-28/server/discover).
// It is nil for a session started with initialize (see InitializeResult).
func (cs *ClientSession) DiscoverResult() *DiscoverResult {
	if e := cs.era.Load(); e != nil {
		return e.discover
	}
	return nil
}

// ServerInfo returns the server's identity, from initialize or from the
// _meta of server/discover's result, in either era; nil if the server
// gave none.
func (cs *ClientSession) ServerInfo() *Implementation {
	if e := cs.era.Load(); e != nil {
		return e.serverInfo
	}
	if res := cs.InitializeResult(); res != nil {
		info := res.ServerInfo
		return &info
	}
	return nil
}

// ServerCapabilities returns the capabilities the server declared, in
// initialize or server/discover, in either era. It is nil only for a
// session that failed to start.
func (cs *ClientSession) ServerCapabilities() *ServerCapabilities {
	if e := cs.era.Load(); e != nil {
		if e.discover != nil {
			return &e.discover.Capabilities
		}
		return nil
	}
	if res := cs.InitializeResult(); res != nil {
		return &res.Capabilities
	}
	return nil
}

// Instructions returns the instructions the server gave for using it, in
// initialize or server/discover, in either era.
func (cs *ClientSession) Instructions() string {
	if e := cs.era.Load(); e != nil {
		if e.discover != nil {
			return e.discover.Instructions
		}
		return ""
	}
	if res := cs.InitializeResult(); res != nil {
		return res.Instructions
	}
	return ""
}

// Discover calls server/discover again on a stateless-era session and
// returns the server's current versions, capabilities and instructions
// (https://modelcontextprotocol.io/specification/2026-07-28/server/discover).
// The session keeps the result as its DiscoverResult. On a session-era
// session it returns ErrStatelessEraOnly.
func (cs *ClientSession) Discover(ctx context.Context) (*DiscoverResult, error) {
	if !cs.Stateless() {
		return nil, ErrStatelessEraOnly
	}
	raw, err := cs.callModern(ctx, "server/discover", nil)
	if err != nil {
		return nil, err
	}
	d, err := parseDiscover(raw)
	if err != nil {
		return nil, err
	}
	for {
		old := cs.era.Load()
		e := *old
		e.discover = d.result
		if d.serverInfo != nil {
			e.serverInfo = d.serverInfo
		}
		if cs.era.CompareAndSwap(old, &e) {
			return d.result, nil
		}
	}
}

// resultTypeOf returns a result's resultType, "" when it has none (a
// session-era server's result, which counts as complete)
// (https://modelcontextprotocol.io/specification/2026-07-28/basic#resulttype).
func resultTypeOf(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || raw[0] != '{' {
		return "", nil
	}
	var rt []byte
	if _, err := jsonscan.ScanObject(raw, 0, func(key, value []byte) {
		if jsonscan.KeyEquals(key, "resultType") {
			rt = value
		}
	}); err != nil {
		return "", fmt.Errorf("result is not valid JSON: %w", err)
	}
	if rt == nil {
		return "", nil
	}
	s, ok := jsonscan.StringValue(rt)
	if !ok {
		return "", fmt.Errorf("%w: resultType %s is not a string", ErrUnknownResultType, rt)
	}
	return s, nil
}
