package mcp

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/internal/jsonenc"
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

// TestParamsWithMeta checks the _meta merge of a task's messages' params.
func TestParamsWithMeta(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{``, `{"_meta":{"k":1}}`},
		{`null`, `{"_meta":{"k":1}}`},
		{`{}`, `{"_meta":{"k":1}}`},
		{`{"a":true,"_meta":null}`, `{"_meta":{"k":1},"a":true}`},
		{`{"_meta":{"k":0,"j":2}}`, `{"_meta":{"j":2,"k":1}}`},
	} {
		got, err := paramsWithMeta(json.RawMessage(tc.in), "k", json.RawMessage(`1`))
		if err != nil || string(got) != tc.want {
			t.Errorf("paramsWithMeta(%s) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{`[]`, `"x"`, `{"_meta":[]}`} {
		if _, err := paramsWithMeta(json.RawMessage(bad), "k", json.RawMessage(`1`)); err == nil {
			t.Errorf("paramsWithMeta(%s) succeeded", bad)
		}
	}
}

// taskResultShapes are tool results of every shape the encoders tell apart.
func taskResultShapes() map[string]*CallToolResult {
	text := func(s string) []Content { return []Content{&TextContent{Text: s}} }
	return map[string]*CallToolResult{
		"text":            {Content: text("done <&> \u2028 \ufffd")},
		"empty":           {Content: []Content{}},
		"null content":    {},
		"isError":         {Content: text("the disk is full"), IsError: true},
		"structured":      {Content: text(`{"a":1}`), StructuredContent: json.RawMessage(`{"a":1}`)},
		"structured <>":   {Content: text(`{}`), StructuredContent: json.RawMessage(`{ "a" : "<b>" }`)},
		"structured fail": {Content: text(`{}`), StructuredContent: json.RawMessage(`{"a":1}`), IsError: true},
		"own encoding":    {Content: text(`{"n":"\"q\""}`), StructuredContent: json.RawMessage(`{"n":"\"q\""}`), encoded: `{"n":"\"q\""}`},
		"meta":            {Meta: Meta{"example.com/trace": json.RawMessage(`"abc"`)}, Content: text("x")},
		"meta after":      {Meta: Meta{"z": json.RawMessage(`1`), "a": json.RawMessage(`{ "b" : 2 }`)}, Content: text("x")},
		"image": {Content: []Content{&ImageContent{Data: "AAAA", MIMEType: "image/png"},
			&TextContent{Text: "t", Annotations: &Annotations{Audience: []string{"user"}}}}},
	}
}

// TestSessionTaskResult: the session era's task result, encoded once, is
// what tasks/result sent when it merged the related-task entry into the
// stored result, and its size is the length of the result's own JSON.
func TestSessionTaskResult(t *testing.T) {
	// sessionTaskResult names CallToolResult's members: these and no more.
	var names []string
	for f := range reflect.TypeFor[CallToolResult]().Fields() {
		if f.IsExported() {
			names = append(names, f.Tag.Get("json"))
		}
	}
	if got := strings.Join(names, " "); got != "_meta,omitempty content structuredContent,omitempty isError,omitempty" {
		t.Errorf("CallToolResult's members are %s: sessionTaskResult needs them", got)
	}
	const id = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	for name, res := range taskResultShapes() {
		plain, err := jsonenc.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		want, err := paramsWithMeta(plain, relatedTaskMetaKey, relatedTaskMeta(id))
		if err != nil {
			t.Fatal(err)
		}
		raw, size, err := sessionTaskResult(id, res)
		if err != nil || string(raw) != string(want) || size != len(plain) {
			t.Errorf("%s: sessionTaskResult = %s, %d, %v; want %s, %d", name, raw, size, err, want, len(plain))
		}
	}
}

// TestExtTaskResult: the tasks extension's task result is the result as
// tools/call sends it in the session era, with resultType "complete"
// first, and all of it counts.
func TestExtTaskResult(t *testing.T) {
	for name, res := range taskResultShapes() {
		plain, err := jsonenc.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		want := `{"resultType":"complete",` + string(plain[1:])
		raw, size, status, msg, err := extTaskWire{}.result("id", res)
		if err != nil || string(raw) != want || size != len(raw) || status != TaskCompleted || msg != "" {
			t.Errorf("%s: result = %s, %d, %s, %q, %v; want %s", name, raw, size, status, msg, err, want)
		}
	}
}
