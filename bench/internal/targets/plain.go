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
		Name      string `json:"name"`
		Arguments EchoIn `json:"arguments"`
	} `json:"params"`
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

// plainInitResult is a canned initialize result, so that a load generator's
// handshake works; it carries no session.
var plainInitResult = json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"bench-plain","version":"1"}}`)

func plainAnswer(req *plainRequest) plainResponse {
	resp := plainResponse{JSONRPC: "2.0", ID: req.ID}
	if req.Method == "initialize" {
		resp.Result = plainInitResult
	} else {
		resp.Result = plainCallResult{Content: []plainText{{Type: "text", Text: req.Params.Arguments.Text}}}
	}
	return resp
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
	resp := plainAnswer(&req)
	if !h.sse {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, "event: message\ndata: ")
	json.NewEncoder(w).Encode(resp) // ends the data line
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
		if err := enc.Encode(plainAnswer(&req)); err != nil {
			return err
		}
	}
	return ctx.Err()
}
