package redisstore_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
	"github.com/mcpkit/mcpkit/redisstore"
	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

// keysMatching returns the keys matching pattern, on every master of a
// Cluster.
func keysMatching(t *testing.T, rdb redis.UniversalClient, pattern string) []string {
	t.Helper()
	ctx := context.Background()
	var (
		mu   sync.Mutex
		keys []string
	)
	each := func(ctx context.Context, c *redis.Client) error {
		it := c.Scan(ctx, 0, pattern, 100).Iterator()
		for it.Next(ctx) {
			mu.Lock()
			keys = append(keys, it.Val())
			mu.Unlock()
		}
		return it.Err()
	}
	var err error
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		err = c.ForEachMaster(ctx, each)
	case *redis.Client:
		err = each(ctx, c)
	default:
		t.Fatalf("keysMatching: a %T", rdb)
	}
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

var endTaskIDRE = regexp.MustCompile(`"taskId":"([A-Z2-7]+)"`)

// Issue 25, item 2, on Redis: a session runs tasks with large arguments
// and results, past its byte bound (so that older ones are evicted), then
// is DELETEd: no key of its tasks is left in Redis, its owner's index and
// counter included. 2026-07-28 tasks (no session, each its own owner)
// evicted under MaxStoredBytes leave no key either.
func TestTasksLeaveNoKeysOnRedis(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	forBackends(t, func(t *testing.T, rdb redis.UniversalClient) {
		prefix := testPrefix(t)
		sessions, err := redisstore.NewSessionStore(rdb, &redisstore.SessionOptions{Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		tasks := newTaskStore(t, rdb, redisstore.TaskOptions{Prefix: prefix})
		const size = 32 << 10
		srv := mcp.NewServer(mcp.Implementation{Name: "tasks", Version: "1"}, &mcp.ServerOptions{
			SessionStore: sessions,
			Tasks:        mcp.TaskOptions{Store: tasks, MaxStoredBytesPerOwner: 4 * size, MaxStoredBytes: 4 * size},
		})
		type in struct {
			Label string `json:"label"`
		}
		if err := mcp.AddTool(srv, &mcp.Tool{Name: "repeat", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
			func(_ context.Context, _ *mcp.Request, in in) (string, error) { return in.Label, nil }); err != nil {
			t.Fatal(err)
		}
		h := mcphttp.NewHandler(srv, &mcphttp.Options{JSONResponse: true})
		hs := httptest.NewServer(h)
		client := &http.Client{Transport: &http.Transport{}}
		defer func() {
			client.CloseIdleConnections()
			_ = h.Close()
			hs.Close()
		}()
		send := func(method, sid, version string, header map[string]string, body string) (int, http.Header, string) {
			t.Helper()
			req, _ := http.NewRequest(method, hs.URL, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Protocol-Version", version)
			if sid != "" {
				req.Header.Set("Mcp-Session-Id", sid)
			}
			for k, v := range header {
				req.Header.Set(k, v)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, resp.Header, string(b)
		}
		label := strings.Repeat("l", size)
		taskKeys := func() []string { return keysMatching(t, rdb, prefix+"t*") }

		// The session era.
		code, hdr, body := send(http.MethodPost, "", "2025-11-25", nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
		sid := hdr.Get("Mcp-Session-Id")
		if code != http.StatusOK || sid == "" {
			t.Fatalf("initialize: %d %s", code, body)
		}
		send(http.MethodPost, sid, "2025-11-25", nil, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		for i := range 10 {
			_, _, body := send(http.MethodPost, sid, "2025-11-25", nil, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"repeat","arguments":{"label":%q},"task":{"ttl":86400000}}}`, i+2, label))
			m := endTaskIDRE.FindStringSubmatch(body)
			if m == nil {
				t.Fatalf("tools/call as a task: %.300s", body)
			}
			if _, _, body := send(http.MethodPost, sid, "2025-11-25", nil, fmt.Sprintf(`{"jsonrpc":"2.0","id":"r%d","method":"tasks/result","params":{"taskId":%q}}`, i, m[1])); !strings.Contains(body, label) {
				t.Fatalf("tasks/result: %.300s", body)
			}
		}
		if keys := taskKeys(); len(keys) < 3 || len(keys) > 5 {
			t.Errorf("before the DELETE, the session's tasks have keys %q; want 1 to 3 tasks, an index and a counter", keys)
		}
		if code, _, body := send(http.MethodDelete, sid, "2025-11-25", nil, ""); code != http.StatusOK && code != http.StatusNoContent {
			t.Fatalf("DELETE: %d %s", code, body)
		}
		if keys := taskKeys(); len(keys) != 0 {
			t.Errorf("after the DELETE, keys of the session's tasks are left: %q", keys)
		}

		// The stateless era: each task is its own owner.
		caps := `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`
		meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":` + caps + `}`
		for i := range 10 {
			code, _, body := send(http.MethodPost, "", "2026-07-28", map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "repeat"},
				fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{%s,"name":"repeat","arguments":{"label":%q}}}`, i+1, meta, label))
			m := endTaskIDRE.FindStringSubmatch(body)
			if code != http.StatusOK || m == nil {
				t.Fatalf("a 2026-07-28 task: %d %.300s", code, body)
			}
			for {
				_, _, got := send(http.MethodPost, "", "2026-07-28", map[string]string{"Mcp-Method": "tasks/get"},
					fmt.Sprintf(`{"jsonrpc":"2.0","id":"g%d","method":"tasks/get","params":{%s,"taskId":%q}}`, i, meta, m[1]))
				if strings.Contains(got, `"status":"completed"`) {
					break
				}
				if !strings.Contains(got, `"status":"working"`) {
					t.Fatalf("tasks/get: %.300s", got)
				}
			}
		}
		// Each kept task has its key, its index and its counter; at most
		// 3 fit in 4 * size with their status and result.
		keys := taskKeys()
		var kept int
		for _, k := range keys {
			if strings.HasPrefix(k, prefix+"t:") {
				kept++
			}
		}
		if kept < 1 || kept > 3 || len(keys) != 3*kept {
			t.Errorf("after 10 tasks within a bound of 3, keys %q; want 3 for each task kept", keys)
		}
	})
}
