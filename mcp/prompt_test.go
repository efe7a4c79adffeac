package mcp

// Prompts as a client sees them on the wire: arguments from a Go struct or
// a hand-written list, prompts/list with pagination, prompts/get and its
// errors, list_changed
// (https://modelcontextprotocol.io/specification/2025-11-25/server/prompts).

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

const prCaps = `{"prompts":{"listChanged":true}}`

type prReviewArgs struct {
	Code     string  `json:"code" description:"The code to review"`
	Language string  `json:"language,omitempty" jsonschema:"the language, if not obvious" title:"Language"`
	Focus    *string `json:"focus,omitzero"`
	Style    string  // no tag: named after the field, required
	Ignored  string  `json:"-"`
	//lint:ignore U1000 an unexported field, which the schema leaves out: the case under test
	internal string
}

// prServer has a typed prompt "review" and a hand-written "greet".
func prServer(t testing.TB, opts *ServerOptions) *Server {
	t.Helper()
	s := lcNewServer(opts)
	if err := AddPrompt(s, &Prompt{Name: "review", Title: "Code review", Description: "Review some code."},
		func(_ context.Context, _ *Request, in prReviewArgs) (*GetPromptResult, error) {
			focus := "<nil>"
			if in.Focus != nil {
				focus = *in.Focus
			}
			text := fmt.Sprintf("code=%q language=%q focus=%s style=%q", in.Code, in.Language, focus, in.Style)
			return &GetPromptResult{Description: "A review", Messages: []*PromptMessage{
				{Role: RoleUser, Content: &TextContent{Text: text}},
				{Role: RoleAssistant, Content: &ImageContent{Data: "AA==", MIMEType: "image/png"}},
			}}, nil
		}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddPrompt(&Prompt{
		Name: "greet", Description: "Greets someone.",
		Icons: []Icon{{Src: "https://example.com/wave.png"}},
		Arguments: []*PromptArgument{
			{Name: "name", Required: true},
			{Name: "greeting", Description: "Hello, by default."},
		},
	}, func(_ context.Context, req *Request, p *GetPromptParams) (*GetPromptResult, error) {
		switch p.Arguments["name"] {
		case "nil":
			return nil, nil
		case "rpc":
			return nil, fmt.Errorf("wrapped: %w", jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params", "no such person"))
		case "fail":
			return nil, errors.New("out of greetings")
		}
		greeting := p.Arguments["greeting"]
		if greeting == "" {
			greeting = "Hello"
		}
		return &GetPromptResult{Messages: []*PromptMessage{{Role: RoleUser, Content: &TextContent{Text: greeting + ", " + p.Arguments["name"] + "!"}}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPromptArgumentsFromStruct(t *testing.T) {
	got, err := promptArguments(reflect.TypeFor[prReviewArgs]())
	if err != nil {
		t.Fatal(err)
	}
	want := []*PromptArgument{
		{Name: "code", Description: "The code to review", Required: true},
		{Name: "language", Title: "Language", Description: "the language, if not obvious"},
		{Name: "focus"},
		{Name: "Style", Required: true},
	}
	if !reflect.DeepEqual(got, want) {
		for _, a := range got {
			t.Logf("got %+v", *a)
		}
		t.Errorf("arguments differ from want")
	}
	type embedded struct {
		A string `json:"a"`
	}
	type outer struct {
		embedded
		B string `json:"b,omitempty"`
	}
	if got, err := promptArguments(reflect.TypeFor[outer]()); err != nil || len(got) != 2 || got[0].Name != "a" || got[1].Name != "b" {
		t.Errorf("embedded struct: %v %v", got, err)
	}
}

func TestPromptRegistrationErrors(t *testing.T) {
	s := lcNewServer(nil)
	noop := func(context.Context, *Request, *GetPromptParams) (*GetPromptResult, error) { return nil, nil }
	type withInt struct {
		N int `json:"n"`
	}
	type twice struct {
		A string `json:"X"`
		X string // also named X
	}
	typed := func(context.Context, *Request, withInt) (*GetPromptResult, error) { return nil, nil }
	for _, tc := range []struct {
		err  error
		want string
	}{
		{s.AddPrompt(&Prompt{}, noop), "mcp: a prompt needs a name"},
		{s.AddPrompt(&Prompt{Name: "p"}, nil), `mcp: prompt "p": nil handler`},
		{s.AddPrompt(&Prompt{Name: "p", Arguments: []*PromptArgument{{}}}, noop), `mcp: prompt "p": an argument has no name`},
		{s.AddPrompt(&Prompt{Name: "p", Arguments: []*PromptArgument{nil}}, noop), `mcp: prompt "p": an argument has no name`},
		{s.AddPrompt(&Prompt{Name: "p", Arguments: []*PromptArgument{{Name: "a"}, {Name: "a"}}}, noop), `mcp: prompt "p": argument "a" appears twice`},
		{AddPrompt(s, &Prompt{Name: "p"}, typed), `mcp: prompt "p": argument n (field N) has type int: prompt arguments are strings`},
		{AddPrompt(s, &Prompt{Name: "p"}, func(context.Context, *Request, twice) (*GetPromptResult, error) { return nil, nil }), `mcp: prompt "p": argument X appears twice`},
		{AddPrompt(s, &Prompt{Name: "p"}, func(context.Context, *Request, string) (*GetPromptResult, error) { return nil, nil }), `mcp: prompt "p": arguments type string must be a struct`},
		{AddPrompt[withInt](s, &Prompt{Name: "p"}, nil), `mcp: prompt "p": nil handler`},
		{AddPrompt(s, &Prompt{}, func(context.Context, *Request, struct{}) (*GetPromptResult, error) { return nil, nil }), "mcp: a prompt needs a name"},
	} {
		if tc.err == nil || tc.err.Error() != tc.want {
			t.Errorf("error = %v, want %s", tc.err, tc.want)
		}
	}
	if c := s.capabilities(); c.Prompts != nil {
		t.Errorf("failed registrations declared prompts: %+v", c.Prompts)
	}
}

func TestPromptsListAndGet(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		c := connect(prServer(t, nil))
		c.handshake("2025-11-25", rsInitResult(0, "2025-11-25", prCaps))
		c.run(`
			-> {"jsonrpc":"2.0","id":1,"method":"prompts/list"}
			<- {"jsonrpc":"2.0","id":1,"result":{"prompts":[{"name":"greet","description":"Greets someone.","arguments":[{"name":"name","required":true},{"name":"greeting","description":"Hello, by default."}],"icons":[{"src":"https://example.com/wave.png"}]},{"name":"review","title":"Code review","description":"Review some code.","arguments":[{"name":"code","description":"The code to review","required":true},{"name":"language","title":"Language","description":"the language, if not obvious"},{"name":"focus"},{"name":"Style","required":true}]}]}}
			-> {"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"review","arguments":{"code":"x := 1","Style":"terse","unknown":"ignored"}}}
			<- {"jsonrpc":"2.0","id":2,"result":{"description":"A review","messages":[{"role":"user","content":{"type":"text","text":"code=\"x := 1\" language=\"\" focus=\u003cnil\u003e style=\"terse\""}},{"role":"assistant","content":{"type":"image","data":"AA==","mimeType":"image/png"}}]}}
			-> {"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"review","arguments":{"code":"","Style":"","language":"go","focus":"naming"}}}
			<- {"jsonrpc":"2.0","id":3,"result":{"description":"A review","messages":[{"role":"user","content":{"type":"text","text":"code=\"\" language=\"go\" focus=naming style=\"\""}},{"role":"assistant","content":{"type":"image","data":"AA==","mimeType":"image/png"}}]}}
			-> {"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"greet","arguments":{"name":"Ada"}}}
			<- {"jsonrpc":"2.0","id":4,"result":{"messages":[{"role":"user","content":{"type":"text","text":"Hello, Ada!"}}]}}
			# A nil result is no messages.
			-> {"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"greet","arguments":{"name":"nil"}}}
			<- {"jsonrpc":"2.0","id":5,"result":{"messages":[]}}
		`)
		c.finish()
	})
}

func TestPromptGetErrors(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		c := connect(prServer(t, nil))
		c.handshake("2025-11-25", rsInitResult(0, "2025-11-25", prCaps))
		c.run(`
			-> {"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"nope"}}
			<- {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params","data":"Unknown prompt: nope"}}
			-> {"jsonrpc":"2.0","id":2,"method":"prompts/get"}
			<- {"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params","data":"Unknown prompt: "}}
			-> {"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"greet"}}
			<- {"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params","data":"Missing required argument for prompt greet: name"}}
			-> {"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"review","arguments":{"code":"x"}}}
			<- {"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params","data":"Missing required argument for prompt review: Style"}}
			-> {"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"greet","arguments":{"name":"rpc"}}}
			<- {"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Invalid params","data":"no such person"}}
			-> {"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"name":"greet","arguments":{"name":"fail"}}}
			<- {"jsonrpc":"2.0","id":6,"error":{"code":-32603,"message":"out of greetings"}}
			-> {"jsonrpc":"2.0","id":7,"method":"prompts/list","params":{"cursor":"nope!"}}
			<- {"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params","data":"invalid cursor: not one prompts/list issued; list again without a cursor"}}
		`)
		// Arguments are strings.
		c.send(`{"jsonrpc":"2.0","id":8,"method":"prompts/get","params":{"name":"greet","arguments":{"name":5}}}`)
		c.expect(`{"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"Invalid params","data":"invalid params: want a string, got a number at /arguments/name"}}`)
		c.finish()
	})
}

func TestPromptsMethodsNeedTheFeature(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(nil)
		c := connect(s)
		c.handshake("2025-11-25", lcInitResult(0, "2025-11-25"))
		c.run(`
			-> {"jsonrpc":"2.0","id":1,"method":"prompts/list"}
			<- {"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found","data":"prompts/list"}}
			-> {"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"x"}}
			<- {"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found","data":"prompts/get"}}
		`)
		if err := AddPrompt(s, &Prompt{Name: "p"}, func(context.Context, *Request, struct{}) (*GetPromptResult, error) { return nil, nil }); err != nil {
			t.Fatal(err)
		}
		c.expect(`{"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{}}`)
		s.RemovePrompts("p")
		c.expect(`{"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{}}`)
		c.run(`
			-> {"jsonrpc":"2.0","id":3,"method":"prompts/list"}
			<- {"jsonrpc":"2.0","id":3,"result":{"prompts":[]}}
		`)
		c.finish()
	})
	s := lcNewServer(&ServerOptions{Capabilities: &ServerCapabilities{Prompts: &ListChangedCapability{}}})
	c := lcConnectMemory(t, s)
	c.handshake("2025-11-25", rsInitResult(0, "2025-11-25", `{"prompts":{}}`))
	c.run(`
		-> {"jsonrpc":"2.0","id":1,"method":"prompts/list"}
		<- {"jsonrpc":"2.0","id":1,"result":{"prompts":[]}}
	`)
	c.finish()
}

func TestPromptsPaginationAndListChanged(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(&ServerOptions{PageSize: 2})
		noop := func(context.Context, *Request, *GetPromptParams) (*GetPromptResult, error) { return nil, nil }
		for _, n := range []string{"c", "a", "b"} {
			if err := s.AddPrompt(&Prompt{Name: n}, noop); err != nil {
				t.Fatal(err)
			}
		}
		ready := connect(s)
		ready.handshake("2025-11-25", rsInitResult(0, "2025-11-25", prCaps))
		fresh := connect(s)
		ready.run(fmt.Sprintf(`
			-> {"jsonrpc":"2.0","id":1,"method":"prompts/list"}
			<- {"jsonrpc":"2.0","id":1,"result":{"prompts":[{"name":"a"},{"name":"b"}],"nextCursor":%[1]q}}
			-> {"jsonrpc":"2.0","id":2,"method":"prompts/list","params":{"cursor":%[1]q}}
			<- {"jsonrpc":"2.0","id":2,"result":{"prompts":[{"name":"c"}]}}
		`, encodeCursor("b")))
		const changed = `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{}}`
		if err := s.AddPrompt(&Prompt{Name: "d"}, noop); err != nil {
			t.Fatal(err)
		}
		ready.expect(changed)
		if err := s.AddPrompt(&Prompt{Name: "d", Description: "v2"}, noop); err != nil {
			t.Fatal(err)
		}
		ready.expect(changed)
		s.RemovePrompts("d", "never")
		ready.expect(changed)
		s.RemovePrompts("never")
		for i, c := range []*lcConn{ready, fresh} {
			c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"fence%d","method":"ping"}`, i))
			c.expect(fmt.Sprintf(`{"jsonrpc":"2.0","id":"fence%d","result":{}}`, i))
		}
		ready.finish()
		fresh.finish()
	})
}
