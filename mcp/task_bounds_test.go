package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// Tests of the bounds on kept tasks (task_bounds.go).

// sizedResult is the result of the "sized" tool for n: a text of n bytes.
func sizedResult(n int) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", n)}}}
}

// sizedBytes is the length of the result the server keeps for sized(n).
func sizedBytes(t *testing.T, n int) int {
	t.Helper()
	b, err := json.Marshal(sizedResult(n))
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// newBoundsServer is newTaskServer with a "sized" tool that answers a
// text of params.n bytes.
func newBoundsServer(t *testing.T, opts *mcp.ServerOptions) (*mcp.Server, *taskGate) {
	t.Helper()
	srv, g := newTaskServer(t, opts)
	err := srv.AddTool(&mcp.Tool{Name: "sized", Description: "sized", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(_ context.Context, _ *mcp.Request, args json.RawMessage) (*mcp.CallToolResult, error) {
			var in struct{ N int }
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			return sizedResult(in.N), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return srv, g
}

// finishedTask runs tool as a task of cs and waits for its result.
func finishedTask(t *testing.T, cs *mcp.ClientSession, tool string, args string) string {
	t.Helper()
	ctx := context.Background()
	created, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	_ = cs.GetTaskResult(ctx, &mcp.TaskParams{TaskID: created.Task.TaskID}, nil)
	synctest.Wait()
	return created.Task.TaskID
}

// wantTasks checks which of ids cs can still get.
func wantTasks(t *testing.T, cs *mcp.ClientSession, ids []string, want ...bool) {
	t.Helper()
	for i, id := range ids {
		_, err := cs.GetTask(context.Background(), &mcp.TaskParams{TaskID: id})
		if got := err == nil; got != want[i] {
			t.Errorf("task %d: kept = %v (%v), want %v", i, got, err, want[i])
		}
	}
}

// TestTaskSessionEndFreesTasks: once a session closes nothing can reach
// its tasks, so they leave the store at once, finished or running, while
// another session's stay.
func TestTaskSessionEndFreesTasks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, g := newBoundsServer(t, nil)
		store := srv.TaskStore()
		cs, ss := taskConnect(t, srv, nil)
		other, _ := taskConnect(t, srv, nil)
		finishedTask(t, cs, "sized", fmt.Sprintf(`{"n":%d}`, 3<<20))
		finishedTask(t, cs, "quick", "{}")
		if _, err := cs.CallToolAsTask(context.Background(), &mcp.CallToolParams{Name: "gate"}); err != nil {
			t.Fatal(err)
		}
		<-g.started
		kept := finishedTask(t, other, "quick", "{}")
		if n := mcp.MemoryTaskStoreLen(store); n != 4 {
			t.Fatalf("store holds %d tasks before the session ends, want 4", n)
		}
		cs.Close()
		ss.Wait()
		<-g.ended
		synctest.Wait()
		if n := mcp.MemoryTaskStoreLen(store); n != 1 {
			t.Errorf("store holds %d tasks after the session ended, want 1 (the other session's)", n)
		}
		wantTasks(t, other, []string{kept}, true)
	})
}

// TestTaskMaxTasksPerOwner: past the bound the owner's oldest finished
// task makes room; with none finished the request is refused; another
// owner's tasks are never touched.
func TestTaskMaxTasksPerOwner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, g := newBoundsServer(t, &mcp.ServerOptions{Tasks: mcp.TaskOptions{MaxTasksPerOwner: 2}})
		cs, _ := taskConnect(t, srv, nil)
		other, _ := taskConnect(t, srv, nil)
		ctx := context.Background()
		o1 := finishedTask(t, other, "quick", "{}")
		o2 := finishedTask(t, other, "quick", "{}")
		a := finishedTask(t, cs, "quick", "{}")
		b := finishedTask(t, cs, "quick", "{}")
		c := finishedTask(t, cs, "quick", "{}") // evicts a
		wantTasks(t, cs, []string{a, b, c}, false, true, true)
		wantTasks(t, other, []string{o1, o2}, true, true)

		// Two running: b and c make room, then nothing can.
		for range 2 {
			if _, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "gate"}); err != nil {
				t.Fatal(err)
			}
			<-g.started
		}
		wantTasks(t, cs, []string{b, c}, false, false)
		_, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "quick"})
		wantRPCError(t, err, jsonrpc.CodeInvalidRequest, "Invalid Request",
			`"Invalid Request: too many tasks: at most 2 per requestor, running and finished (TaskOptions.MaxTasksPerOwner), and 2 of yours are running"`)
		wantTasks(t, other, []string{o1, o2}, true, true)
		close(g.release)
		synctest.Wait()
	})
}

// TestTaskMaxTasks: the server-wide bound is made room for by the
// requestor's own finished tasks only.
func TestTaskMaxTasks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, _ := newBoundsServer(t, &mcp.ServerOptions{Tasks: mcp.TaskOptions{MaxTasks: 2}})
		cs, _ := taskConnect(t, srv, nil)
		other, _ := taskConnect(t, srv, nil)
		o1 := finishedTask(t, other, "quick", "{}")
		o2 := finishedTask(t, other, "quick", "{}")
		_, err := cs.CallToolAsTask(context.Background(), &mcp.CallToolParams{Name: "quick"})
		wantRPCError(t, err, jsonrpc.CodeInvalidRequest, "Invalid Request",
			`"Invalid Request: too many tasks: the server keeps at most 2 (TaskOptions.MaxTasks), and 0 of yours have finished"`)
		wantTasks(t, other, []string{o1, o2}, true, true)
		o3 := finishedTask(t, other, "quick", "{}") // evicts o1
		wantTasks(t, other, []string{o1, o2, o3}, false, true, true)
	})
}

// TestTaskMaxResultBytes: a result over the bound fails its task, and
// tasks/result says why.
func TestTaskMaxResultBytes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		limit := sizedBytes(t, 100)
		srv, _ := newBoundsServer(t, &mcp.ServerOptions{Tasks: mcp.TaskOptions{MaxResultBytes: int64(limit)}})
		cs, _ := taskConnect(t, srv, nil)
		ctx := context.Background()
		ok := finishedTask(t, cs, "sized", fmt.Sprintf(`{"n":%d}`, 100))
		if err := cs.GetTaskResult(ctx, &mcp.TaskParams{TaskID: ok}, nil); err != nil {
			t.Errorf("a result of exactly the bound: %v", err)
		}
		big := finishedTask(t, cs, "sized", fmt.Sprintf(`{"n":%d}`, 101))
		err := cs.GetTaskResult(ctx, &mcp.TaskParams{TaskID: big}, nil)
		wantRPCError(t, err, jsonrpc.CodeInternalError, "Internal error",
			fmt.Sprintf(`"the task's result is %d bytes, over the limit of %d (TaskOptions.MaxResultBytes)"`, limit+1, limit))
		got, err := cs.GetTask(ctx, &mcp.TaskParams{TaskID: big})
		if err != nil || got.Task.Status != mcp.TaskFailed {
			t.Errorf("tasks/get = %+v, %v; want failed", got, err)
		}
	})
}

// taskRequestBytes is what a task's work keeps of the tools/call of tool
// with args that CallToolAsTask sends: the params and the arguments.
func taskRequestBytes(t *testing.T, tool, args string) int {
	t.Helper()
	b, err := json.Marshal(&mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args), Task: &mcp.TaskMetadata{}})
	if err != nil {
		t.Fatal(err)
	}
	return len(b) + len(args)
}

// TestTaskMaxStoredBytes: what tasks hold (a running task's request, a
// finished one's result) past the owner's byte bound evicts the owner's
// oldest finished tasks; a result that cannot fit fails its task, a
// request that cannot is refused; the server-wide bound never evicts
// another owner's.
func TestTaskMaxStoredBytes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		one := sizedBytes(t, 1000)
		n := `{"n":1000}`
		req := taskRequestBytes(t, "sized", n)
		const slack = 100 // room on the server for a request, not a result
		if req > slack {
			t.Fatalf("a request holds %d bytes, more than the slack", req)
		}
		srv, _ := newBoundsServer(t, &mcp.ServerOptions{Tasks: mcp.TaskOptions{
			MaxStoredBytesPerOwner: int64(2 * one), MaxStoredBytes: int64(3*one + slack),
		}})
		cs, _ := taskConnect(t, srv, nil)
		other, _ := taskConnect(t, srv, nil)
		ctx := context.Background()
		a := finishedTask(t, cs, "sized", n)
		b := finishedTask(t, cs, "sized", n)
		c := finishedTask(t, cs, "sized", n) // its request evicts a
		wantTasks(t, cs, []string{a, b, c}, false, true, true)

		// The server holds 2 of 3: other's first fits; its second makes
		// room with other's own first, not with cs's.
		o1 := finishedTask(t, other, "sized", n)
		o2 := finishedTask(t, other, "sized", n)
		wantTasks(t, cs, []string{b, c}, true, true)
		wantTasks(t, other, []string{o1, o2}, false, true)
		// A third owner has nothing to give: its request fits in the
		// slack, its result fails.
		third, _ := taskConnect(t, srv, nil)
		t1 := finishedTask(t, third, "sized", n)
		err := third.GetTaskResult(ctx, &mcp.TaskParams{TaskID: t1}, nil)
		detail := fmt.Sprintf("the task's result is %d bytes, and the server's tasks already hold %d of at most %d (TaskOptions.MaxStoredBytes)", one, 3*one, 3*one+slack)
		wantRPCError(t, err, jsonrpc.CodeInternalError, "Internal error", strconvQuote(detail))
		wantTasks(t, cs, []string{b, c}, true, true)
		wantTasks(t, other, []string{o2}, true)
		// The failed task holds its error: "Internal error", the detail
		// as data, and both as its status message.
		failed := 2*len("Internal error") + len(strconvQuote(detail)) + len(": ") + len(detail)
		// A fourth owner's request finds no room at all.
		fourth, _ := taskConnect(t, srv, nil)
		_, err = fourth.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "sized", Arguments: json.RawMessage(n)})
		wantRPCError(t, err, jsonrpc.CodeInvalidRequest, "Invalid Request",
			strconvQuote(fmt.Sprintf("Invalid Request: the task's request is %d bytes, and the server's tasks already hold %d of at most %d (TaskOptions.MaxStoredBytes)", req, 3*one+failed, 3*one+slack)))

		// A result larger than the owner's whole allowance: its request
		// evicts b, then c is not enough.
		huge := finishedTask(t, cs, "sized", fmt.Sprintf(`{"n":%d}`, 2500))
		err = cs.GetTaskResult(ctx, &mcp.TaskParams{TaskID: huge}, nil)
		wantRPCError(t, err, jsonrpc.CodeInternalError, "Internal error",
			fmt.Sprintf(`"the task's result is %d bytes, and the requestor's tasks already hold %d of at most %d (TaskOptions.MaxStoredBytesPerOwner)"`, sizedBytes(t, 2500), one, 2*one))
		wantTasks(t, cs, []string{b, c}, false, true)
	})
}

// TestTaskRequestBytesBound: a task's work keeps its request, which
// counts against the byte bounds from the task's creation: a request
// larger than the owner's allowance is refused with -32600, and nothing
// of the owner's is evicted for it.
func TestTaskRequestBytesBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const limit = 4096
		srv, _ := newBoundsServer(t, &mcp.ServerOptions{Tasks: mcp.TaskOptions{MaxStoredBytesPerOwner: limit}})
		cs, _ := taskConnect(t, srv, nil)
		ctx := context.Background()
		kept := finishedTask(t, cs, "sized", `{"n":10}`)
		args := `{"n":1,"pad":"` + strings.Repeat("p", limit) + `"}`
		_, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "sized", Arguments: json.RawMessage(args)})
		wantRPCError(t, err, jsonrpc.CodeInvalidRequest, "Invalid Request",
			strconvQuote(fmt.Sprintf("Invalid Request: the task's request is %d bytes, and the requestor's tasks already hold %d of at most %d (TaskOptions.MaxStoredBytesPerOwner)", taskRequestBytes(t, "sized", args), sizedBytes(t, 10), limit)))
		wantTasks(t, cs, []string{kept}, true)
		if n := mcp.MemoryTaskStoreLen(srv.TaskStore()); n != 1 {
			t.Errorf("the store holds %d tasks, want 1", n)
		}
	})
}

// TestTasksExtOwnerlessScope: without TaskOptions.Owner, one client's long
// tasks no longer use up a single shared "stateless" owner's MaxRunning
// (16 by default) for every other client; each task is its own scope,
// reached by its id.
func TestTasksExtOwnerlessScope(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, g := txServer(t, nil)
		for i := range 16 {
			txStart(t, srv, i+1, "work", txExt) // one greedy client
		}
		id, _ := txStart(t, srv, 17, "quick", txExt) // anyone else
		synctest.Wait()
		got := txCall(t, srv, 18, "tasks/get", txExt, `,"taskId":"`+id+`"`)
		if !strings.Contains(got, `"status":"completed"`) {
			t.Errorf("tasks/get by id = %s, want the completed task", got)
		}
		// The store keys it by itself, not by a shared owner.
		if _, err := srv.TaskStore().Get(context.Background(), "stateless", id); err == nil {
			t.Errorf("the task is in the shared \"stateless\" scope")
		}
		close(g.release)
		synctest.Wait()
	})
}

// TestTasksExtOwnerBounds: with TaskOptions.Owner, each owner has its own
// MaxRunning in the stateless era, and cannot see another's tasks.
func TestTasksExtOwnerBounds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, g := txServer(t, &mcp.ServerOptions{Tasks: mcp.TaskOptions{MaxRunning: 1,
			Owner: func(r *mcp.Request) string { return fmt.Sprint(r.Extra.Header["X-User"]) },
		}})
		call := func(id int, user, method, rest string) string {
			t.Helper()
			frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, txParams(txExt, rest))
			resp, _, _ := txServe(t, srv, frame, &mcp.RequestExtra{Header: map[string][]string{"X-User": {user}}})
			return resp
		}
		first := call(1, "alice", "tools/call", `,"name":"work","arguments":{}`)
		m := txIDRE.FindStringSubmatch(first)
		if m == nil {
			t.Fatalf("no task: %s", first)
		}
		txWant(t, "alice's second", call(2, "alice", "tools/call", `,"name":"work","arguments":{}`),
			txErr(2, -32600, "Invalid Request", `"Invalid Request: too many tasks running: at most 1 at once"`))
		if got := call(3, "bob", "tools/call", `,"name":"quick","arguments":{}`); !strings.Contains(got, `"resultType":"task"`) {
			t.Errorf("bob's task = %s", got)
		}
		txWant(t, "bob reads alice's", call(4, "bob", "tasks/get", `,"taskId":"`+m[1]+`"`),
			txErr(4, -32602, "Invalid params", `"Failed to retrieve task: Task not found"`))
		close(g.release)
		synctest.Wait()
	})
}
