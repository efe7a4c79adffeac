package everything_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpkit/mcpkit/internal/everything"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// connectBubble is connect for a synctest bubble: the sessions end before
// the bubble does.
func connectBubble(t *testing.T, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := everything.NewServer(nil).Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "test", Version: "1"}, legacyEra(opts)).Connect(ctx, ct)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// wantJSON fails the test unless v encodes as the JSON value want.
func wantJSON(t *testing.T, what string, v any, want string) {
	t.Helper()
	got, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if !sameJSON(t, got, []byte(want)) {
		t.Errorf("%s =\n\t%s\nwant\n\t%s", what, got, want)
	}
}

// countdownTask is the JSON of the countdown task in a synctest bubble
// (whose clock starts at 2000-01-01T00:00:00Z).
func countdownTask(id, status, message, updated string) string {
	msg := ""
	if message != "" {
		msg = `"statusMessage":"` + message + `",`
	}
	return `{"taskId":"` + id + `","status":"` + status + `",` + msg +
		`"createdAt":"2000-01-01T00:00:00Z","lastUpdatedAt":"` + updated + `","ttl":3600000,"pollInterval":1000}`
}

// TestCountdownTask runs countdown as a task: the status message follows
// the count, tasks/result waits for the end.
func TestCountdownTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cs := connectBubble(t, nil)
		ctx := context.Background()
		tasks, _ := json.Marshal(cs.ServerCapabilities().Tasks)
		if string(tasks) != `{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}` {
			t.Errorf("tasks capability = %s", tasks)
		}
		created, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "countdown", Arguments: json.RawMessage(`{"seconds":2}`)})
		if err != nil {
			t.Fatal(err)
		}
		id := created.Task.TaskID
		wantJSON(t, "CreateTaskResult", created, `{"task":`+countdownTask(id, "working", "", "2000-01-01T00:00:00Z")+`}`)
		get := func() *mcp.GetTaskResult {
			t.Helper()
			synctest.Wait()
			got, err := cs.GetTask(ctx, &mcp.TaskParams{TaskID: id})
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		wantJSON(t, "at 0s", get(), countdownTask(id, "working", "2 seconds left", "2000-01-01T00:00:00Z"))
		time.Sleep(time.Second)
		wantJSON(t, "at 1s", get(), countdownTask(id, "working", "1 second left", "2000-01-01T00:00:01Z"))

		var res json.RawMessage
		if err := cs.GetTaskResult(ctx, &mcp.TaskParams{TaskID: id}, &res); err != nil {
			t.Fatal(err)
		}
		if now := time.Now().UTC().Format(time.RFC3339); now != "2000-01-01T00:00:02Z" {
			t.Errorf("tasks/result answered at %s, want at the end of the countdown", now)
		}
		wantJSON(t, "tasks/result", res, `{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"`+id+`"}},"content":[{"type":"text","text":"Liftoff after 2 seconds."}]}`)
		wantJSON(t, "at the end", get(), countdownTask(id, "completed", "", "2000-01-01T00:00:02Z"))
	})
}

// TestCountdownCancel cancels a countdown task.
func TestCountdownCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cs := connectBubble(t, nil)
		ctx := context.Background()
		created, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "countdown", Arguments: json.RawMessage(`{"seconds":60}`)})
		if err != nil {
			t.Fatal(err)
		}
		id := created.Task.TaskID
		time.Sleep(1500 * time.Millisecond)
		cancelled, err := cs.CancelTask(ctx, &mcp.TaskParams{TaskID: id})
		if err != nil {
			t.Fatal(err)
		}
		wantJSON(t, "tasks/cancel", cancelled, countdownTask(id, "cancelled", "The task was cancelled by request.", "2000-01-01T00:00:01.5Z"))
		synctest.Wait() // the countdown has stopped: nothing is left running
		err = cs.GetTaskResult(ctx, &mcp.TaskParams{TaskID: id}, nil)
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("tasks/result of a cancelled task = %v", err)
		}
	})
}

// TestCountdownCall calls countdown normally, with a progress token.
func TestCountdownCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		progress := make(chan *mcp.ProgressParams, 8)
		cs := connectBubble(t, &mcp.ClientOptions{ProgressHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ProgressParams) {
			progress <- p
		}})
		ctx := context.Background()
		var res json.RawMessage
		err := cs.Call(ctx, "tools/call", json.RawMessage(`{"name":"countdown","arguments":{"seconds":2},"_meta":{"progressToken":"c"}}`), &res)
		if err != nil {
			t.Fatal(err)
		}
		wantJSON(t, "result", res, `{"content":[{"type":"text","text":"Liftoff after 2 seconds."}]}`)
		for _, want := range []string{
			`{"progressToken":"c","progress":0,"total":2,"message":"2 seconds left"}`,
			`{"progressToken":"c","progress":1,"total":2,"message":"1 second left"}`,
			`{"progressToken":"c","progress":2,"total":2,"message":"liftoff"}`,
		} {
			wantJSON(t, "progress", <-progress, want)
		}

		res = nil
		if err := cs.Call(ctx, "tools/call", json.RawMessage(`{"name":"countdown","arguments":{"seconds":61}}`), &res); err != nil {
			t.Fatal(err)
		}
		wantJSON(t, "61 seconds", res, `{"content":[{"type":"text","text":"seconds must be between 1 and 60, not 61"}],"isError":true}`)
	})
}
