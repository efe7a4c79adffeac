package mcphttp

import (
	"context"
	"errors"
	"testing"

	"github.com/mcpkit/mcpkit/internal/everything"
)

// failingStore is an EventStore that keeps nothing.
type failingStore struct{}

func (failingStore) Append(context.Context, string, string, string, []byte) error {
	return errors.New("store down")
}

func (failingStore) Replay(context.Context, string, string, string, func(string, []byte) error) error {
	return ErrEventNotFound
}

func (failingStore) DeleteSession(context.Context, string) error { return nil }

// test_reconnection closes its stream before answering
// (mcp.RequestExtra.CloseStream). A session at 2025-11-25 gets a priming event
// first, and its response by resuming with GET and Last-Event-ID; an older
// session gets no priming event, hence no event id to resume from, so its
// stream is not closed and the response comes on the POST's stream, as it
// does when the store failed to keep the priming event.
func TestCloseStreamOnlyWhenResumable(t *testing.T) {
	const want = `{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"` + everything.ReconnectionText + `"}]}}`
	const call = `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"test_reconnection","arguments":{}}}`
	for _, c := range []struct {
		version string
		store   EventStore
		resume  bool // the POST's stream is closed and must be resumed
	}{
		{"2025-11-25", &MemoryEventStore{}, true},
		{"2025-06-18", &MemoryEventStore{}, false},
		{"2025-03-26", &MemoryEventStore{}, false},
		{"2025-11-25", failingStore{}, false},
	} {
		name := c.version
		if _, ok := c.store.(failingStore); ok {
			name += "/store-failing"
		}
		t.Run(name, func(t *testing.T) {
			f := newFixtureWith(t, everything.NewServer(nil), nil, &Options{EventStore: c.store, RetryInterval: 1})
			sid := f.initialize(c.version)
			r := f.do("POST", hdrs{"Mcp-Session-Id": sid, "MCP-Protocol-Version": c.version}, call)
			if r.status != 200 {
				t.Fatalf("POST: %d %s", r.status, r.body)
			}
			got := dataOf(r.events)
			if !c.resume {
				equalStrings(t, "POST stream", got, []string{want})
				return
			}
			if len(r.events) != 1 || r.events[0].id == "" || r.events[0].data != "" {
				t.Fatalf("POST stream: %+v, want only the priming event", r.events)
			}
			resp, br := f.getStream(context.Background(), sid, hdrs{"Last-Event-ID": r.events[0].id, "MCP-Protocol-Version": c.version})
			defer resp.Body.Close()
			equalStrings(t, "resumed stream", dataOf(parseEvents(t, br)), []string{want})
		})
	}
}
