package mcp

// subscriptions/listen over stream connections (stdio, in-memory): the
// acknowledgement first with the filter the server honours, then the
// notifications asked for, each tagged with the subscription id, until the
// client cancels, the input ends or the session closes
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions).

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"go.uber.org/goleak"
)

// lcListen is a subscriptions/listen request with the given id and filter.
func lcListen(id, filter string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"subscriptions/listen","params":{"_meta":` + lcModernMeta(`{}`) + `,"notifications":` + filter + `}}`
}

// lcAck is the acknowledgement of listen id with the honoured filter.
func lcAck(id, filter string) string {
	return `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":` + id + `},"notifications":` + filter + `}}`
}

// lcTagged is a list_changed notification on listen id.
func lcTagged(id, method string) string {
	return `{"jsonrpc":"2.0","method":"` + method + `","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":` + id + `}}}`
}

// lcFence sends a stateless-era tools/list with id and checks that its
// answer is the next frame: everything sent before it has been read.
func (c *lcConn) fence(id string) {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"prompts/list","params":{"_meta":` + lcModernMeta(`{}`) + `}}`)
	got := c.recv()
	if !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":`+id+`,"result":{"resultType":"complete"`) {
		c.t.Errorf("want the answer to %s, got %s", id, got)
	}
}

// lcListenServer returns a server with a tool, a prompt and a resource.
func lcListenServer(t testing.TB) *Server {
	t.Helper()
	s := lcNewServer(nil)
	lcAddEcho(t, s)
	lcAddPrompt(t, s, "p1")
	if err := s.AddResource(&Resource{URI: "test://doc", Name: "doc"}, func(context.Context, *Request, *ReadResourceParams) (*ReadResourceResult, error) {
		return &ReadResourceResult{Contents: []*ResourceContents{{Text: "x"}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	return s
}

func lcAddPrompt(t testing.TB, s *Server, name string) {
	t.Helper()
	if err := s.AddPrompt(&Prompt{Name: name}, func(context.Context, *Request, *GetPromptParams) (*GetPromptResult, error) {
		return &GetPromptResult{}, nil
	}); err != nil {
		t.Fatal(err)
	}
}

func lcNoop(context.Context, *Request, json.RawMessage) (*CallToolResult, error) { return nil, nil }

// TestListenAckAndNotifications: the acknowledgement comes first, then
// tagged notifications of the kinds asked for as the server's features
// change; what was not asked for is not sent.
func TestListenAckAndNotifications(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcListenServer(t)
		c := connect(s)
		c.send(lcListen("1", `{"toolsListChanged":true,"promptsListChanged":true}`))
		c.expect(lcAck("1", `{"toolsListChanged":true,"promptsListChanged":true}`))
		if err := s.AddTool(&Tool{Name: "late"}, lcNoop); err != nil {
			t.Fatal(err)
		}
		c.expect(lcTagged("1", "notifications/tools/list_changed"))
		lcAddPrompt(t, s, "p2")
		c.expect(lcTagged("1", "notifications/prompts/list_changed"))
		s.RemoveTools("late")
		c.expect(lcTagged("1", "notifications/tools/list_changed"))
		s.RemovePrompts("p2")
		c.expect(lcTagged("1", "notifications/prompts/list_changed"))
		// Not asked for: resource list changes and updates.
		if err := s.AddResource(&Resource{URI: "test://other", Name: "other"}, func(context.Context, *Request, *ReadResourceParams) (*ReadResourceResult, error) {
			return nil, nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := s.ResourceUpdated(context.Background(), "test://doc"); err != nil {
			t.Fatal(err)
		}
		c.fence("2")
		c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
		c.finish()
	})
}

// TestListenFilterHonoured: the acknowledgement names only what the server
// can send (no prompts: no promptsListChanged), and a stream that asked
// only for prompts does not get tool changes.
func TestListenFilterHonoured(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(nil)
		lcAddEcho(t, s)
		c := connect(s)
		c.send(lcListen(`"a"`, `{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["test://doc"]}`))
		c.expect(lcAck(`"a"`, `{"toolsListChanged":true}`))
		c.send(lcListen(`"b"`, `{"promptsListChanged":true}`))
		c.expect(lcAck(`"b"`, `{}`))
		if err := s.AddTool(&Tool{Name: "late"}, lcNoop); err != nil {
			t.Fatal(err)
		}
		c.expect(lcTagged(`"a"`, "notifications/tools/list_changed"))
		// Prompts appear after "b" was acknowledged without them: the
		// acknowledged filter stands.
		lcAddPrompt(t, s, "p")
		c.send(`{"jsonrpc":"2.0","id":"f","method":"tools/list","params":{"_meta":` + lcModernMeta(`{}`) + `}}`)
		if got := c.recv(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":"f","result":`) {
			t.Errorf("want the answer to f, got %s", got)
		}
		c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}`)
		c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"b"}}`)
		c.finish()
	})
}

// TestListenResourceUpdated: notifications/resources/updated reaches a
// stream only for the URIs it listed.
func TestListenResourceUpdated(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcListenServer(t)
		c := connect(s)
		c.send(lcListen("7", `{"resourceSubscriptions":["test://doc","test://later"]}`))
		c.expect(lcAck("7", `{"resourceSubscriptions":["test://doc","test://later"]}`))
		for _, uri := range []string{"test://doc", "test://unlisted", "test://later"} {
			if err := s.ResourceUpdated(context.Background(), uri); err != nil {
				t.Fatal(err)
			}
		}
		c.expect(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7},"uri":"test://doc"}}`)
		c.expect(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7},"uri":"test://later"}}`)
		// Not asked for: the resource list changing.
		s.RemoveResources("test://doc")
		c.fence("8")
		c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`)
		c.finish()
	})
}

// TestListenTwoAtOnce: two streams on one connection each get every
// notification, each with its own subscription id, and cancelling one
// leaves the other. It runs in a synctest bubble so that "the cancelled
// stream is gone" is a fact when the next change is made.
func TestListenTwoAtOnce(t *testing.T) {
	for _, tr := range lcTransports {
		t.Run(tr.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := lcListenServer(t)
				c := tr.connect(t, s)
				c.send(lcListen("1", `{"toolsListChanged":true}`))
				c.expect(lcAck("1", `{"toolsListChanged":true}`))
				c.send(lcListen(`"two"`, `{"toolsListChanged":true}`))
				c.expect(lcAck(`"two"`, `{"toolsListChanged":true}`))
				if err := s.AddTool(&Tool{Name: "late"}, lcNoop); err != nil {
					t.Fatal(err)
				}
				got := []string{c.recv(), c.recv()}
				slices.Sort(got)
				want := []string{lcTagged(`"two"`, "notifications/tools/list_changed"), lcTagged("1", "notifications/tools/list_changed")}
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
				}
				c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"two"}}`)
				synctest.Wait()
				if n := len(s.listeners.snapshot()); n != 1 {
					t.Errorf("%d listen streams after one was cancelled, want 1", n)
				}
				s.RemoveTools("late")
				c.expect(lcTagged("1", "notifications/tools/list_changed"))
				c.fence("3")
				c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
				c.finish()
			})
		})
	}
}

// TestListenCancelled: notifications/cancelled ends the stream without a
// response, and the server stops sending on it.
func TestListenCancelled(t *testing.T) {
	for _, tr := range lcTransports {
		t.Run(tr.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := lcListenServer(t)
				c := tr.connect(t, s)
				c.send(lcListen("1", `{"toolsListChanged":true}`))
				c.expect(lcAck("1", `{"toolsListChanged":true}`))
				c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"done"}}`)
				synctest.Wait()
				if n := len(s.listeners.snapshot()); n != 0 {
					t.Errorf("%d listen streams remain after cancellation", n)
				}
				if err := s.AddTool(&Tool{Name: "late"}, lcNoop); err != nil {
					t.Fatal(err)
				}
				c.fence("2")
				c.finish()
			})
		})
	}
}

// TestListenEndsWithInput: when the client ends its input (EOF on stdin,
// or closes the in-memory pipe) an open stream ends and the session
// with it; on stdio, where the output stays open, the server says so with
// the graceful SubscriptionsListenResult.
func TestListenEndsWithInput(t *testing.T) {
	for _, tr := range lcTransports {
		t.Run(tr.name, func(t *testing.T) {
			before := goleak.IgnoreCurrent()
			s := lcListenServer(t)
			c := tr.connect(t, s)
			c.send(lcListen("1", `{"toolsListChanged":true}`))
			c.expect(lcAck("1", `{"toolsListChanged":true}`))
			rest, err := c.end()
			if err != nil {
				t.Errorf("Wait = %v", err)
			}
			var want []string
			if tr.name == "stdio" {
				want = []string{`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"lc-server","version":"1.0.0"},"io.modelcontextprotocol/subscriptionId":1}}}`}
			}
			if !slices.Equal(rest, want) {
				t.Errorf("after the end of input the server sent\n\t%s\nwant\n\t%s", strings.Join(rest, "\n\t"), strings.Join(want, "\n\t"))
			}
			if n := len(s.listeners.snapshot()); n != 0 {
				t.Errorf("%d listen streams remain", n)
			}
			goleak.VerifyNone(t, before)
		})
	}
}

// TestListenThenEndOfInput: a stdio client that sends listen and closes
// its input at once still gets the acknowledgement and the graceful
// result, whichever of the two the server sees first.
func TestListenThenEndOfInput(t *testing.T) {
	for i := range 20 {
		s := lcListenServer(t)
		c := lcConnectStdio(t, s, 0)
		c.send(lcListen("1", `{"toolsListChanged":true}`))
		rest, err := c.end()
		if err != nil {
			t.Errorf("run %d: Wait = %v", i, err)
		}
		want := []string{
			lcAck("1", `{"toolsListChanged":true}`),
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"lc-server","version":"1.0.0"},"io.modelcontextprotocol/subscriptionId":1}}}`,
		}
		if !slices.Equal(rest, want) {
			t.Fatalf("run %d: the server sent\n\t%s\nwant\n\t%s", i, strings.Join(rest, "\n\t"), strings.Join(want, "\n\t"))
		}
	}
}

// TestListenEndsWithSession: closing the session ends its streams.
func TestListenEndsWithSession(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcListenServer(t)
		c := connect(s)
		c.send(lcListen("1", `{"toolsListChanged":true}`))
		c.expect(lcAck("1", `{"toolsListChanged":true}`))
		if err := c.ss.Close(); err != nil {
			t.Fatal(err)
		}
		if err := c.ss.Wait(); err != nil {
			t.Errorf("Wait = %v", err)
		}
		if n := len(s.listeners.snapshot()); n != 0 {
			t.Errorf("%d listen streams remain", n)
		}
		// Whether the graceful result made it out before the connection
		// closed is a race the test does not judge; nothing else may come.
		rest, _ := c.end()
		for _, f := range rest {
			if f != `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"lc-server","version":"1.0.0"},"io.modelcontextprotocol/subscriptionId":1}}}` {
				t.Errorf("after Close the server sent %s", f)
			}
		}
	})
}

// TestListenErrors: listen without _meta, without a filter, or with a bad
// one is refused.
func TestListenErrors(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcListenServer(t)
		c := connect(s)
		c.run(`
			-> {"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}
			<- {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params","data":"params._meta is required and must carry io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities"}}
			-> {"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{"_meta":` + lcModernMeta(`{}`) + `}}
			<- {"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params","data":"notifications is required: the filter of what to listen for"}}
			-> {"jsonrpc":"2.0","id":3,"method":"subscriptions/listen","params":{"_meta":` + lcModernMeta(`{}`) + `,"notifications":{"toolsListChanged":"yes"}}}
			<- {"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params","data":"invalid params: want a boolean, got a string at /notifications/toolsListChanged"}}
		`)
		if n := len(s.listeners.snapshot()); n != 0 {
			t.Errorf("%d listen streams after refusals", n)
		}
		c.finish()
	})
}

// TestListenAfterInitialize: a session-era connection can listen too, and
// gets both its session's standalone notifications and the tagged ones.
func TestListenAfterInitialize(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcListenServer(t)
		c := connect(s)
		c.handshake("2025-11-25", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}},"serverInfo":{"name":"lc-server","version":"1.0.0"}}}`)
		c.send(lcListen("1", `{"toolsListChanged":true}`))
		c.expect(lcAck("1", `{"toolsListChanged":true}`))
		if err := s.AddTool(&Tool{Name: "late"}, lcNoop); err != nil {
			t.Fatal(err)
		}
		got := []string{c.recv(), c.recv()}
		slices.Sort(got)
		want := []string{`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}`, lcTagged("1", "notifications/tools/list_changed")}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
		}
		c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
		c.finish()
	})
}
