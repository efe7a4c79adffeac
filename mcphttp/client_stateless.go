package mcphttp

// This file is the client transport's 2026-07-28 era: a request whose
// params._meta names the protocol version is its own POST with the request
// metadata headers, answered with JSON or an SSE stream that cancelling it
// closes (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/internal/httpmeta"
	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// statelessRequest is a stateless-era request awaiting its answer.
type statelessRequest struct {
	method string
	// cancel closes the request's HTTP exchange: its stream, if the
	// server answered with one.
	cancel context.CancelFunc
}

// maxKnownTools bounds the tools whose Mcp-Param headers the transport
// remembers; past it, the map starts afresh.
const maxKnownTools = 4096

// writeStateless POSTs a stateless-era request. It returns once the answer
// has been delivered (JSON) or its stream has opened (SSE), which is then
// read in the background until the response; an HTTP refusal (4xx, 5xx)
// is the returned error, a *StatusError carrying the body's JSON-RPC
// error.
func (c *clientConn) writeStateless(ctx context.Context, req *jsonrpc.Request, version string, frame []byte) error {
	rctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(c.bg, cancel) // Close ends every stream
	mr := &statelessRequest{method: req.Method, cancel: cancel}
	c.mu.Lock()
	if c.stateless == nil {
		c.stateless = make(map[jsonrpc.ID]*statelessRequest)
	}
	c.stateless[req.ID] = mr
	c.mu.Unlock()
	finish := func() {
		c.mu.Lock()
		if c.stateless[req.ID] == mr {
			delete(c.stateless, req.ID)
		}
		c.mu.Unlock()
		stop()
		cancel()
	}

	body := bytes.Clone(frame)
	resp, err := c.postStateless(rctx, req, version, body)
	if err == nil && resp.StatusCode == http.StatusBadRequest && req.Method == "tools/call" {
		// A -32020 on a tools/call may mean the transport did not know
		// the tool's x-mcp-header arguments: it learns them from
		// tools/list and tries once more, as the spec advises
		// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#client-behavior).
		serr := c.checkStatus(resp)
		var se *StatusError
		if errors.As(serr, &se) && se.RPCError != nil && se.RPCError.Code == jsonrpc.CodeHeaderMismatch && c.relearnTool(rctx, req, version) {
			resp, err = c.postStateless(rctx, req, version, body)
		} else {
			finish()
			return serr
		}
	}
	if err != nil {
		finish()
		return postFailed(c.t.URL, err)
	}
	if err := c.checkStatus(resp); err != nil {
		finish()
		return err
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case mediaType == mediaSSE:
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			defer finish()
			st := c.consume(resp.Body, req.ID, func(f []byte) bool { return c.deliverStateless(f, req.Method) }, c.passTooLarge)
			resp.Body.Close()
			switch {
			case st.answered || rctx.Err() != nil || c.isClosed():
			default:
				// The stateless era has no resumption: the request is
				// lost, and its caller must not wait for it.
				c.failRequest(req.ID, fmt.Errorf("%w; the stateless era cannot resume it, and the request may be sent again", ErrStreamLost))
			}
		}()
		return nil
	case mediaType == mediaJSON:
		data, err := c.readJSONReply(resp, req.Method, true)
		finish()
		if len(data) > 0 {
			c.deliverStateless(data, req.Method)
		}
		return err
	default:
		err := noReply(resp, req.Method)
		finish()
		return err
	}
}

// postStateless sends one stateless-era POST with the request metadata
// headers
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#request-metadata).
func (c *clientConn) postStateless(ctx context.Context, req *jsonrpc.Request, version string, body []byte) (*http.Response, error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.t.URL, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("mcphttp: %w", err)
	}
	for k, vs := range c.t.Header {
		for _, v := range vs {
			hr.Header.Add(k, v)
		}
	}
	h := hr.Header
	h.Set("Content-Type", mediaJSON)
	h.Set("Accept", "application/json, text/event-stream")
	h.Set(headerProtocolVersion, version)
	h.Set(httpmeta.HeaderMethod, req.Method)
	if member, _ := httpmeta.NameSource(req.Method); member != "" {
		if v, ok := stringMember(req.Params, member); ok {
			h.Set(httpmeta.HeaderName, httpmeta.EncodeValue(v))
		}
	}
	if req.Method == "tools/call" {
		c.paramHeaders(h, req.Params)
	}
	return c.do(hr) // client_auth.go
}

// paramHeaders adds the Mcp-Param-{Name} headers of a tools/call: one for
// each argument the tool's inputSchema marks with x-mcp-header and the call
// gives a value (null or absent: no header)
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#custom-headers-from-tool-parameters).
func (c *clientConn) paramHeaders(h http.Header, params json.RawMessage) {
	name, ok := stringMember(params, "name")
	if !ok {
		return
	}
	c.mu.Lock()
	ps := c.tools[name]
	c.mu.Unlock()
	if len(ps) == 0 {
		return
	}
	args := memberValue(params, "arguments")
	for i := range ps {
		p := &ps[i]
		raw, present, err := httpmeta.ArgumentAt(args, p.Path)
		if err != nil || !present {
			continue
		}
		if v, ok := httpmeta.EncodeArgument(raw); ok {
			h[p.Key] = []string{v}
		}
	}
}

// stringMember returns the string member name of a JSON object.
func stringMember(obj json.RawMessage, name string) (string, bool) {
	v := memberValue(obj, name)
	if v == nil {
		return "", false
	}
	return jsonscan.StringValue(v)
}

// memberValue returns the raw value of the first member name of a JSON
// object, or nil when obj is not an object or has no such member.
func memberValue(obj []byte, name string) []byte {
	obj = bytes.TrimSpace(obj)
	if len(obj) == 0 || obj[0] != '{' {
		return nil
	}
	var v []byte
	jsonscan.Members(obj, func(key, value []byte) bool {
		if jsonscan.KeyEquals(key, name) {
			v = value
			return false
		}
		return true
	})
	return v
}

// deliverStateless hands a frame of a stateless-era exchange to the session,
// first dropping from a tools/list result the tools whose x-mcp-header
// annotations are invalid and learning the others' Mcp-Param headers.
func (c *clientConn) deliverStateless(frame []byte, method string) bool {
	if method == "tools/list" {
		frame = c.learnTools(frame)
	}
	return c.deliver(frame)
}

// learnTools reads the tools of a tools/list response: it remembers the
// Mcp-Param headers of each, and returns the frame without the tools
// whose x-mcp-header annotations break the spec's rules, which a client
// over Streamable HTTP MUST exclude, logging a warning with the tool's name
// and the reason
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#schema-extension).
// The frame is returned unchanged, byte for byte, when no tool is dropped.
func (c *clientConn) learnTools(frame []byte) []byte {
	msg, _, err := jsonrpc.Decode(frame)
	if err != nil {
		return frame
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error != nil || len(resp.Result) == 0 || resp.Result[0] != '{' {
		return frame
	}
	tools := memberValue(resp.Result, "tools")
	if jsonscan.KindOf(tools) != jsonscan.Array {
		return frame
	}
	var kept [][]byte
	dropped := false
	learnt := map[string][]httpmeta.Param{}
	jsonscan.Elements(tools, func(tool []byte) bool {
		name, _ := stringMember(tool, "name")
		schema := memberValue(tool, "inputSchema")
		var ps []httpmeta.Param
		if bytes.Contains(schema, []byte(`"x-mcp-header"`)) {
			var err error
			if ps, err = httpmeta.HeaderParams(schema); err != nil {
				c.logger.Warn("mcphttp: tool dropped from tools/list: its x-mcp-header annotations are invalid", "tool", name, "err", err)
				dropped = true
				return true
			}
		}
		learnt[name] = ps
		kept = append(kept, tool)
		return true
	})
	c.mu.Lock()
	if len(c.tools)+len(learnt) > maxKnownTools {
		c.tools = nil
	}
	if c.tools == nil {
		c.tools = make(map[string][]httpmeta.Param, len(learnt))
	}
	for name, ps := range learnt {
		c.tools[name] = ps
	}
	c.mu.Unlock()
	if !dropped {
		return frame
	}
	result := replaceMember(resp.Result, "tools", joinArray(kept))
	out, err := jsonrpc.Encode(&jsonrpc.Response{ID: resp.ID, Result: result})
	if err != nil {
		return frame
	}
	return out
}

func joinArray(elems [][]byte) []byte {
	b := []byte{'['}
	for i, e := range elems {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, e...)
	}
	return append(b, ']')
}

// replaceMember returns the object obj with member name's value replaced.
func replaceMember(obj []byte, name string, value []byte) []byte {
	b := []byte{'{'}
	first := true
	jsonscan.Members(obj, func(key, v []byte) bool {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, key...)
		b = append(b, '"', ':')
		if jsonscan.KeyEquals(key, name) {
			b = append(b, value...)
		} else {
			b = append(b, v...)
		}
		return true
	})
	return append(b, '}')
}

// relearnTool lists the server's tools again, with the _meta of call (a
// tools/call that got -32020), and reports whether the transport now
// knows the called tool's x-mcp-header arguments.
func (c *clientConn) relearnTool(ctx context.Context, call *jsonrpc.Request, version string) bool {
	name, ok := stringMember(call.Params, "name")
	if !ok {
		return false
	}
	meta := memberValue(call.Params, "_meta")
	if meta == nil {
		return false
	}
	cursor := ""
	for page := 1; page <= 100; page++ {
		params := append([]byte(`{"_meta":`), meta...)
		if cursor != "" {
			params = append(params, `,"cursor":`...)
			params = strconv.AppendQuote(params, cursor)
		}
		params = append(params, '}')
		req := &jsonrpc.Request{ID: jsonrpc.StringID("mcphttp-tools-list-" + strconv.Itoa(page)), Method: "tools/list", Params: params}
		result, ok := c.internalCall(ctx, req, version)
		if !ok {
			return false
		}
		next, _ := stringMember(result, "nextCursor")
		if next == "" || next == cursor {
			break
		}
		cursor = next
	}
	c.mu.Lock()
	_, known := c.tools[name]
	c.mu.Unlock()
	return known
}

// internalCall sends a stateless-era request of the transport's own (not
// the session's) and returns its result after learnTools has seen it.
func (c *clientConn) internalCall(ctx context.Context, req *jsonrpc.Request, version string) (json.RawMessage, bool) {
	frame, err := jsonrpc.Encode(req)
	if err != nil {
		return nil, false
	}
	resp, err := c.postStateless(ctx, req, version, frame)
	if err != nil {
		return nil, false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, false
	}
	var answer []byte
	take := func(f []byte) bool {
		if isResponseTo(f, req.ID) {
			answer = f
		}
		return true
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mediaType {
	case mediaSSE:
		c.consume(resp.Body, req.ID, take, nil)
	case mediaJSON:
		data, err := c.readMessage(resp.Body)
		if err != nil {
			return nil, false
		}
		take(bytes.TrimSpace(data))
	}
	if answer == nil {
		return nil, false
	}
	msg, _, err := jsonrpc.Decode(c.learnTools(answer))
	if err != nil {
		return nil, false
	}
	r, ok := msg.(*jsonrpc.Response)
	if !ok || r.Error != nil {
		return nil, false
	}
	return r.Result, true
}

// cancelStateless handles the session's notifications/cancelled in the
// stateless era, which defines no client notification over Streamable
// HTTP: closing a request's stream is its cancellation
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#sending-messages).
// It closes the named request's exchange and reports true when the
// request is a stateless-era one (in flight or already answered, on a
// connection without a session).
func (c *clientConn) cancelStateless(params json.RawMessage) bool {
	var p struct {
		RequestID jsonrpc.ID `json:"requestId"`
		Reason    string     `json:"reason,omitempty"`
	}
	if exactjson.Unmarshal(params, &p) != nil || !p.RequestID.IsValid() {
		return false
	}
	c.mu.Lock()
	mr, ok := c.stateless[p.RequestID]
	sessionless := c.sessionID == "" && c.stateless != nil
	c.mu.Unlock()
	if ok {
		mr.cancel()
		return true
	}
	return sessionless
}
