package mcp

// This file bounds what tasks keep: how many tasks, running and finished,
// an owner and the server hold, and how many bytes of results. The spec
// says receivers SHOULD enforce limits per requestor and clean up promptly
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#resource-management);
// it lets them delete a task after its ttl, or a cancelled one at any time
// (#ttl-and-resource-management, #task-cancellation), and names no error
// for a refused task, so a refusal is -32600 like MaxRunning's.
//
// The bounds are kept in a ledger of the tasks this Server created, beside
// the TaskStore: with a store shared by replicas, each replica bounds the
// tasks it created. When a bound is reached the owner's own oldest
// finished tasks are deleted first; running tasks, and other owners'
// tasks, are never evicted.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// Defaults of the TaskOptions bounds.
const (
	defaultMaxTasksPerOwner       = 100
	defaultMaxTasks               = 10000
	defaultMaxResultBytes         = 4 << 20
	defaultMaxStoredBytesPerOwner = 16 << 20
	defaultMaxStoredBytes         = 256 << 20
	defaultMaxRunningTotal        = 1024
)

// keptTask is the ledger's entry for one task.
type keptTask struct {
	id, owner string // the task's key in the TaskStore
	expires   time.Time
	finished  bool
	bytes     int64 // of its stored result
}

// ownerLedger is the tasks of one account, in creation order. An account
// is an owner ("o:" + the owner), or the pool of the stateless era's
// tasks that have no owner but their id (poolAccount).
type ownerLedger struct {
	tasks []*keptTask
	bytes int64
}

// poolAccount is the account of the stateless era's tasks when
// TaskOptions.Owner is nil (task_modern.go).
const poolAccount = "pool"

// ownerAccount is the ledger account of owner's tasks.
func ownerAccount(owner string) string { return "o:" + owner }

// taskLedger is the runtime's account of kept tasks; guarded by
// taskRuntime.mu.
type taskLedger struct {
	owners map[string]*ownerLedger
	count  int
	bytes  int64
}

// setBounds reads the TaskOptions bounds, defaults for zero.
func (rt *taskRuntime) setBounds(o *TaskOptions) {
	pick := func(v, def int64) int64 {
		if v <= 0 {
			return def
		}
		return v
	}
	rt.maxPerOwner = int(pick(int64(o.MaxTasksPerOwner), defaultMaxTasksPerOwner))
	rt.maxTasks = int(pick(int64(o.MaxTasks), defaultMaxTasks))
	rt.maxResultBytes = pick(o.MaxResultBytes, defaultMaxResultBytes)
	rt.maxOwnerBytes = pick(o.MaxStoredBytesPerOwner, defaultMaxStoredBytesPerOwner)
	rt.maxStoredBytes = pick(o.MaxStoredBytes, defaultMaxStoredBytes)
	rt.maxRunningTotal = int(pick(int64(o.MaxRunningTotal), defaultMaxRunningTotal))
}

// removeAt drops the owner's entry i from the ledger. rt.mu is held.
func (rt *taskRuntime) removeAt(acct string, o *ownerLedger, i int) {
	t := o.tasks[i]
	o.tasks = slices.Delete(o.tasks, i, i+1) // clears the freed slot
	o.bytes -= t.bytes
	rt.ledger.count--
	rt.ledger.bytes -= t.bytes
	if len(o.tasks) == 0 {
		delete(rt.ledger.owners, acct)
	}
}

// forgetFinished drops the owner's finished tasks from the ledger; the
// running ones stay until they return. rt.mu is held.
func (rt *taskRuntime) forgetFinished(acct string, o *ownerLedger) {
	for i := len(o.tasks) - 1; i >= 0; i-- {
		if o.tasks[i].finished {
			rt.removeAt(acct, o, i)
		}
	}
}

// dropExpired forgets the owner's tasks whose ttl has run out: the store
// no longer answers for them. rt.mu is held.
func (rt *taskRuntime) dropExpired(acct string, now time.Time) {
	o := rt.ledger.owners[acct]
	if o == nil {
		return
	}
	for i := 0; i < len(o.tasks); {
		if t := o.tasks[i]; t.finished && !now.Before(t.expires) {
			rt.removeAt(acct, o, i)
			if len(o.tasks) == 0 {
				return
			}
			continue
		}
		i++
	}
}

// evictOldest removes the owner's oldest finished task other than keep
// (one with a result, if withBytes) from the ledger and returns it, or nil
// if there is none. rt.mu is held.
func (rt *taskRuntime) evictOldest(acct, keep string, withBytes bool) *keptTask {
	o := rt.ledger.owners[acct]
	if o == nil {
		return nil
	}
	for i, t := range o.tasks {
		if t.finished && t.id != keep && (!withBytes || t.bytes > 0) {
			rt.removeAt(acct, o, i)
			return t
		}
	}
	return nil
}

// accountBounds returns the bounds of an account: an owner's own, or for
// the pool of ownerless stateless-era tasks the server-wide ones, since
// nothing tells its requestors apart.
func (rt *taskRuntime) accountBounds(acct string) (count int, bytes int64, running int) {
	if acct == poolAccount {
		return rt.maxTasks, rt.maxStoredBytes, rt.maxRunningTotal
	}
	return rt.maxPerOwner, rt.maxOwnerBytes, rt.maxRunning
}

// reserveTask makes room for a new task in acct, evicting the account's
// oldest finished tasks as needed, and enters it in the ledger. It returns
// the tasks evicted, which the caller deletes from the store, or the error
// that refuses the task (and then evicts nothing). rt.mu is held.
func (rt *taskRuntime) reserveTask(acct, owner, id string, expires, now time.Time) ([]*keptTask, error) {
	rt.dropExpired(acct, now)
	if rt.ledger.count >= rt.maxTasks {
		for a := range rt.ledger.owners {
			rt.dropExpired(a, now)
		}
	}
	if rt.ledger.owners == nil {
		rt.ledger.owners = make(map[string]*ownerLedger)
	}
	o := rt.ledger.owners[acct]
	if o == nil {
		o = &ownerLedger{}
	}
	finished := 0
	for _, t := range o.tasks {
		if t.finished {
			finished++
		}
	}
	// Evictions needed for one more task under each bound.
	maxCount, _, _ := rt.accountBounds(acct)
	needOwner := len(o.tasks) - maxCount + 1
	needServer := rt.ledger.count - rt.maxTasks + 1
	switch {
	case acct == poolAccount && max(needOwner, needServer) > finished:
		return nil, errInvalidRequest(fmt.Sprintf("too many tasks: the server keeps at most %d (TaskOptions.MaxTasks), and %d of those without an owner have finished", rt.maxTasks, finished))
	case needOwner > finished:
		return nil, errInvalidRequest(fmt.Sprintf("too many tasks: at most %d per requestor, running and finished (TaskOptions.MaxTasksPerOwner), and %d of yours are running", rt.maxPerOwner, len(o.tasks)-finished))
	case needServer > finished:
		return nil, errInvalidRequest(fmt.Sprintf("too many tasks: the server keeps at most %d (TaskOptions.MaxTasks), and %d of yours have finished", rt.maxTasks, finished))
	}
	var evicted []*keptTask
	for range max(needOwner, needServer, 0) {
		if v := rt.evictOldest(acct, "", false); v != nil {
			evicted = append(evicted, v)
		}
	}
	o.tasks = append(o.tasks, &keptTask{id: id, owner: owner, expires: expires})
	rt.ledger.owners[acct] = o // again: evicting its last task dropped it
	rt.ledger.count++
	return evicted, nil
}

// findTask returns the account's entry for task id, or nil. rt.mu is held.
func (rt *taskRuntime) findTask(acct, id string) (*ownerLedger, int) {
	if o := rt.ledger.owners[acct]; o != nil {
		for i, t := range o.tasks {
			if t.id == id {
				return o, i
			}
		}
	}
	return nil, -1
}

// finishedTask marks a task finished in the ledger. rt.mu is held.
func (rt *taskRuntime) finishedTask(acct, id string) {
	if o, i := rt.findTask(acct, id); o != nil {
		o.tasks[i].finished = true
	}
}

// forgetTask drops a task from the ledger. rt.mu is held.
func (rt *taskRuntime) forgetTask(acct, id string) {
	if o, i := rt.findTask(acct, id); o != nil {
		rt.removeAt(acct, o, i)
	}
}

// reserveResult accounts n bytes of result for task id of acct, evicting
// the account's oldest finished tasks if its or the server's stored bytes
// would pass their bound. It returns the tasks evicted, and the error the
// task fails with when the result cannot be kept.
func (rt *taskRuntime) reserveResult(acct, id string, n int64) ([]*keptTask, *jsonrpc.Error) {
	if n > rt.maxResultBytes {
		return nil, errResultTooLarge(fmt.Sprintf("the task's result is %d bytes, over the limit of %d (TaskOptions.MaxResultBytes)", n, rt.maxResultBytes))
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	o, i := rt.findTask(acct, id)
	if o == nil {
		return nil, nil // forgotten (its session ended): nothing is kept
	}
	entry := o.tasks[i]
	if rt.ledger.bytes+n > rt.maxStoredBytes {
		// Results past their ttl still count until swept.
		for a := range rt.ledger.owners {
			if a != acct {
				rt.dropExpired(a, time.Now())
			}
		}
	}
	var freeable int64 // the bytes of the account's other finished tasks
	for _, t := range o.tasks {
		if t.finished && t.id != id {
			freeable += t.bytes
		}
	}
	_, maxBytes, _ := rt.accountBounds(acct)
	needOwner := o.bytes + n - maxBytes
	needServer := rt.ledger.bytes + n - rt.maxStoredBytes
	switch {
	case needOwner > freeable && acct != poolAccount:
		return nil, errResultTooLarge(fmt.Sprintf("the task's result is %d bytes, and the requestor's other results kept hold %d of at most %d (TaskOptions.MaxStoredBytesPerOwner)", n, o.bytes, maxBytes))
	case needServer > freeable || needOwner > freeable:
		return nil, errResultTooLarge(fmt.Sprintf("the task's result is %d bytes, and the server's results kept hold %d of at most %d (TaskOptions.MaxStoredBytes)", n, rt.ledger.bytes, rt.maxStoredBytes))
	}
	var evicted []*keptTask
	for freed := int64(0); freed < max(needOwner, needServer); {
		v := rt.evictOldest(acct, id, true)
		if v == nil {
			break // not reached: freeable covers what is needed
		}
		evicted = append(evicted, v)
		freed += v.bytes
	}
	entry.bytes = n
	o.bytes += n
	rt.ledger.bytes += n
	return evicted, nil
}

// errResultTooLarge is the error a task fails with when its result cannot
// be kept: -32603, as the failure is the server's, with the detail as data.
func errResultTooLarge(detail string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error", detail)
}

// deleteTasks deletes evicted tasks from the store.
func (s *Server) deleteTasks(ctx context.Context, tasks []*keptTask) {
	store := s.taskRT().store
	for _, t := range tasks {
		if err := store.Delete(context.WithoutCancel(ctx), t.owner, t.id); err != nil && !errors.Is(err, ErrTaskNotFound) {
			s.logger.Error("mcp: deleting an evicted task", "task", t.id, "err", err)
		}
	}
}

// endSessionTasks frees the tasks of a session that owned them
// (TaskOptions.Owner nil): once the session is closed no request can
// reach them again, so keeping them until their ttl would only hold
// memory. Running tasks are cancelled by their own watch of the session
// (runTask) and deleted when their tool returns. Called by
// ServerSession.Close. With a shared SessionStore the closing session
// may be one replica's copy of a session that lives on: its tasks stay
// in the TaskStore until the session ends for good, when
// endSharedSession deletes them (or until their ttl).
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
			// Only this replica's copy of the session closed: the
			// session, and its tasks, live on in the stores. Forget the
			// finished ones here (other replicas reach them in the
			// TaskStore until their ttl); running ones stay until they
			// return (runTask).
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

// keepResult accounts n bytes of a finishing task's result, deleting the
// tasks evicted for it; a non-nil error is what the task fails with
// instead, its result not kept.
func (s *Server) keepResult(ctx context.Context, run *taskRun, n int) *jsonrpc.Error {
	evicted, err := s.taskRT().reserveResult(run.acct, run.id, int64(n))
	s.deleteTasks(ctx, evicted)
	return err
}

// errBytes is what a JSON-RPC error kept as a task's outcome weighs.
func errBytes(e *jsonrpc.Error) int { return len(e.Message) + len(e.Data) }

// dropSessionTask deletes a task whose session ended while it ran: no
// request can reach it any more.
func (s *Server) dropSessionTask(ctx context.Context, run *taskRun) {
	rt := s.taskRT()
	rt.mu.Lock()
	rt.forgetTask(run.acct, run.id)
	rt.mu.Unlock()
	s.deleteTasks(ctx, []*keptTask{{id: run.id, owner: run.owner}})
}
