package targets

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
)

// The plain target decodes a JSON-RPC request and encodes a response of the
// same shape as an MCP server's, with no MCP logic: no sessions, no
// lifecycle, no method table, no schema. It is the practical limit of a Go
// net/http server doing this work with encoding/json.
func init() {
	register(&Target{
		Name:        "plain",
		HasJSONMode: true,
		HTTP: func(mode HTTPMode) (http.Handler, error) {
			return plainHandler{sse: mode == SSE}, nil
		},
		Stdio: plainStdio,
	})
}

type plainRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  struct {
		Name      string    `json:"name"`
		URI       string    `json:"uri"`
		Arguments plainArgs `json:"arguments"`
	} `json:"params"`
}

// plainArgs holds the arguments of every tool and prompt served, so that
// one pass of encoding/json decodes any request: echo's text, the nested
// tool's order, the prompt's code and language.
type plainArgs struct {
	Text     string `json:"text"`
	Order    *Order `json:"order"`
	Code     string `json:"code"`
	Language string `json:"language"`
}

type plainResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result"`
}

type plainText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type plainCallResult struct {
	Content []plainText `json:"content"`
}

type plainStructuredResult struct {
	Content           []plainText     `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
}

type plainContents struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType"`
	Text     string `json:"text,omitempty"`
	Blob     []byte `json:"blob,omitempty"`
}

type plainReadResult struct {
	Contents []plainContents `json:"contents"`
}

type plainMessage struct {
	Role    string    `json:"role"`
	Content plainText `json:"content"`
}

type plainPromptResult struct {
	Description string         `json:"description"`
	Messages    []plainMessage `json:"messages"`
}

type plainTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// plainToolsList is the tools/list result, encoded once: the plain
// handler writes these bytes, which is what "serving tools/list from a
// cached encoding" costs at best.
var plainToolsList = func() []byte {
	tools := []plainTool{{Name: "echo", Description: "Echoes its text.", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)},
		{Name: NestedTool, Description: "Prices an order in every delivery variant.", InputSchema: NestedSchema}}
	for i := range ManyTools {
		tools = append(tools, plainTool{Name: ToolName(i), Description: ToolDescription(i), InputSchema: ToolSchema(i)})
	}
	b, err := json.Marshal(struct {
		Tools []plainTool `json:"tools"`
	}{tools})
	if err != nil {
		panic(err)
	}
	return b
}()

// plainInitResult is a canned initialize result, so that a load generator's
// handshake works; it carries no session.
var plainInitResult = json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"bench-plain","version":"1"}}`)

// plainAnswer returns the response to req, or, for tools/list, nil and
// the cached result to write.
func plainAnswer(req *plainRequest) (plainResponse, []byte) {
	resp := plainResponse{JSONRPC: "2.0", ID: req.ID}
	p := &req.Params
	switch req.Method {
	case "initialize":
		resp.Result = plainInitResult
	case "tools/list":
		return resp, plainToolsList
	case "resources/read":
		c := plainContents{URI: p.URI, MIMEType: "text/plain"}
		switch p.URI {
		case BlobURI:
			c.MIMEType, c.Blob = "application/octet-stream", Blob
		case TextURI:
			c.Text = Text
		default:
			c.Text = "changed"
		}
		resp.Result = plainReadResult{Contents: []plainContents{c}}
	case "prompts/get":
		resp.Result = plainPromptResult{Description: ReviewDescription, Messages: []plainMessage{
			{Role: "user", Content: plainText{Type: "text", Text: ReviewText(p.Arguments.Code, p.Arguments.Language)}}}}
	default:
		if p.Name == NestedTool && p.Arguments.Order != nil {
			raw, err := json.Marshal(Quoted(NestedIn{Order: *p.Arguments.Order}))
			if err != nil {
				panic(err)
			}
			resp.Result = plainStructuredResult{Content: []plainText{{Type: "text", Text: string(raw)}}, StructuredContent: raw}
		} else {
			resp.Result = plainCallResult{Content: []plainText{{Type: "text", Text: p.Arguments.Text}}}
		}
	}
	return resp, nil
}

// writeCached writes a response whose result is the cached bytes result.
func writeCached(w io.Writer, id json.RawMessage, result []byte) error {
	b := make([]byte, 0, len(result)+64)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	b = append(b, "}\n"...)
	_, err := w.Write(b)
	return err
}

type plainHandler struct{ sse bool }

func (h plainHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var req plainRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	if len(req.ID) == 0 { // a notification
		w.WriteHeader(http.StatusAccepted)
		return
	}
	resp, cached := plainAnswer(&req)
	if !h.sse {
		w.Header().Set("Content-Type", "application/json")
		if cached != nil {
			writeCached(w, resp.ID, cached)
			return
		}
		json.NewEncoder(w).Encode(resp)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, "event: message\ndata: ")
	if cached != nil {
		writeCached(w, resp.ID, cached)
	} else {
		json.NewEncoder(w).Encode(resp) // ends the data line
	}
	io.WriteString(w, "\n")
}

func plainStdio(ctx context.Context) error {
	dec := json.NewDecoder(os.Stdin)
	enc := json.NewEncoder(os.Stdout)
	for ctx.Err() == nil {
		var req plainRequest
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if len(req.ID) == 0 {
			continue
		}
		resp, cached := plainAnswer(&req)
		if cached != nil {
			if err := writeCached(os.Stdout, resp.ID, cached); err != nil {
				return err
			}
			continue
		}
		if err := enc.Encode(resp); err != nil {
			return err
		}
	}
	return ctx.Err()
}
