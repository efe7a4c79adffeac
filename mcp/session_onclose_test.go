package mcp_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpkit/mcpkit/mcp"
)

// OnClose: what a session's OnClose registered has run, in order, when
// the Close that ends it returns (the server's) or when Close returns
// (the client's, whose read loop runs it); a function registered after
// the end runs at once; each runs once.
func TestSessionOnClose(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}, nil)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), ct)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var ran []string
	note := func(s string) func() {
		return func() { mu.Lock(); ran = append(ran, s); mu.Unlock() }
	}
	// got is what ran of side's functions: the server's Close ends the
	// connection, so the client's may run meanwhile.
	got := func(side string) []string {
		mu.Lock()
		defer mu.Unlock()
		var r []string
		for _, s := range ran {
			if strings.HasPrefix(s, side) {
				r = append(r, s)
			}
		}
		return r
	}

	ss.OnClose(note("server 1"))
	ss.OnClose(note("server 2"))
	cs.OnClose(note("client 1"))
	cs.OnClose(note("client 2"))
	if r := append(got("server"), got("client")...); len(r) != 0 {
		t.Fatalf("ran before any close: %v", r)
	}
	if err := ss.Close(); err != nil {
		t.Fatal(err)
	}
	if r, want := got("server"), []string{"server 1", "server 2"}; !slices.Equal(r, want) {
		t.Fatalf("after the server's Close: %v, want %v", r, want)
	}
	ss.OnClose(note("server late"))
	ss.Close()
	if r, want := got("server"), []string{"server 1", "server 2", "server late"}; !slices.Equal(r, want) {
		t.Fatalf("registered after the server's Close: %v, want %v", r, want)
	}
	cs.Close()
	cs.OnClose(note("client late"))
	if r, want := got("client"), []string{"client 1", "client 2", "client late"}; !slices.Equal(r, want) {
		t.Fatalf("after the client's Close: %v, want %v", r, want)
	}
	ss.Wait()
}
