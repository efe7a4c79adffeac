package everything_test

// Issue 25 item 1, the client's side: a result or error that repeats a
// member, or whose member names differ from the schema's only by case or
// Unicode folding, fails the call it answers at once, with an error naming
// the member, on every transport; the session goes on.

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
	"github.com/mcpkit/mcpkit/mcpsse"
)

// fakeAnswers are the fake server's answers to tools/call, by tool name:
// the members of the response after its id.
var fakeAnswers = map[string]string{
	"ok":                `"result":{"content":[{"type":"text","text":"ok"}]}`,
	"content-twice":     `"result":{"content":[{"type":"text","text":"a"}],"content":[{"type":"text","text":"b"}]}`,
	"text-twice":        `"result":{"content":[{"type":"text","text":"a","text":"b"}]}`,
	"Content":           `"result":{"Content":[{"type":"text","text":"a"}]}`,
	"IsError":           `"result":{"content":[{"type":"text","text":"a"}],"IsError":true}`,
	"Type":              `"result":{"content":[{"Type":"text","text":"a"}]}`,
	"ſtructuredContent": `"result":{"content":[],"\u017ftructuredContent":{"a":1}}`,
	"code-twice":        `"error":{"code":-32603,"code":-32602,"message":"m"}`,
	"result-twice":      `"result":{"content":[]},"result":{"content":[{"type":"text","text":"b"}]}`,
	"jsonrpc-twice":     `"jsonrpc":"2.0","result":{"content":[]}`,
	"result-and-error":  `"result":{"content":[]},"error":{"code":-32603,"message":"m"}`,
	"code-a-string":     `"error":{"code":"-32603","message":"m"}`,
}

// fakeServer answers one message from the client ("" for none): a
// session-era initialize, a stateless-era server/discover, and tools/call
// by fakeAnswers. modern puts the 2026-07-28 resultType in front of the
// results.
func fakeAnswer(t *testing.T, frame []byte, version string) string {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if err := json.Unmarshal(frame, &m); err != nil {
		t.Errorf("fake server: %s: %v", frame, err)
		return ""
	}
	if m.ID == nil || m.Method == "" {
		// A notification, or a response: the client has no business
		// answering the server's responses.
		if m.ID != nil {
			t.Errorf("fake server: the client sent %s", frame)
		}
		return ""
	}
	head := `{"jsonrpc":"2.0","id":` + string(m.ID) + `,`
	switch m.Method {
	case "initialize":
		return head + `"result":{"protocolVersion":"` + version + `","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}}`
	case "server/discover":
		return head + `"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}}`
	case "tools/call":
		a, ok := fakeAnswers[m.Params.Name]
		if !ok {
			break
		}
		if version == "2026-07-28" {
			a = strings.Replace(a, `"result":{`, `"result":{"resultType":"complete",`, -1)
		}
		return head + a + "}"
	}
	return head + `"error":{"code":-32601,"message":"Method not found"}}`
}

// fakeTransport starts a fake server and returns a client transport to it
// and the client's era.
type fakeTransport struct {
	name  string
	era   mcp.ProtocolEra
	start func(t *testing.T) mcp.Transport
}

var fakeTransports = []fakeTransport{
	{"stdio", mcp.EraSession, func(t *testing.T) mcp.Transport { return fakeStdio(t, "2025-11-25") }},
	{"stdio-2026", mcp.EraStateless, func(t *testing.T) mcp.Transport { return fakeStdio(t, "2026-07-28") }},
	{"streamable-session", mcp.EraSession, func(t *testing.T) mcp.Transport { return fakeStreamable(t, "2025-11-25", false) }},
	{"streamable-session-sse", mcp.EraSession, func(t *testing.T) mcp.Transport { return fakeStreamable(t, "2025-11-25", true) }},
	{"streamable-2026", mcp.EraStateless, func(t *testing.T) mcp.Transport { return fakeStreamable(t, "2026-07-28", false) }},
	{"streamable-2026-sse", mcp.EraStateless, func(t *testing.T) mcp.Transport { return fakeStreamable(t, "2026-07-28", true) }},
	{"sse", mcp.EraSession, fakeSSE},
}

// fakeStdio serves the fake over two pipes.
func fakeStdio(t *testing.T, version string) mcp.Transport {
	toServerR, toServerW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer toClientW.Close()
		r := bufio.NewReader(toServerR)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			if a := fakeAnswer(t, line, version); a != "" {
				if _, err := toClientW.Write([]byte(a + "\n")); err != nil {
					return
				}
			}
		}
	}()
	t.Cleanup(func() {
		toServerR.Close()
		<-done
	})
	return &mcp.StdioTransport{In: toClientR, Out: toServerW}
}

// fakeStreamable serves the fake over Streamable HTTP, answering each
// POST with a JSON body, or with an SSE stream of one event.
func fakeStreamable(t *testing.T, version string, stream bool) mcp.Transport {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			if r.Method == http.MethodDelete {
				w.WriteHeader(http.StatusOK)
				return
			}
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		a := fakeAnswer(t, body, version)
		if a == "" {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		if version != "2026-07-28" {
			w.Header().Set("Mcp-Session-Id", "fake-session")
		}
		if stream {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: message\ndata: "+a+"\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, a)
	}))
	t.Cleanup(func() {
		ts.Close()
		http.DefaultClient.CloseIdleConnections()
	})
	return &mcphttp.ClientTransport{URL: ts.URL, NoStandaloneStream: true}
}

// fakeSSE serves the fake over HTTP+SSE: one stream at a time, each POST
// answered on it.
func fakeSSE(t *testing.T) mcp.Transport {
	events := make(chan string, 16)
	var mu sync.Mutex
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/sse":
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			io.WriteString(w, "event: endpoint\ndata: /messages?sessionId=fake\n\n")
			w.(http.Flusher).Flush()
			for {
				select {
				case ev := <-events:
					mu.Lock()
					io.WriteString(w, "event: message\ndata: "+ev+"\n\n")
					w.(http.Flusher).Flush()
					mu.Unlock()
				case <-r.Context().Done():
					return
				}
			}
		case r.Method == http.MethodPost && r.URL.Path == "/messages":
			body, err := io.ReadAll(r.Body)
			if err != nil {
				return
			}
			w.WriteHeader(http.StatusAccepted)
			if a := fakeAnswer(t, body, "2024-11-05"); a != "" {
				events <- a
			}
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
		http.DefaultClient.CloseIdleConnections()
	})
	return &mcpsse.ClientTransport{URL: ts.URL + "/sse"}
}

// callTool calls name and returns its error, failing the test if no
// answer comes within exactWait (a watchdog: the call itself has no
// deadline, so a dropped response would hang it).
func callTool(t *testing.T, cs *mcp.ClientSession, name string) (*mcp.CallToolResult, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name})
		ch <- answer{res, err}
	}()
	select {
	case a := <-ch:
		return a.res, a.err
	case <-time.After(exactWait):
		cancel()
		<-ch
		t.Fatalf("CallTool(%s) got no answer", name)
	}
	return nil, nil
}

// refused is the error of a call whose response jsonrpc.Decode refused.
func refused(data string) string {
	return `mcp: tools/call: the server's response was refused: Invalid Request: ` + data
}

// undecodable is the error of a call whose result does not decode.
func undecodable(member, field string) string {
	return `mcp: decoding tools/call result: unknown member "` + member + `" (member names are case-sensitive; the field is "` + field + `")`
}

// TestExactNamesClient calls tools whose answers repeat a member or name
// one in another case, on each transport: each call fails at once with
// an error naming the member (the call has no deadline; the test's
// watchdog would fail it), and the next call succeeds.
func TestExactNamesClient(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, leaks) })
	cases := []struct{ tool, err string }{
		{"content-twice", refused(`duplicate member "content" in /result`)},
		{"text-twice", refused(`duplicate member "text" in /result/content/0`)},
		{"code-twice", refused(`duplicate member "code" in /error`)},
		{"result-twice", refused(`duplicate member "result"`)},
		{"jsonrpc-twice", refused(`duplicate member "jsonrpc"`)},
		{"result-and-error", refused(`a response must carry result or error, not both`)},
		{"code-a-string", refused(`error must be an object with an integer code and a string message`)},
		{"Content", undecodable("Content", "content")},
		{"IsError", undecodable("IsError", "isError")},
		{"Type", undecodable("Type", "type")},
		{"ſtructuredContent", undecodable("ſtructuredContent", "structuredContent")},
	}
	for _, tr := range fakeTransports {
		t.Run(tr.name, func(t *testing.T) {
			c := mcp.NewClient(mcp.Implementation{Name: "exact-client", Version: "1"}, &mcp.ClientOptions{ProtocolEra: tr.era})
			cs, err := c.Connect(context.Background(), tr.start(t))
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			t.Cleanup(func() { cs.Close() })
			for _, tc := range cases {
				t.Run(tc.tool, func(t *testing.T) {
					res, err := callTool(t, cs, tc.tool)
					if err == nil || err.Error() != tc.err {
						t.Errorf("CallTool: %+v, %v\nwant error %s", res, err, tc.err)
					}
					// The session goes on.
					res, err = callTool(t, cs, "ok")
					if err != nil || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "ok" {
						t.Errorf("the next call: %+v, %v", res, err)
					}
				})
			}
		})
	}
}
