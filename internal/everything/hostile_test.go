package everything_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/everything"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// Bounds the hostile-neighbours test holds the server (and, in process,
// its clients) to while the abusers run.
const (
	hostileMaxHeap       = 256 << 20
	hostileMaxGoroutines = 400
)

// rawPost sends one POST on a connection of its own with the given
// headers and body, and returns the response (its body unread).
func rawPost(addr, sid, version, body string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	if version != "" {
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	return http.DefaultClient.Do(req)
}

// rawSession initializes a session at version and returns its id.
func rawSession(t *testing.T, addr, version string) string {
	t.Helper()
	resp, err := rawPost(addr, "", "", fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"abuser","version":"1"}}}`, version))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("initialize at %s: %d, no session", version, resp.StatusCode)
	}
	resp, err = rawPost(addr, sid, version, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return sid
}

// While one client never reads its GET stream, one trickles a body, one
// floods batches and one starts tasks without end, a well-behaved client
// completes 1,000 tool calls and hears of a tool registration, and the
// process's heap and goroutines stay under stated bounds (issue 15).
func TestHostileNeighbours(t *testing.T) {
	server := everything.NewServer(nil)
	h := mcphttp.NewHandler(server, nil)
	ts := httptest.NewServer(h)
	defer func() {
		_ = h.Shutdown(context.Background())
		ts.Close()
	}()
	addr := strings.TrimPrefix(ts.URL, "http://")
	ctx, stop := context.WithCancel(context.Background())
	var abusers sync.WaitGroup
	defer abusers.Wait()
	defer stop()

	// 1. A GET stream that is never read.
	sid := rawSession(t, addr, "2025-11-25")
	getConn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer getConn.Close()
	fmt.Fprintf(getConn, "GET / HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nMcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-11-25\r\n\r\n", addr, sid)
	if resp, err := http.ReadResponse(bufio.NewReader(getConn), nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET stream: %v %v", resp, err)
	}

	// 2. A body that trickles in: 4 MiB announced, a byte at a time.
	var trickled atomic.Int64
	abusers.Add(1)
	go func() {
		defer abusers.Done()
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			return
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n{", addr, 4<<20)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if _, err := conn.Write([]byte(" ")); err != nil {
					return
				}
				trickled.Add(1)
			}
		}
	}()

	// 3. Batches of 2025-03-26, as fast as they are answered.
	batchSID := rawSession(t, addr, "2025-03-26")
	var batch strings.Builder
	batch.WriteByte('[')
	for i := range 2000 {
		if i > 0 {
			batch.WriteByte(',')
		}
		fmt.Fprintf(&batch, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"flood"}}}`, i)
	}
	batch.WriteByte(']')
	var batches atomic.Int64
	abusers.Add(1)
	go func() {
		defer abusers.Done()
		for ctx.Err() == nil {
			resp, err := rawPost(addr, batchSID, "2025-03-26", batch.String())
			if err != nil {
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			batches.Add(1)
		}
	}()

	// 4. Tasks without end: hour-long countdowns, as many as the server
	// takes.
	taskSID := rawSession(t, addr, "2025-11-25")
	var tasksAsked atomic.Int64
	abusers.Add(1)
	go func() {
		defer abusers.Done()
		for i := 0; ctx.Err() == nil; i++ {
			resp, err := rawPost(addr, taskSID, "2025-11-25", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"countdown","arguments":{"seconds":60},"task":{"ttl":3600000}}}`, i))
			if err != nil {
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			tasksAsked.Add(1)
		}
	}()

	// The well-behaved client.
	changed := make(chan struct{}, 1)
	client := mcp.NewClient(mcp.Implementation{Name: "good", Version: "1"}, &mcp.ClientOptions{
		ProtocolEra: mcp.EraSession, // list_changed on the GET stream
		ToolListChangedHandler: func(context.Context, *mcp.ClientSession) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	cs, err := client.Connect(ctx, &mcphttp.ClientTransport{URL: ts.URL})
	if err != nil {
		t.Fatalf("the good client's Connect: %v", err)
	}
	defer cs.Close()
	var wg sync.WaitGroup
	var failed atomic.Int64
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 250 {
				msg := fmt.Sprintf("good %d-%d", w, i)
				args, _ := json.Marshal(map[string]string{"text": msg})
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: args})
				if err != nil || res.IsError || len(res.Content) != 1 {
					failed.Add(1)
					t.Errorf("call %s: %v %+v", msg, err, res)
					continue
				}
				if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, msg) {
					failed.Add(1)
					t.Errorf("call %s answered %q", msg, text)
				}
			}
		}()
	}
	wg.Wait()
	if err := server.AddTool(&mcp.Tool{Name: "registered-under-load", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}); err != nil {
		t.Fatalf("AddTool under load: %v", err)
	}
	select {
	case <-changed:
	case <-time.After(30 * time.Second): // a watchdog, not a timing assertion
		t.Fatal("the good client never heard of the new tool")
	}

	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	goroutines := runtime.NumGoroutine()
	t.Logf("good calls failed %d; abusers: %d batches answered, %d task calls, %d body bytes trickled; heap in use %d MiB, %d goroutines",
		failed.Load(), batches.Load(), tasksAsked.Load(), trickled.Load(), ms.HeapInuse>>20, goroutines)
	if ms.HeapInuse > hostileMaxHeap {
		t.Errorf("heap in use %d bytes, bound %d", ms.HeapInuse, hostileMaxHeap)
	}
	if goroutines > hostileMaxGoroutines {
		t.Errorf("%d goroutines, bound %d", goroutines, hostileMaxGoroutines)
	}
}
