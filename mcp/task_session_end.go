package mcp

// What ends with a session: the tasks it owns (taskRun.endsWithSession:
// TaskOptions.Owner nil, no verified token). Once the session is gone no
// request can reach them, and the spec lets a receiver clean them up
// rather than keep them until their ttl
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#resource-management).
// With a shared SessionStore, a replica's copy of a session closing says
// nothing of the session; its DELETE, or the store no longer having it,
// does.

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
			run.sessionEnded = true
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

// ownSessionTasks records that ss owns its tasks, as owner, so that its
// end deletes them (endSessionTasks). rt.mu is held.
func (rt *taskRuntime) ownSessionTasks(ss *ServerSession, owner string) {
	if rt.sessionOwners == nil {
		rt.sessionOwners = make(map[*ServerSession]string)
	}
	rt.sessionOwners[ss] = owner
	select {
	case <-ss.done:
		// Closed already, endSessionTasks perhaps done: the task's own
		// watch of the session deletes it (watchTaskSession).
		delete(rt.sessionOwners, ss)
	default:
	}
}

// watchTaskSession stops run, a task its session owns, when the session
// ends, until stopped is closed. When the SessionStore is shared, the
// session outlives this replica's copy of it, so the task then runs until
// the store no longer has the session (deleted or expired on any
// replica), which it checks every TaskOptions.PollInterval; a store that
// cannot answer leaves the task running until a later check.
func (s *Server) watchTaskSession(run *taskRun, stopped <-chan struct{}) {
	select {
	case <-run.ss.done:
	case <-stopped:
		return
	}
	if !s.store.Shared() || run.ss.state.ID == "" {
		run.cancel(errTaskSessionEnded)
		return
	}
	owner, id := run.ss.state.Owner, run.ss.state.ID
	tick := time.NewTicker(s.taskRT().poll)
	defer tick.Stop()
	for {
		var err error
		func() {
			defer recoverCallback(s.logger, "SessionStore.Load", "") // recover.go
			_, err = s.store.Load(context.Background(), owner, id)
		}()
		if errors.Is(err, ErrSessionNotFound) {
			// Gone from the store: the session's end is final.
			s.endSharedSession(context.Background(), id)
			run.cancel(errTaskSessionEnded)
			return
		}
		select {
		case <-tick.C:
		case <-stopped:
			return
		}
	}
}

// endSessionTasks frees the tasks of a session that owned them, called by
// ServerSession.Close. Running tasks are cancelled by their own watch
// (watchTaskSession) and deleted when their tool returns. With a shared
// SessionStore the closing session may be one replica's copy of a session
// that lives on: its tasks stay in the TaskStore until the session ends
// for good (endSharedSession) or their ttl.
func (s *Server) endSessionTasks(ss *ServerSession) {
	if s.opts.Tasks.Owner != nil {
		return
	}
	rt := s.taskRT()
	rt.mu.Lock()
	owner, ok := rt.sessionOwners[ss]
	delete(rt.sessionOwners, ss)
	acct := ownerAccount(owner)
	var gone []*keptTask
	if o := rt.ledger.owners[acct]; ok && o != nil {
		if s.store.Shared() && ss.state.ID != "" {
			// Only this replica's copy closed: forget the finished tasks
			// here (other replicas reach them in the TaskStore until their
			// ttl); running ones stay until they return.
			rt.forgetFinished(acct, o)
			rt.mu.Unlock()
			return
		}
		gone = slices.Clone(o.tasks)
		for len(o.tasks) > 0 {
			rt.removeAt(acct, o, len(o.tasks)-1)
		}
	}
	rt.mu.Unlock()
	s.deleteTasks(context.Background(), gone)
}

// dropSessionTask deletes a task whose session ended while it ran.
func (s *Server) dropSessionTask(ctx context.Context, run *taskRun) {
	rt := s.taskRT()
	rt.mu.Lock()
	rt.forgetTask(run.acct, run.id)
	rt.mu.Unlock()
	s.deleteTasks(ctx, []*keptTask{{id: run.id, owner: run.owner}})
}
