package mcp

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// recordWriter keeps the frames written to it.
type recordWriter struct {
	mu     sync.Mutex
	frames []string
}

func (w *recordWriter) WriteMessage(_ context.Context, msg jsonrpc.Message) error {
	frame, err := jsonrpc.Encode(msg)
	if err != nil {
		return err
	}
	w.mu.Lock()
	w.frames = append(w.frames, string(frame))
	w.mu.Unlock()
	return nil
}

func (w *recordWriter) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.frames
	w.frames = nil
	return out
}

func sameFrames(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d frames %q, want %q", what, len(got), got, want)
	}
	for i := range got {
		var g, w any
		if json.Unmarshal([]byte(got[i]), &g) != nil || json.Unmarshal([]byte(want[i]), &w) != nil || !jsonDeepEqual(g, w) {
			t.Errorf("%s: frame %d = %s, want %s", what, i, got[i], want[i])
		}
	}
}

func jsonDeepEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestTaskWriter checks where a task's messages go and how they are
// tagged: the related-task _meta on requests and notifications (merged
// with their own _meta), none on notifications/tasks/status; a queue
// while no stream is open, flushed in order to the next tasks/result
// stream; the standalone stream when there is one.
func TestTaskWriter(t *testing.T) {
	s := NewServer(Implementation{Name: "s", Version: "1"}, nil)
	ss := s.newSession(SessionOptions{}) // no standalone stream
	defer ss.Close()
	w := &taskWriter{id: "T1", ss: ss}
	ctx := context.Background()

	write := func(msg jsonrpc.Message) {
		t.Helper()
		if err := w.WriteMessage(ctx, msg); err != nil {
			t.Fatal(err)
		}
	}
	write(&jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "ping"})
	write(&jsonrpc.Notification{Method: "notifications/progress", Params: json.RawMessage(`{"progressToken":"p","progress":1,"_meta":{"k":"v"}}`)})
	write(&jsonrpc.Notification{Method: "notifications/tasks/status", Params: json.RawMessage(`{"taskId":"T1"}`)}) // dropped: no stream
	if len(w.queue) != 2 {
		t.Fatalf("%d messages queued, want 2", len(w.queue))
	}

	dst := &recordWriter{}
	detach := w.attach(ctx, dst)
	write(&jsonrpc.Notification{Method: "notifications/tasks/status", Params: json.RawMessage(`{"taskId":"T1","status":"working"}`)})
	write(&jsonrpc.Notification{Method: "notifications/message", Params: json.RawMessage(`{"level":"info","data":"x","_meta":null}`)})
	sameFrames(t, "tasks/result stream", dst.take(), []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"T1"}}}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1,"_meta":{"k":"v","io.modelcontextprotocol/related-task":{"taskId":"T1"}}}}`,
		`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"T1","status":"working"}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x","_meta":{"io.modelcontextprotocol/related-task":{"taskId":"T1"}}}}`,
	})

	// A second tasks/result takes over; when it goes, the first one is
	// used again; when both are gone, messages wait.
	dst2 := &recordWriter{}
	detach2 := w.attach(ctx, dst2)
	write(&jsonrpc.Request{ID: jsonrpc.Int64ID(2), Method: "ping"})
	detach2()
	detach2() // idempotent
	write(&jsonrpc.Request{ID: jsonrpc.Int64ID(3), Method: "ping"})
	detach()
	write(&jsonrpc.Request{ID: jsonrpc.Int64ID(4), Method: "ping"})
	if got := dst2.take(); len(got) != 1 {
		t.Errorf("second stream got %q", got)
	}
	if got := dst.take(); len(got) != 1 {
		t.Errorf("first stream got %q", got)
	}
	if len(w.queue) != 1 {
		t.Errorf("%d queued, want 1", len(w.queue))
	}

	// The standalone stream is used when no tasks/result waits.
	sa := &recordWriter{}
	ss.setStandalone(sa)
	write(&jsonrpc.Notification{Method: "notifications/progress", Params: json.RawMessage(`{"progressToken":1,"progress":2}`)})
	if got := sa.take(); len(got) != 1 {
		t.Errorf("standalone got %q", got)
	}

	// The queue is bounded.
	ss.setStandalone(nil)
	for len(w.queue) < taskQueueLimit {
		write(&jsonrpc.Request{ID: jsonrpc.Int64ID(9), Method: "ping"})
	}
	if err := w.WriteMessage(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(10), Method: "ping"}); err == nil {
		t.Error("a message past the queue limit was accepted")
	}
	// Params that are not an object cannot be tagged.
	if err := w.WriteMessage(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(11), Method: "x", Params: json.RawMessage(`[1]`)}); err == nil {
		t.Error("array params were tagged")
	}

	ss.Close()
	if err := w.WriteMessage(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(12), Method: "ping"}); err != ErrSessionClosed {
		t.Errorf("after Close: %v, want ErrSessionClosed", err)
	}
}

// TestWithMeta checks the _meta merge used for tasks/result.
func TestWithMeta(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{``, `{"_meta":{"k":1}}`},
		{`null`, `{"_meta":{"k":1}}`},
		{`{}`, `{"_meta":{"k":1}}`},
		{`{"a":true,"_meta":null}`, `{"_meta":{"k":1},"a":true}`},
		{`{"_meta":{"k":0,"j":2}}`, `{"_meta":{"j":2,"k":1}}`},
	} {
		got, err := withMeta(json.RawMessage(tc.in), "k", json.RawMessage(`1`))
		if err != nil || string(got) != tc.want {
			t.Errorf("withMeta(%s) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{`[]`, `"x"`, `{"_meta":[]}`} {
		if _, err := withMeta(json.RawMessage(bad), "k", json.RawMessage(`1`)); err == nil {
			t.Errorf("withMeta(%s) succeeded", bad)
		}
	}
}
