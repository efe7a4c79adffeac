package mcphttp_test

// Tests of the session-era client transport against servers that answer
// in ways it must survive: a 202 carrying the response stream, a
// response stream that ends before the response (resumable or not), a
// 2xx without a response, and messages over the size limit. Every call
// must end, with its result or an exact error.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
	"go.uber.org/goleak"
)

const legacyInitResult = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}`

// legacyFake is a session-era server: it answers initialize with a
// session, accepts notifications and responses with 202, refuses the
// standalone GET stream with 405 unless getStream is set, and hands the
// other requests (and GETs with Last-Event-ID) to serve.
type legacyFake struct {
	*httptest.Server
	client *http.Client

	mu   sync.Mutex
	gets []http.Header // the GET requests with Last-Event-ID
}

func newLegacyFake(t *testing.T, serve func(w http.ResponseWriter, r *http.Request, body string), getStream func(w http.ResponseWriter, r *http.Request)) *legacyFake {
	t.Helper()
	f := &legacyFake{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		body := string(b)
		switch {
		case r.Method == http.MethodDelete:
			w.WriteHeader(http.StatusOK)
		case r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") != "":
			f.mu.Lock()
			f.gets = append(f.gets, r.Header.Clone())
			f.mu.Unlock()
			serve(w, r, body)
		case r.Method == http.MethodGet && getStream != nil:
			getStream(w, r)
		case r.Method == http.MethodGet:
			w.WriteHeader(http.StatusMethodNotAllowed)
		case methodOf(body) == "initialize":
			w.Header().Set("Mcp-Session-Id", "s-1")
			writeJSON(w, http.StatusOK, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":`+legacyInitResult+`}`)
		case idOf(body) == "" || methodOf(body) == "":
			w.WriteHeader(http.StatusAccepted)
		default:
			serve(w, r, body)
		}
	}))
	f.client = &http.Client{Transport: &http.Transport{}}
	return f
}

// Close stops the server and the client's idle connections.
func (f *legacyFake) Close() {
	f.Server.Close()
	f.client.CloseIdleConnections()
}

func (f *legacyFake) resumeGets() []http.Header {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]http.Header(nil), f.gets...)
}

// connect opens a session-era session with t's fields filled in.
func (f *legacyFake) connect(t *testing.T, ct *mcphttp.ClientTransport, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	if ct == nil {
		ct = &mcphttp.ClientTransport{}
	}
	ct.URL, ct.HTTPClient = f.URL, f.client
	if ct.DefaultRetry == 0 {
		ct.DefaultRetry = 1 // 1ns: the tests never wait for a reconnection
	}
	var o mcp.ClientOptions
	if opts != nil {
		o = *opts
	}
	o.ProtocolEra = mcp.EraSession
	cs, err := mcp.NewClient(mcp.Implementation{Name: "hostile-test", Version: "1"}, &o).Connect(context.Background(), ct)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	return cs
}

// sse writes events, each a complete "field: value" block, and flushes.
func sse(w http.ResponseWriter, status int, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(status)
	for _, e := range events {
		io.WriteString(w, e+"\n\n")
	}
	w.(http.Flusher).Flush()
}

func progressEvent(progress int) string {
	return fmt.Sprintf(`data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":%d}}`, progress)
}

func toolResultEvent(id, text string) string {
	return `data: {"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"` + text + `"}]}}`
}

// callWithProgress calls tool t with progress token "p" and returns its
// text, its error and the progress values seen before it ended.
func callWithProgress(t *testing.T, f *legacyFake, ct *mcphttp.ClientTransport) (string, []float64, error) {
	t.Helper()
	var mu sync.Mutex
	var seen []float64
	cs := f.connect(t, ct, &mcp.ClientOptions{
		ProgressHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ProgressParams) {
			mu.Lock()
			seen = append(seen, p.Progress)
			mu.Unlock()
		},
	})
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Meta: &mcp.RequestMeta{ProgressToken: jsonrpc.StringID("p")}})
	text := ""
	if err == nil && len(res.Content) == 1 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			text = tc.Text
		}
	}
	// The session still works after whatever happened to the call.
	if perr := cs.Ping(context.Background()); perr != nil {
		t.Errorf("Ping after the call: %v", perr)
	}
	cs.Close()
	mu.Lock()
	defer mu.Unlock()
	return text, seen, err
}

// A server that answers a tools/call with 202 Accepted and an event
// stream (mcp-go v0.32.0 does, for a tool that sends notifications): the
// stream is read like a 200's.
func TestClient202WithEventStream(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newLegacyFake(t, func(w http.ResponseWriter, r *http.Request, body string) {
		if methodOf(body) == "ping" {
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":{}}`)
			return
		}
		sse(w, http.StatusAccepted, "event: message\n"+progressEvent(1), "event: message\n"+toolResultEvent(idOf(body), "done"))
	}, nil)
	defer f.Close()
	text, progress, err := callWithProgress(t, f, nil)
	if err != nil || text != "done" {
		t.Fatalf("CallTool = %q, %v; want \"done\", nil", text, err)
	}
	if len(progress) != 1 || progress[0] != 1 {
		t.Errorf("progress seen = %v, want [1]", progress)
	}
}

// A 2xx without a response to a request fails the call with
// ErrNoResponse instead of leaving it waiting.
func TestClientRequestAnsweredWithoutResponse(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, tc := range []struct {
		name  string
		reply func(w http.ResponseWriter)
		want  string
	}{
		{"202 no body", func(w http.ResponseWriter) { w.WriteHeader(http.StatusAccepted) },
			"mcp: sending tools/call: mcphttp: the server answered the request without a response: tools/call got HTTP 202"},
		{"200 empty JSON", func(w http.ResponseWriter) { writeJSON(w, http.StatusOK, "") },
			"mcp: sending tools/call: mcphttp: the server answered the request without a response: tools/call got HTTP 200 with an empty body"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newLegacyFake(t, func(w http.ResponseWriter, r *http.Request, body string) {
				if methodOf(body) == "ping" {
					writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":{}}`)
					return
				}
				tc.reply(w)
			}, nil)
			defer f.Close()
			_, _, err := callWithProgress(t, f, nil)
			if !errors.Is(err, mcphttp.ErrNoResponse) || err == nil || err.Error() != tc.want {
				t.Errorf("CallTool error = %v, want %q", err, tc.want)
			}
		})
	}
}

// A response stream with event ids cut before the response (the server
// went away) is resumed with GET and Last-Event-ID, past a 503 while the
// server restarts, and the call gets the replayed response.
func TestClientResumesCutStream(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var mu sync.Mutex // the handlers run on the server's goroutines
	var callID string
	gets := 0
	f := newLegacyFake(t, func(w http.ResponseWriter, r *http.Request, body string) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case r.Method == http.MethodGet:
			if gets++; gets == 1 {
				writeJSON(w, http.StatusServiceUnavailable, `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"restarting"}}`)
				return
			}
			sse(w, http.StatusOK, "id: ev-2\n"+progressEvent(2), "id: ev-3\n"+toolResultEvent(callID, "resumed"))
		case methodOf(body) == "ping":
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":{}}`)
		default:
			callID = idOf(body)
			// The server goes away after one event.
			sse(w, http.StatusOK, "id: ev-1\nretry: 1\n"+progressEvent(1))
		}
	}, nil)
	defer f.Close()
	text, progress, err := callWithProgress(t, f, nil)
	if err != nil || text != "resumed" {
		t.Fatalf("CallTool = %q, %v; want \"resumed\", nil", text, err)
	}
	if len(progress) != 2 || progress[0] != 1 || progress[1] != 2 {
		t.Errorf("progress seen = %v, want [1 2]", progress)
	}
	resumed := f.resumeGets()
	if len(resumed) != 2 {
		t.Fatalf("%d resumption GETs, want 2", len(resumed))
	}
	for i, h := range resumed {
		if h.Get("Last-Event-ID") != "ev-1" || h.Get("Mcp-Session-Id") != "s-1" || h.Get("Accept") != "text/event-stream" {
			t.Errorf("resumption GET %d headers = %v, want Last-Event-ID ev-1, Mcp-Session-Id s-1, Accept text/event-stream", i, h)
		}
	}
}

// A response stream cut before the response that cannot be resumed fails
// the call with ErrStreamLost; the session lives on.
func TestClientCutStreamFailsCall(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, tc := range []struct {
		name     string
		first    string // the events of the POST's stream
		resume   func(w http.ResponseWriter)
		maxRe    int
		want     string
		wantGets int
	}{
		{
			name:  "no event ids",
			first: progressEvent(1),
			want:  "mcp: tools/call: mcphttp: the response stream ended before the response, and it had no event id to resume it with",
		},
		{
			name:     "resumption refused",
			first:    "id: ev-1\n" + progressEvent(1),
			resume:   func(w http.ResponseWriter) { w.WriteHeader(http.StatusMethodNotAllowed) },
			want:     "mcp: tools/call: mcphttp: the response stream ended before the response, and the server refused to resume it: mcphttp: HTTP 405",
			wantGets: 1,
		},
		{
			name:     "resumed streams end without the response",
			first:    "id: ev-1\n" + progressEvent(1),
			resume:   func(w http.ResponseWriter) { sse(w, http.StatusOK, "id: ev-2\n"+progressEvent(2)) },
			maxRe:    2,
			want:     "mcp: tools/call: mcphttp: the response stream ended before the response, and 2 attempts in a row to resume it ended without it",
			wantGets: 3, // the first brought ev-2, the next two nothing new
		},
		{
			name:     "server unavailable",
			first:    "id: ev-1\n" + progressEvent(1),
			resume:   func(w http.ResponseWriter) { w.WriteHeader(http.StatusServiceUnavailable) },
			maxRe:    3,
			want:     "mcp: tools/call: mcphttp: the response stream ended before the response, and 3 attempts to resume it failed: mcphttp: HTTP 503",
			wantGets: 3,
		},
		{
			name:  "resumption disabled",
			first: "id: ev-1\n" + progressEvent(1),
			maxRe: -1,
			want:  "mcp: tools/call: mcphttp: the response stream ended before the response, and resumption is disabled",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newLegacyFake(t, func(w http.ResponseWriter, r *http.Request, body string) {
				switch {
				case r.Method == http.MethodGet:
					tc.resume(w)
				case methodOf(body) == "ping":
					writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":{}}`)
				default:
					sse(w, http.StatusOK, tc.first)
				}
			}, nil)
			defer f.Close()
			_, progress, err := callWithProgress(t, f, &mcphttp.ClientTransport{MaxReconnects: tc.maxRe})
			if !errors.Is(err, mcphttp.ErrStreamLost) || err.Error() != tc.want {
				t.Errorf("CallTool error = %v, want %q", err, tc.want)
			}
			if len(progress) == 0 || progress[0] != 1 {
				t.Errorf("progress seen = %v, want the stream's events first", progress)
			}
			if got := len(f.resumeGets()); got != tc.wantGets {
				t.Errorf("%d resumption GETs, want %d", got, tc.wantGets)
			}
		})
	}
}

// A standalone GET stream that keeps ending without an event is given up
// after MaxReconnects (not reopened for ever) and strands nothing: calls
// go on, Close returns, no goroutine is left.
func TestClientStandaloneStreamDies(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newLegacyFake(t, func(w http.ResponseWriter, r *http.Request, body string) {
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":{"content":[{"type":"text","text":"ok"}]}}`)
	}, func(w http.ResponseWriter, r *http.Request) {
		sse(w, http.StatusOK, ": hello")
	})
	defer f.Close()
	logs := make(chan string, 16)
	cs := f.connect(t, &mcphttp.ClientTransport{MaxReconnects: 1, Logger: slog.New(chanHandler(logs))}, nil)
	defer cs.Close()
	// The stream gives up while the session is open (closing the session
	// would stop it trying, and say nothing).
	if got, want := recv(t, logs, "the give-up warning"), "mcphttp: standalone GET stream lost; server-initiated messages outside requests will not arrive"; got != want {
		t.Errorf("logged %q, want %q", got, want)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "t"})
	if err != nil || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "ok" {
		t.Fatalf("CallTool = %+v, %v; want \"ok\", nil", res, err)
	}
}

// A standalone GET stream with an event over MaxMessageBytes goes on:
// the notification after it arrives, and the stream is neither dropped
// nor reopened.
func TestClientStandaloneStreamTooLarge(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	gets := make(chan struct{}, 4)
	dropped := make(chan struct{}, 4)
	f := newLegacyFake(t, func(w http.ResponseWriter, r *http.Request, body string) {
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":{"content":[{"type":"text","text":"ok"}]}}`)
	}, func(w http.ResponseWriter, r *http.Request) {
		gets <- struct{}{}
		sse(w, http.StatusOK,
			"id: g-1\n"+`data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"`+strings.Repeat("z", 2000)+`"}}`,
			`data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"small"}}`)
		<-r.Context().Done()
		dropped <- struct{}{}
	})
	defer f.Close()
	logged := make(chan string, 4)
	cs := f.connect(t, &mcphttp.ClientTransport{MaxMessageBytes: 1024}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.LoggingMessageParams) {
			logged <- string(p.Data)
		},
	})
	if got := recv(t, logged, "the notification after the oversized event"); got != `"small"` {
		t.Errorf("notification data %s, want \"small\"", got)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "t"})
	if err != nil || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "ok" {
		t.Fatalf("CallTool = %+v, %v; want \"ok\", nil", res, err)
	}
	select {
	case <-dropped:
		t.Error("the GET stream was dropped while the session is open")
	default:
	}
	cs.Close()
	recv(t, dropped, "the GET stream to end at Close")
	if n := len(gets); n != 1 {
		t.Errorf("%d GET streams, want 1", n)
	}
}

// chanHandler is a slog.Handler sending each warning's message to ch.
type chanHandler chan<- string

func (h chanHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (h chanHandler) Handle(_ context.Context, r slog.Record) error {
	select {
	case h <- r.Message:
	default:
	}
	return nil
}
func (h chanHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h chanHandler) WithGroup(string) slog.Handler      { return h }

// A JSON response over MaxMessageBytes fails its call with
// *mcp.FrameTooLargeError.
func TestClientJSONResponseTooLarge(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, tc := range []struct {
		name  string
		max   int
		size  int
		limit int
	}{
		{"option", 1024, 2000, 1024},
		{"default 4 MiB", 0, 4<<20 + 1, 4 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newLegacyFake(t, func(w http.ResponseWriter, r *http.Request, body string) {
				if methodOf(body) == "ping" {
					writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":{}}`)
					return
				}
				writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":{"content":[{"type":"text","text":"`+strings.Repeat("x", tc.size)+`"}]}}`)
			}, nil)
			defer f.Close()
			_, _, err := callWithProgress(t, f, &mcphttp.ClientTransport{MaxMessageBytes: tc.max})
			want := fmt.Sprintf("mcp: sending tools/call: mcphttp: reading the response to tools/call: mcp: message exceeds the limit of %d bytes", tc.limit)
			var tooLarge *mcp.FrameTooLargeError
			if !errors.As(err, &tooLarge) || tooLarge.Limit != tc.limit || err.Error() != want {
				t.Errorf("CallTool error = %v, want %q", err, want)
			}
		})
	}
}

// An SSE event over MaxMessageBytes answering the call of its POST stream
// fails that call at once with *mcp.FrameTooLargeError carrying the
// call's id, wherever the id stands; the stream is not resumed and the
// session goes on.
func TestClientSSEEventTooLarge(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	big := strings.Repeat(`x\"{[`, 400)
	for _, tc := range []struct {
		name  string
		event func(id string) string
	}{
		{"one long line", func(id string) string { return toolResultEvent(id, strings.Repeat("x", 2000)) }},
		{"id after the big member, nested ids before", func(id string) string {
			return `data: {"jsonrpc":"2.0","result":{"id":99,"content":[{"type":"text","text":"` + big + `","id":"n"}]},"id":` + id + `}`
		}},
		{"many data lines", func(id string) string {
			return `data: {"jsonrpc":"2.0","result":{"content":[` + "\n" + strings.Repeat("data: {\"type\":\"text\",\"text\":\""+strings.Repeat("y", 100)+"\"},\n", 20) + `data: {"type":"text","text":""}]},"id":` + id + `}`
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dropped := make(chan struct{})
			ids := make(chan string, 1)
			f := newLegacyFake(t, func(w http.ResponseWriter, r *http.Request, body string) {
				switch {
				case r.Method == http.MethodGet:
					w.WriteHeader(http.StatusInternalServerError)
				case methodOf(body) == "ping":
					writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":{}}`)
				default:
					ids <- idOf(body)
					sse(w, http.StatusOK, progressEvent(1), "id: ev-1\n"+tc.event(idOf(body)))
					<-r.Context().Done() // the client closed the stream, answered
					close(dropped)
				}
			}, nil)
			defer f.Close()
			_, progress, err := callWithProgress(t, f, &mcphttp.ClientTransport{MaxMessageBytes: 1024})
			want := "mcp: tools/call: mcp: message exceeds the limit of 1024 bytes"
			tooLarge, ok := errors.AsType[*mcp.FrameTooLargeError](err)
			if !ok || err.Error() != want {
				t.Fatalf("CallTool error = %v, want %q", err, want)
			}
			if id := <-ids; tooLarge.Limit != 1024 || string(tooLarge.ID.AppendJSON(nil)) != id || tooLarge.Request {
				t.Errorf("FrameTooLargeError = %+v, want Limit 1024, ID %s", *tooLarge, id)
			}
			if len(progress) != 1 {
				t.Errorf("progress seen = %v, want [1]", progress)
			}
			recv(t, dropped, "the server to see the stream closed")
			if got := len(f.resumeGets()); got != 0 {
				t.Errorf("%d resumption GETs, want 0", got)
			}
		})
	}
}

// A POST stream goes on past events over MaxMessageBytes that do not
// answer its call: a notification is dropped, a request from the server
// is answered with -32600 at its id, and the progress and the result that
// follow arrive.
func TestClientSSEStreamGoesOnPastOversizedEvents(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	big := strings.Repeat("z", 2000)
	f := newLegacyFake(t, func(w http.ResponseWriter, r *http.Request, body string) {
		switch {
		case r.Method == http.MethodGet:
			w.WriteHeader(http.StatusInternalServerError)
		case methodOf(body) == "ping":
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":{}}`)
		default:
			sse(w, http.StatusOK,
				progressEvent(1),
				`data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"`+big+`"}}`,
				"id: ev-2\n"+`data: {"jsonrpc":"2.0","params":{"_meta":{"pad":"`+big+`","id":3}},"method":"roots/list","id":"srv-1"}`,
				progressEvent(2),
				toolResultEvent(idOf(body), "ok"))
		}
	}, nil)
	defer f.Close()
	inner := f.client.Transport
	defer inner.(*http.Transport).CloseIdleConnections()
	posted := make(chan string, 16)
	f.client.Transport = &recordingTransport{next: inner, seen: func(body string) {
		if methodOf(body) == "" && idOf(body) != "" {
			posted <- body
		}
	}}
	text, progress, err := callWithProgress(t, f, &mcphttp.ClientTransport{MaxMessageBytes: 1024})
	if err != nil || text != "ok" {
		t.Fatalf("CallTool = %q, %v; want \"ok\", nil", text, err)
	}
	if len(progress) != 2 || progress[0] != 1 || progress[1] != 2 {
		t.Errorf("progress seen = %v, want [1 2]", progress)
	}
	want := `{"jsonrpc":"2.0","id":"srv-1","error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: message exceeds the limit of 1024 bytes"}}`
	if got := recv(t, posted, "the answer to the oversized request"); got != want {
		t.Errorf("the client answered\n\t%s\nwant\n\t%s", got, want)
	}
	if got := len(f.resumeGets()); got != 0 {
		t.Errorf("%d resumption GETs, want 0", got)
	}
}
