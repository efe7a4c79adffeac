package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"

	"github.com/mcpkit/mcpkit/bench/internal/targets"
)

// Era is the protocol era a load speaks.
type Era int

const (
	// SessionEra: the initialize handshake, then Mcp-Session-Id and
	// MCP-Protocol-Version 2025-11-25 on every request.
	SessionEra Era = iota
	// StatelessEra: 2026-07-28, no handshake and no session; every
	// request carries the version, client capabilities and client info in
	// params._meta, and the headers MCP-Protocol-Version, Mcp-Method and
	// (tools/call, resources/read, prompts/get) Mcp-Name that mirror it
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http).
	StatelessEra
)

func (e Era) String() string {
	if e == StatelessEra {
		return "2026"
	}
	return "sess"
}

// ModernVersion is the protocol version of the stateless era.
const ModernVersion = "2026-07-28"

// modernMeta is the _meta member a 2026-07-28 request carries.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + ModernVersion +
	`","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcpbench","version":"1"}}`

// An Op is one kind of request: how to write it and how to check its
// result.
type Op struct {
	Name   string
	Method string
	// Subject is the Mcp-Name header's value (the tool, resource or
	// prompt the request names); "" for none.
	Subject string
	// Params appends the members of params (without braces and _meta)
	// for request seq; seq is unique within a run.
	Params func(b []byte, seq int64) []byte
	// Check verifies the result object of request seq. An OpLoad calls
	// it on a connection's first replies only (and on any reply that
	// differs from them beyond the sequence number): see verifier.
	Check func(result []byte, seq int64) error
	// Classes: the replies to sequence numbers of different seq % Classes
	// differ in more than the digits of seq (0 and 1: one class), so
	// each class has a reference of its own.
	Classes int
}

// appendRequest appends the whole JSON-RPC request of op.
func appendRequest(b []byte, op *Op, era Era, id, seq int64) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":"`...)
	b = append(b, op.Method...)
	b = append(b, `","params":{`...)
	n := len(b)
	if era == StatelessEra {
		b = append(b, modernMeta...)
	}
	if op.Params != nil {
		if len(b) > n {
			b = append(b, ',')
		}
		b = op.Params(b, seq)
	}
	return append(b, "}}"...)
}

// appendHeaders appends the header lines the stateless era requires
// beside MCP-Protocol-Version.
func appendHeaders(b []byte, op *Op) []byte {
	b = append(b, "Mcp-Method: "...)
	b = append(b, op.Method...)
	b = append(b, "\r\n"...)
	if op.Subject != "" {
		b = append(b, "Mcp-Name: "...)
		b = append(b, op.Subject...)
		b = append(b, "\r\n"...)
	}
	return b
}

// rawReply is any JSON-RPC response, its result kept raw.
type rawReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

func echoText(b []byte, seq int64) []byte { return strconv.AppendInt(append(b, "m-"...), seq, 10) }

// EchoOp is tools/call of echo.
var EchoOp = &Op{Name: "echo", Method: "tools/call", Subject: "echo",
	Params: func(b []byte, seq int64) []byte {
		b = append(b, `"name":"echo","arguments":{"text":"`...)
		b = echoText(b, seq)
		return append(b, `"}`...)
	},
	Check: func(result []byte, seq int64) error {
		var r struct {
			Content []textContent `json:"content"`
			IsError bool          `json:"isError"`
		}
		if err := json.Unmarshal(result, &r); err != nil {
			return err
		}
		want := string(echoText(nil, seq))
		if r.IsError || len(r.Content) != 1 || r.Content[0].Type != "text" || r.Content[0].Text != want {
			return fmt.Errorf("echo mismatch: got %.200s, want text %q", result, want)
		}
		return nil
	}}

// NestedOp is tools/call of the nested tool: ≈2 KB of arguments, ≈8 KB
// of structured content (and the same JSON as text content, as the
// spec recommends for clients without structured output).
var NestedOp = &Op{Name: "nested", Method: "tools/call", Subject: targets.NestedTool,
	// The order's rush flag is seq%2 == 0.
	Classes: 2,
	Params: func(b []byte, seq int64) []byte {
		b = append(b, `"name":"`+targets.NestedTool+`","arguments":`...)
		return appendNestedArgs(b, seq)
	},
	Check: func(result []byte, seq int64) error {
		var r struct {
			Content           []textContent      `json:"content"`
			StructuredContent *targets.NestedOut `json:"structuredContent"`
			IsError           bool               `json:"isError"`
		}
		if err := json.Unmarshal(result, &r); err != nil {
			return err
		}
		want := targets.Quoted(targets.NestedArgs(seq))
		if r.IsError || r.StructuredContent == nil || !reflect.DeepEqual(*r.StructuredContent, want) {
			return fmt.Errorf("structuredContent mismatch: %.300s", result)
		}
		var text targets.NestedOut
		if len(r.Content) != 1 || r.Content[0].Type != "text" || json.Unmarshal([]byte(r.Content[0].Text), &text) != nil || !reflect.DeepEqual(text, want) {
			return fmt.Errorf("text content is not the structured content: %.300s", result)
		}
		return nil
	}}

// nestedArgs is json.Marshal(targets.NestedArgs(seq)) for an even and an
// odd seq, cut around the digits of seq in the order id: marshalling the
// order per request cost the load generator as much as a fast server's
// answer.
var nestedArgs = func() (parts [2][2][]byte) {
	for seq := range int64(2) {
		b, err := json.Marshal(targets.NestedArgs(seq))
		if err != nil {
			panic(err)
		}
		mark := []byte(`"order-` + strconv.FormatInt(seq, 10) + `"`)
		if bytes.Count(b, mark) != 1 {
			panic("nested arguments: the order id is not where it was")
		}
		i := bytes.Index(b, mark) + len(mark) - 2
		parts[seq] = [2][]byte{b[:i], b[i+1:]}
	}
	return parts
}()

// appendNestedArgs appends json.Marshal(targets.NestedArgs(seq)).
func appendNestedArgs(b []byte, seq int64) []byte {
	p := &nestedArgs[seq&1]
	b = append(b, p[0]...)
	b = strconv.AppendInt(b, seq, 10)
	return append(b, p[1]...)
}

type contentsResult struct {
	Contents []struct {
		URI      string `json:"uri"`
		MIMEType string `json:"mimeType"`
		Text     string `json:"text"`
		Blob     string `json:"blob"`
	} `json:"contents"`
}

func readOp(name, uri string, check func(text, blob string) bool) *Op {
	return &Op{Name: name, Method: "resources/read", Subject: uri,
		Params: func(b []byte, _ int64) []byte { return append(b, `"uri":"`+uri+`"`...) },
		Check: func(result []byte, _ int64) error {
			var r contentsResult
			if err := json.Unmarshal(result, &r); err != nil {
				return err
			}
			if len(r.Contents) != 1 || r.Contents[0].URI != uri || !check(r.Contents[0].Text, r.Contents[0].Blob) {
				return fmt.Errorf("resources/read %s: wrong contents (%d bytes)", uri, len(result))
			}
			return nil
		}}
}

// ReadTextOp reads the 1 MB text resource; ReadBlobOp the 1 MB blob.
var (
	ReadTextOp = readOp("read-text", targets.TextURI, func(text, blob string) bool { return blob == "" && text == targets.Text })
	ReadBlobOp = readOp("read-blob", targets.BlobURI, func(text, blob string) bool { return text == "" && blob == targets.BlobBase64 })
)

// ListToolsOp lists the tools: echo, the nested tool and the 500 more,
// in one page.
var ListToolsOp = &Op{Name: "tools/list", Method: "tools/list",
	Check: func(result []byte, _ int64) error {
		var r struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(result, &r); err != nil {
			return err
		}
		if r.NextCursor != "" || len(r.Tools) != targets.ManyTools+2 {
			return fmt.Errorf("tools/list: %d tools, nextCursor %q; want %d in one page", len(r.Tools), r.NextCursor, targets.ManyTools+2)
		}
		seen := 0
		for _, t := range r.Tools {
			if len(t.InputSchema) == 0 || t.InputSchema[0] != '{' {
				return fmt.Errorf("tools/list: tool %s without an input schema", t.Name)
			}
			if len(t.Name) == 8 && t.Name[:5] == "tool_" {
				seen++
			}
		}
		if seen != targets.ManyTools {
			return fmt.Errorf("tools/list: %d of the %d tools", seen, targets.ManyTools)
		}
		return nil
	}}

// reviewCode is the prompt's code argument for request seq.
func reviewCode(seq int64) string {
	return "func add(a, b int) int {\n\t// \"sum\" of a and b — ünïcode\n\treturn a + b // request " + strconv.FormatInt(seq, 10) + "\n}"
}

// PromptOp gets the prompt with its two arguments.
var PromptOp = &Op{Name: "prompt", Method: "prompts/get", Subject: targets.ReviewName,
	Params: func(b []byte, seq int64) []byte {
		code, _ := json.Marshal(reviewCode(seq))
		b = append(b, `"name":"`+targets.ReviewName+`","arguments":{"code":`...)
		b = append(b, code...)
		return append(b, `,"language":"go"}`...)
	},
	Check: func(result []byte, seq int64) error {
		var r struct {
			Messages []struct {
				Role    string      `json:"role"`
				Content textContent `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(result, &r); err != nil {
			return err
		}
		want := targets.ReviewText(reviewCode(seq), "go")
		if len(r.Messages) != 1 || r.Messages[0].Role != "user" || r.Messages[0].Content.Type != "text" || r.Messages[0].Content.Text != want {
			return fmt.Errorf("prompts/get: wrong messages: %.300s", result)
		}
		return nil
	}}

// parseRaw finds the response with the given id in an HTTP reply body
// (one JSON object or an SSE stream), as parseReply does.
func parseRaw(contentType string, body []byte, id []byte, out *rawReply) error {
	if bytes.HasPrefix([]byte(contentType), []byte("application/json")) {
		if err := json.Unmarshal(body, out); err != nil {
			return fmt.Errorf("decoding JSON reply: %w", err)
		}
		if !bytes.Equal(out.ID, id) {
			return fmt.Errorf("reply id %s, want %s", out.ID, id)
		}
		return nil
	}
	if !bytes.HasPrefix([]byte(contentType), []byte("text/event-stream")) {
		return fmt.Errorf("reply content type %q: %.200s", contentType, body)
	}
	var data []byte
	for len(body) > 0 {
		var line []byte
		line, body = cutLine(body)
		if len(line) > 0 {
			data = appendData(data, line)
		}
		if (len(line) == 0 || len(body) == 0) && len(data) > 0 {
			*out = rawReply{}
			if err := json.Unmarshal(data, out); err != nil {
				return fmt.Errorf("decoding SSE event: %w", err)
			}
			if bytes.Equal(out.ID, id) && (out.Result != nil || out.Error != nil) {
				return nil
			}
			data = data[:0]
		}
	}
	return fmt.Errorf("no response with id %s in SSE stream", id)
}

// checkRaw checks a response's result with op.
func checkRaw(r *rawReply, op *Op, seq int64) error {
	if r.Error != nil {
		return r.Error
	}
	if r.Result == nil {
		return errors.New("reply without result")
	}
	return op.Check(r.Result, seq)
}
