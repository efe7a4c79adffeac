package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// Tests of tasks
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks).
// Most run in a synctest bubble, where the clock starts at
// 2000-01-01T00:00:00Z and moves only when every goroutine waits, so that
// timestamps, ttl and "still blocked" are exact.

// taskGate lets a test drive the fixture's "gate" and "stubborn" tools.
type taskGate struct {
	release chan struct{} // closing it lets gate and stubborn return
	started chan string   // each run sends its tool's name when it starts
	ended   chan error    // gate sends its context's error when stopped
}

// newTaskServer returns a server with tools for every task path:
//
//   - gate (optional): waits for release ("opened") or its context.
//   - stubborn (optional): waits for release and ignores cancellation.
//   - quick (optional): answers {"n": N} with "quick N" at once.
//   - required (required): answers "done".
//   - plain (no execution, so forbidden): answers "plain".
//   - rpc_fail (optional): fails with a JSON-RPC error.
//   - tool_fail (optional): fails with a Go error (isError).
//   - panics (optional): panics.
//   - asks (optional): input_required, pings the client, working, "asked".
func newTaskServer(t *testing.T, opts *mcp.ServerOptions) (*mcp.Server, *taskGate) {
	t.Helper()
	g := &taskGate{release: make(chan struct{}), started: make(chan string, 16), ended: make(chan error, 16)}
	srv := mcp.NewServer(mcp.Implementation{Name: "task-server", Version: "1.0.0"}, opts)
	optional := &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	raw := func(name string, exec *mcp.ToolExecution, h mcp.ToolHandler) {
		must(srv.AddTool(&mcp.Tool{Name: name, Description: name, Execution: exec}, h))
	}
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	raw("gate", optional, func(ctx context.Context, _ *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		g.started <- "gate"
		select {
		case <-g.release:
			return text("opened"), nil
		case <-ctx.Done():
			g.ended <- ctx.Err()
			return nil, ctx.Err()
		}
	})
	raw("stubborn", optional, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		g.started <- "stubborn"
		<-g.release
		return text("finished anyway"), nil
	})
	must(mcp.AddTool(srv, &mcp.Tool{Name: "quick", Description: "quick", Execution: optional},
		func(_ context.Context, _ *mcp.Request, in struct {
			N int `json:"n,omitempty"`
		}) (string, error) {
			return "quick " + strings.Repeat("i", in.N), nil
		}))
	raw("required", &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return text("done"), nil
	})
	raw("plain", nil, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return text("plain"), nil
	})
	raw("rpc_fail", optional, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return nil, jsonrpc.NewError(-32050, "Backend unavailable", "rate limit exceeded")
	})
	raw("tool_fail", optional, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return nil, errors.New("the disk is full")
	})
	raw("panics", optional, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		panic("boom")
	})
	raw("asks", optional, func(ctx context.Context, r *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		task := mcp.TaskFromContext(ctx)
		if task == nil {
			return nil, errors.New("not running as a task")
		}
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
	})
	return srv, g
}

// taskConnect connects a client to srv over the in-memory transport; both
// sessions end with the test.
func taskConnect(t *testing.T, srv *mcp.Server, copts *mcp.ClientOptions) (*mcp.ClientSession, *mcp.ServerSession) {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "task-client", Version: "1.0.0"}, legacy(copts)).Connect(ctx, ct)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs, ss
}

// statusRecorder returns client options whose TaskStatusHandler sends each
// notifications/tasks/status to the channel.
func statusRecorder() (*mcp.ClientOptions, chan *mcp.TaskStatusNotificationParams) {
	ch := make(chan *mcp.TaskStatusNotificationParams, 32)
	return &mcp.ClientOptions{TaskStatusHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.TaskStatusNotificationParams) {
		ch <- p
	}}, ch
}

// taskJSON is the JSON of a task as the fixture server makes it in a
// synctest bubble, with the default ttl and poll interval.
func taskJSON(id, status, message, updated string) string {
	msg := ""
	if message != "" {
		msg = `"statusMessage":` + strconvQuote(message) + `,`
	}
	return `{"taskId":"` + id + `","status":"` + status + `",` + msg +
		`"createdAt":"2000-01-01T00:00:00Z","lastUpdatedAt":"` + updated + `","ttl":3600000,"pollInterval":1000}`
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

const t0 = "2000-01-01T00:00:00Z"

func TestTaskStatusMachine(t *testing.T) {
	all := []mcp.TaskStatus{mcp.TaskWorking, mcp.TaskInputRequired, mcp.TaskCompleted, mcp.TaskFailed, mcp.TaskCancelled}
	allowed := map[mcp.TaskStatus][]mcp.TaskStatus{
		mcp.TaskWorking:       all,
		mcp.TaskInputRequired: all,
	}
	for _, from := range all {
		if got, want := from.Terminal(), allowed[from] == nil; got != want {
			t.Errorf("%s.Terminal() = %v, want %v", from, got, want)
		}
		for _, to := range all {
			want := false
			for _, a := range allowed[from] {
				want = want || a == to
			}
			if got := from.CanMoveTo(to); got != want {
				t.Errorf("%s.CanMoveTo(%s) = %v, want %v", from, to, got, want)
			}
		}
	}
	if mcp.TaskStatus("paused").CanMoveTo(mcp.TaskWorking) || mcp.TaskWorking.CanMoveTo("paused") {
		t.Error("an unknown status is a valid transition")
	}
}

func TestTaskCapability(t *testing.T) {
	srv, _ := newTaskServer(t, nil)
	cs, _ := taskConnect(t, srv, nil)
	jsonEqual(t, "capabilities", cs.ServerCapabilities(),
		`{"tools":{"listChanged":true},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}}`)

	// No tool supports tasks: nothing declared.
	bare := mcp.NewServer(mcp.Implementation{Name: "bare", Version: "1"}, nil)
	if err := bare.AddTool(&mcp.Tool{Name: "x", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportForbidden}}, nil); err != nil {
		t.Fatal(err)
	}
	cs2, ss2 := taskConnect(t, bare, nil)
	jsonEqual(t, "capabilities without task tools", cs2.ServerCapabilities(), `{"tools":{"listChanged":true}}`)
	// The client supports no task-augmented request, so it declares none.
	if err := cs2.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "client capabilities", ss2.State().ClientCapabilities, `{}`)
}

func TestTaskSupportValidated(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}, nil)
	err := srv.AddTool(&mcp.Tool{Name: "x", Execution: &mcp.ToolExecution{TaskSupport: "sometimes"}}, nil)
	if err == nil || err.Error() != `mcp: tool "x": execution.taskSupport must be "forbidden", "optional" or "required", not "sometimes"` {
		t.Errorf("AddTool = %v", err)
	}
	err = mcp.AddTool(srv, &mcp.Tool{Name: "y", Execution: &mcp.ToolExecution{TaskSupport: "Optional"}},
		func(context.Context, *mcp.Request, struct{}) (string, error) { return "", nil })
	if err == nil {
		t.Error("typed AddTool accepted taskSupport \"Optional\"")
	}
}

// TestTaskLifecycle walks one task from creation to its result: the
// immediate CreateTaskResult, tasks/get while it works, tasks/result
// blocking until it ends, the status notification, and the final state.
func TestTaskLifecycle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, g := newTaskServer(t, nil)
		copts, statuses := statusRecorder()
		cs, _ := taskConnect(t, srv, copts)
		ctx := context.Background()

		created, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "gate"})
		if err != nil {
			t.Fatal(err)
		}
		id := created.Task.TaskID
		if len(id) != 26 {
			t.Errorf("task id %q: want 26 characters of crypto/rand.Text", id)
		}
		jsonEqual(t, "CreateTaskResult", created, `{"task":`+taskJSON(id, "working", "", t0)+`}`)
		if got := <-g.started; got != "gate" {
			t.Fatalf("started %s", got)
		}

		time.Sleep(1500 * time.Millisecond)
		got, err := cs.GetTask(ctx, &mcp.TaskParams{TaskID: id})
		if err != nil {
			t.Fatal(err)
		}
		jsonEqual(t, "tasks/get while working", got, taskJSON(id, "working", "", t0))

		type outcome struct {
			res *mcp.CallToolResult
			err error
		}
		done := make(chan outcome, 1)
		go func() {
			var res mcp.CallToolResult
			err := cs.GetTaskResult(ctx, &mcp.TaskParams{TaskID: id}, &res)
			done <- outcome{&res, err}
		}()
		synctest.Wait()
		select {
		case o := <-done:
			t.Fatalf("tasks/result answered while the task works: %+v", o)
		default:
		}

		close(g.release)
		o := <-done
		if o.err != nil {
			t.Fatal(o.err)
		}
		jsonEqual(t, "tasks/result", o.res,
			`{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"`+id+`"}},"content":[{"type":"text","text":"opened"}]}`)
		jsonEqual(t, "notifications/tasks/status", <-statuses, taskJSON(id, "completed", "", "2000-01-01T00:00:01.5Z"))

		got, err = cs.GetTask(ctx, &mcp.TaskParams{TaskID: id})
		if err != nil {
			t.Fatal(err)
		}
		jsonEqual(t, "tasks/get once completed", got, taskJSON(id, "completed", "", "2000-01-01T00:00:01.5Z"))

		// The result stays available, unchanged, until the ttl.
		var again json.RawMessage
		if err := cs.GetTaskResult(ctx, &mcp.TaskParams{TaskID: id}, &again); err != nil {
			t.Fatal(err)
		}
		jsonEqual(t, "tasks/result again", again,
			`{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"`+id+`"}},"content":[{"type":"text","text":"opened"}]}`)

		list, err := cs.ListTasks(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		jsonEqual(t, "tasks/list", list, `{"tasks":[`+taskJSON(id, "completed", "", "2000-01-01T00:00:01.5Z")+`]}`)
		select {
		case p := <-statuses:
			t.Errorf("unexpected status notification %+v", p)
		default:
		}
	})
}

// TestTaskResultKeepsMeta checks that tasks/result adds the related-task
// key to a result that has _meta of its own, and keeps structuredContent.
func TestTaskResultKeepsMeta(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}, nil)
		if err := srv.AddTool(&mcp.Tool{Name: "meta", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}},
			func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{
					Meta:              mcp.Meta{"example.com/trace": json.RawMessage(`"abc"`)},
					Content:           []mcp.Content{&mcp.TextContent{Text: `{"a":1}`}},
					StructuredContent: json.RawMessage(`{"a":1}`),
				}, nil
			}); err != nil {
			t.Fatal(err)
		}
		cs, _ := taskConnect(t, srv, nil)
		ctx := context.Background()
		created, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "meta"})
		if err != nil {
			t.Fatal(err)
		}
		var res json.RawMessage
		if err := cs.GetTaskResult(ctx, &mcp.TaskParams{TaskID: created.Task.TaskID}, &res); err != nil {
			t.Fatal(err)
		}
		jsonEqual(t, "tasks/result", res, `{"_meta":{"example.com/trace":"abc","io.modelcontextprotocol/related-task":{"taskId":"`+
			created.Task.TaskID+`"}},"content":[{"type":"text","text":"{\"a\":1}"}],"structuredContent":{"a":1}}`)
	})
}

// TestTaskFailures checks the failed status: a JSON-RPC error is what
// tasks/result returns, unchanged; a tool error (isError) is a result.
func TestTaskFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, _ := newTaskServer(t, nil)
		cs, _ := taskConnect(t, srv, nil)
		ctx := context.Background()
		run := func(name string) string {
			t.Helper()
			created, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: name})
			if err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
			return created.Task.TaskID
		}

		id := run("rpc_fail")
		err := cs.GetTaskResult(ctx, &mcp.TaskParams{TaskID: id}, nil)
		wantRPCError(t, err, -32050, "Backend unavailable", `"rate limit exceeded"`)
		got, err := cs.GetTask(ctx, &mcp.TaskParams{TaskID: id})
		if err != nil {
			t.Fatal(err)
		}
		jsonEqual(t, "rpc_fail task", got, taskJSON(id, "failed", "Backend unavailable: rate limit exceeded", t0))

		id = run("tool_fail")
		var res json.RawMessage
		if err := cs.GetTaskResult(ctx, &mcp.TaskParams{TaskID: id}, &res); err != nil {
			t.Fatal(err)
		}
		jsonEqual(t, "tool_fail result", res, `{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"`+id+
			`"}},"content":[{"type":"text","text":"the disk is full"}],"isError":true}`)
		got, err = cs.GetTask(ctx, &mcp.TaskParams{TaskID: id})
		if err != nil {
			t.Fatal(err)
		}
		jsonEqual(t, "tool_fail task", got, taskJSON(id, "failed", "Tool execution failed: the disk is full", t0))

		id = run("panics")
		err = cs.GetTaskResult(ctx, &mcp.TaskParams{TaskID: id}, nil)
		wantRPCError(t, err, jsonrpc.CodeInternalError, "Internal error", "")
		got, err = cs.GetTask(ctx, &mcp.TaskParams{TaskID: id})
		if err != nil {
			t.Fatal(err)
		}
		jsonEqual(t, "panics task", got, taskJSON(id, "failed", "Internal error", t0))
	})
}

// TestTaskAugmentationErrors checks tool-level negotiation: a required
// tool without a task and a forbidden tool with one are -32601, and a
// server that declares no task support runs a task-augmented call
// normally.
func TestTaskAugmentationErrors(t *testing.T) {
	srv, _ := newTaskServer(t, nil)
	cs, _ := taskConnect(t, srv, nil)
	ctx := context.Background()

	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "required"})
	wantRPCError(t, err, jsonrpc.CodeMethodNotFound, "Method not found",
		`"Tool required must be called as a task (params.task); its execution.taskSupport is \"required\""`)
	_, err = cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "plain"})
	wantRPCError(t, err, jsonrpc.CodeMethodNotFound, "Method not found",
		`"Tool plain cannot be called as a task; its execution.taskSupport is \"forbidden\""`)
	_, err = cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "nope"})
	wantRPCError(t, err, jsonrpc.CodeInvalidParams, "Invalid params", `"Unknown tool: nope"`)

	// An optional tool still answers a plain call.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "quick", Arguments: json.RawMessage(`{"n":2}`)})
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "plain call of an optional tool", res, `{"content":[{"type":"text","text":"quick ii"}]}`)

	// CallTool refuses params.Task: its result would be a CreateTaskResult.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "quick", Task: &mcp.TaskMetadata{}}); err == nil {
		t.Error("CallTool with params.Task succeeded")
	}

	// A server without task support processes params.task normally.
	bare := mcp.NewServer(mcp.Implementation{Name: "bare", Version: "1"}, nil)
	if err := bare.AddTool(&mcp.Tool{Name: "plain"}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "plain"}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	bcs, _ := taskConnect(t, bare, nil)
	if _, err := bcs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "plain"}); !errors.Is(err, mcp.ErrTasksNotSupported) {
		t.Errorf("CallToolAsTask on a server without tasks = %v, want ErrTasksNotSupported", err)
	}
	var raw json.RawMessage
	if err := bcs.Call(ctx, "tools/call", json.RawMessage(`{"name":"plain","task":{"ttl":1000}}`), &raw); err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "task ignored", raw, `{"content":[{"type":"text","text":"plain"}]}`)

	// Capabilities set by hand without tasks: task support is not
	// declared, so params.task is ignored even for task tools, and a
	// required tool runs normally.
	undeclared, _ := newTaskServer(t, &mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ListChangedCapability{}}})
	ucs, _ := taskConnect(t, undeclared, nil)
	for _, params := range []string{`{"name":"quick","arguments":{"n":1},"task":{}}`, `{"name":"required"}`} {
		raw = nil
		if err := ucs.Call(ctx, "tools/call", json.RawMessage(params), &raw); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(raw), `"content":[{"type":"text"`) {
			t.Errorf("tools/call %s = %s, want a CallToolResult", params, raw)
		}
	}
	// Set by hand with tasks: declared.
	declared, _ := newTaskServer(t, &mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{
		Tools: &mcp.ListChangedCapability{}, Tasks: json.RawMessage(`{"requests":{"tools":{"call":{}}}}`),
	}})
	dcs, _ := taskConnect(t, declared, nil)
	_, err = dcs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "plain"})
	wantRPCError(t, err, jsonrpc.CodeMethodNotFound, "Method not found",
		`"Tool plain cannot be called as a task; its execution.taskSupport is \"forbidden\""`)
}

// TestTaskMethodErrors checks the -32602 answers of tasks/get,
// tasks/result, tasks/cancel and tasks/list.
func TestTaskMethodErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, _ := newTaskServer(t, nil)
		cs, _ := taskConnect(t, srv, nil)
		ctx := context.Background()
		call := func(method, params string) error {
			return cs.Call(ctx, method, json.RawMessage(params), nil)
		}
		for _, tc := range []struct {
			method, params, data string
		}{
			{"tasks/get", `{"taskId":"nope"}`, `"Failed to retrieve task: Task not found"`},
			{"tasks/result", `{"taskId":"nope"}`, `"Failed to retrieve task: Task not found"`},
			{"tasks/cancel", `{"taskId":"nope"}`, `"Failed to cancel task: Task not found"`},
			{"tasks/get", `{}`, `"taskId is required"`},
			{"tasks/result", `{"taskId":""}`, `"taskId is required"`},
			{"tasks/cancel", `{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"x"}}}`, `"taskId is required"`},
			{"tasks/list", `{"cursor":"not a cursor"}`, `"invalid cursor: not one tasks/list issued; list again without a cursor"`},
			{"tasks/list", `{"cursor":"bWNwa2l0OmVjaG8"}`, `"invalid cursor: not one tasks/list issued; list again without a cursor"`}, // a tools/list cursor
		} {
			wantRPCError(t, call(tc.method, tc.params), jsonrpc.CodeInvalidParams, "Invalid params", tc.data)
		}
		err := cs.Call(ctx, "tasks/get", nil, nil)
		wantRPCError(t, err, jsonrpc.CodeInvalidParams, "Invalid params", `"missing params: taskId is required"`)

		// Cancelling a terminal task.
		created, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "quick"})
		if err != nil {
			t.Fatal(err)
		}
		id := created.Task.TaskID
		if err := cs.GetTaskResult(ctx, &mcp.TaskParams{TaskID: id}, nil); err != nil {
			t.Fatal(err)
		}
		_, err = cs.CancelTask(ctx, &mcp.TaskParams{TaskID: id})
		wantRPCError(t, err, jsonrpc.CodeInvalidParams, "Invalid params", `"Cannot cancel task: already in terminal status 'completed'"`)

		// Client-side checks send nothing.
		if _, err := cs.GetTask(ctx, nil); err == nil {
			t.Error("GetTask(nil) succeeded")
		}
		if err := cs.GetTaskResult(ctx, &mcp.TaskParams{}, nil); err == nil {
			t.Error("GetTaskResult without an id succeeded")
		}
		if _, err := cs.CancelTask(ctx, nil); err == nil {
			t.Error("CancelTask(nil) succeeded")
		}
		if _, err := cs.CallToolAsTask(ctx, nil); err == nil {
			t.Error("CallToolAsTask(nil) succeeded")
		}
	})
}

// TestTaskCancel cancels a working task: it is cancelled before the
// answer, its work is told to stop, it stays cancelled, tasks/result
// (also one already waiting) reports that it has no result, and a second
// cancel is refused.
func TestTaskCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, g := newTaskServer(t, nil)
		copts, statuses := statusRecorder()
		cs, _ := taskConnect(t, srv, copts)
		ctx := context.Background()

		created, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "gate"})
		if err != nil {
			t.Fatal(err)
		}
		id := created.Task.TaskID
		<-g.started
		waiting := make(chan error, 1)
		go func() { waiting <- cs.GetTaskResult(ctx, &mcp.TaskParams{TaskID: id}, nil) }()
		synctest.Wait()

		time.Sleep(time.Second)
		cancelled, err := cs.CancelTask(ctx, &mcp.TaskParams{TaskID: id})
		if err != nil {
			t.Fatal(err)
		}
		want := taskJSON(id, "cancelled", "The task was cancelled by request.", "2000-01-01T00:00:01Z")
		jsonEqual(t, "tasks/cancel", cancelled, want)
		if err := <-g.ended; !errors.Is(err, context.Canceled) {
			t.Errorf("the tool's context ended with %v", err)
		}
		wantNoResult := `"Failed to retrieve task result: Task ` + id + ` was cancelled"`
		wantRPCError(t, <-waiting, jsonrpc.CodeInvalidParams, "Invalid params", wantNoResult)
		wantRPCError(t, cs.GetTaskResult(ctx, &mcp.TaskParams{TaskID: id}, nil), jsonrpc.CodeInvalidParams, "Invalid params", wantNoResult)
		jsonEqual(t, "status notification", <-statuses, want)

		_, err = cs.CancelTask(ctx, &mcp.TaskParams{TaskID: id})
		wantRPCError(t, err, jsonrpc.CodeInvalidParams, "Invalid params", `"Cannot cancel task: already in terminal status 'cancelled'"`)
		got, err := cs.GetTask(ctx, &mcp.TaskParams{TaskID: id})
		if err != nil {
			t.Fatal(err)
		}
		jsonEqual(t, "tasks/get", got, want)
	})
}

// TestTaskCancelledStaysCancelled cancels a task whose tool ignores
// cancellation and completes anyway: the task stays cancelled.
func TestTaskCancelledStaysCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, g := newTaskServer(t, nil)
		cs, _ := taskConnect(t, srv, nil)
		ctx := context.Background()
		created, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "stubborn"})
		if err != nil {
			t.Fatal(err)
		}
		id := created.Task.TaskID
		<-g.started
		if _, err := cs.CancelTask(ctx, &mcp.TaskParams{TaskID: id}); err != nil {
			t.Fatal(err)
		}
		close(g.release)
		synctest.Wait() // the tool has returned its result
		got, err := cs.GetTask(ctx, &mcp.TaskParams{TaskID: id})
		if err != nil {
			t.Fatal(err)
		}
		jsonEqual(t, "tasks/get", got, taskJSON(id, "cancelled", "The task was cancelled by request.", t0))
	})
}

// TestTaskVisibility checks that a task belongs to the session that made
// it: another session of the same server is told it does not exist.
func TestTaskVisibility(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, g := newTaskServer(t, nil)
		a, _ := taskConnect(t, srv, nil)
		b, _ := taskConnect(t, srv, nil)
		ctx := context.Background()
		created, err := a.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "gate"})
		if err != nil {
			t.Fatal(err)
		}
		id := created.Task.TaskID
		<-g.started

		_, err = b.GetTask(ctx, &mcp.TaskParams{TaskID: id})
		wantRPCError(t, err, jsonrpc.CodeInvalidParams, "Invalid params", `"Failed to retrieve task: Task not found"`)
		err = b.GetTaskResult(ctx, &mcp.TaskParams{TaskID: id}, nil)
		wantRPCError(t, err, jsonrpc.CodeInvalidParams, "Invalid params", `"Failed to retrieve task: Task not found"`)
		_, err = b.CancelTask(ctx, &mcp.TaskParams{TaskID: id})
		wantRPCError(t, err, jsonrpc.CodeInvalidParams, "Invalid params", `"Failed to cancel task: Task not found"`)
		list, err := b.ListTasks(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		jsonEqual(t, "b's tasks", list, `{"tasks":[]}`)

		// Still working for its owner.
		got, err := a.GetTask(ctx, &mcp.TaskParams{TaskID: id})
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != mcp.TaskWorking {
			t.Errorf("status = %s, want working", got.Status)
		}
		close(g.release)
		if err := a.GetTaskResult(ctx, &mcp.TaskParams{TaskID: id}, nil); err != nil {
			t.Fatal(err)
		}
	})
}

// TestTaskOwner checks TaskOptions.Owner: tasks follow the owner it
// names, across sessions.
func TestTaskOwner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, _ := newTaskServer(t, &mcp.ServerOptions{Tasks: mcp.TaskOptions{
			Owner: func(r *mcp.Request) string { return r.ClientInfo.Name },
		}})
		a, _ := taskConnect(t, srv, nil)
		b, _ := taskConnect(t, srv, nil) // the same client name
		ctx := context.Background()
		created, err := a.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "quick"})
		if err != nil {
			t.Fatal(err)
		}
		var res mcp.CallToolResult
		if err := b.GetTaskResult(ctx, &mcp.TaskParams{TaskID: created.Task.TaskID}, &res); err != nil {
			t.Fatal(err)
		}
		if len(res.Content) != 1 {
			t.Errorf("result = %+v", res)
		}
	})
}

// TestTaskResultAsStored: a finished task's result is stored as
// tasks/result sends it, related-task _meta included, and tasks/result
// sends the stored bytes unchanged, also those another replica stored.
func TestTaskResultAsStored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, _ := newTaskServer(t, &mcp.ServerOptions{Tasks: mcp.TaskOptions{
			Owner: func(*mcp.Request) string { return "alice" },
		}})
		cs, _ := taskConnect(t, srv, nil)
		ctx := context.Background()
		created, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "quick"})
		if err != nil {
			t.Fatal(err)
		}
		id := created.Task.TaskID
		var res json.RawMessage
		if err := cs.GetTaskResult(ctx, &mcp.TaskParams{TaskID: id}, &res); err != nil {
			t.Fatal(err)
		}
		want := `{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"` + id + `"}},"content":[{"type":"text","text":"quick "}]}`
		st, err := srv.TaskStore().Get(ctx, "alice", id)
		if err != nil || string(st.Result) != want || string(res) != want {
			t.Errorf("stored %s (%v), sent %s; want both %s", st.Result, err, res, want)
		}

		now := time.Now().UTC()
		stored := `{"content":[{"type":"text","text":"from another replica"}],"_meta":{"b":1,"a":2}}`
		if err := srv.TaskStore().Create(ctx, &mcp.TaskState{
			Task:   mcp.Task{TaskID: "elsewhere", Status: mcp.TaskCompleted, CreatedAt: now, LastUpdatedAt: now},
			Owner:  "alice",
			Method: "tools/call",
			Result: json.RawMessage(stored),
		}); err != nil {
			t.Fatal(err)
		}
		if err := cs.GetTaskResult(ctx, &mcp.TaskParams{TaskID: "elsewhere"}, &res); err != nil || string(res) != stored {
			t.Errorf("tasks/result of a stored result = %s, %v; want %s", res, err, stored)
		}
	})
}

// TestTaskTTL checks the ttl: the one asked for (capped by MaxTTL, or the
// default), reported in milliseconds, after which the task is forgotten
// and, if it still works, stopped.
func TestTaskTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, g := newTaskServer(t, &mcp.ServerOptions{Tasks: mcp.TaskOptions{
			DefaultTTL: 10 * time.Second, MaxTTL: time.Minute, PollInterval: 250 * time.Millisecond,
		}})
		cs, _ := taskConnect(t, srv, nil)
		ctx := context.Background()
		create := func(name string, ttl *int64) mcp.Task {
			t.Helper()
			created, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: name, Task: &mcp.TaskMetadata{TTL: ttl}})
			if err != nil {
				t.Fatal(err)
			}
			return created.Task
		}
		ms := func(n int64) *int64 { return &n }
		for _, tc := range []struct {
			ask  *int64
			want int64
		}{{nil, 10000}, {ms(5000), 5000}, {ms(3_600_000), 60000}, {ms(0), 10000}, {ms(-1), 10000}, {ms(1 << 62), 60000}} {
			task := create("quick", tc.ask)
			if task.TTL == nil || *task.TTL != tc.want || task.PollInterval != 250 {
				t.Errorf("ttl %v asked: ttl = %v, pollInterval %d; want %d, 250", tc.ask, task.TTL, task.PollInterval, tc.want)
			}
		}

		short := create("quick", ms(5000))
		running := create("gate", ms(5000))
		<-g.started
		time.Sleep(4999 * time.Millisecond)
		if _, err := cs.GetTask(ctx, &mcp.TaskParams{TaskID: short.TaskID}); err != nil {
			t.Fatalf("before its ttl: %v", err)
		}
		waiting := make(chan error, 1)
		go func() { waiting <- cs.GetTaskResult(ctx, &mcp.TaskParams{TaskID: running.TaskID}, nil) }()
		time.Sleep(time.Millisecond)
		synctest.Wait()
		for _, id := range []string{short.TaskID, running.TaskID} {
			_, err := cs.GetTask(ctx, &mcp.TaskParams{TaskID: id})
			wantRPCError(t, err, jsonrpc.CodeInvalidParams, "Invalid params", `"Failed to retrieve task: Task not found"`)
		}
		if err := <-g.ended; !errors.Is(err, context.Canceled) {
			t.Errorf("the expired task's tool ended with %v", err)
		}
		wantRPCError(t, <-waiting, jsonrpc.CodeInvalidParams, "Invalid params", `"Failed to retrieve task: Task not found"`)
		list, err := cs.ListTasks(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range list.Tasks {
			if task.TaskID == short.TaskID || task.TaskID == running.TaskID {
				t.Errorf("expired task %s listed", task.TaskID)
			}
		}
		if len(list.Tasks) != 5 {
			t.Errorf("%d tasks listed, want the 5 with a ttl of 10s or more", len(list.Tasks))
		}
	})
}

// TestTaskList pages through tasks/list in creation order.
func TestTaskList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, _ := newTaskServer(t, &mcp.ServerOptions{PageSize: 2})
		cs, _ := taskConnect(t, srv, nil)
		ctx := context.Background()
		var ids []string
		for range 5 {
			created, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "quick"})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, created.Task.TaskID)
		}
		first, err := cs.ListTasks(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(first.Tasks) != 2 || first.NextCursor == "" {
			t.Fatalf("first page: %d tasks, nextCursor %q", len(first.Tasks), first.NextCursor)
		}
		var got []string
		for task, err := range cs.Tasks(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, task.TaskID)
		}
		if strings.Join(got, ",") != strings.Join(ids, ",") {
			t.Errorf("listed %v, want %v", got, ids)
		}
		last, err := cs.ListTasks(ctx, &mcp.PaginatedParams{Cursor: first.NextCursor})
		if err != nil {
			t.Fatal(err)
		}
		if len(last.Tasks) != 2 || last.Tasks[0].TaskID != ids[2] {
			t.Errorf("second page = %+v", last)
		}
	})
}

// TestTaskInputRequired checks a task that needs the client: its status
// goes to input_required and back, its request to the client carries the
// related-task _meta, and its status notifications do not. The frames
// are read raw.
func TestTaskInputRequired(t *testing.T) {
	srv, _ := newTaskServer(t, nil)
	c := schemaReady(t, srv)
	// The task's work starts before the answer is written: its first
	// messages may come before or after the CreateTaskResult, but in their
	// own order.
	c.request("tools/call", `{"name":"asks","task":{}}`)
	var created struct {
		Result *mcp.CreateTaskResult `json:"result"`
	}
	var frames [][]byte
	for created.Result == nil || len(frames) < 2 {
		frame := c.read()
		if strings.Contains(string(frame), `"result":`) {
			if err := json.Unmarshal(frame, &created); err != nil {
				t.Fatal(err)
			}
			continue
		}
		frames = append(frames, frame)
	}
	id := created.Result.Task.TaskID
	status := func(frame []byte, want mcp.TaskStatus, message string) {
		t.Helper()
		var n struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		var p mcp.TaskStatusNotificationParams
		if err := json.Unmarshal(frame, &n); err != nil || json.Unmarshal(n.Params, &p) != nil {
			t.Fatalf("frame %s", frame)
		}
		if n.Method != "notifications/tasks/status" || p.TaskID != id || p.Status != want || p.StatusMessage != message || p.Meta != nil {
			t.Errorf("frame %s, want a %s status notification with message %q and no _meta", frame, want, message)
		}
	}
	status(frames[0], mcp.TaskInputRequired, "Waiting for the client.")
	ping := frames[1]
	var req jsonrpc.Request
	if err := json.Unmarshal(ping, &req); err != nil {
		t.Fatal(err)
	}
	if req.Method != "ping" || string(req.Params) != `{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"`+id+`"}}}` {
		t.Fatalf("request %s, want a ping tagged with the task", ping)
	}
	c.send(`{"jsonrpc":"2.0","id":` + req.ID.String() + `,"result":{}}`)
	status(c.read(), mcp.TaskWorking, "")
	status(c.read(), mcp.TaskCompleted, "")
	resp := string(c.call("tasks/result", `{"taskId":"`+id+`"}`))
	if !strings.Contains(resp, `"text":"asked"`) {
		t.Errorf("tasks/result = %s", resp)
	}
}

// TestTaskSetStatus checks RunningTask.SetStatus's refusals.
func TestTaskSetStatus(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		errs := make(chan error, 4)
		release := make(chan struct{})
		srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}, nil)
		if err := srv.AddTool(&mcp.Tool{Name: "t", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
			func(ctx context.Context, _ *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
				task := mcp.TaskFromContext(ctx)
				errs <- task.SetStatus(ctx, mcp.TaskCompleted, "")
				<-release
				errs <- task.SetStatus(ctx, mcp.TaskWorking, "after cancel")
				return nil, nil
			}); err != nil {
			t.Fatal(err)
		}
		if err := srv.AddTool(&mcp.Tool{Name: "plain"}, func(ctx context.Context, _ *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
			if mcp.TaskFromContext(ctx) != nil {
				return nil, errors.New("a task outside a task")
			}
			return nil, nil
		}); err != nil {
			t.Fatal(err)
		}
		cs, _ := taskConnect(t, srv, nil)
		ctx := context.Background()
		if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "plain"}); err != nil || res.IsError {
			t.Errorf("plain = %+v, %v", res, err)
		}
		created, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "t"})
		if err != nil {
			t.Fatal(err)
		}
		if err := <-errs; !errors.Is(err, mcp.ErrInvalidTaskTransition) {
			t.Errorf("SetStatus(completed) = %v, want ErrInvalidTaskTransition", err)
		}
		if _, err := cs.CancelTask(ctx, &mcp.TaskParams{TaskID: created.Task.TaskID}); err != nil {
			t.Fatal(err)
		}
		close(release)
		if err := <-errs; !errors.Is(err, mcp.ErrInvalidTaskTransition) {
			t.Errorf("SetStatus(working) after cancel = %v, want ErrInvalidTaskTransition", err)
		}
	})
}

// TestTaskSessionEnd checks that a session's tasks stop when it closes.
func TestTaskSessionEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, g := newTaskServer(t, nil)
		cs, ss := taskConnect(t, srv, nil)
		if _, err := cs.CallToolAsTask(context.Background(), &mcp.CallToolParams{Name: "gate"}); err != nil {
			t.Fatal(err)
		}
		<-g.started
		cs.Close()
		ss.Wait()
		if err := <-g.ended; !errors.Is(err, context.Canceled) {
			t.Errorf("the tool's context ended with %v", err)
		}
		synctest.Wait()
	})
}

// TestTaskMaxRunning checks the limit of working tasks per owner.
func TestTaskMaxRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, g := newTaskServer(t, &mcp.ServerOptions{Tasks: mcp.TaskOptions{MaxRunning: 1}})
		cs, _ := taskConnect(t, srv, nil)
		other, _ := taskConnect(t, srv, nil)
		ctx := context.Background()
		first, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "gate"})
		if err != nil {
			t.Fatal(err)
		}
		<-g.started
		_, err = cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "quick"})
		wantRPCError(t, err, jsonrpc.CodeInvalidRequest, "Invalid Request", `"Invalid Request: too many tasks running: at most 1 at once"`)
		// Another owner has its own allowance.
		if _, err := other.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "quick"}); err != nil {
			t.Errorf("another session: %v", err)
		}
		close(g.release)
		if err := cs.GetTaskResult(ctx, &mcp.TaskParams{TaskID: first.Task.TaskID}, nil); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if _, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "quick"}); err != nil {
			t.Errorf("after the first ended: %v", err)
		}
	})
}
