package mcpsse

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
)

// FuzzHandler sends random bodies, headers and session ids to a live
// handler whose sessions have open streams: whatever arrives, nothing
// panics, every answer is 202 with no body or a refusal with a JSON-RPC
// error body, and the registry stays within its cap.
func FuzzHandler(f *testing.F) {
	seeds := []string{
		initBody, initialized, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, `[{"jsonrpc":"2.0","id":3,"method":"ping"}]`,
		`[]`, `[1,2]`, `{"jsonrpc":`, `{"jsonrpc":"2.0","id":1,"result":{}}`, `null`, `"x"`, `{}`, "",
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}`,
		`{"jsonrpc":"2.0","id":5,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
	}
	for i, s := range seeds {
		f.Add(uint8(i), uint8(i*7), "", []byte(s))
	}
	const maxSessions = 4
	s := mcp.NewServer(mcp.Implementation{Name: "fuzz", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo"}, func(_ context.Context, _ *mcp.Request, v struct {
		Text string `json:"text"`
	}) (string, error) {
		return v.Text, nil
	})
	h := NewHandler(s, &Options{MaxSessions: maxSessions, KeepAlive: -1, MaxBodyBytes: 1 << 12, IdleTimeout: -1})
	srv := httptest.NewServer(h)
	ctx, cancel := context.WithCancel(context.Background())
	f.Cleanup(func() {
		cancel()
		h.Close()
		srv.Close()
	})
	// Two live sessions whose streams are read and discarded.
	var live []string
	for range 2 {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/sse", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			f.Fatal(err)
		}
		r := bufio.NewReader(resp.Body)
		r.ReadString('\n')
		line, _ := r.ReadString('\n')
		live = append(live, strings.TrimSpace(strings.TrimPrefix(line, "data: ")))
		go func() {
			io.Copy(io.Discard, r)
			resp.Body.Close()
		}()
	}
	methods := []string{http.MethodPost, http.MethodPost, http.MethodPost, http.MethodGet, http.MethodDelete}
	types := []string{"application/json", "application/json; charset=utf-8", "", "text/plain"}

	f.Fuzz(func(t *testing.T, sel, sess uint8, value string, body []byte) {
		method := methods[int(sel)%len(methods)]
		target := "http://127.0.0.1/sse"
		switch n := int(sess) % 4; {
		case n < len(live):
			target = "http://127.0.0.1" + live[n]
		case n == 2:
			target += "?sessionId=" + url.QueryEscape(value)
		}
		// A POST whose session does not take it in time is given up, as
		// its client would; the handler then answers nothing.
		rctx, stop := context.WithTimeout(context.Background(), 5*time.Second)
		defer stop()
		if method == http.MethodGet {
			// A stream lasts until its request ends: this one ends at once,
			// after the endpoint event.
			c, stop := context.WithCancel(rctx)
			stop()
			rctx = c
		}
		req := httptest.NewRequestWithContext(rctx, method, target, strings.NewReader(string(body)))
		req.Header.Set("Content-Type", types[int(sel/8)%len(types)])
		if sess&16 != 0 {
			req.Header["Origin"] = []string{value}
		}
		if sess&32 != 0 {
			req.Host = value
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		switch code := w.Code; {
		case rctx.Err() != nil && method == http.MethodPost && code == http.StatusOK && w.Body.Len() == 0:
		case code == http.StatusAccepted:
			if w.Body.Len() != 0 {
				t.Fatalf("202 with a body %q", w.Body)
			}
		case code == http.StatusOK && method == http.MethodGet:
			if !strings.HasPrefix(w.Body.String(), "event: endpoint\ndata: /sse?sessionId=") {
				t.Fatalf("stream %q", w.Body)
			}
		case code >= 400:
			var resp struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *struct {
					Code    int64  `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil || resp.JSONRPC != "2.0" || resp.Error == nil || resp.Error.Message == "" || string(resp.ID) != "null" {
				t.Fatalf("%s: %d with body %q", method, code, w.Body)
			}
			if code >= 500 && code != http.StatusServiceUnavailable {
				t.Fatalf("%s: %d %q", method, code, w.Body)
			}
		default:
			t.Fatalf("%s: %d %q", method, code, w.Body)
		}
		if n := h.SessionCount(); n > maxSessions {
			t.Fatalf("%d sessions, cap %d", n, maxSessions)
		}
	})
}
