package mcp

// Completion as a client sees it on the wire: prompt arguments and
// template variables, the context of arguments already chosen, the cap of
// 100 values, and the errors
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// cpServer has the prompts of prServer, the resources of rsServer and a
// completion handler that answers by argument:
//   - language: languages starting with the value;
//   - greeting: depends on context.arguments["name"];
//   - id (template variable): 250 ids, so that the server must cut;
//   - code: fails.
func cpServer(t testing.TB) *Server {
	t.Helper()
	s := lcNewServer(&ServerOptions{CompletionHandler: func(_ context.Context, _ *Request, p *CompleteParams) (*CompleteResult, error) {
		switch p.Argument.Name {
		case "language":
			return CompletionValues([]string{"go", "python", "pytorch", "pyside"}, p.Argument.Value), nil
		case "greeting":
			name := ""
			if p.Context != nil {
				name = p.Context.Arguments["name"]
			}
			return &CompleteResult{Completion: Completion{Values: []string{"Hello " + name, "Hi " + name}}}, nil
		case "id":
			ids := make([]string, 250)
			for i := range ids {
				ids[i] = strconv.Itoa(i)
			}
			return &CompleteResult{Completion: Completion{Values: ids}}, nil
		case "name":
			return nil, nil
		case "Style":
			return &CompleteResult{Completion: Completion{Values: make([]string, 120), Total: 1000, HasMore: true}}, nil
		}
		return nil, errors.New("no completions for " + p.Argument.Name)
	}})
	for _, src := range []*Server{prServer(t, nil), rsServer(t, nil)} {
		src.mu.RLock()
		for _, k := range src.prm.prompts.keys {
			sp := src.prm.prompts.byKey[k]
			if err := s.AddPrompt(sp.prompt, sp.handler); err != nil {
				t.Fatal(err)
			}
		}
		for _, k := range src.res.templates.keys {
			st := src.res.templates.byKey[k]
			if err := s.AddResourceTemplate(st.template, st.handler); err != nil {
				t.Fatal(err)
			}
		}
		src.mu.RUnlock()
	}
	return s
}

const cpCaps = `{"completions":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true}}`

func TestCompletion(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		c := connect(cpServer(t))
		c.handshake("2025-11-25", rsInitResult(0, "2025-11-25", cpCaps))
		c.run(`
			-> {"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"language","value":"py"}}}
			<- {"jsonrpc":"2.0","id":1,"result":{"completion":{"values":["python","pytorch","pyside"],"total":3}}}
			-> {"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"language","value":"rust"}}}
			<- {"jsonrpc":"2.0","id":2,"result":{"completion":{"values":[]}}}
			# The arguments already chosen reach the handler.
			-> {"jsonrpc":"2.0","id":3,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"greeting","value":""},"context":{"arguments":{"name":"Ada"}}}}
			<- {"jsonrpc":"2.0","id":3,"result":{"completion":{"values":["Hello Ada","Hi Ada"]}}}
			# A nil result is no values.
			-> {"jsonrpc":"2.0","id":4,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"A"}}}
			<- {"jsonrpc":"2.0","id":4,"result":{"completion":{"values":[]}}}
		`)
		// A template variable, with more values than one result may carry:
		// the server sends the first 100 and says how many there are.
		c.send(`{"jsonrpc":"2.0","id":5,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"test://items/{id}"},"argument":{"name":"id","value":""}}}`)
		var resp struct {
			Result CompleteResult `json:"result"`
		}
		if raw := c.recv(); json.Unmarshal([]byte(raw), &resp) != nil {
			t.Fatalf("completion/complete answered %s", raw)
		}
		got := resp.Result.Completion
		if len(got.Values) != 100 || got.Values[0] != "0" || got.Values[99] != "99" || got.Total != 250 || !got.HasMore {
			t.Errorf("completion = %d values (%v...), total %d, hasMore %v; want 100 values 0..99, total 250, hasMore", len(got.Values), got.Values[:min(3, len(got.Values))], got.Total, got.HasMore)
		}
		// The handler's own total is kept when it is larger.
		c.send(`{"jsonrpc":"2.0","id":6,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"Style","value":""}}}`)
		if raw := c.recv(); json.Unmarshal([]byte(raw), &resp) != nil || len(resp.Result.Completion.Values) != 100 || resp.Result.Completion.Total != 1000 || !resp.Result.Completion.HasMore {
			t.Errorf("completion/complete answered %s", raw)
		}
		c.finish()
	})
}

func TestCompletionErrors(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		c := connect(cpServer(t))
		c.handshake("2025-11-25", rsInitResult(0, "2025-11-25", cpCaps))
		for i, tc := range []struct{ params, data string }{
			{`{"ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"a","value":""}}`, "Unknown prompt: nope"},
			{`{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"nope","value":""}}`, "Unknown argument for prompt review: nope"},
			{`{"ref":{"type":"ref/resource","uri":"test://nope/{id}"},"argument":{"name":"id","value":""}}`, "Unknown resource template: test://nope/{id}"},
			// A static resource is no template.
			{`{"ref":{"type":"ref/resource","uri":"test://text"},"argument":{"name":"id","value":""}}`, "Unknown resource template: test://text"},
			{`{"ref":{"type":"ref/resource","uri":"test://items/{id}"},"argument":{"name":"nope","value":""}}`, "Unknown variable for resource template test://items/{id}: nope"},
			{`{"ref":{"type":"ref/tool","name":"x"},"argument":{"name":"a","value":""}}`, `unknown ref type "ref/tool": want ref/prompt or ref/resource`},
			{`{"argument":{"name":"a","value":""}}`, "missing ref"},
			{`{"ref":{"type":"ref/prompt","name":"review"}}`, "missing argument name"},
		} {
			c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"completion/complete","params":%s}`, i, tc.params))
			data, _ := json.Marshal(tc.data)
			c.expect(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32602,"message":"Invalid params","data":%s}}`, i, data))
		}
		c.run(`
			-> {"jsonrpc":"2.0","id":20,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"code","value":""}}}
			<- {"jsonrpc":"2.0","id":20,"error":{"code":-32603,"message":"no completions for code"}}
		`)
		c.send(`{"jsonrpc":"2.0","id":21,"method":"completion/complete","params":{"ref":"prompt"}}`)
		if r := c.recv(); !strings.HasPrefix(r, `{"jsonrpc":"2.0","id":21,"error":{"code":-32602,"message":"Invalid params","data":"invalid params: `) {
			t.Errorf("a string ref was answered %s, want -32602", r)
		}
		c.finish()
	})
}

// Without a CompletionHandler the server declares no completions and the
// method does not exist.
func TestCompletionNeedsAHandler(t *testing.T) {
	c := lcConnectMemory(t, prServer(t, nil))
	c.handshake("2025-11-25", rsInitResult(0, "2025-11-25", prCaps))
	c.run(`
		-> {"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":""}}}
		<- {"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found","data":"completion/complete"}}
	`)
	c.finish()
}

func TestCompletionValues(t *testing.T) {
	got := CompletionValues([]string{"b", "ab", "abc", "a"}, "a")
	if strings.Join(got.Completion.Values, ",") != "ab,abc,a" || got.Completion.Total != 3 || got.Completion.HasMore {
		t.Errorf("CompletionValues = %+v", got.Completion)
	}
	if got := CompletionValues(nil, ""); got.Completion.Values == nil || len(got.Completion.Values) != 0 {
		t.Errorf("CompletionValues(nil) = %#v, want an empty, non-nil list", got.Completion.Values)
	}
}
