package mcp

// Task operations across replicas (ServerOptions.Bus, with a TaskStore
// the replicas share): tasks/cancel and tasks/update for a task whose
// work runs on another replica, and the end for good of a session that
// owned tasks (task_session_end.go). Delivery is the bus's, at most once
// (docs/design.md, "The Bus is at most once").

import (
	"context"
	"encoding/json"

	"github.com/mcpkit/mcpkit/internal/jsonenc"
)

// taskChannel is the bus channel of task operations.
const taskChannel = "mcpkit.tasks"

// taskOp is one task operation on the bus.
type taskOp struct {
	From      string          `json:"f"`
	Op        string          `json:"op"` // "cancel", "update" or "end"
	Task      string          `json:"t"`
	Owner     string          `json:"o,omitempty"`
	Responses json.RawMessage `json:"r,omitempty"`
}

// joinTaskBus subscribes this server to task operations while a task's
// work runs here; call the function it returns when the work ends.
func (s *Server) joinTaskBus(ctx context.Context) func() {
	return s.joinBus(ctx, &s.taskBus, taskChannel, s.receiveTaskOp)
}

// publishTaskOp sends op to the replica running its task. Without a Bus
// it does nothing.
func (s *Server) publishTaskOp(ctx context.Context, op taskOp) {
	bus := s.opts.Bus
	if bus == nil {
		return
	}
	op.From = s.busID()
	b, err := jsonenc.Marshal(op)
	if err != nil {
		return
	}
	defer recoverCallback(s.logger, "Bus.Publish", "") // recover.go
	if err := bus.Publish(context.WithoutCancel(ctx), taskChannel, b); err != nil {
		s.logger.Warn("mcp: publishing a task operation on the bus failed", "op", op.Op, "task", op.Task, "err", err)
	}
}

// receiveTaskOp applies an operation another replica published to the
// task's work, if it runs here.
func (s *Server) receiveTaskOp(b []byte) {
	var op taskOp
	if err := json.Unmarshal(b, &op); err != nil || op.From == s.busID() {
		return
	}
	if op.Op == "end" {
		s.endOwnerRuns(op.Owner) // task_session_end.go
		return
	}
	run := s.taskRT().run(op.Task)
	if run == nil || run.owner != op.Owner {
		return
	}
	switch op.Op {
	case "cancel":
		if run.cancel != nil {
			run.cancel(errTaskCancelledByRequest)
		}
	case "update":
		if run.ext == nil {
			return
		}
		var responses map[string]json.RawMessage
		if json.Unmarshal(op.Responses, &responses) != nil {
			return
		}
		s.answerExtTask(context.Background(), run, responses)
	}
}
