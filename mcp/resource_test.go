package mcp

// Resources and resource templates as a client sees them on the wire:
// listing with pagination, reads of text and blobs, templates, the errors,
// subscriptions and list_changed
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources).

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// rsInitResult is the answer to initialize from a server with the given
// capabilities (raw JSON).
func rsInitResult(id int, version, caps string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"protocolVersion":%q,"capabilities":%s,"serverInfo":{"name":"lc-server","version":"1.0.0"}}}`, id, version, caps)
}

const rsCaps = `{"resources":{"subscribe":true,"listChanged":true}}`

// rsServer has a text resource, a blob resource, a resource whose handler
// fails, and a template test://items/{id}.
func rsServer(t testing.TB, opts *ServerOptions) *Server {
	t.Helper()
	s := lcNewServer(opts)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	size := int64(5)
	priority := 0.5
	must(s.AddResource(&Resource{
		URI: "test://text", Name: "text", Title: "Some text", Description: "A text resource.",
		MIMEType: "text/plain", Size: &size,
		Annotations: &Annotations{Audience: []string{"user"}, Priority: &priority},
	}, func(_ context.Context, _ *Request, p *ReadResourceParams) (*ReadResourceResult, error) {
		// No URI and no MIME type: the server fills them in.
		return &ReadResourceResult{Contents: []*ResourceContents{{Text: "hello"}}}, nil
	}))
	must(s.AddResource(&Resource{URI: "test://blob", Name: "blob", MIMEType: "application/octet-stream"},
		func(_ context.Context, _ *Request, p *ReadResourceParams) (*ReadResourceResult, error) {
			return &ReadResourceResult{Contents: []*ResourceContents{{URI: p.URI, MIMEType: "image/png", Blob: "aGVsbG8="}}}, nil
		}))
	must(s.AddResource(&Resource{URI: "test://broken", Name: "broken"},
		func(_ context.Context, _ *Request, p *ReadResourceParams) (*ReadResourceResult, error) {
			if p.Variables != nil {
				return nil, errors.New("variables for a static resource")
			}
			return nil, errors.New("the disk is gone")
		}))
	must(s.AddResourceTemplate(&ResourceTemplate{URITemplate: "test://items/{id}", Name: "item", MIMEType: "application/json"},
		func(_ context.Context, _ *Request, p *ReadResourceParams) (*ReadResourceResult, error) {
			id := p.Variables["id"]
			switch id {
			case "missing":
				return nil, ResourceNotFoundError(p.URI)
			case "denied":
				return nil, fmt.Errorf("wrapped: %w", jsonrpc.NewError(-32001, "Denied", nil))
			}
			return &ReadResourceResult{Contents: []*ResourceContents{{Text: `{"id":"` + id + `"}`}}}, nil
		}))
	return s
}

func TestResourcesListAndRead(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		c := connect(rsServer(t, nil))
		c.handshake("2025-11-25", rsInitResult(0, "2025-11-25", rsCaps))
		c.run(`
			-> {"jsonrpc":"2.0","id":1,"method":"resources/list"}
			<- {"jsonrpc":"2.0","id":1,"result":{"resources":[{"uri":"test://blob","name":"blob","mimeType":"application/octet-stream"},{"uri":"test://broken","name":"broken"},{"uri":"test://text","name":"text","title":"Some text","description":"A text resource.","mimeType":"text/plain","size":5,"annotations":{"audience":["user"],"priority":0.5}}]}}
			-> {"jsonrpc":"2.0","id":2,"method":"resources/templates/list","params":{}}
			<- {"jsonrpc":"2.0","id":2,"result":{"resourceTemplates":[{"uriTemplate":"test://items/{id}","name":"item","mimeType":"application/json"}]}}
			# Text: URI and MIME type filled in from the resource.
			-> {"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"test://text"}}
			<- {"jsonrpc":"2.0","id":3,"result":{"contents":[{"uri":"test://text","mimeType":"text/plain","text":"hello"}]}}
			# A blob, with the handler's own MIME type.
			-> {"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"test://blob"}}
			<- {"jsonrpc":"2.0","id":4,"result":{"contents":[{"uri":"test://blob","mimeType":"image/png","blob":"aGVsbG8="}]}}
			# A template, its variable decoded from the URI.
			-> {"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"test://items/42"}}
			<- {"jsonrpc":"2.0","id":5,"result":{"contents":[{"uri":"test://items/42","mimeType":"application/json","text":"{\"id\":\"42\"}"}]}}
			-> {"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"test://items/a%20b"}}
			<- {"jsonrpc":"2.0","id":6,"result":{"contents":[{"uri":"test://items/a%20b","mimeType":"application/json","text":"{\"id\":\"a b\"}"}]}}
		`)
		c.finish()
	})
}

func TestResourcesReadErrors(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		c := connect(rsServer(t, nil))
		c.handshake("2025-11-25", rsInitResult(0, "2025-11-25", rsCaps))
		c.run(`
			# Unknown URIs: -32002 with the URI in data.
			-> {"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"test://nope"}}
			<- {"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"test://nope"}}}
			# The template's variable matches no slash.
			-> {"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"test://items/a/b"}}
			<- {"jsonrpc":"2.0","id":2,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"test://items/a/b"}}}
			# The template's handler says the id names nothing.
			-> {"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"test://items/missing"}}
			<- {"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"test://items/missing"}}}
			# A wrapped protocol error from the handler is sent as it is.
			-> {"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"test://items/denied"}}
			<- {"jsonrpc":"2.0","id":4,"error":{"code":-32001,"message":"Denied"}}
			# Any other error is -32603 with its text.
			-> {"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"test://broken"}}
			<- {"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"the disk is gone"}}
			# Missing or malformed uri.
			-> {"jsonrpc":"2.0","id":6,"method":"resources/read","params":{}}
			<- {"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Invalid params","data":"missing uri"}}
			-> {"jsonrpc":"2.0","id":7,"method":"resources/read"}
			<- {"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params","data":"missing uri"}}
			-> {"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"test://x/%zz"}}
			<- {"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"Invalid params","data":"invalid uri: parse \"test://x/%zz\": invalid URL escape \"%zz\""}}
			-> {"jsonrpc":"2.0","id":9,"method":"resources/list","params":{"cursor":"nope!"}}
			<- {"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"Invalid params","data":"invalid cursor: not one resources/list issued; list again without a cursor"}}
			-> {"jsonrpc":"2.0","id":10,"method":"resources/templates/list","params":{"cursor":"nope!"}}
			<- {"jsonrpc":"2.0","id":10,"error":{"code":-32602,"message":"Invalid params","data":"invalid cursor: not one resources/templates/list issued; list again without a cursor"}}
		`)
		c.send(`{"jsonrpc":"2.0","id":11,"method":"resources/read","params":{"uri":7}}`)
		if r := c.recv(); !strings.HasPrefix(r, `{"jsonrpc":"2.0","id":11,"error":{"code":-32602,"message":"Invalid params","data":"invalid params: `) {
			t.Errorf("a number for uri was answered %s, want -32602", r)
		}
		c.finish()
	})
}

// A server that never had resources answers their methods with -32601, as
// for any feature it does not offer; once it had one, the methods stay
// served when everything is removed, and the capability follows what is
// registered.
func TestResourcesMethodsNeedTheFeature(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(nil)
		c := connect(s)
		c.handshake("2025-11-25", lcInitResult(0, "2025-11-25"))
		for i, m := range []string{"resources/list", "resources/templates/list", "resources/read", "resources/subscribe", "resources/unsubscribe"} {
			c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{"uri":"test://x"}}`, i, m))
			c.expect(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32601,"message":"Method not found","data":%q}}`, i, m))
		}
		if err := s.AddResourceTemplate(&ResourceTemplate{URITemplate: "test://t/{x}", Name: "t"}, func(context.Context, *Request, *ReadResourceParams) (*ReadResourceResult, error) {
			return nil, nil
		}); err != nil {
			t.Fatal(err)
		}
		c.expect(`{"jsonrpc":"2.0","method":"notifications/resources/list_changed","params":{}}`)
		c.run(`
			-> {"jsonrpc":"2.0","id":10,"method":"resources/list"}
			<- {"jsonrpc":"2.0","id":10,"result":{"resources":[]}}
			# A nil result from a handler is no contents.
			-> {"jsonrpc":"2.0","id":11,"method":"resources/read","params":{"uri":"test://t/1"}}
			<- {"jsonrpc":"2.0","id":11,"result":{"contents":[]}}
		`)
		s.RemoveResourceTemplates("test://t/{x}")
		c.expect(`{"jsonrpc":"2.0","method":"notifications/resources/list_changed","params":{}}`)
		c.run(`
			-> {"jsonrpc":"2.0","id":12,"method":"resources/templates/list"}
			<- {"jsonrpc":"2.0","id":12,"result":{"resourceTemplates":[]}}
		`)
		// A new session is told what is registered now: no resources.
		fresh := connect(s)
		fresh.handshake("2025-11-25", lcInitResult(0, "2025-11-25"))
		c.finish()
		fresh.finish()
	})
}

// Configured capabilities that declare resources make the methods served
// even before any resource exists.
func TestResourcesDeclaredByCapabilities(t *testing.T) {
	s := lcNewServer(&ServerOptions{Capabilities: &ServerCapabilities{Resources: &ResourcesCapability{}}})
	c := lcConnectMemory(t, s)
	c.handshake("2025-11-25", rsInitResult(0, "2025-11-25", `{"resources":{}}`))
	c.run(`
		-> {"jsonrpc":"2.0","id":1,"method":"resources/list"}
		<- {"jsonrpc":"2.0","id":1,"result":{"resources":[]}}
	`)
	c.finish()
}

func TestResourcesPagination(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(&ServerOptions{PageSize: 2})
		noop := func(context.Context, *Request, *ReadResourceParams) (*ReadResourceResult, error) { return nil, nil }
		for _, n := range []string{"c", "a", "b"} {
			if err := s.AddResource(&Resource{URI: "test://" + n, Name: n}, noop); err != nil {
				t.Fatal(err)
			}
			if err := s.AddResourceTemplate(&ResourceTemplate{URITemplate: "test://" + n + "/{x}", Name: n}, noop); err != nil {
				t.Fatal(err)
			}
		}
		c := connect(s)
		c.handshake("2025-11-25", rsInitResult(0, "2025-11-25", rsCaps))
		c.run(fmt.Sprintf(`
			-> {"jsonrpc":"2.0","id":1,"method":"resources/list"}
			<- {"jsonrpc":"2.0","id":1,"result":{"resources":[{"uri":"test://a","name":"a"},{"uri":"test://b","name":"b"}],"nextCursor":%[1]q}}
			-> {"jsonrpc":"2.0","id":2,"method":"resources/list","params":{"cursor":%[1]q}}
			<- {"jsonrpc":"2.0","id":2,"result":{"resources":[{"uri":"test://c","name":"c"}]}}
			-> {"jsonrpc":"2.0","id":3,"method":"resources/templates/list"}
			<- {"jsonrpc":"2.0","id":3,"result":{"resourceTemplates":[{"uriTemplate":"test://a/{x}","name":"a"},{"uriTemplate":"test://b/{x}","name":"b"}],"nextCursor":%[2]q}}
			-> {"jsonrpc":"2.0","id":4,"method":"resources/templates/list","params":{"cursor":%[2]q}}
			<- {"jsonrpc":"2.0","id":4,"result":{"resourceTemplates":[{"uriTemplate":"test://c/{x}","name":"c"}]}}
		`, encodeCursor("test://b"), encodeCursor("test://b/{x}")))
		c.finish()
	})
}

func TestResourceRegistrationErrors(t *testing.T) {
	s := lcNewServer(nil)
	noop := func(context.Context, *Request, *ReadResourceParams) (*ReadResourceResult, error) { return nil, nil }
	for _, tc := range []struct {
		err  error
		want string
	}{
		{s.AddResource(&Resource{URI: "relative/path", Name: "x"}, noop), `mcp: invalid resource URI "relative/path": not absolute (no scheme)`},
		{s.AddResource(&Resource{URI: "", Name: "x"}, noop), `mcp: invalid resource URI "": not absolute (no scheme)`},
		{s.AddResource(&Resource{URI: "test://x/%zz", Name: "x"}, noop), `mcp: invalid resource URI "test://x/%zz": parse "test://x/%zz": invalid URL escape "%zz"`},
		{s.AddResource(&Resource{URI: "test://x"}, noop), `mcp: resource "test://x": a name is required`},
		{s.AddResource(&Resource{URI: "test://x", Name: "x"}, nil), `mcp: resource "test://x": nil handler`},
		{s.AddResourceTemplate(&ResourceTemplate{URITemplate: "test://{x", Name: "x"}, noop), `mcp: resource template "test://{x": incomplete expression: test://{x_`},
		{s.AddResourceTemplate(&ResourceTemplate{URITemplate: "test://{x}"}, noop), `mcp: resource template "test://{x}": a name is required`},
		{s.AddResourceTemplate(&ResourceTemplate{URITemplate: "test://{x}", Name: "x"}, nil), `mcp: resource template "test://{x}": nil handler`},
	} {
		if tc.err == nil || tc.err.Error() != tc.want {
			t.Errorf("error = %v, want %s", tc.err, tc.want)
		}
	}
	if c := s.capabilities(); c.Resources != nil {
		t.Errorf("failed registrations declared resources: %+v", c.Resources)
	}
}

// Subscriptions live in the session's state (and its store); updates go
// only to the sessions subscribed to that URI.
func TestResourceSubscriptions(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		store := &memorySessionStore{}
		s := rsServer(t, &ServerOptions{SessionStore: store})
		a := connect(s)
		a.handshake("2025-11-25", rsInitResult(0, "2025-11-25", rsCaps))
		b := connect(s)
		b.handshake("2025-11-25", rsInitResult(0, "2025-11-25", rsCaps))
		a.run(`
			-> {"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"test://text"}}
			<- {"jsonrpc":"2.0","id":1,"result":{}}
			# Subscribing twice changes nothing.
			-> {"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://text"}}
			<- {"jsonrpc":"2.0","id":2,"result":{}}
			# A URI a template matches may be subscribed to.
			-> {"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"test://items/7"}}
			<- {"jsonrpc":"2.0","id":3,"result":{}}
			-> {"jsonrpc":"2.0","id":4,"method":"resources/subscribe","params":{"uri":"test://blob"}}
			<- {"jsonrpc":"2.0","id":4,"result":{}}
			# Unknown and missing URIs.
			-> {"jsonrpc":"2.0","id":5,"method":"resources/subscribe","params":{"uri":"test://nope"}}
			<- {"jsonrpc":"2.0","id":5,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"test://nope"}}}
			-> {"jsonrpc":"2.0","id":6,"method":"resources/subscribe","params":{}}
			<- {"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Invalid params","data":"missing uri"}}
			-> {"jsonrpc":"2.0","id":7,"method":"resources/unsubscribe","params":{}}
			<- {"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params","data":"missing uri"}}
		`)
		b.run(`
			-> {"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"test://blob"}}
			<- {"jsonrpc":"2.0","id":1,"result":{}}
		`)
		if got := strings.Join(a.ss.State().Subscriptions, " "); got != "test://blob test://items/7 test://text" {
			t.Errorf("a's subscriptions = %q", got)
		}

		ctx := context.Background()
		if err := s.ResourceUpdated(ctx, "test://text"); err != nil {
			t.Fatal(err)
		}
		a.expect(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://text"}}`)
		if err := s.ResourceUpdated(ctx, "test://blob"); err != nil {
			t.Fatal(err)
		}
		a.expect(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://blob"}}`)
		b.expect(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://blob"}}`)
		// Nobody subscribed to these.
		if err := s.ResourceUpdated(ctx, "test://items/8"); err != nil {
			t.Fatal(err)
		}
		if err := s.ResourceUpdated(ctx, "test://never"); err != nil {
			t.Fatal(err)
		}

		a.run(`
			-> {"jsonrpc":"2.0","id":10,"method":"resources/unsubscribe","params":{"uri":"test://text"}}
			<- {"jsonrpc":"2.0","id":10,"result":{}}
			# Unsubscribing from what is not subscribed (or gone) is fine.
			-> {"jsonrpc":"2.0","id":11,"method":"resources/unsubscribe","params":{"uri":"test://text"}}
			<- {"jsonrpc":"2.0","id":11,"result":{}}
			-> {"jsonrpc":"2.0","id":12,"method":"resources/unsubscribe","params":{"uri":"test://gone"}}
			<- {"jsonrpc":"2.0","id":12,"result":{}}
		`)
		if err := s.ResourceUpdated(ctx, "test://text"); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(a.ss.State().Subscriptions, " "); got != "test://blob test://items/7" {
			t.Errorf("a's subscriptions after unsubscribe = %q", got)
		}
		// The fences show that no notification came for test://text, nor
		// for the URIs nobody subscribed to.
		for i, c := range []*lcConn{a, b} {
			c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"fence%d","method":"ping"}`, i))
			c.expect(fmt.Sprintf(`{"jsonrpc":"2.0","id":"fence%d","result":{}}`, i))
		}
		a.finish()
		b.finish()
	})
}

// With a session id (as Streamable HTTP gives, which creates the
// session in the store itself), subscriptions are recorded in the
// SessionStore as they change.
func TestResourceSubscriptionsSaved(t *testing.T) {
	store := &memorySessionStore{}
	s := rsServer(t, &ServerOptions{SessionStore: store})
	ctx := context.Background()
	if err := store.Create(ctx, &SessionState{ID: "sess-1", Lifecycle: stateReady}); err != nil {
		t.Fatal(err)
	}
	ss := s.newSession(SessionOptions{ID: "sess-1", Preinitialized: true, TransportStores: true})
	defer ss.Close()
	call := func(id int64, method, params string) string {
		t.Helper()
		resp, err := ss.handleRequest(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(id), Method: method, Params: []byte(params)}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := jsonrpc.Encode(resp)
		if err != nil {
			t.Fatal(err)
		}
		return string(raw)
	}
	if got := call(1, "resources/subscribe", `{"uri":"test://text"}`); got != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("subscribe = %s", got)
	}
	call(2, "resources/subscribe", `{"uri":"test://blob"}`)
	st, err := store.Load(ctx, "", "sess-1")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(st.Subscriptions, " "); got != "test://blob test://text" {
		t.Errorf("stored subscriptions = %q", got)
	}
	call(3, "resources/unsubscribe", `{"uri":"test://text"}`)
	if st, _ = store.Load(ctx, "", "sess-1"); strings.Join(st.Subscriptions, " ") != "test://blob" {
		t.Errorf("stored subscriptions after unsubscribe = %q", st.Subscriptions)
	}
}

// list_changed goes to initialized sessions on every add, replace and
// remove of a resource or template, and not for removing nothing.
func TestResourceListChanged(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := rsServer(t, nil)
		ready := connect(s)
		ready.handshake("2025-11-25", rsInitResult(0, "2025-11-25", rsCaps))
		fresh := connect(s)
		noop := func(context.Context, *Request, *ReadResourceParams) (*ReadResourceResult, error) { return nil, nil }
		const changed = `{"jsonrpc":"2.0","method":"notifications/resources/list_changed","params":{}}`
		for _, f := range []func() error{
			func() error { return s.AddResource(&Resource{URI: "test://new", Name: "new"}, noop) },
			func() error { return s.AddResource(&Resource{URI: "test://new", Name: "new v2"}, noop) },
			func() error { s.RemoveResources("test://new", "test://never"); return nil },
			func() error {
				return s.AddResourceTemplate(&ResourceTemplate{URITemplate: "test://n/{x}", Name: "n"}, noop)
			},
			func() error { s.RemoveResourceTemplates("test://n/{x}"); return nil },
		} {
			if err := f(); err != nil {
				t.Fatal(err)
			}
			ready.expect(changed)
		}
		s.RemoveResources("test://never")
		s.RemoveResourceTemplates("test://never/{x}")
		for i, c := range []*lcConn{ready, fresh} {
			c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"fence%d","method":"ping"}`, i))
			c.expect(fmt.Sprintf(`{"jsonrpc":"2.0","id":"fence%d","result":{}}`, i))
		}
		ready.finish()
		fresh.finish()
	})
}

// A handler's contents are never written to: the server fills in URIs and
// MIME types on copies, so a result shared between reads stays as it was.
func TestResourceContentsNotMutated(t *testing.T) {
	shared := &ReadResourceResult{Contents: []*ResourceContents{{Text: "a"}, {URI: "test://other", MIMEType: "text/x", Text: "b"}}}
	got := completeContents(shared, "test://r", "text/plain")
	if shared.Contents[0].URI != "" || shared.Contents[0].MIMEType != "" {
		t.Errorf("the handler's contents were changed: %+v", shared.Contents[0])
	}
	if got.Contents[0].URI != "test://r" || got.Contents[0].MIMEType != "text/plain" || got.Contents[1] != shared.Contents[1] {
		t.Errorf("completed contents = %+v %+v", got.Contents[0], got.Contents[1])
	}
	// Nothing to fill in: the result itself.
	if full := completeContents(got, "test://r", "text/plain"); full != got {
		t.Error("a complete result was copied")
	}
}
