package mcphttp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// signalHandler is a slog.Handler that reports the records whose message
// starts with prefix.
type signalHandler struct {
	prefix string
	ch     chan string
}

func (h *signalHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *signalHandler) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, h.prefix) {
		select {
		case h.ch <- r.Message:
		default:
		}
	}
	return nil
}
func (h *signalHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *signalHandler) WithGroup(string) slog.Handler      { return h }

// openRawGET opens session sid's GET stream on a connection of its own and
// reads only the response's headers: the client then stops reading.
func openRawGET(t *testing.T, addr, sid string) (net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "GET /mcp HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nMcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-11-25\r\n\r\n", addr, sid)
	return conn, bufio.NewReader(conn)
}

func sessionByID(t *testing.T, s *mcp.Server, sid string) *mcp.ServerSession {
	t.Helper()
	for _, ss := range s.Sessions() {
		if ss.ID() == sid {
			return ss
		}
	}
	t.Fatalf("no session %q", sid)
	return nil
}

// A client that never reads its GET stream delays no one: notifications
// to it are queued and return at once, list_changed still reaches another
// session at once and AddTool returns, and once its queue passes
// MaxStreamQueueBytes its stream is closed (issue 15, item 1). Before,
// the notification to the stalled stream was written on the caller's
// goroutine and blocked for ever once the socket buffers were full.
func TestSlowReaderDelaysNoOne(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, leaks) }) // after the fixture's cleanups
	closed := &signalHandler{prefix: "mcphttp: closing a stream its client does not read", ch: make(chan string, 1)}
	f := newFixture(t, &Options{MaxStreamQueueBytes: 64 << 10, KeepAlive: -1, Logger: slog.New(closed)})
	addr := strings.TrimPrefix(f.srv.URL, "http://")

	slow := f.initialize("2025-11-25")
	conn, br := openRawGET(t, addr, slow)
	defer conn.Close()
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("slow GET: %v %v", resp, err)
	}

	good := f.initialize("2025-11-25")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gresp, gbr := f.getStream(ctx, good, nil)
	defer gresp.Body.Close()

	checkStalledStreamClosed(t, f, slow, closed, gbr, resp.Body)
}

// checkStalledStreamClosed fills the queue of session slow's stream, whose
// client does not read, until the handler says (closed) it closed the
// stream: every Notify returns, none waits for the client. Then another
// session's GET stream (good) still hears list_changed at once, the
// stalled stream's body reaches its end, and session slow lives on: a
// ping on it is answered.
func checkStalledStreamClosed(t *testing.T, f *fixture, slow string, closed *signalHandler, good *bufio.Reader, stalled io.Reader) {
	t.Helper()
	ss := sessionByID(t, f.h.server, slow)
	big := strings.Repeat("x", 4096)
	overflowed := false
	for i := 0; i < 100_000 && !overflowed; i++ {
		_ = ss.Notify(context.Background(), "notifications/message", map[string]any{"level": "info", "data": big})
		select {
		case <-closed.ch:
			overflowed = true
		default:
		}
	}
	if !overflowed {
		t.Fatal("the stalled stream was never closed")
	}
	must(t, f.h.server.AddTool(&mcp.Tool{Name: "late"}, nil))
	if e := next(t, good); e.data != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}` {
		t.Errorf("good GET stream event %+v", e)
	}
	if _, err := io.Copy(io.Discard, stalled); err != nil {
		t.Errorf("reading the closed stream to its end: %v", err)
	}
	r := f.post(slow, `{"jsonrpc":"2.0","id":7,"method":"ping"}`)
	if r.status != http.StatusOK || lastMessage(r) != `{"jsonrpc":"2.0","id":7,"result":{}}` {
		t.Errorf("ping after the stream closed: %d %s", r.status, r.body)
	}
}

// Many list_changed notifications queued for a client that has not read
// them yet are one: the queue holds one of each kind.
func TestListChangedCoalesced(t *testing.T) {
	h := &Handler{opts: Options{}.resolve()}
	h.logger = h.opts.Logger
	st := &stream{h: h}
	st.att = &attachment{gone: make(chan struct{})}
	st.draining = true // no goroutine writes: the test reads the queue
	for range 100 {
		must(t, st.WriteMessage(context.Background(), notification("notifications/tools/list_changed")))
		must(t, st.WriteMessage(context.Background(), notification("notifications/prompts/list_changed")))
	}
	must(t, st.WriteMessage(context.Background(), notification("notifications/message")))
	must(t, st.WriteMessage(context.Background(), notification("notifications/message")))
	var got []string
	for _, p := range st.out.frames {
		got = append(got, string(p.bytes()))
	}
	want := []string{
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n",
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/prompts/list_changed\"}\n\n",
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n",
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n",
	}
	equalStrings(t, "queued events", got, want)
}

func notification(method string) *jsonrpc.Notification {
	return &jsonrpc.Notification{Method: method}
}

// A 2026-07-28 subscriptions/listen stream whose client never reads is
// closed once its queue passes the bound, and its request ends: the
// notifications to it never wait, and the server's ResourceUpdated
// returns each time (issue 15, item 1).
func TestSlowListenStreamIsClosed(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, leaks) })
	closed := &signalHandler{prefix: "mcphttp: closing a stream its client does not read", ch: make(chan string, 1)}
	s, _ := newTestServer(t)
	must(t, s.AddResource(&mcp.Resource{URI: "test://big", Name: "big"}, func(context.Context, *mcp.Request, *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	}))
	h := NewHandler(s, &Options{MaxStreamQueueBytes: 64 << 10, KeepAlive: -1, Logger: slog.New(closed)})
	srv := newLoopbackServer(t, h)
	t.Cleanup(func() {
		h.Close()
		srv.Close()
	})
	addr := strings.TrimPrefix(srv.URL, "http://")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := mbody(`"slow"`, "subscriptions/listen", `{"notifications":{"resourceSubscriptions":["test://big"]}}`)
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("listen: %v %v", resp, err)
	}
	overflowed := false
	for i := 0; i < 1_000_000 && !overflowed; i++ {
		if err := s.ResourceUpdated(context.Background(), "test://big"); err != nil {
			t.Fatalf("ResourceUpdated: %v", err)
		}
		select {
		case <-closed.ch:
			overflowed = true
		default:
		}
	}
	if !overflowed {
		t.Fatal("the stalled listen stream was never closed")
	}
	// The request has ended: its response reaches its end.
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Errorf("reading the closed listen stream to its end: %v", err)
	}
}
