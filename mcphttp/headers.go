package mcphttp

import (
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// This file checks the request headers that decide whether a request is
// served at all: Accept, Content-Type and MCP-Protocol-Version.

const (
	mediaJSON = "application/json"
	mediaSSE  = "text/event-stream"

	headerSessionID       = "Mcp-Session-Id"
	headerProtocolVersion = "Mcp-Protocol-Version"
	headerLastEventID     = "Last-Event-Id"
)

// accepts reports whether the Accept headers admit media type want
// ("type/subtype"). Wildcards (*/* and type/*) match, case is ignored, and
// a range with q=0 excludes the type, as RFC 9110 section 12.5.1 says.
func accepts(h http.Header, want string) bool {
	if v := h["Accept"]; len(v) == 1 && (want == mediaJSON || want == mediaSSE) {
		switch v[0] {
		case "application/json, text/event-stream", "text/event-stream, application/json",
			"application/json,text/event-stream", "text/event-stream,application/json":
			return true // what clients send, without parsing
		}
	}
	wantType, _, _ := strings.Cut(want, "/")
	for _, v := range h.Values("Accept") {
		for part := range strings.SplitSeq(v, ",") {
			mt, params, _ := strings.Cut(part, ";")
			mt = strings.TrimSpace(mt)
			if !strings.EqualFold(mt, want) && mt != "*/*" && !strings.EqualFold(mt, wantType+"/*") {
				continue
			}
			if qZero(params) {
				continue
			}
			return true
		}
	}
	return false
}

// qZero reports whether media-range parameters carry q=0.
func qZero(params string) bool {
	for p := range strings.SplitSeq(params, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return err == nil && q == 0
	}
	return false
}

// isJSONContent reports whether the Content-Type is application/json;
// parameters such as charset are allowed.
func isJSONContent(h http.Header) bool {
	ct := headerValue(h, "Content-Type")
	if ct == "" {
		return false
	}
	if ct == mediaJSON || strings.EqualFold(ct, mediaJSON) {
		return true // the usual case, without parsing (which allocates)
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == mediaJSON
}

// checkVersion validates the MCP-Protocol-Version header against every
// version the server supports (not only the one the session negotiated:
// clients may send any supported version). An absent header means the
// session's own version
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#protocol-version-header).
func checkVersion(h http.Header) *jsonrpc.Error {
	vals, ok := h[headerProtocolVersion]
	if !ok {
		return nil
	}
	if len(vals) == 1 && isSessionVersion(vals[0]) {
		return nil
	}
	return errUnsupportedVersion(strings.Join(vals, ", "))
}

// headerVersion returns the MCP-Protocol-Version header, or "".
func headerVersion(h http.Header) string {
	return headerValue(h, headerProtocolVersion)
}

// headerValue is Header.Get for a key already in canonical form, as every
// key of a request read by net/http's server is: it saves canonicalizing
// the key again on each call, on every request.
func headerValue(h http.Header, canonicalKey string) string {
	if v := h[canonicalKey]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// The versions the server serves, newest first: in the session era, in
// the stateless era, and in both (as an unsupported version's error lists
// them).
var (
	sessionVersions   = mcp.Versions(mcp.EraSession)
	statelessVersions = mcp.Versions(mcp.EraStateless)
	servedVersions    = mcp.Versions(mcp.EraAuto)
)

// isSessionVersion reports whether v is a session-era version mcp serves.
func isSessionVersion(v string) bool { return slices.Contains(sessionVersions, v) }

// isStatelessVersion reports whether v is a stateless-era version mcp
// serves.
func isStatelessVersion(v string) bool { return slices.Contains(statelessVersions, v) }

// isStatelessMessage reports whether msg's params._meta names a protocol
// version: the message belongs to the stateless era.
func isStatelessMessage(msg jsonrpc.Message) bool {
	_, ok := mcp.StatelessVersionOf(msg)
	return ok
}
