package mcp

// Tools as a client sees them on the wire: schemas inferred from Go types,
// argument validation, results and errors, names, pagination and
// list_changed (https://modelcontextprotocol.io/specification/2025-11-25/server/tools).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

type lcAddIn struct {
	A    int    `json:"a" jsonschema:"the first addend"`
	B    int    `json:"b"`
	Note string `json:"note,omitempty"`
}

type lcAddOut struct {
	Sum  int    `json:"sum"`
	Note string `json:"note,omitempty"`
}

// lcToolServer has typed tools of every output kind.
func lcToolServer(t testing.TB, calls *atomic.Int32) *Server {
	t.Helper()
	s := lcNewServer(nil)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(AddTool(s, &Tool{Name: "add", Description: "Add two integers."}, func(_ context.Context, _ *Request, in lcAddIn) (lcAddOut, error) {
		calls.Add(1)
		return lcAddOut{Sum: in.A + in.B, Note: in.Note}, nil
	}))
	must(AddTool(s, &Tool{Name: "div"}, func(_ context.Context, _ *Request, in lcAddIn) (*lcAddOut, error) {
		calls.Add(1)
		switch {
		case in.B == 0:
			return nil, errors.New("division by zero")
		case in.B < 0:
			return nil, fmt.Errorf("refused: %w", jsonrpc.NewError(-32042, "Negative divisor", map[string]int{"b": in.B}))
		case in.A < 0:
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params", "a must not be negative")
		case in.Note == "nil":
			return nil, nil
		}
		return &lcAddOut{Sum: in.A / in.B}, nil
	}))
	must(AddTool(s, &Tool{Name: "greet"}, func(_ context.Context, req *Request, in lcEchoIn) (string, error) {
		calls.Add(1)
		return "hello " + in.Text + " from " + req.ClientInfo.Name, nil
	}))
	must(AddTool(s, &Tool{Name: "raw_result"}, func(_ context.Context, _ *Request, in lcEchoIn) (*CallToolResult, error) {
		calls.Add(1)
		if in.Text == "" {
			return nil, nil
		}
		return &CallToolResult{Content: []Content{&TextContent{Text: in.Text}}, IsError: true}, nil
	}))
	must(AddTool(s, &Tool{Name: "counts"}, func(_ context.Context, _ *Request, in lcEchoIn) (map[string]int, error) {
		calls.Add(1)
		return map[string]int{"length": len(in.Text)}, nil
	}))
	return s
}

func TestToolTypedSchemasAndResults(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		var calls atomic.Int32
		c := connect(lcToolServer(t, &calls))
		c.handshake("2025-11-25", lcInitResultTools(0, "2025-11-25"))
		c.run(`
			-> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
			<- {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"add","description":"Add two integers.","inputSchema":{"type":"object","properties":{"a":{"type":"integer","description":"the first addend"},"b":{"type":"integer"},"note":{"type":"string"}},"required":["a","b"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"sum":{"type":"integer"},"note":{"type":"string"}},"required":["sum"],"additionalProperties":false}},{"name":"counts","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}},{"name":"div","inputSchema":{"type":"object","properties":{"a":{"type":"integer","description":"the first addend"},"b":{"type":"integer"},"note":{"type":"string"}},"required":["a","b"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"sum":{"type":"integer"},"note":{"type":"string"}},"required":["sum"],"additionalProperties":false}},{"name":"greet","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}},{"name":"raw_result","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}}]}}

			# Struct output: structuredContent, and the same JSON as text.
			-> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}
			<- {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"sum\":3}"}],"structuredContent":{"sum":3}}}
			-> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2,"note":"<&>"}}}
			<- {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"{\"sum\":3,\"note\":\"\\u003c\\u0026\\u003e\"}"}],"structuredContent":{"sum":3,"note":"\u003c\u0026\u003e"}}}
			-> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"div","arguments":{"a":7,"b":2}}}
			<- {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"{\"sum\":3}"}],"structuredContent":{"sum":3}}}

			# A Go error is a tool result with isError, for the model to see.
			-> {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"div","arguments":{"a":1,"b":0}}}
			<- {"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"division by zero"}],"isError":true}}

			# A *jsonrpc.Error, even wrapped, is a protocol error.
			-> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"div","arguments":{"a":1,"b":-1}}}
			<- {"jsonrpc":"2.0","id":6,"error":{"code":-32042,"message":"Negative divisor","data":{"b":-1}}}
			-> {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"div","arguments":{"a":-1,"b":1}}}
			<- {"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params","data":"a must not be negative"}}

			# String output is one text content; the handler sees the client.
			-> {"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"greet","arguments":{"text":"you"}}}
			<- {"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"hello you from lc-client"}]}}

			# A *CallToolResult goes out as it is; nil is an empty result.
			-> {"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"raw_result","arguments":{"text":"as is"}}}
			<- {"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"as is"}],"isError":true}}
			-> {"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"raw_result","arguments":{"text":""}}}
			<- {"jsonrpc":"2.0","id":10,"result":{"content":[]}}

			# Map output is structured too.
			-> {"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"counts","arguments":{"text":"four"}}}
			<- {"jsonrpc":"2.0","id":11,"result":{"content":[{"type":"text","text":"{\"length\":4}"}],"structuredContent":{"length":4}}}

			# A nil *T from a tool with an output schema is the handler's
			# mistake: a tool error, never a result without structuredContent.
			-> {"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"div","arguments":{"a":1,"b":1,"note":"nil"}}}
			<- {"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"tool div returned null, not the object its output schema requires"}],"isError":true}}
		`)
		if n := calls.Load(); n != 11 {
			t.Errorf("handlers ran %d times, want 11", n)
		}
		c.finish()
	})
}

func TestToolArgumentValidation(t *testing.T) {
	tests := []struct {
		name  string
		args  string // the arguments member, or "" for none
		names string // what the message must mention
	}{
		{"wrong type", `{"a":"one","b":2}`, "a"},
		{"missing required", `{"a":1}`, "b"},
		{"no arguments", ``, "a"},
		{"null arguments", `null`, "a"},
		{"unknown property", `{"a":1,"b":2,"c":3}`, "c"},
		{"fraction for integer", `{"a":1.5,"b":2}`, "a"},
		{"array arguments", `[1,2]`, "object"},
		{"string arguments", `"a=1"`, "object"},
	}
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		var calls atomic.Int32
		c := connect(lcToolServer(t, &calls))
		c.handshake("2025-11-25", lcInitResultTools(0, "2025-11-25"))
		for i, tt := range tests {
			params := `{"name":"add"}`
			if tt.args != "" {
				params = `{"name":"add","arguments":` + tt.args + `}`
			}
			c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, i, params))
			var resp struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      int             `json:"id"`
				Error   json.RawMessage `json:"error"`
				Result  struct {
					Content []struct {
						Type string `json:"type"`
						Text string `json:"text"`
					} `json:"content"`
					StructuredContent json.RawMessage `json:"structuredContent"`
					IsError           bool            `json:"isError"`
				} `json:"result"`
			}
			raw := c.recv()
			if err := json.Unmarshal([]byte(raw), &resp); err != nil {
				t.Fatalf("%s: %v: %s", tt.name, err, raw)
			}
			r := resp.Result
			ok := resp.ID == i && resp.Error == nil && r.IsError && r.StructuredContent == nil &&
				len(r.Content) == 1 && r.Content[0].Type == "text" &&
				strings.HasPrefix(r.Content[0].Text, "invalid arguments for tool add: ") &&
				strings.Contains(r.Content[0].Text, tt.names)
			if !ok {
				t.Errorf("%s: answered %s\nwant a result with isError and one text naming %q", tt.name, raw, tt.names)
			}
		}
		if n := calls.Load(); n != 0 {
			t.Errorf("the handler ran %d times on invalid arguments, want 0", n)
		}
		c.finish()
	})
}

func TestToolHandWrittenSchemas(t *testing.T) {
	s := lcNewServer(nil)
	const schema = `{"type":"object","properties":{"q":{"type":"string","minLength":2}},"required":["q"]}`
	got := make(chan string, 1)
	if err := s.AddTool(&Tool{Name: "raw", InputSchema: json.RawMessage(schema)}, func(_ context.Context, _ *Request, args json.RawMessage) (*CallToolResult, error) {
		got <- string(args)
		return &CallToolResult{Content: []Content{&TextContent{Text: "ok"}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	// A typed tool may bring its own schema; it is used to validate.
	if err := AddTool(s, &Tool{Name: "typed", InputSchema: json.RawMessage(schema)}, func(_ context.Context, _ *Request, in map[string]any) (string, error) {
		return fmt.Sprint(in["q"]), nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddTool(&Tool{Name: "broken", InputSchema: json.RawMessage(`{"type":`)}, nil); err == nil {
		t.Error("AddTool with a schema that is not JSON succeeded, want an error")
	}
	if err := AddTool(s, &Tool{Name: "scalar"}, func(context.Context, *Request, int) (string, error) { return "", nil }); err == nil {
		t.Error("AddTool with int arguments succeeded, want an error: arguments are an object")
	}
	c := lcConnectMemory(t, s)
	c.handshake("2025-11-25", lcInitResultTools(0, "2025-11-25"))
	c.run(`
		-> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
		<- {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"raw","inputSchema":{"type":"object","properties":{"q":{"type":"string","minLength":2}},"required":["q"]}},{"name":"typed","inputSchema":{"type":"object","properties":{"q":{"type":"string","minLength":2}},"required":["q"]}}]}}
		-> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"typed","arguments":{"q":"go"}}}
		<- {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"go"}]}}
	`)
	c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"typed","arguments":{"q":"g"}}}`)
	if r := c.recv(); !strings.Contains(r, `"isError":true`) || !strings.Contains(r, "invalid arguments for tool typed") {
		t.Errorf("a too short q was answered %s, want isError naming the tool", r)
	}
	// A raw tool gets its arguments as they came, byte for byte.
	c.run(`
		-> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"raw","arguments":{"q" : "x", "extra":[1, 2]}}}
		<- {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"ok"}]}}
	`)
	if a := lcWait(t, got, "the raw tool's arguments"); a != `{"q" : "x", "extra":[1, 2]}` {
		t.Errorf("raw tool got arguments %s", a)
	}
	c.finish()
}

func TestToolNames(t *testing.T) {
	long := strings.Repeat("n", 128)
	tests := []struct {
		name string
		ok   bool
	}{
		{"", false},
		{long, true},
		{long + "n", false},
		{"a", true},
		{"-", true},
		{".", true},
		{"_", true},
		{"Get_Weather-v2.1", true},
		{"ALLCAPS0123456789", true},
		{"has space", false},
		{"slash/name", false},
		{"colon:name", false},
		{"comma,name", false},
		{"tab\tname", false},
		{"émoji", false},
		{"name\x00", false},
	}
	s := lcNewServer(nil)
	for _, tt := range tests {
		err := s.AddTool(&Tool{Name: tt.name}, func(context.Context, *Request, json.RawMessage) (*CallToolResult, error) { return nil, nil })
		if (err == nil) != tt.ok {
			t.Errorf("Server.AddTool(%q) = %v, want ok=%v", tt.name, err, tt.ok)
		}
		err = AddTool(s, &Tool{Name: tt.name}, func(context.Context, *Request, lcEchoIn) (string, error) { return "", nil })
		if (err == nil) != tt.ok {
			t.Errorf("AddTool(%q) = %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
	// Names are unique: adding a name again replaces the tool.
	s = lcNewServer(nil)
	for _, d := range []string{"first", "second"} {
		if err := s.AddTool(&Tool{Name: "same", Description: d}, func(context.Context, *Request, json.RawMessage) (*CallToolResult, error) { return nil, nil }); err != nil {
			t.Fatal(err)
		}
	}
	c := lcConnectMemory(t, s)
	c.handshake("2025-11-25", lcInitResultTools(0, "2025-11-25"))
	c.run(`
		-> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
		<- {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"same","description":"second","inputSchema":{"type":"object"}}]}}
	`)
	c.finish()
}

func TestToolUnknownAndBadParams(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		var calls atomic.Int32
		c := connect(lcToolServer(t, &calls))
		c.handshake("2025-11-25", lcInitResultTools(0, "2025-11-25"))
		c.run(`
			-> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope","arguments":{}}}
			<- {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params","data":"Unknown tool: nope"}}
			-> {"jsonrpc":"2.0","id":2,"method":"tools/call"}
			<- {"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params","data":"Unknown tool: "}}
		`)
		c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":5}}`)
		if r := c.recv(); !strings.HasPrefix(r, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params","data":"invalid params: `) {
			t.Errorf("a number for name was answered %s, want -32602", r)
		}
		c.finish()
	})
}

// lcListTools calls tools/list with cursor (none if empty) and returns the
// page's tool names and next cursor.
func lcListTools(t testing.TB, c *lcConn, id int, cursor string) ([]string, string) {
	t.Helper()
	params := `{}`
	if cursor != "" {
		params = `{"cursor":` + string(lcJSONString(cursor)) + `}`
	}
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":%s}`, id, params))
	raw := c.recv()
	var resp struct {
		ID     int `json:"id"`
		Result *struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
			NextCursor *string `json:"nextCursor"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(raw), &resp); err != nil || resp.ID != id || resp.Result == nil {
		t.Fatalf("tools/list answered %s", raw)
	}
	var names []string
	for _, tl := range resp.Result.Tools {
		names = append(names, tl.Name)
	}
	next := ""
	if resp.Result.NextCursor != nil {
		if *resp.Result.NextCursor == "" {
			t.Errorf("tools/list sent an empty nextCursor: %s", raw)
		}
		next = *resp.Result.NextCursor
	}
	return names, next
}

func TestToolListPagination(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(&ServerOptions{PageSize: 2})
		noop := func(context.Context, *Request, json.RawMessage) (*CallToolResult, error) { return nil, nil }
		for _, n := range []string{"e", "c", "a", "d", "b"} {
			if err := s.AddTool(&Tool{Name: n}, noop); err != nil {
				t.Fatal(err)
			}
		}
		c := connect(s)
		c.handshake("2025-11-25", lcInitResultTools(0, "2025-11-25"))

		var all []string
		cursor, pages := "", 0
		for {
			names, next := lcListTools(t, c, 100+pages, cursor)
			pages++
			if len(names) > 2 {
				t.Errorf("page %d has %d tools, want at most PageSize 2", pages, len(names))
			}
			if next != "" && strings.ContainsAny(next, "abcde") && strings.Contains(next, ":") {
				t.Errorf("cursor %q looks like plain text; cursors are opaque", next)
			}
			all = append(all, names...)
			if next == "" || pages > 10 {
				break
			}
			cursor = next
		}
		if got := strings.Join(all, ","); got != "a,b,c,d,e" || pages != 3 {
			t.Errorf("paged through %q in %d pages, want a,b,c,d,e in 3", got, pages)
		}

		// A cursor stays valid while tools come and go: the next page starts
		// after the last tool seen.
		first, next := lcListTools(t, c, 1, "")
		if strings.Join(first, ",") != "a,b" {
			t.Fatalf("first page = %v", first)
		}
		if err := s.AddTool(&Tool{Name: "aa"}, noop); err != nil {
			t.Fatal(err)
		}
		c.expect(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}`)
		s.RemoveTools("c")
		c.expect(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}`)
		if second, _ := lcListTools(t, c, 2, next); strings.Join(second, ",") != "d,e" {
			t.Errorf("second page after changes = %v, want [d e]", second)
		}

		c.run(`
			# An empty cursor is the first page.
			-> {"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":""}}
			<- {"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"aa","inputSchema":{"type":"object"}}],"nextCursor":"bWNwa2l0OmFh"}}
			# Invalid cursors.
			-> {"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":"not a cursor!"}}
			<- {"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params","data":"invalid cursor: not one tools/list issued; list again without a cursor"}}
			-> {"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"cursor":"Zm9v"}}
			<- {"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Invalid params","data":"invalid cursor: not one tools/list issued; list again without a cursor"}}
		`)
		c.send(`{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"cursor":42}}`)
		if r := c.recv(); !strings.HasPrefix(r, `{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Invalid params"`) {
			t.Errorf("a number cursor was answered %s, want -32602", r)
		}
		c.finish()
	})
}

func TestToolListChangedOnlyToInitializedSessions(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(nil)
		lcAddEcho(t, s)
		ready := connect(s)
		ready.handshake("2025-11-25", lcInitResultTools(0, "2025-11-25"))
		// Initialized but without notifications/initialized yet.
		initialized := connect(s)
		initialized.send(lcInit(1, "2025-06-18", "c"))
		initialized.expect(lcInitResultTools(1, "2025-06-18"))
		fresh := connect(s)

		noop := func(context.Context, *Request, json.RawMessage) (*CallToolResult, error) { return nil, nil }
		const changed = `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}`
		if err := s.AddTool(&Tool{Name: "late"}, noop); err != nil {
			t.Fatal(err)
		}
		ready.expect(changed)
		initialized.expect(changed)
		// Replacing a tool is a change too.
		if err := s.AddTool(&Tool{Name: "late", Description: "v2"}, noop); err != nil {
			t.Fatal(err)
		}
		ready.expect(changed)
		initialized.expect(changed)
		s.RemoveTools("late", "echo")
		ready.expect(changed)
		initialized.expect(changed)
		// Removing what is not there changes nothing.
		s.RemoveTools("late", "never")
		for i, c := range []*lcConn{ready, initialized, fresh} {
			// The ping's answer is the next frame: no notification came.
			c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"fence%d","method":"ping"}`, i))
			c.expect(fmt.Sprintf(`{"jsonrpc":"2.0","id":"fence%d","result":{}}`, i))
		}
		// The fresh session initializes now and sees the current tools.
		fresh.send(lcInit(2, "2025-11-25", "c"))
		fresh.expect(lcInitResult(2, "2025-11-25"))
		fresh.run(`
			-> {"jsonrpc":"2.0","id":3,"method":"tools/list"}
			<- {"jsonrpc":"2.0","id":3,"result":{"tools":[]}}
		`)
		for _, c := range []*lcConn{ready, initialized, fresh} {
			c.finish()
		}
		// Sessions that ended are not notified.
		if err := s.AddTool(&Tool{Name: "after"}, noop); err != nil {
			t.Fatal(err)
		}
		if n := len(s.Sessions()); n != 0 {
			t.Errorf("%d sessions still registered, want 0", n)
		}
	})
}
