package mcp_test

// This file holds the helpers of the tests of the requests a server sends
// to its client (sampling, elicitation and roots): a server with one tool
// that runs the test's function, a raw client end that declares given
// capabilities, and a raw server end for a Client with given options.
// Every helper is prefixed "ask".

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// askFunc is what the "ask" tool runs. Its text is the tool's result; its
// error a result with isError and the error's text.
type askFunc func(ctx context.Context, req *mcp.Request) (string, error)

// askServer returns a server with one tool, "ask", that runs f.
func askServer(t testing.TB, opts *mcp.ServerOptions, f askFunc) *mcp.Server {
	t.Helper()
	s := mcp.NewServer(serverTestInfo, opts)
	if err := s.AddTool(&mcp.Tool{Name: "ask", Description: "Asks the client."}, func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		text, err := f(ctx, req)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	return s
}

// askCall calls the "ask" tool and returns its text, and whether the
// result is an error.
func askCall(t testing.TB, cs *mcp.ClientSession) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask"})
	if err != nil {
		t.Fatalf("CallTool(ask): %v", err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("CallTool(ask) = %+v, want one content", res)
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("CallTool(ask) content = %T, want text", res.Content[0])
	}
	return text.Text, res.IsError
}

// askRaw serves srv over the in-memory transport to a raw client end that
// declares caps (a JSON object) and is ready when askRaw returns.
func askRaw(t testing.TB, srv *mcp.Server, caps string) *schemaConn {
	t.Helper()
	c := schemaConnect(t, srv)
	c.call("initialize", `{"protocolVersion":"2025-11-25","capabilities":`+caps+`,"clientInfo":{"name":"raw","version":"1"}}`)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.call("ping", "")
	return c
}

// askRawTool calls the "ask" tool from a raw client end and returns the
// next frame the server writes.
func askRawTool(c *schemaConn) []byte {
	return c.call("tools/call", `{"name":"ask"}`)
}

// askRequest decodes a frame the server sent that must be a request for
// method, and returns it.
func askRequest(t testing.TB, frame []byte, method string) *jsonrpc.Request {
	t.Helper()
	msg, _, err := jsonrpc.Decode(frame)
	if err != nil {
		t.Fatalf("undecodable frame %s: %v", frame, err)
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok || req.Method != method {
		t.Fatalf("the server sent %s, want a %s request", frame, method)
	}
	return req
}

// askWantToolError checks that frame is the answer to a tools/call (id
// callID) that is a result with isError and the given text: the tool
// failed before sending anything.
func askWantToolError(t testing.TB, frame []byte, callID, text string) {
	t.Helper()
	want := `{"jsonrpc":"2.0","id":` + callID + `,"result":{"content":[{"type":"text","text":` + askQuote(text) + `}],"isError":true}}`
	if string(frame) != want {
		t.Errorf("the server sent\n\t%s\nwant\n\t%s", frame, want)
	}
}

func askQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// askPeer connects a Client with opts to a raw server end, answers its
// handshake and returns the server end. The session ends with the test.
func askPeer(t testing.TB, opts *mcp.ClientOptions) *schemaPeer {
	t.Helper()
	client := mcp.NewClient(clientTestInfo, legacy(opts))
	clientT, serverT := mcp.NewInMemoryTransports()
	conn, err := serverT.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	type connected struct {
		cs  *mcp.ClientSession
		err error
	}
	done := make(chan connected, 1)
	go func() {
		cs, err := client.Connect(context.Background(), clientT)
		done <- connected{cs, err}
	}()
	p := &schemaPeer{t: t, conn: conn}
	p.initialize = p.read()
	p.reply(p.initialize, `{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"peer","version":"1.0.0"}}`)
	p.initialized = p.read()
	c := <-done
	if c.err != nil {
		t.Fatalf("Client.Connect: %v", c.err)
	}
	p.cs = c.cs
	t.Cleanup(func() {
		_ = c.cs.Close()
		conn.Close()
	})
	return p
}

// askPeerCall sends a raw request (params raw JSON) to the client and
// returns its answer frame.
func askPeerCall(p *schemaPeer, id, method, params string) []byte {
	p.t.Helper()
	frame := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"`
	if params != "" {
		frame += `,"params":` + params
	}
	p.send(frame + "}")
	return p.read()
}

// askCaps returns the capabilities member of the client's initialize.
func askCaps(t testing.TB, p *schemaPeer) string {
	t.Helper()
	var init struct {
		Params struct {
			Capabilities json.RawMessage `json:"capabilities"`
		} `json:"params"`
	}
	if err := json.Unmarshal(p.initialize, &init); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(init.Params.Capabilities))
}
