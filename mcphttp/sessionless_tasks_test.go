package mcphttp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// sessionlessTasksServer serves, in stateless mode with JSON responses, a
// server with an optional task tool "quick" and a required one "must".
func sessionlessTasksServer(t *testing.T, topts mcp.TaskOptions) (*mcp.Server, func(body string) string) {
	t.Helper()
	s := mcp.NewServer(mcp.Implementation{Name: "stateless-tasks", Version: "1"}, &mcp.ServerOptions{Tasks: topts})
	text := func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	}
	for name, support := range map[string]string{"quick": mcp.TaskSupportOptional, "must": mcp.TaskSupportRequired} {
		if err := s.AddTool(&mcp.Tool{Name: name, Description: name, Execution: &mcp.ToolExecution{TaskSupport: support}}, text); err != nil {
			t.Fatal(err)
		}
	}
	h := mcphttp.NewHandler(s, &mcphttp.Options{Stateless: true, JSONResponse: true})
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		h.Close()
	})
	post := func(body string) string {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		req.Header.Set("X-User", "alice")
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	return s, post
}

const sessionlessInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`

// TestSessionlessOffersNoSessionTasks: in stateless mode every POST has
// a session of its own, so a session-owned task could never be read while
// its result held memory. The server does not declare tasks, runs an
// optional tool's task-augmented call normally, refuses a required one,
// and keeps nothing.
func TestSessionlessOffersNoSessionTasks(t *testing.T) {
	s, post := sessionlessTasksServer(t, mcp.TaskOptions{})
	if got := post(sessionlessInit); strings.Contains(got, `"tasks"`) || !strings.Contains(got, `"capabilities":{"tools":{"listChanged":true}}`) {
		t.Errorf("initialize = %s, want capabilities without tasks", got)
	}
	want := `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"done"}]}}`
	if got := post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"quick","arguments":{},"task":{"ttl":60000}}}`); got != want {
		t.Errorf("task-augmented tools/call =\n\t%s\nwant\n\t%s", got, want)
	}
	want = `{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found","data":"Tool must must be called as a task, and this server keeps no tasks here: every request has a session of its own (stateless mode) and tasks belong to their session"}}`
	if got := post(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"must","arguments":{},"task":{}}}`); got != want {
		t.Errorf("tools/call of a required tool =\n\t%s\nwant\n\t%s", got, want)
	}
	if n := s.TaskStore().(interface{ Len() int }).Len(); n != 0 {
		t.Errorf("the store holds %d tasks, want 0", n)
	}
}

// TestSessionlessTasksWithOwner: with TaskOptions.Owner tasks outlive
// sessions, so stateless mode declares and serves them.
func TestSessionlessTasksWithOwner(t *testing.T) {
	_, post := sessionlessTasksServer(t, mcp.TaskOptions{Owner: func(r *mcp.Request) string { return r.Extra.Header.Get("X-User") }})
	if got := post(sessionlessInit); !strings.Contains(got, `"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`) {
		t.Errorf("initialize = %s, want the tasks capability", got)
	}
	created := post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"must","arguments":{},"task":{}}}`)
	m := regexp.MustCompile(`"taskId":"([A-Z2-7]+)"`).FindStringSubmatch(created)
	if m == nil {
		t.Fatalf("tools/call as a task = %s", created)
	}
	want := `{"jsonrpc":"2.0","id":3,"result":{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"` + m[1] + `"}},"content":[{"type":"text","text":"done"}]}}`
	if got := post(`{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":"` + m[1] + `"}}`); got != want {
		t.Errorf("tasks/result in a later POST =\n\t%s\nwant\n\t%s", got, want)
	}
}
