package mcphttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// Tasks over Streamable HTTP
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks),
// client and server both mcpkit.

const tasksWatchdog = 10 * time.Second

// tasksServer serves a server with four task tools over httptest:
// gate (waits for release), hold (waits for its context to end), quick
// (answers at once) and asks (input_required, pings the client, working
// again).
func tasksServer(t *testing.T) (url string, release chan struct{}, ended chan error) {
	t.Helper()
	release, ended = make(chan struct{}), make(chan error, 4)
	s := mcp.NewServer(mcp.Implementation{Name: "http-tasks", Version: "1"}, nil)
	optional := &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	for name, h := range map[string]mcp.ToolHandler{
		"gate": func(ctx context.Context, _ *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
			select {
			case <-release:
				return text("opened"), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
		"hold": func(ctx context.Context, _ *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			ended <- ctx.Err()
			return nil, ctx.Err()
		},
		"quick": func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
			return text("quick"), nil
		},
		"asks": func(ctx context.Context, r *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
			task := mcp.TaskFromContext(ctx)
			if err := task.SetStatus(ctx, mcp.TaskInputRequired, "Waiting for the client."); err != nil {
				return nil, err
			}
			if err := r.Session.Ping(ctx); err != nil {
				return nil, err
			}
			if err := task.SetStatus(ctx, mcp.TaskWorking, ""); err != nil {
				return nil, err
			}
			return text("asked"), nil
		},
	} {
		if err := s.AddTool(&mcp.Tool{Name: name, Description: name, Execution: optional}, h); err != nil {
			t.Fatal(err)
		}
	}
	h := mcphttp.NewHandler(s, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		h.Close()
	})
	return ts.URL, release, ended
}

func tasksClient(t *testing.T, url string, tr *mcphttp.ClientTransport, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	if tr == nil {
		tr = &mcphttp.ClientTransport{}
	}
	tr.URL = url
	cs, err := mcp.NewClient(mcp.Implementation{Name: "http-tasks-client", Version: "1"}, legacyEra(opts)).Connect(context.Background(), tr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(tasksWatchdog):
		t.Fatalf("waiting for %s: nothing after %v", what, tasksWatchdog)
	}
	var zero T
	return zero
}

func wantTaskError(t *testing.T, err error, data string) {
	t.Helper()
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || string(rpcErr.Data) != data {
		t.Errorf("error = %v, want -32602 with data %s", err, data)
	}
}

func TestTasksOverHTTP(t *testing.T) {
	url, release, ended := tasksServer(t)
	statuses := make(chan *mcp.TaskStatusNotificationParams, 16)
	cs := tasksClient(t, url, nil, &mcp.ClientOptions{
		TaskStatusHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.TaskStatusNotificationParams) { statuses <- p },
	})
	other := tasksClient(t, url, nil, nil)
	ctx := context.Background()

	caps, _ := json.Marshal(cs.ServerCapabilities().Tasks)
	if string(caps) != `{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}` {
		t.Errorf("tasks capability = %s", caps)
	}

	created, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "gate"})
	if err != nil {
		t.Fatal(err)
	}
	id := created.Task.TaskID
	if created.Task.Status != mcp.TaskWorking || *created.Task.TTL != 3_600_000 || created.Task.PollInterval != 1000 {
		t.Errorf("CreateTaskResult = %+v", created)
	}
	got, err := cs.GetTask(ctx, &mcp.TaskParams{TaskID: id})
	if err != nil || got.Status != mcp.TaskWorking {
		t.Fatalf("GetTask = %+v, %v", got, err)
	}

	// Another session does not see the task.
	_, err = other.GetTask(ctx, &mcp.TaskParams{TaskID: id})
	wantTaskError(t, err, `"Failed to retrieve task: Task not found"`)
	list, err := other.ListTasks(ctx, nil)
	if err != nil || len(list.Tasks) != 0 {
		t.Errorf("other's tasks/list = %+v, %v", list, err)
	}

	// tasks/result waits for the task on its SSE stream.
	done := make(chan error, 1)
	var res mcp.CallToolResult
	go func() { done <- cs.GetTaskResult(ctx, &mcp.TaskParams{TaskID: id}, &res) }()
	close(release)
	if err := within(t, done, "tasks/result"); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(&res)
	if want := `{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"` + id + `"}},"content":[{"type":"text","text":"opened"}]}`; string(raw) != want {
		t.Errorf("tasks/result = %s, want %s", raw, want)
	}
	if p := within(t, statuses, "a status notification"); p.TaskID != id || p.Status != mcp.TaskCompleted {
		t.Errorf("status notification = %+v", p)
	}

	// Cancelling: the tool's context ends, the task stays cancelled, and
	// tasks/result says there is no result.
	created, err = cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "hold"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = other.CancelTask(ctx, &mcp.TaskParams{TaskID: created.Task.TaskID})
	wantTaskError(t, err, `"Failed to cancel task: Task not found"`)
	cancelled, err := cs.CancelTask(ctx, &mcp.TaskParams{TaskID: created.Task.TaskID})
	if err != nil || cancelled.Status != mcp.TaskCancelled || cancelled.StatusMessage != "The task was cancelled by request." {
		t.Fatalf("CancelTask = %+v, %v", cancelled, err)
	}
	if err := within(t, ended, "the cancelled tool to stop"); !errors.Is(err, context.Canceled) {
		t.Errorf("the tool's context ended with %v", err)
	}
	_, err = cs.CancelTask(ctx, &mcp.TaskParams{TaskID: created.Task.TaskID})
	wantTaskError(t, err, `"Cannot cancel task: already in terminal status 'cancelled'"`)
	err = cs.GetTaskResult(ctx, &mcp.TaskParams{TaskID: created.Task.TaskID}, nil)
	wantTaskError(t, err, `"Failed to retrieve task result: Task `+created.Task.TaskID+` was cancelled"`)

	var ids []string
	for task, err := range cs.Tasks(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, task.TaskID)
	}
	if len(ids) != 2 || ids[0] != id {
		t.Errorf("tasks/list = %v, want two tasks, %s first", ids, id)
	}
}

// TestTaskInputRequiredOverHTTP runs a task that asks the client
// something while no GET stream is open: its request waits for the
// client's tasks/result and travels on that call's SSE stream, tagged with
// the task.
func TestTaskInputRequiredOverHTTP(t *testing.T) {
	url, _, _ := tasksServer(t)
	// The task completes only once the client has answered the ping the
	// task sent: with no GET stream, the ping waits for tasks/result and
	// travels on its SSE stream (whether it was sent before or after the
	// call arrived).
	cs := tasksClient(t, url, &mcphttp.ClientTransport{NoStandaloneStream: true}, nil)
	ctx := context.Background()
	created, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "asks"})
	if err != nil {
		t.Fatal(err)
	}
	id := created.Task.TaskID
	var res mcp.CallToolResult
	if err := cs.GetTaskResult(ctx, &mcp.TaskParams{TaskID: id}, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "asked" {
		t.Errorf("result = %+v", res)
	}
	got, err := cs.GetTask(ctx, &mcp.TaskParams{TaskID: id})
	if err != nil || got.Status != mcp.TaskCompleted {
		t.Errorf("GetTask = %+v, %v", got, err)
	}
}
