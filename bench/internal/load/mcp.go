package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ProtocolVersion is the version the load generator asks for.
const ProtocolVersion = "2025-11-25"

// A Session is an initialized MCP session on a Streamable HTTP server. ID
// is empty for a server that issues none (the plain handler).
type Session struct {
	ID      string
	Version string
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func (e *rpcError) Error() string {
	return fmt.Sprintf("JSON-RPC error %d %s %s", e.Code, e.Message, e.Data)
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// callReply is a tools/call response (or an initialize one: only
// protocolVersion is read).
type callReply struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		Content         []textContent `json:"content"`
		IsError         bool          `json:"isError"`
		ProtocolVersion string        `json:"protocolVersion"`
	} `json:"result"`
	Error *rpcError `json:"error"`
}

// parseReply finds the JSON-RPC response with the given id in an HTTP
// reply body, which is either one JSON object or an SSE stream whose
// events may also carry notifications and requests.
func parseReply(contentType string, body []byte, id []byte, out *callReply) error {
	if strings.HasPrefix(contentType, "application/json") {
		if err := json.Unmarshal(body, out); err != nil {
			return fmt.Errorf("decoding JSON reply: %w", err)
		}
		if !bytes.Equal(out.ID, id) {
			return fmt.Errorf("reply id %s, want %s", out.ID, id)
		}
		return nil
	}
	if !strings.HasPrefix(contentType, "text/event-stream") {
		return fmt.Errorf("reply content type %q: %.200s", contentType, body)
	}
	// SSE: events separated by a blank line; data lines joined by '\n'.
	var data []byte
	for {
		var line []byte
		line, body = cutLine(body)
		last := body == nil // no newline: the body's last line
		if len(line) > 0 {
			data = appendData(data, line)
		}
		if (len(line) == 0 || last) && len(data) > 0 {
			*out = callReply{}
			if err := json.Unmarshal(data, out); err != nil {
				return fmt.Errorf("decoding SSE event: %w", err)
			}
			if bytes.Equal(out.ID, id) && (out.Result != nil || out.Error != nil) {
				return nil
			}
			data = data[:0]
		}
		if last {
			break
		}
	}
	return fmt.Errorf("no response with id %s in SSE stream", id)
}

func appendData(data, line []byte) []byte {
	v, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok {
		return data // event:, id:, retry: and comments
	}
	v = bytes.TrimPrefix(v, []byte{' '})
	if len(data) > 0 {
		data = append(data, '\n')
	}
	return append(data, v...)
}

// checkEcho checks that r is a successful echo of want.
func checkEcho(r *callReply, want []byte) error {
	if r.Error != nil {
		return r.Error
	}
	if r.Result == nil {
		return errors.New("reply without result")
	}
	if r.Result.IsError {
		return fmt.Errorf("tool error: %+v", r.Result.Content)
	}
	if len(r.Result.Content) != 1 || r.Result.Content[0].Type != "text" || r.Result.Content[0].Text != string(want) {
		return fmt.Errorf("echo mismatch: got %+v, want text %q", r.Result.Content, want)
	}
	return nil
}

var initializeBody = []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + ProtocolVersion +
	`","capabilities":{},"clientInfo":{"name":"mcpbench","version":"1"}}}`)

var initializedBody = []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

// Initialize runs the MCP handshake on c: initialize, then
// notifications/initialized with the session and version headers.
func Initialize(c *HTTPConn) (Session, error) {
	return initialize(c, initializeBody)
}

func initialize(c *HTTPConn, body []byte) (Session, error) {
	rep, err := c.Post(body, "", "")
	if err != nil {
		return Session{}, err
	}
	if rep.Status != 200 {
		return Session{}, fmt.Errorf("initialize: HTTP %d: %.200s", rep.Status, rep.Body)
	}
	var r callReply
	if err := parseReply(rep.ContentType, rep.Body, []byte("0"), &r); err != nil {
		return Session{}, fmt.Errorf("initialize: %w", err)
	}
	if r.Error != nil {
		return Session{}, fmt.Errorf("initialize: %w", r.Error)
	}
	if r.Result == nil || r.Result.ProtocolVersion == "" {
		return Session{}, errors.New("initialize: no protocolVersion in result")
	}
	s := Session{ID: rep.SessionID, Version: r.Result.ProtocolVersion}
	rep, err = c.Post(initializedBody, s.ID, s.Version)
	if err != nil {
		return Session{}, err
	}
	if rep.Status != 202 && rep.Status != 200 && rep.Status != 204 {
		return Session{}, fmt.Errorf("notifications/initialized: HTTP %d: %.200s", rep.Status, rep.Body)
	}
	return s, nil
}

// appendCall appends a tools/call of echo with the given id and text.
func appendCall(b []byte, id int64, text []byte) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`...)
	b = append(b, text...)
	return append(b, `"}}}`...)
}

// cutLine splits an SSE body at its first newline: the line before it,
// without a trailing '\r', and the rest (nil when there is no newline:
// the line is the whole body).
func cutLine(body []byte) (line, rest []byte) {
	if i := bytes.IndexByte(body, '\n'); i >= 0 {
		line, rest = body[:i], body[i+1:]
	} else {
		line = body
	}
	return bytes.TrimSuffix(line, []byte{'\r'}), rest
}
