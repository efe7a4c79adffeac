package mcp_test

// A message over the stdio client's MaxMessageBytes is discarded, but its
// top-level id is found while it is: an oversized response fails its call
// at once, an oversized request from the server is answered with an error
// at its id, and the session goes on.

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// pipeServer is a fake MCP server on the other end of a client's
// StdioTransport: answer gives the lines it writes for each request; the
// client's responses go to got.
type pipeServer struct {
	mu  sync.Mutex
	out io.Writer
	got chan string
}

// recv returns the client's next response; a hang turns into a failure
// after a watchdog (no test asserts on time).
func (p *pipeServer) recv(t *testing.T) string {
	t.Helper()
	select {
	case line := <-p.got:
		return line
	case <-time.After(30 * time.Second):
		t.Fatal("no response from the client after 30s")
	}
	return ""
}

func (p *pipeServer) send(t *testing.T, line string) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := io.WriteString(p.out, line+"\n"); err != nil {
		t.Errorf("writing to the client: %v", err)
	}
}

// connectPipeServer connects a session-era client over pipes to a fake
// server that answers initialize and ping itself and every other request
// with answer's lines.
func connectPipeServer(t *testing.T, answer func(req *jsonrpc.Request) []string) (*mcp.ClientSession, *pipeServer) {
	t.Helper()
	toClientR, toClientW := io.Pipe()
	toServerR, toServerW := io.Pipe()
	p := &pipeServer{out: toClientW, got: make(chan string, 16)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer toClientW.Close()
		r := bufio.NewReader(toServerR)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSuffix(line, "\n")
			msg, _, err := jsonrpc.Decode([]byte(line))
			if err != nil {
				t.Errorf("the client sent %s: %v", line, err)
				continue
			}
			req, ok := msg.(*jsonrpc.Request)
			if !ok {
				if _, ok := msg.(*jsonrpc.Response); ok {
					p.got <- line
				}
				continue
			}
			id := string(req.ID.AppendJSON(nil))
			var lines []string
			switch req.Method {
			case "initialize":
				lines = []string{`{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"pipe","version":"1"}}}`}
			case "ping":
				lines = []string{`{"jsonrpc":"2.0","id":` + id + `,"result":{}}`}
			default:
				lines = answer(req)
			}
			for _, l := range lines {
				p.mu.Lock()
				_, err := io.WriteString(toClientW, l+"\n")
				p.mu.Unlock()
				if err != nil {
					return
				}
			}
		}
	}()
	cs, err := mcp.NewClient(clientTestInfo, &mcp.ClientOptions{ProtocolEra: mcp.EraSession, Roots: []*mcp.Root{}}).
		Connect(context.Background(), &mcp.StdioTransport{In: toClientR, Out: toServerW})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		<-done
	})
	return cs, p
}

// bigText is 5 MiB of text with characters JSON escapes, over the default
// limit of 4 MiB.
var bigText = strings.Repeat(`abc\"de{[\\`, 5<<20/11+1)

func TestStdioClientOversizedResponseFailsItsCall(t *testing.T) {
	for _, tc := range []struct {
		name     string
		response func(id string) string
	}{
		{"id first", func(id string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"` + bigText + `"}]}}`
		}},
		{"id last, ids nested before", func(id string) string {
			return `{"jsonrpc":"2.0","result":{"id":12345,"content":[{"type":"text","text":"` + bigText + `","id":"x"}],"structuredContent":{"list":[{"id":1},"\"id\":2"]}},"id":` + id + `}`
		}},
		{"spaces and CRLF", func(id string) string {
			return " { \"result\" : { \"text\" : \"" + bigText + "\" } ,\t\"jsonrpc\" : \"2.0\" , \"id\" :  " + id + " }\r"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := goleak.IgnoreCurrent()
			t.Cleanup(func() { goleak.VerifyNone(t, before) })
			ids := make(chan jsonrpc.ID, 1)
			cs, _ := connectPipeServer(t, func(req *jsonrpc.Request) []string {
				if req.Method != "tools/call" {
					return []string{`{"jsonrpc":"2.0","id":` + req.ID.String() + `,"error":{"code":-32601,"message":"Method not found"}}`}
				}
				ids <- req.ID
				return []string{tc.response(string(req.ID.AppendJSON(nil)))}
			})
			_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "big"})
			id := <-ids
			tooLarge, ok := errors.AsType[*mcp.FrameTooLargeError](err)
			if want := "mcp: tools/call: mcp: message exceeds the limit of 4194304 bytes"; !ok || err.Error() != want {
				t.Fatalf("CallTool error = %v, want %q wrapping *mcp.FrameTooLargeError", err, want)
			}
			if tooLarge.Limit != 4<<20 || tooLarge.ID != id || tooLarge.Request {
				t.Errorf("FrameTooLargeError = %+v, want Limit 4194304, ID %s, Request false", *tooLarge, id)
			}
			// The session goes on.
			if err := cs.Ping(context.Background()); err != nil {
				t.Errorf("Ping after the oversized response: %v", err)
			}
			if _, err := cs.ListPrompts(context.Background(), nil); err == nil || err.Error() != "jsonrpc error -32601: Method not found" {
				t.Errorf("ListPrompts after the oversized response = %v, want Method not found", err)
			}
		})
	}
}

// An oversized request from the server is answered with -32600 at its id,
// a string with escapes; a notification over the limit is dropped.
func TestStdioClientOversizedRequestAnswered(t *testing.T) {
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, before) })
	cs, p := connectPipeServer(t, func(req *jsonrpc.Request) []string { return nil })
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"`+bigText+`"}}`)
	p.send(t, `{"jsonrpc":"2.0","params":{"_meta":{"pad":"`+bigText+`","id":3}},"method":"roots/list","id":"a\"b\\c\u00e9\/"}`)
	if got, want := p.recv(t), `{"jsonrpc":"2.0","id":"a\"b\\cé/","error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: message exceeds the limit of 4194304 bytes"}}`; got != want {
		t.Errorf("the client answered\n\t%s\nwant\n\t%s", got, want)
	}
	p.send(t, `{"jsonrpc":"2.0","id":9,"method":"roots/list"}`)
	if got, want := p.recv(t), `{"jsonrpc":"2.0","id":9,"result":{"roots":[]}}`; got != want {
		t.Errorf("the client answered\n\t%s\nwant\n\t%s", got, want)
	}
	if err := cs.Ping(context.Background()); err != nil {
		t.Errorf("Ping after the oversized request: %v", err)
	}
}
