package mcphttp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// A result of largeResult bytes or more is written from its own buffer
// between the envelope's head and tail; the reply is byte for byte the
// one a copy into a frame gives, in JSON and SSE replies, in both eras.
func TestLargeResultWrittenInPlace(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	text := strings.Repeat("line \"one\" <two> & three\n", 4000) // > largeResult once escaped
	for _, c := range []struct {
		name      string
		json      bool
		stateless bool
		size      int
	}{
		{"sse small", false, false, 100},
		{"sse large", false, false, len(text)},
		{"json small", true, false, 100},
		{"json large", true, false, len(text)},
		{"2026 json large", true, true, len(text)},
		{"2026 sse large", false, true, len(text)},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"}, nil)
			body := text[:c.size]
			must(t, s.AddResource(&mcp.Resource{URI: "file:///big", Name: "big", MIMEType: "text/plain"},
				func(context.Context, *mcp.Request, *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
					return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///big", MIMEType: "text/plain", Text: body}}}, nil
				}))
			h := NewHandler(s, &Options{JSONResponse: c.json})
			srv := httptest.NewServer(h)
			f := &fixture{t: t, h: h, srv: srv, url: srv.URL + "/mcp", clock: newFakeClock()}
			defer func() {
				h.Close()
				srv.Close()
				srv.Client().CloseIdleConnections()
			}()
			var r *reply
			req := `{"jsonrpc":"2.0","id":"r-7","method":"resources/read","params":{"uri":"file:///big"}}`
			if c.stateless {
				req = `{"jsonrpc":"2.0","id":"r-7","method":"resources/read","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}},"uri":"file:///big"}}`
				r = f.do(http.MethodPost, hdrs{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "resources/read", "Mcp-Name": "file:///big"}, req)
			} else {
				r = f.post(f.initialize("2025-11-25"), req)
			}
			if r.status != http.StatusOK {
				t.Fatalf("status %d: %.300s", r.status, r.body)
			}
			res, err := json.Marshal(&mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///big", MIMEType: "text/plain", Text: body}}})
			must(t, err)
			if c.stateless {
				// The stateless era's stamp comes first.
				res = append([]byte(`{"resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}},`), res[1:]...)
			}
			want, err := jsonrpc.Encode(&jsonrpc.Response{ID: jsonrpc.StringID("r-7"), Result: res})
			must(t, err)
			var got string
			if c.json {
				got = r.body
				if cl := r.header.Get("Content-Length"); c.size > 100 && cl != strconv.Itoa(len(want)) {
					t.Errorf("Content-Length %q, want %d", cl, len(want))
				}
			} else {
				if len(r.events) == 0 {
					t.Fatalf("no events in %.300s", r.body)
				}
				got = r.events[len(r.events)-1].data
			}
			if got != string(want) {
				t.Fatalf("reply\n%.200s...%s\nwant\n%.200s...%s", got, got[max(0, len(got)-40):], want, want[max(0, len(want)-40):])
			}
		})
	}
}
