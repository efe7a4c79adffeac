package mcphttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"

	"github.com/mcpkit/mcpkit/internal/httpmeta"
	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// This file checks the request metadata headers of the 2026-07-28 era
// against the body they mirror: MCP-Protocol-Version, Mcp-Method, Mcp-Name
// and the Mcp-Param-{Name} headers of tool arguments marked x-mcp-header.
// A server that reads the body MUST refuse a request whose headers are
// missing, malformed or disagree with it, with 400 and -32020
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-validation).
// Header names are case-insensitive (net/http canonicalises them), values
// case-sensitive with optional white space trimmed.

// fieldProtocolVersion is MCP-Protocol-Version as the spec spells it, for
// error messages.
const fieldProtocolVersion = "MCP-Protocol-Version"

// checkStatelessHeaders returns the -32020 error for req's headers, or nil;
// v is the version req's _meta names.
//
// The version header is checked first, so that a header naming one
// version and a _meta naming another is a mismatch even when the body's
// version is not served (which would otherwise be -32022). A request whose
// _meta names no version is left to package mcp, which refuses it with
// -32602; one naming a version of no era served is refused there with
// -32022, and defines no other header to check.
func (h *Handler) checkStatelessHeaders(r *http.Request, req *jsonrpc.Request, v metaVersion, srv *mcp.Server) *jsonrpc.Error {
	version := v.version
	if !v.present || version == "" {
		return nil
	}
	value, present, err := httpmeta.FieldValue(fieldProtocolVersion, r.Header[headerProtocolVersion])
	switch {
	case err != nil:
		return headerMismatch(err)
	case !present:
		return headerMismatch(&httpmeta.Error{Field: fieldProtocolVersion, Reason: "is missing"})
	}
	if v := httpmeta.TrimOWS(value); v != version {
		return headerMismatch(&httpmeta.Error{Field: fieldProtocolVersion,
			Reason: "value " + quoteValue(v) + " does not match body value " + quoteValue(version)})
	}
	if !isStatelessVersion(version) {
		return nil
	}
	value, present, err = httpmeta.FieldValue(httpmeta.HeaderMethod, r.Header[httpmeta.HeaderMethod])
	if err == nil {
		err = httpmeta.CheckMethod(value, present, req.Method)
	}
	if err != nil {
		return headerMismatch(err)
	}
	// tools/call params were read with the version (scanStateless), for
	// Mcp-Name and Mcp-Param-*.
	call := v.call
	isCall := req.Method == "tools/call"
	if member, _ := httpmeta.NameSource(req.Method); member != "" {
		value, present, err = httpmeta.FieldValue(httpmeta.HeaderName, r.Header[httpmeta.HeaderName])
		if err == nil {
			if isCall {
				err = httpmeta.CheckNameMember(req.Method, value, present, call.name)
			} else {
				err = httpmeta.CheckName(req.Method, value, present, req.Params)
			}
		}
		if err != nil {
			return headerMismatch(err)
		}
	}
	if isCall {
		if err := h.checkParamHeaders(r.Header, call, srv); err != nil {
			return headerMismatch(err)
		}
	}
	return nil
}

// annotationTail is the schema keyword that marks a tool argument for an
// Mcp-Param-{Name} header ("x-mcp-header", quotes included, searched as
// containsSplit does); a schema without it needs no walk.
var annotationTail = []byte(`x-mcp-header"`)

// checkParamHeaders checks the Mcp-Param-{Name} headers of a tools/call:
// each argument the tool's inputSchema marks with x-mcp-header must come
// with its header, equal to it once decoded, and a header must not come
// without its argument
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-behavior-for-custom-headers).
// An unknown tool is left to tools/call to refuse. A tool whose
// annotations break the spec's rules (clients drop such tools) has its
// headers unchecked: the fault is the server's, not the request's.
func (h *Handler) checkParamHeaders(header http.Header, call toolCall, srv *mcp.Server) error {
	if len(call.name) < 2 || call.name[0] != '"' {
		return nil
	}
	args := call.args
	// The usual name is looked up without a copy.
	name := call.name[1 : len(call.name)-1]
	if bytes.IndexByte(name, '\\') >= 0 {
		s, _ := jsonscan.StringValue(call.name)
		name = []byte(s)
	}
	tool, ok := srv.Host().Tool(string(name))
	if !ok {
		return nil
	}
	schema := tool.InputSchema
	if !containsSplit(schema, `"`, annotationTail) {
		return nil
	}
	ps, err := h.params.of(name, schema)
	if err != nil {
		h.logger.Debug("mcphttp: Mcp-Param headers of a tool with invalid x-mcp-header annotations are not checked", "tool", string(name), "err", err)
		return nil
	}
	for i := range ps {
		p := &ps[i]
		value, present, err := httpmeta.FieldValue(p.Header, header[p.Key])
		if err != nil {
			return err
		}
		raw, _, err := httpmeta.ArgumentAt(args, p.Path)
		if err != nil {
			if errors.Is(err, httpmeta.ErrAmbiguousArgument) {
				return &httpmeta.Error{Field: p.Header, Reason: "cannot be checked: the arguments hold a member that differs from '" +
					pathString(p.Path) + "' only in case", Err: err}
			}
			return nil // malformed arguments: tools/call refuses them
		}
		if err := httpmeta.MatchArgument(p.Header, value, present, raw); err != nil {
			return err
		}
	}
	return nil
}

// paramCache remembers the header params read from each tool's
// inputSchema: reading them walks the whole schema, and a schema changes
// only when its tool is replaced (by a new Tool, whose schema is another
// slice; a schema is not modified in place once its tool is added).
type paramCache struct {
	mu sync.RWMutex
	m  map[string]*toolParams
}

// toolParams are the params (or the annotation error) of one schema.
type toolParams struct {
	schema json.RawMessage // what they were read from
	params []httpmeta.Param
	err    error
}

// maxCachedTools bounds the cache: a server that keeps adding tools under
// new names starts it afresh rather than grow it without end.
const maxCachedTools = 4096

// of returns the header params of tool name's schema.
func (c *paramCache) of(name []byte, schema json.RawMessage) ([]httpmeta.Param, error) {
	c.mu.RLock()
	tp := c.m[string(name)]
	c.mu.RUnlock()
	if tp != nil && sameSlice(tp.schema, schema) {
		return tp.params, tp.err
	}
	ps, err := httpmeta.HeaderParams(schema)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCachedTools {
		c.m = make(map[string]*toolParams)
	}
	c.m[string(name)] = &toolParams{schema: schema, params: ps, err: err}
	c.mu.Unlock()
	return ps, err
}

// sameSlice reports whether a and b are the same bytes in memory.
func sameSlice(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// toolCall is what the header checks read of tools/call params: the raw
// name and arguments members (the last of each), nil when absent or when
// params are not a valid JSON object.
type toolCall struct {
	name, args []byte
}

// pathString joins a property path with dots, for messages.
func pathString(path []string) string {
	var b []byte
	for i, p := range path {
		if i > 0 {
			b = append(b, '.')
		}
		b = append(b, p...)
	}
	return string(b)
}

// headerMismatch turns a header check's failure into the -32020 error:
// its text as the message (the spec's example words it "Header mismatch:
// Mcp-Name header value 'foo' does not match body value 'bar'") and the
// header's name in data.header.
func headerMismatch(err error) *jsonrpc.Error {
	data := struct {
		Header string `json:"header,omitempty"`
	}{}
	var me *httpmeta.Error
	if errors.As(err, &me) {
		data.Header = me.Field
	}
	return jsonrpc.NewError(jsonrpc.CodeHeaderMismatch, err.Error(), data)
}

// maxQuoted bounds how much of a header or body value a message repeats.
const maxQuoted = 128

// quoteValue renders a value for a message: in single quotes when it is
// short printable ASCII, otherwise Go-quoted (and cut) so that nothing
// unprintable or long reaches the client or the logs.
func quoteValue(s string) string {
	plain := len(s) <= maxQuoted
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] <= 0x7e
	}
	if plain {
		return "'" + s + "'"
	}
	if len(s) > maxQuoted {
		s = s[:maxQuoted]
		return strconv.Quote(s) + "..."
	}
	return strconv.Quote(s)
}
