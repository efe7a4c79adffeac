package mcp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
)

// benchTaskServer has one tool, "quick", that may run as a task and
// answers at once.
func benchTaskServer(b *testing.B, opts *mcp.ServerOptions) *mcp.Server {
	srv := mcp.NewServer(mcp.Implementation{Name: "bench", Version: "1.0.0"}, opts)
	err := mcp.AddTool(srv, &mcp.Tool{Name: "quick", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(context.Context, *mcp.Request, struct{}) (string, error) { return "done", nil })
	if err != nil {
		b.Fatal(err)
	}
	return srv
}

// BenchmarkTaskSession is one task of the session era, over the in-memory
// transport: a task-augmented tools/call, then tasks/result.
func BenchmarkTaskSession(b *testing.B) {
	srv := benchTaskServer(b, nil)
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "c", Version: "1"}, legacy(nil)).Connect(ctx, ct)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	ttl := int64(60_000)
	b.ReportAllocs()
	for b.Loop() {
		created, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "quick", Task: &mcp.TaskMetadata{TTL: &ttl}})
		if err != nil {
			b.Fatal(err)
		}
		var res mcp.CallToolResult
		if err := cs.GetTaskResult(ctx, &mcp.TaskParams{TaskID: created.Task.TaskID}, &res); err != nil {
			b.Fatal(err)
		}
	}
}

// doneStore is a NewMemoryTaskStore store that says when a task ends.
type doneStore struct {
	mcp.TaskStore
	done chan string
}

func (d *doneStore) Update(ctx context.Context, owner, id string, fn func(*mcp.TaskState) error) (*mcp.TaskState, error) {
	st, err := d.TaskStore.Update(ctx, owner, id, fn)
	if err == nil && st.Task.Status.Terminal() {
		d.done <- id
	}
	return st, err
}

// BenchmarkTaskExt is one task of the stateless era's tasks extension,
// served request by request: tools/call, then, once the task has
// completed, tasks/get.
func BenchmarkTaskExt(b *testing.B) {
	store := &doneStore{TaskStore: mcp.NewMemoryTaskStore(), done: make(chan string, 1)}
	srv := benchTaskServer(b, &mcp.ServerOptions{Tasks: mcp.TaskOptions{Store: store}})
	b.ReportAllocs()
	id := 0
	for b.Loop() {
		id++
		resp := txCall(b, srv, id, "tools/call", txExt, `,"name":"quick","arguments":{}`)
		i := strings.Index(resp, `"taskId":"`)
		if i < 0 {
			b.Fatalf("no task: %s", resp)
		}
		task := resp[i+10 : i+10+strings.IndexByte(resp[i+10:], '"')]
		<-store.done
		id++
		if got := txCall(b, srv, id, "tasks/get", txExt, fmt.Sprintf(`,"taskId":%q`, task)); !strings.Contains(got, `"status":"completed"`) {
			b.Fatalf("not completed: %s", got)
		}
	}
}
