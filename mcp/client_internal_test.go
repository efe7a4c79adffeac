package mcp

// White-box tests of the client's handling of server requests that run in
// their own goroutine (the path sampling, elicitation and roots will take):
// concurrency with the read loop, cancellation by the server, panics.

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

const clientInternalWatchdog = 30 * time.Second

// legacyOpts returns copts (nil for the zero options) pinned to the
// session era unless they name an era.
func legacyOpts(copts *ClientOptions) *ClientOptions {
	var o ClientOptions
	if copts != nil {
		o = *copts
	}
	if o.ProtocolEra == EraAuto {
		o.ProtocolEra = EraSession
	}
	return &o
}

// connectWithMethods connects a client that also answers the given methods
// to a featureless server, and returns both sessions, ready.
func connectWithMethods(t *testing.T, methods map[string]clientMethodHandler) (*ClientSession, *ServerSession) {
	t.Helper()
	checkLeaks(t) // first: its check runs after the cleanups below
	ctx := context.Background()
	ct, st := NewInMemoryTransports()
	ss, err := NewServer(Implementation{Name: "s", Version: "1"}, nil).Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	c := NewClient(Implementation{Name: "c", Version: "1"}, &ClientOptions{ProtocolEra: EraSession})
	for name, h := range methods {
		c.methods[name] = h
	}
	cs, err := c.Connect(ctx, ct)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	// The ping fences notifications/initialized: the server may now send
	// requests.
	if err := cs.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	return cs, ss
}

func TestClientServerRequestRunsConcurrently(t *testing.T) {
	release := make(chan struct{})
	cs, ss := connectWithMethods(t, map[string]clientMethodHandler{
		"test/slow": func(ctx context.Context, _ *ClientSession, params json.RawMessage) (any, error) {
			<-release
			return json.RawMessage(`{"echo":` + string(params) + `}`), nil
		},
	})
	ctx := context.Background()
	result := make(chan json.RawMessage, 1)
	go func() {
		var raw json.RawMessage
		if err := ss.Call(ctx, "test/slow", json.RawMessage(`{"n":1}`), &raw); err != nil {
			t.Errorf("Call: %v", err)
		}
		result <- raw
	}()
	// While the slow request is pending, the read loop still serves ping in
	// both directions.
	if err := ss.Ping(ctx); err != nil {
		t.Fatalf("server Ping while a request is pending: %v", err)
	}
	if err := cs.Ping(ctx); err != nil {
		t.Fatalf("client Ping while a request is pending: %v", err)
	}
	close(release)
	select {
	case raw := <-result:
		if string(raw) != `{"echo":{"n":1}}` {
			t.Errorf("result = %s", raw)
		}
	case <-time.After(clientInternalWatchdog):
		t.Fatal("no result")
	}
}

func TestClientServerRequestCancelled(t *testing.T) {
	started := make(chan struct{})
	stopped := make(chan error, 1)
	_, ss := connectWithMethods(t, map[string]clientMethodHandler{
		"test/block": func(ctx context.Context, _ *ClientSession, _ json.RawMessage) (any, error) {
			close(started)
			<-ctx.Done()
			stopped <- ctx.Err()
			return nil, ctx.Err()
		},
	})
	ctx, cancel := context.WithCancel(context.Background())
	callErr := make(chan error, 1)
	go func() { callErr <- ss.Call(ctx, "test/block", nil, nil) }()
	select {
	case <-started:
	case <-time.After(clientInternalWatchdog):
		t.Fatal("handler did not start")
	}
	cancel() // the server sends notifications/cancelled
	select {
	case err := <-stopped:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("handler ctx.Err() = %v", err)
		}
	case <-time.After(clientInternalWatchdog):
		t.Fatal("handler was not cancelled")
	}
	if err := <-callErr; !errors.Is(err, context.Canceled) {
		t.Errorf("server Call = %v, want context.Canceled", err)
	}
	// No response was sent for the cancelled request: the server would
	// have logged a response to no pending request, and ping still works.
	if err := ss.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestClientServerRequestPanicAndError(t *testing.T) {
	_, ss := connectWithMethods(t, map[string]clientMethodHandler{
		"test/panic": func(context.Context, *ClientSession, json.RawMessage) (any, error) {
			panic("boom")
		},
		"test/error": func(context.Context, *ClientSession, json.RawMessage) (any, error) {
			return nil, errors.New("plain failure")
		},
		"test/rpcerror": func(context.Context, *ClientSession, json.RawMessage) (any, error) {
			return nil, jsonrpc.NewError(-32042, "URL elicitation required", map[string]string{"k": "v"})
		},
	})
	ctx := context.Background()
	for _, tc := range []struct {
		method string
		want   jsonrpc.Error
	}{
		{"test/panic", jsonrpc.Error{Code: -32603, Message: "Internal error"}},
		{"test/error", jsonrpc.Error{Code: -32603, Message: "plain failure"}},
		{"test/rpcerror", jsonrpc.Error{Code: -32042, Message: "URL elicitation required", Data: json.RawMessage(`{"k":"v"}`)}},
	} {
		err := ss.Call(ctx, tc.method, nil, nil)
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) {
			t.Fatalf("%s: error = %v, want *jsonrpc.Error", tc.method, err)
		}
		if rpcErr.Code != tc.want.Code || rpcErr.Message != tc.want.Message || string(rpcErr.Data) != string(tc.want.Data) {
			t.Errorf("%s: error = %+v, want %+v", tc.method, rpcErr, tc.want)
		}
	}
	if err := ss.Ping(ctx); err != nil {
		t.Fatalf("Ping after a panicking handler: %v", err)
	}
}
