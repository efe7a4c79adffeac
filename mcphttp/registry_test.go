package mcphttp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
)

// ourGoroutines counts the goroutines running mcpkit code, other than the
// tests' own: unlike runtime.NumGoroutine it ignores what earlier tests
// leave winding down.
func ourGoroutines() int {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "github.com/mcpkit/mcpkit/") && !strings.Contains(g, "mcphttp.Test") && !strings.Contains(g, "mcphttp.Benchmark") {
			count++
		}
	}
	return count
}

// serveDirect serves one request on h without a network, for tests inside
// a synctest bubble and for benchmarks.
func serveDirect(h http.Handler, method, sid, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, "http://127.0.0.1/mcp", strings.NewReader(body))
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func initDirect(t testing.TB, h http.Handler) string {
	w := serveDirect(h, http.MethodPost, "", initBody)
	sid := w.Header().Get("Mcp-Session-Id")
	if w.Code != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", w.Code, w.Body)
	}
	return sid
}

func echoServer() *mcp.Server {
	s := mcp.NewServer(mcp.Implementation{Name: "echo", Version: "1"}, nil)
	type in struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo"}, func(_ context.Context, _ *mcp.Request, v in) (string, error) {
		return v.Text, nil
	})
	return s
}

// Ten thousand sessions on one handler: the cap answers 503, expired
// sessions are reclaimed at the cap, and idle sessions hold no goroutine.
// Time is synctest's fake clock.
func TestTenThousandSessions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := NewHandler(echoServer(), &Options{ReapInterval: -1})
		defer h.Close()
		g0 := ourGoroutines()
		first := make([]string, 0, 5000)
		for range 5000 {
			first = append(first, initDirect(t, h))
		}
		time.Sleep(20 * time.Minute)
		for range 5000 {
			initDirect(t, h)
		}
		if n := h.SessionCount(); n != DefaultMaxSessions {
			t.Fatalf("%d sessions", n)
		}
		if g := ourGoroutines(); g > g0 {
			t.Errorf("goroutines grew from %d to %d with 10,000 idle sessions", g0, g)
		}
		w := serveDirect(h, http.MethodPost, "", initBody)
		if w.Code != 503 || w.Header().Get("Retry-After") != "60" ||
			w.Body.String() != `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Service unavailable: maximum concurrent sessions (10000) reached"}}` {
			t.Fatalf("at the cap: %d %q %s", w.Code, w.Header().Get("Retry-After"), w.Body)
		}
		// The first 5,000 sessions have now idled 35 minutes, the others 15.
		time.Sleep(15 * time.Minute)
		initDirect(t, h)
		if n := h.SessionCount(); n != 5001 {
			t.Errorf("%d sessions after reclaiming, want 5001", n)
		}
		if w := serveDirect(h, http.MethodPost, first[0], pingBody); w.Code != 404 {
			t.Errorf("a reclaimed session answered %d", w.Code)
		}
	})
}

// One reaper goroutine closes idle sessions; Close stops it.
func TestReaper(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := echoServer()
		g0 := ourGoroutines()
		h := NewHandler(s, nil)
		if g := ourGoroutines(); g != g0 {
			t.Errorf("a handler without sessions runs %d goroutines", g-g0)
		}
		var sids []string
		for range 1000 {
			sids = append(sids, initDirect(t, h))
		}
		if g := ourGoroutines(); g != g0+1 {
			t.Errorf("%d goroutines for 1,000 sessions, want 1 (the reaper)", g-g0)
		}
		time.Sleep(29 * time.Minute)
		kept := sids[0]
		serveDirect(h, http.MethodPost, kept, pingBody) // activity resets the timeout
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if n := h.SessionCount(); n != 1 {
			t.Errorf("%d sessions after the timeout, want 1", n)
		}
		if n := len(s.Sessions()); n != 1 {
			t.Errorf("the server holds %d sessions, want 1", n)
		}
		if w := serveDirect(h, http.MethodPost, sids[1], pingBody); w.Code != 404 {
			t.Errorf("a reaped session answered %d", w.Code)
		}
		h.Close()
		synctest.Wait() // what Close set going (a session's OnClose hooks) has ended or is stuck
		if g := ourGoroutines(); g != g0 {
			t.Errorf("%d goroutines left after Close", g-g0)
		}
		if n := len(s.Sessions()); n != 0 {
			t.Errorf("the server holds %d sessions after Close", n)
		}
	})
}

// BenchmarkIdleSession reports the heap an idle session holds (its
// registry entry, its mcp.ServerSession, its state in the SessionStore and
// its id) and the time an initialize takes.
func BenchmarkIdleSession(b *testing.B) {
	h := NewHandler(echoServer(), &Options{MaxSessions: -1, JSONResponse: true})
	defer h.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g0 := ourGoroutines()
	for b.Loop() {
		initDirect(b, h)
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	n := h.SessionCount()
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(n), "heapB/session")
	b.ReportMetric(float64(ourGoroutines()-g0)/float64(n), "goroutines/session")
}
