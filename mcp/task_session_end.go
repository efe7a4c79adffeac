package mcp

// This file ends the tasks of a shared session when the session ends for
// good. With a SessionStore shared by replicas, a replica's copy of a
// session closing says nothing of the session (endSessionTasks keeps its
// tasks); its DELETE, or the store no longer having it, does. Then no
// request can reach the tasks it owned (TaskOptions.Owner nil, no
// verified token: owner "session:" + id), and the spec lets a receiver
// clean them up rather than keep them until their ttl
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#resource-management).

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// defaultSessionEndTimeout is TaskOptions.SessionEndTimeout's default.
const defaultSessionEndTimeout = 5 * time.Second

// sessionEndPage is how many tasks one TaskStore.List call asks for when
// an ended session's tasks are deleted.
const sessionEndPage = 100

// sessionOwnerPrefix starts the owner key of a session's own tasks
// (taskOwner).
const sessionOwnerPrefix = "session:"

// endSharedSession ends the tasks owned by the session sessionID of a
// shared SessionStore, which has ended for good: all are deleted from the
// TaskStore, within TaskOptions.SessionEndTimeout; their work is
// cancelled through the Bus on the replica running it, and here (after
// the deletion, so that a task seen ended is gone from the store); the
// finished ones are forgotten by the ledger. A store error is logged. It does
// nothing when tasks do not belong to sessions (TaskOptions.Owner set).
func (s *Server) endSharedSession(ctx context.Context, sessionID string) {
	if s.opts.Tasks.Owner != nil || sessionID == "" {
		return
	}
	owner := sessionOwnerPrefix + sessionID
	s.publishTaskOp(ctx, taskOp{Op: "end", Owner: owner}) // task_bus.go
	s.deleteOwnerTasks(ctx, owner)
	s.endOwnerRuns(owner)
}

// endOwnerRuns cancels the work of owner's tasks running here, as their
// session has ended, and forgets owner's finished tasks in the ledger
// (the running ones are forgotten when their tool returns: finishTask).
// Only a session's own tasks end so.
func (s *Server) endOwnerRuns(owner string) {
	if !strings.HasPrefix(owner, sessionOwnerPrefix) {
		return
	}
	rt := s.taskRT()
	var runs []*taskRun
	rt.mu.Lock()
	for _, run := range rt.runs {
		if run.owner == owner && run.cancel != nil {
			runs = append(runs, run)
		}
	}
	acct := ownerAccount(owner)
	if o := rt.ledger.owners[acct]; o != nil {
		rt.forgetFinished(acct, o)
	}
	rt.mu.Unlock()
	for _, run := range runs {
		run.cancel(errTaskSessionEnded)
	}
}

// deleteOwnerTasks deletes every task of owner from the TaskStore: the
// ids are listed page by page, then deleted, all within
// TaskOptions.SessionEndTimeout. A store error or panic is logged and
// ends the cleanup; the tasks left go at their ttl.
func (s *Server) deleteOwnerTasks(ctx context.Context, owner string) {
	rt := s.taskRT()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rt.endTimeout)
	defer cancel()
	fail := func(done, of int, err error) {
		if ctx.Err() != nil {
			err = fmt.Errorf("deleted %d of the %d tasks listed when TaskOptions.SessionEndTimeout (%v) ran out: %w", done, of, rt.endTimeout, ctx.Err())
		}
		s.logger.Error("mcp: deleting the tasks of an ended session", "owner", owner, "err", err)
	}
	var ids []string
	for cursor := ""; ; {
		var page []*TaskState
		var next string
		err := errStorePanic
		func() {
			defer recoverCallback(s.logger, "TaskStore.List", "") // recover.go
			page, next, err = rt.store.List(ctx, owner, cursor, sessionEndPage)
		}()
		if err == nil && ctx.Err() != nil {
			err = ctx.Err()
		}
		if err != nil {
			fail(0, len(ids), fmt.Errorf("listing them: %w", err))
			if len(ids) == 0 {
				return
			}
			break // delete those listed
		}
		for _, st := range page {
			ids = append(ids, st.Task.TaskID)
		}
		if next == "" || next == cursor || len(page) == 0 {
			break
		}
		cursor = next
	}
	for i, id := range ids {
		err := errStorePanic
		func() {
			defer recoverCallback(s.logger, "TaskStore.Delete", "")
			err = rt.store.Delete(ctx, owner, id)
		}()
		if err != nil && !errors.Is(err, ErrTaskNotFound) {
			fail(i, len(ids), fmt.Errorf("deleting task %s: %w", id, err))
			return
		}
	}
}

// errStorePanic stands for the outcome of a store call that panicked
// (the panic itself is logged by recoverCallback).
var errStorePanic = errors.New("mcp: the store panicked")
