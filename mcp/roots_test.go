package mcp_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
)

var testRoots = []*mcp.Root{
	{URI: "file:///home/user/repos/frontend", Name: "Frontend Repository"},
	{URI: "file:///home/user/repos/backend"},
}

func rootsText(t *testing.T, res *mcp.ListRootsResult, err error) (string, error) {
	t.Helper()
	if err != nil {
		return "", err
	}
	return string(askJSON(t, res)), nil
}

// TestListRoots: the server gets the client's roots, exactly.
func TestListRoots(t *testing.T) {
	s := askServer(t, nil, func(ctx context.Context, req *mcp.Request) (string, error) {
		res, err := req.ListRoots(ctx, nil)
		return rootsText(t, res, err)
	})
	p := connectClient(t, s, &mcp.ClientOptions{Roots: testRoots})
	text, isErr := askCall(t, p.cs)
	if want := `{"roots":[{"uri":"file:///home/user/repos/frontend","name":"Frontend Repository"},{"uri":"file:///home/user/repos/backend"}]}`; isErr || text != want {
		t.Errorf("tool = %s (isError %v), want %s", text, isErr, want)
	}
}

// TestListRootsEmpty: a client that serves roots but has none answers an
// empty list, not null.
func TestListRootsEmpty(t *testing.T) {
	p := askPeer(t, &mcp.ClientOptions{Roots: []*mcp.Root{}})
	if got, want := askCaps(t, p), `{"roots":{"listChanged":true}}`; got != want {
		t.Errorf("capabilities %s, want %s", got, want)
	}
	if got, want := string(askPeerCall(p, "1", "roots/list", "")), `{"jsonrpc":"2.0","id":1,"result":{"roots":[]}}`; got != want {
		t.Errorf("roots/list answered %s, want %s", got, want)
	}
	if got, want := string(askPeerCall(p, "2", "roots/list", `{"_meta":{"progressToken":"t"}}`)), `{"jsonrpc":"2.0","id":2,"result":{"roots":[]}}`; got != want {
		t.Errorf("roots/list answered %s, want %s", got, want)
	}
}

// TestListRootsRefusedWithoutCapability: nothing is sent to a client that
// did not declare roots.
func TestListRootsRefusedWithoutCapability(t *testing.T) {
	errc := make(chan error, 1)
	s := askServer(t, nil, func(ctx context.Context, req *mcp.Request) (string, error) {
		_, err := req.ListRoots(ctx, &mcp.ListRootsParams{})
		errc <- err
		return "", err
	})
	c := askRaw(t, s, `{"sampling":{},"elicitation":{}}`)
	frame := askRawTool(c)
	if err := <-errc; !errors.Is(err, mcp.ErrCapabilityNotDeclared) || err.Error() != "mcp: roots/list not sent: the client did not declare the roots capability" {
		t.Fatalf("ListRoots = %v", err)
	}
	askWantToolError(t, frame, "3", "mcp: roots/list not sent: the client did not declare the roots capability")
}

// TestListRootsClientWithoutRoots: a client that serves no roots answers
// -32601, as the spec says.
func TestListRootsClientWithoutRoots(t *testing.T) {
	p := askPeer(t, nil)
	if got, want := string(askPeerCall(p, `"r"`, "roots/list", "")), `{"jsonrpc":"2.0","id":"r","error":{"code":-32601,"message":"Method not found","data":"roots/list"}}`; got != want {
		t.Errorf("roots/list answered %s, want %s", got, want)
	}
	if got := p.cs.Client().Roots(); got == nil || len(got) != 0 {
		t.Errorf("Roots() = %v, want empty", got)
	}
	if err := p.cs.Client().SetRoots(context.Background(), testRoots...); err == nil || err.Error() != "mcp: SetRoots: the client does not serve roots (ClientOptions.Roots is nil)" {
		t.Errorf("SetRoots = %v", err)
	}
}

// TestListRootsBadAnswers: the server refuses an answer without roots or
// with a root without a uri.
func TestListRootsBadAnswers(t *testing.T) {
	for _, tc := range []struct{ result, want string }{
		{`{}`, "mcp: roots/list: the client's result has no roots member"},
		{`{"roots":[{"name":"x"}]}`, "mcp: roots/list: root 0 in the client's result has no uri"},
		{`{"roots":[null]}`, "mcp: roots/list: root 0 in the client's result has no uri"},
	} {
		t.Run(tc.result, func(t *testing.T) {
			errc := make(chan error, 1)
			s := askServer(t, nil, func(ctx context.Context, req *mcp.Request) (string, error) {
				_, err := req.ListRoots(ctx, nil)
				errc <- err
				return "", err
			})
			c := askRaw(t, s, `{"roots":{}}`)
			c.request("tools/call", `{"name":"ask"}`)
			req := askRequest(t, c.read(), "roots/list")
			if req.Params != nil {
				t.Errorf("roots/list sent params %s, want none", req.Params)
			}
			c.send(`{"jsonrpc":"2.0","id":` + req.ID.String() + `,"result":` + tc.result + `}`)
			c.read()
			if err := <-errc; err == nil || err.Error() != tc.want {
				t.Errorf("ListRoots = %v, want %s", err, tc.want)
			}
		})
	}
}

// TestRootsListChanged: SetRoots tells every session; the server's
// RootsListChangedHandler runs and the server lists the new roots.
func TestRootsListChanged(t *testing.T) {
	listed := make(chan string, 4)
	s := mcp.NewServer(serverTestInfo, &mcp.ServerOptions{
		RootsListChangedHandler: func(_ context.Context, ss *mcp.ServerSession) {
			// The handler runs on the read loop: ask from a goroutine.
			go func() {
				res, err := ss.ListRoots(context.Background(), nil)
				if err != nil {
					listed <- "error: " + err.Error()
					return
				}
				listed <- string(askJSON(t, res))
			}()
		},
	})
	client := mcp.NewClient(clientTestInfo, &mcp.ClientOptions{Roots: testRoots[:1], ProtocolEra: mcp.EraSession})
	var sessions []*mcp.ClientSession
	var servers []*mcp.ServerSession
	for range 2 {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := s.Connect(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := client.Connect(context.Background(), ct)
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, cs)
		servers = append(servers, ss)
	}
	// A closed session is no longer told.
	sessions[1].Close()
	servers[1].Wait()
	defer func() {
		sessions[0].Close()
		servers[0].Wait()
	}()
	newRoots := []*mcp.Root{{URI: "file:///work", Name: "Work"}}
	if err := client.SetRoots(context.Background(), newRoots...); err != nil {
		t.Fatalf("SetRoots: %v", err)
	}
	if got, want := recvWithin(t, listed, "the server's roots/list"), `{"roots":[{"uri":"file:///work","name":"Work"}]}`; got != want {
		t.Errorf("server listed %s, want %s", got, want)
	}
	if got := client.Roots(); len(got) != 1 || got[0].URI != "file:///work" {
		t.Errorf("Roots() = %v", got)
	}
	// Changing the returned list does not change the client's.
	client.Roots()[0] = &mcp.Root{URI: "file:///evil"}
	if got := client.Roots(); got[0].URI != "file:///work" {
		t.Errorf("Roots() changed through its result: %v", got)
	}
	if err := sessions[0].Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	if extra := drain(listed); len(extra) != 0 {
		t.Errorf("more list_changed handled than sessions open: %v", extra)
	}
}

// TestSetRootsRefusesNonFileURIs: roots must be file:// URIs; a bad one
// changes nothing. In ClientOptions, bad ones are dropped.
func TestSetRootsRefusesNonFileURIs(t *testing.T) {
	client := mcp.NewClient(clientTestInfo, &mcp.ClientOptions{Roots: []*mcp.Root{
		{URI: "https://example.com/repo"}, nil, {URI: "file:///ok"},
	}})
	if got := client.Roots(); len(got) != 1 || got[0].URI != "file:///ok" {
		t.Fatalf("Roots() = %v, want only file:///ok", got)
	}
	err := client.SetRoots(context.Background(), &mcp.Root{URI: "file:///a"}, &mcp.Root{URI: "/tmp/b"})
	if err == nil || err.Error() != `mcp: SetRoots: mcp: root "/tmp/b": the URI must start with file://` {
		t.Errorf("SetRoots = %v", err)
	}
	if got := client.Roots(); len(got) != 1 || got[0].URI != "file:///ok" {
		t.Errorf("Roots() after a refused SetRoots = %v", got)
	}
	if err := client.SetRoots(context.Background()); err != nil {
		t.Errorf("SetRoots() = %v", err)
	}
	if got := client.Roots(); got == nil || len(got) != 0 {
		t.Errorf("Roots() = %v, want empty", got)
	}
}

// TestClientCapabilitiesFromHandlers: what a Client declares follows the
// handlers and options it has, and an explicit Capabilities wins.
func TestClientCapabilitiesFromHandlers(t *testing.T) {
	sample := func(context.Context, *mcp.ClientSession, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		return nil, nil
	}
	elicit := func(context.Context, *mcp.ClientSession, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		return nil, nil
	}
	for _, tc := range []struct {
		name string
		opts *mcp.ClientOptions
		want string
	}{
		{"nothing", nil, `{}`},
		{"sampling", &mcp.ClientOptions{CreateMessageHandler: sample}, `{"sampling":{}}`},
		{"sampling with tools and context", &mcp.ClientOptions{CreateMessageHandler: sample, SamplingTools: true, SamplingContext: true}, `{"sampling":{"context":{},"tools":{}}}`},
		{"tools without a handler", &mcp.ClientOptions{SamplingTools: true}, `{}`},
		{"form elicitation", &mcp.ClientOptions{ElicitationHandler: elicit}, `{"elicitation":{"form":{}}}`},
		{"url elicitation", &mcp.ClientOptions{URLElicitationHandler: elicit}, `{"elicitation":{"url":{}}}`},
		{"both elicitations", &mcp.ClientOptions{ElicitationHandler: elicit, URLElicitationHandler: elicit}, `{"elicitation":{"form":{},"url":{}}}`},
		{"roots", &mcp.ClientOptions{Roots: testRoots}, `{"roots":{"listChanged":true}}`},
		{"everything", &mcp.ClientOptions{Roots: testRoots, CreateMessageHandler: sample, ElicitationHandler: elicit},
			`{"roots":{"listChanged":true},"sampling":{},"elicitation":{"form":{}}}`},
		{"explicit capabilities win", &mcp.ClientOptions{CreateMessageHandler: sample, Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}},
			`{"elicitation":{}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := askPeer(t, tc.opts)
			if got := askCaps(t, p); got != tc.want {
				t.Errorf("declared %s, want %s", got, tc.want)
			}
		})
	}
}

// TestRootsListChangedFromRawClient: the notification reaches the
// server's handler on any transport, from any client.
func TestRootsListChangedFromRawClient(t *testing.T) {
	called := make(chan *mcp.ServerSession, 2)
	s := mcp.NewServer(serverTestInfo, &mcp.ServerOptions{
		RootsListChangedHandler: func(_ context.Context, ss *mcp.ServerSession) { called <- ss },
	})
	c := askRaw(t, s, `{"roots":{"listChanged":true}}`)
	c.send(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	c.call("ping", "")
	if ss := drain(called); len(ss) != 1 || ss[0] != c.ss {
		t.Errorf("handler called for %v, want the session once", ss)
	}
}
