package everything_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/everything"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// Issue 25, item 2: finished task results outlived their session. The
// report's rounds, smaller: a round is two sessions (or, in the stateless
// era, two clients) each running 40 slow_compute tasks with a large label
// (the result repeats it), waiting for each, then ending. The live heap
// must not grow after round 1: before the fix each round kept every
// result reachable (about 10 MB a round here).

// heapRoundLabel is the label each task carries, and its result repeats.
const heapRoundLabel = 128 << 10

// heapGrowthBound is how much the live heap may grow from round 1 to the
// last: far less than one round's results.
const heapGrowthBound = 4 << 20

// liveHeap returns the bytes of the live heap after a collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

var heapTaskIDRE = regexp.MustCompile(`"taskId":"([A-Z2-7]+)"`)

// heapPost posts body as version, with the session id sid if not "", and
// returns the response body.
func heapPost(t *testing.T, url, sid, version string, header map[string]string, body string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", version)
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("HTTP %d: %.300s", resp.StatusCode, out)
	}
	return string(out)
}

// heapServe serves the reference server with opts over Streamable HTTP,
// until the test ends.
func heapServe(t *testing.T, opts *mcp.ServerOptions) (*mcp.Server, string) {
	server := everything.NewServer(&everything.Options{ServerOptions: opts})
	h := mcphttp.NewHandler(server, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		_ = h.Shutdown(context.Background())
		ts.Close()
	})
	return server, ts.URL
}

// heapRounds runs round (which must end every task it starts) rounds
// times, and checks the live heap after round 1 and after the last.
func heapRounds(t *testing.T, server *mcp.Server, rounds int, round func()) {
	t.Helper()
	var first uint64
	for i := 1; i <= rounds; i++ {
		round()
		heap := liveHeap()
		t.Logf("round %d: live heap %d MiB, %d tasks in the store", i, heap>>20, server.TaskStore().(interface{ Len() int }).Len())
		if i == 1 {
			first = heap
		} else if heap > first+heapGrowthBound {
			t.Errorf("round %d: the live heap grew from %d to %d bytes since round 1, over %d", i, first, heap, heapGrowthBound)
		}
	}
}

// TestTaskSessionsOverHTTPFreeTheirResults: 2025-11-25 sessions, ended
// by DELETE. Their tasks leave the store.
func TestTaskSessionsOverHTTPFreeTheirResults(t *testing.T) {
	server, url := heapServe(t, nil)
	addr := strings.TrimPrefix(url, "http://")
	label := strings.Repeat("x", heapRoundLabel)
	heapRounds(t, server, 3, func() {
		for range 2 {
			sid := rawSession(t, addr, "2025-11-25")
			for i := range 40 {
				out := heapPost(t, url, sid, "2025-11-25", nil, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"slow_compute","arguments":{"seconds":0,"label":%q},"task":{"ttl":86400000}}}`, i+2, label))
				m := heapTaskIDRE.FindStringSubmatch(out)
				if m == nil {
					t.Fatalf("no task: %.300s", out)
				}
				if res := heapPost(t, url, sid, "2025-11-25", nil, fmt.Sprintf(`{"jsonrpc":"2.0","id":"r%d","method":"tasks/result","params":{"taskId":%q}}`, i, m[1])); !strings.Contains(res, "Computed x") {
					t.Fatalf("tasks/result: %.300s", res)
				}
			}
			req, err := http.NewRequest(http.MethodDelete, url, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent {
				t.Fatalf("DELETE: HTTP %d", resp.StatusCode)
			}
		}
		if n := server.TaskStore().(interface{ Len() int }).Len(); n != 0 {
			t.Errorf("the store holds %d tasks after the sessions ended, want 0", n)
		}
	})
}

// TestTasksExtOverHTTPStayBounded: 2026-07-28 tasks have no session to
// end with; they are kept until their ttl within MaxStoredBytes (2 MiB
// here), and what is evicted to stay within it is freed.
func TestTasksExtOverHTTPStayBounded(t *testing.T) {
	const bound = 2 << 20
	server, url := heapServe(t, &mcp.ServerOptions{Tasks: mcp.TaskOptions{MaxStoredBytes: bound}})
	label := strings.Repeat("x", heapRoundLabel)
	caps := `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	call := map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "slow_compute"}
	get := map[string]string{"Mcp-Method": "tasks/get"}
	heapRounds(t, server, 3, func() {
		for i := range 80 {
			params := withMeta(fmt.Sprintf(`{"name":"slow_compute","arguments":{"seconds":0,"label":%q}}`, label), caps)
			out := heapPost(t, url, "", "2026-07-28", call, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, i+1, params))
			m := heapTaskIDRE.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("no task: %.300s", out)
			}
			for {
				st := heapPost(t, url, "", "2026-07-28", get, fmt.Sprintf(`{"jsonrpc":"2.0","id":"g%d","method":"tasks/get","params":%s}`, i, withMeta(`{"taskId":"`+m[1]+`"}`, caps)))
				if strings.Contains(st, `"status":"completed"`) {
					break
				}
				if !strings.Contains(st, `"status":"working"`) {
					t.Fatalf("tasks/get: %.300s", st)
				}
			}
		}
		if n := server.TaskStore().(interface{ Len() int }).Len(); n*heapRoundLabel > bound {
			t.Errorf("the store holds %d tasks of over %d bytes each, over the bound %d", n, heapRoundLabel, bound)
		}
	})
}
