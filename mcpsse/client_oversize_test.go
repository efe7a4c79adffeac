package mcpsse

// An event over the client's MaxMessageBytes is skipped, not the stream:
// its top-level id is found while it is read, an oversized response fails
// its own call at once, an oversized request from the server is answered
// with an error at its id, and the connection serves the next call.

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// fakeServer is a 2024-11-05 server of the test's own: GET /sse sends the
// endpoint event, then the events queued; each POST to /messages is
// answered 202 and handed to handle, whose events are queued in order;
// the POSTed responses go to responses.
type fakeServer struct {
	*httptest.Server
	client    *http.Client
	events    chan string
	responses chan string
}

func newFakeServer(t *testing.T, handle func(req *jsonrpc.Request) []string) *fakeServer {
	t.Helper()
	f := &fakeServer{
		client:    &http.Client{Transport: &http.Transport{}},
		events:    make(chan string, 64),
		responses: make(chan string, 16),
	}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: endpoint\ndata: /messages\n\n")
			w.(http.Flusher).Flush()
			for {
				select {
				case ev := <-f.events:
					io.WriteString(w, ev)
					w.(http.Flusher).Flush()
				case <-r.Context().Done():
					return
				}
			}
		}
		body, _ := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusAccepted)
		msg, _, err := jsonrpc.Decode(body)
		if err != nil {
			t.Errorf("the client sent %s: %v", body, err)
			return
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok {
			if _, ok := msg.(*jsonrpc.Response); ok {
				f.responses <- string(body)
			}
			return
		}
		id := string(req.ID.AppendJSON(nil))
		var evs []string
		switch req.Method {
		case "initialize":
			evs = []string{message(`{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}}`)}
		case "ping":
			evs = []string{message(`{"jsonrpc":"2.0","id":` + id + `,"result":{}}`)}
		default:
			evs = handle(req)
		}
		for _, ev := range evs {
			f.events <- ev
		}
	}))
	return f
}

// close stops the server and the client's idle connections.
func (f *fakeServer) close() {
	f.Server.Close()
	f.client.CloseIdleConnections()
}

// message is a message event carrying data on one line.
func message(data string) string { return "event: message\ndata: " + data + "\n\n" }

// big is 100 KiB of text with characters JSON escapes, far over the
// limits of these tests.
var big = strings.Repeat(`abc\"de{[\\`, 100<<10/11+1)

// Call 7's response over the limit is Read as a *mcp.FrameTooLargeError
// with id 7, wherever the id stands; call 8 is answered on the same
// stream. A response whose id cannot be found (only nested ids) is
// reported without one, and call 7 stays pending (its call waits, as over
// stdio).
func TestClientOversizedResponse(t *testing.T) {
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, before) })
	for _, tc := range []struct {
		name    string
		event   string
		id      jsonrpc.ID
		pending bool
	}{
		{"id first", message(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + big + `"}]}}`), jsonrpc.Int64ID(7), false},
		{"id after the big member, nested ids before", message(`{"jsonrpc":"2.0","result":{"id":12345,"content":[{"type":"text","text":"` + big + `","id":"x"}],"structuredContent":{"list":[{"id":1},"\"id\":2"]}},"id":7}`), jsonrpc.Int64ID(7), false},
		{"many data lines, no event name", "data: {\"jsonrpc\":\"2.0\",\ndata: \"result\":{\"text\":\"" + big + "\"},\ndata: \"id\":7}\n\n", jsonrpc.Int64ID(7), false},
		{"after an oversized event of another type", "event: other\ndata: {\"id\":99,\"x\":\"" + big + "\"}\n\n" + message(`{"result":{"text":"`+big+`"},"id":7,"jsonrpc":"2.0"}`), jsonrpc.Int64ID(7), false},
		{"nested ids only", message(`{"jsonrpc":"2.0","result":{"id":7,"text":"` + big + `"}}`), jsonrpc.ID{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeServer(t, func(req *jsonrpc.Request) []string {
				if req.ID == jsonrpc.Int64ID(7) {
					return []string{tc.event}
				}
				return []string{message(`{"jsonrpc":"2.0","id":` + req.ID.String() + `,"result":{"n":8}}`)}
			})
			defer f.close()
			conn, err := (&ClientTransport{URL: f.URL + "/sse", HTTPClient: f.client, MaxMessageBytes: 1024}).Connect(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			c := conn.(*clientConn)
			if err := conn.Write(t.Context(), []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"big"}}`)); err != nil {
				t.Fatal(err)
			}
			frame, err := conn.Read(t.Context())
			tooLarge, ok := errors.AsType[*mcp.FrameTooLargeError](err)
			if !ok || frame != nil || err.Error() != "mcp: message exceeds the limit of 1024 bytes" ||
				*tooLarge != (mcp.FrameTooLargeError{Limit: 1024, ID: tc.id}) {
				t.Fatalf("Read = %q, %v; want *mcp.FrameTooLargeError{Limit: 1024, ID: %s}", frame, err, tc.id)
			}
			c.mu.Lock()
			_, pending := c.pending[jsonrpc.Int64ID(7)]
			c.mu.Unlock()
			if pending != tc.pending {
				t.Errorf("request 7 pending: %v, want %v", pending, tc.pending)
			}
			if err := conn.Write(t.Context(), []byte(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo"}}`)); err != nil {
				t.Fatalf("Write after the oversized response: %v", err)
			}
			frame, err = conn.Read(t.Context())
			if want := `{"jsonrpc":"2.0","id":8,"result":{"n":8}}`; err != nil || string(frame) != want {
				t.Fatalf("Read = %q, %v; want %s", frame, err, want)
			}
			c.mu.Lock()
			n := len(c.pending)
			c.mu.Unlock()
			if want := map[bool]int{false: 0, true: 1}[tc.pending]; n != want {
				t.Errorf("%d requests pending, want %d", n, want)
			}
		})
	}
}

// Through a ClientSession: the oversized response fails its call at once
// with the same error as over stdio, a request from the server over the
// limit is answered with -32600 at its id, a notification over it is
// dropped, and the session serves the next calls.
func TestClientSessionOversized(t *testing.T) {
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, before) })
	ids := make(chan jsonrpc.ID, 1)
	f := newFakeServer(t, func(req *jsonrpc.Request) []string {
		id := string(req.ID.AppendJSON(nil))
		if req.Method != "tools/call" {
			return []string{message(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32601,"message":"Method not found"}}`)}
		}
		if strings.Contains(string(req.Params), `"big"`) {
			ids <- req.ID
			return []string{message(`{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"` + big + `"}]},"id":` + id + `}`)}
		}
		return []string{
			message(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + big + `"}}`),
			message(`{"jsonrpc":"2.0","params":{"_meta":{"pad":"` + big + `","id":3}},"method":"roots/list","id":"a\"b\\c\u00e9\/"}`),
			message(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"ok"}]}}`),
		}
	})
	defer f.close()
	cs, err := newClient().Connect(t.Context(), &ClientTransport{URL: f.URL + "/sse", HTTPClient: f.client, MaxMessageBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a watchdog, not asserted on
	defer cancel()
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "big"})
	id := <-ids
	tooLarge, ok := errors.AsType[*mcp.FrameTooLargeError](err)
	if want := "mcp: tools/call: mcp: message exceeds the limit of 1024 bytes"; !ok || err.Error() != want {
		t.Fatalf("CallTool error = %v, want %q wrapping *mcp.FrameTooLargeError", err, want)
	}
	if *tooLarge != (mcp.FrameTooLargeError{Limit: 1024, ID: id}) {
		t.Errorf("FrameTooLargeError = %+v, want Limit 1024, ID %s", *tooLarge, id)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo"})
	if err != nil || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "ok" {
		t.Fatalf("CallTool after the oversized response = %+v, %v", res, err)
	}
	select {
	case got := <-f.responses:
		if want := `{"jsonrpc":"2.0","id":"a\"b\\cé/","error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: message exceeds the limit of 1024 bytes"}}`; got != want {
			t.Errorf("the client answered\n\t%s\nwant\n\t%s", got, want)
		}
	case <-ctx.Done():
		t.Fatal("the client did not answer the oversized request")
	}
	if err := cs.Ping(ctx); err != nil {
		t.Errorf("Ping after the oversized messages: %v", err)
	}
	if _, err := cs.ListPrompts(ctx, nil); err == nil || err.Error() != "jsonrpc error -32601: Method not found" {
		t.Errorf("ListPrompts = %v, want Method not found", err)
	}
}

// An endpoint event over the limit fails Connect with ErrNoEndpoint
// wrapping *mcp.FrameTooLargeError; a message before the endpoint is
// skipped whatever its size.
func TestClientOversizedEndpoint(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := sseServer(t, "event: endpoint\ndata: /"+strings.Repeat("m", 64)+"\n\n")
	defer srv.Close()
	_, err := (&ClientTransport{URL: srv.URL + "/sse", MaxMessageBytes: 16}).Connect(t.Context())
	want := "mcpsse: no endpoint event: the endpoint event from " + srv.URL + "/sse: mcp: message exceeds the limit of 16 bytes"
	if _, ok := errors.AsType[*mcp.FrameTooLargeError](err); !ok || !errors.Is(err, ErrNoEndpoint) || err.Error() != want {
		t.Errorf("Connect = %v, want %q", err, want)
	}
	srv2 := sseServer(t, message(`{"id":1,"x":"`+big+`"}`)+"event: endpoint\ndata: /m\n\n")
	defer srv2.Close()
	conn, err := (&ClientTransport{URL: srv2.URL + "/sse", MaxMessageBytes: 16}).Connect(t.Context())
	if err != nil {
		t.Fatalf("Connect after an oversized message: %v", err)
	}
	if got := conn.(*clientConn).endpoint; got != srv2.URL+"/m" {
		t.Errorf("endpoint %q", got)
	}
	conn.Close()
	http.DefaultClient.CloseIdleConnections()
}
