package mcp_test

// Tests of ClientSession.Listen, the client side of subscriptions/listen.

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

const listenFrame2 = `{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{` + statelessMeta + `,"notifications":{"toolsListChanged":true,"resourceSubscriptions":["file:///a"]}}}`

// listenOptions reports list_changed and updated notifications on the
// returned channel.
func listenOptions() (*mcp.ClientOptions, chan string) {
	got := make(chan string, 16)
	return &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ClientSession) { got <- "tools" },
		PromptListChangedHandler: func(context.Context, *mcp.ClientSession) {
			got <- "prompts"
		},
		ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedParams) {
			got <- "updated " + p.URI
		},
	}, got
}

func TestListen(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	opts, got := listenOptions()
	cs, run := connectStatelessFake(t, opts, func(f string) []string {
		if f != listenFrame2 {
			return nil
		}
		return []string{
			// The acknowledgement honours part of the filter.
			`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2},"notifications":{"toolsListChanged":true}}}`,
			// Another subscription's notification is dropped, this
			// one's delivered.
			`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":99},"uri":"file:///a"}}`,
			`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}`,
			`{"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}`,
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	sub, err := cs.Listen(ctx, &mcp.SubscriptionFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"file:///a"}})
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	if id, _ := sub.ID().Int64(); id != 2 {
		t.Errorf("ID() = %v, want 2", sub.ID())
	}
	jsonEqual(t, "Acknowledged", sub.Acknowledged(), `{"toolsListChanged":true}`)
	if a, b := recvWithin(t, got, "a notification"), recvWithin(t, got, "a notification"); a != "tools" || b != "prompts" {
		t.Errorf("handlers got %q, %q; want tools, prompts (the other subscription's update dropped)", a, b)
	}
	if err := sub.Err(); err != nil {
		t.Errorf("Err() while open = %v", err)
	}
	cancel()
	<-sub.Done()
	if err := sub.Err(); err != nil {
		t.Errorf("Err() after the client ended it = %v, want nil", err)
	}
	cs.Close()
	// On a stream transport the client ends it with notifications/cancelled.
	wantFrames(t, run.frames(), discoverFrame1, listenFrame2,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"context canceled"}}`)
}

func TestListenEndedByServer(t *testing.T) {
	for _, tc := range []struct{ name, end string }{
		{"result", `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":2}}}`},
		{"notifications/cancelled", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			ended := make(chan struct{})
			cs, run := connectStatelessFake(t, nil, func(f string) []string {
				if strings.Contains(f, "subscriptions/listen") {
					return []string{`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2},"notifications":{}}}`}
				}
				if strings.Contains(f, `"method":"tools/list"`) {
					<-ended
					return []string{tc.end, `{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}`}
				}
				return nil
			})
			defer cs.Close()
			sub, err := cs.Listen(context.Background(), &mcp.SubscriptionFilter{PromptsListChanged: true})
			if err != nil {
				t.Fatalf("Listen: %v", err)
			}
			jsonEqual(t, "Acknowledged", sub.Acknowledged(), `{}`)
			close(ended)
			if _, err := cs.ListTools(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			<-sub.Done()
			if err := sub.Err(); !errors.Is(err, mcp.ErrListenEnded) {
				t.Errorf("Err() = %v, want ErrListenEnded", err)
			}
			cs.Close()
			if frames := run.frames(); len(frames) != 3 {
				t.Errorf("frames = %q, want discover, listen and tools/list (nothing cancelled)", frames)
			}
		})
	}
}

func TestListenRefused(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cs, run := connectStatelessFake(t, nil, func(f string) []string {
		return []string{`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}`}
	})
	_, err := cs.Listen(context.Background(), &mcp.SubscriptionFilter{ToolsListChanged: true})
	wantRPCError(t, err, jsonrpc.CodeMethodNotFound, "Method not found", "")
	cs.Close()
	run.frames()
}

func TestListenSessionEnds(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cs, run := connectStatelessFake(t, nil, func(f string) []string {
		return []string{`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2},"notifications":{"toolsListChanged":true}}}`}
	})
	sub, err := cs.Listen(context.Background(), &mcp.SubscriptionFilter{ToolsListChanged: true})
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	cs.Close() // waits for the subscription to end
	select {
	case <-sub.Done():
	default:
		t.Fatal("the subscription outlived Close")
	}
	if err := sub.Err(); !errors.Is(err, mcp.ErrSessionClosed) {
		t.Errorf("Err() = %v, want ErrSessionClosed", err)
	}
	run.frames()
	if _, err := cs.Listen(context.Background(), nil); !errors.Is(err, mcp.ErrSessionClosed) {
		t.Errorf("Listen on a closed session: %v, want ErrSessionClosed", err)
	}
}

func TestListenSessionEra(t *testing.T) {
	cs := connectEra(t, newToolServer(t, nil), &mcp.ClientOptions{ProtocolEra: mcp.EraSession})
	if _, err := cs.Listen(context.Background(), nil); !errors.Is(err, mcp.ErrWrongEra) || err.Error() != "mcp: Listen: mcp: only available in the stateless era (2026-07-28)" {
		t.Errorf("Listen on a session-era session: %v, want ErrWrongEra", err)
	}
	if _, err := cs.Discover(context.Background()); !errors.Is(err, mcp.ErrWrongEra) || err.Error() != "mcp: only available in the stateless era (2026-07-28)" {
		t.Errorf("Discover on a session-era session: %v, want ErrWrongEra", err)
	}
}

// Against mcpkit's own server: a tool added while a subscription listens
// reaches ToolListChangedHandler; ending the subscription ends the
// server's listen handler (goleak).
func TestListenAgainstMcpkitServer(t *testing.T) {
	s := newToolServer(t, nil)
	opts, got := listenOptions()
	cs := connectEra(t, s, opts)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sub, err := cs.Listen(ctx, &mcp.SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true})
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	// The server has tools (with listChanged) and no prompts.
	jsonEqual(t, "Acknowledged", sub.Acknowledged(), `{"toolsListChanged":true}`)
	if err := s.AddTool(&mcp.Tool{Name: "new"}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	if n := recvWithin(t, got, "tools/list_changed"); n != "tools" {
		t.Errorf("handler got %q", n)
	}
	if err := sub.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := sub.Err(); err != nil {
		t.Errorf("Err() = %v", err)
	}
}
