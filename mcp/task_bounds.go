package mcp

// The task ledger: how many tasks, running and finished, each owner and
// the server keep, and the bytes they hold (TaskOptions bounds;
// docs/limits.md). It counts the tasks this Server created, beside the
// TaskStore. When a bound is reached the owner's own oldest finished tasks
// are deleted first; running tasks, and other owners' tasks, are never
// evicted
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#resource-management).

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
	// bytes is what the task holds: while it runs, its request (kept by
	// its work) and the status message and input requests it set; once
	// finished, its result or error and its status message.
	bytes int64
}

// ownerLedger is the tasks of one account, in creation order. An account
// is an owner ("o:" + the owner), or the pool of the stateless era's
// tasks that have no owner but their id (poolAccount).
type ownerLedger struct {
	tasks []*keptTask
	bytes int64
}

// poolAccount is the account of the stateless era's tasks when
// TaskOptions.Owner is nil (task_ext.go).
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

// dropExpired forgets the owner's finished tasks whose ttl has run out,
// and returns them: the store no longer answers for them, and the caller
// deletes them from it so that it frees them now rather than when it
// next looks. rt.mu is held.
func (rt *taskRuntime) dropExpired(acct string, now time.Time) []*keptTask {
	o := rt.ledger.owners[acct]
	if o == nil {
		return nil
	}
	var gone []*keptTask
	for i := 0; i < len(o.tasks); {
		if t := o.tasks[i]; t.finished && !now.Before(t.expires) {
			rt.removeAt(acct, o, i)
			gone = append(gone, t)
			if len(o.tasks) == 0 {
				break
			}
			continue
		}
		i++
	}
	return gone
}

// dropAllExpired is dropExpired for every account.
func (rt *taskRuntime) dropAllExpired(now time.Time) []*keptTask {
	var gone []*keptTask
	for a := range rt.ledger.owners {
		gone = append(gone, rt.dropExpired(a, now)...)
	}
	return gone
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

// reserveTask makes room for a new task in acct that holds n bytes (its
// request), evicting the account's oldest finished tasks as needed, and
// enters it in the ledger. It returns the tasks evicted or found expired,
// which the caller deletes from the store (also when the task is refused),
// and the error that refuses the task (then nothing is evicted). rt.mu is
// held.
func (rt *taskRuntime) reserveTask(acct, owner, id string, expires, now time.Time, n int64) ([]*keptTask, error) {
	gone := rt.dropExpired(acct, now)
	if rt.ledger.count >= rt.maxTasks || rt.ledger.bytes+n > rt.maxStoredBytes {
		gone = append(gone, rt.dropAllExpired(now)...)
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
		return gone, errInvalidRequest(fmt.Sprintf("too many tasks: the server keeps at most %d (TaskOptions.MaxTasks), and %d of those without an owner have finished", rt.maxTasks, finished))
	case needOwner > finished:
		return gone, errInvalidRequest(fmt.Sprintf("too many tasks: at most %d per requestor, running and finished (TaskOptions.MaxTasksPerOwner), and %d of yours are running", rt.maxPerOwner, len(o.tasks)-finished))
	case needServer > finished:
		return gone, errInvalidRequest(fmt.Sprintf("too many tasks: the server keeps at most %d (TaskOptions.MaxTasks), and %d of yours have finished", rt.maxTasks, finished))
	}
	if detail := rt.bytesShort(acct, o, "", n, n, "the task's request"); detail != "" {
		return gone, errInvalidRequest(detail)
	}
	for range max(needOwner, needServer, 0) {
		if v := rt.evictOldest(acct, "", false); v != nil {
			gone = append(gone, v)
		}
	}
	gone = append(gone, rt.evictBytes(acct, o, "", n)...)
	o.tasks = append(o.tasks, &keptTask{id: id, owner: owner, expires: expires, bytes: n})
	o.bytes += n
	rt.ledger.owners[acct] = o // again: evicting its last task dropped it
	rt.ledger.count++
	rt.ledger.bytes += n
	return gone, nil
}

// bytesShort returns why account acct, whose ledger is o, cannot hold
// delta more bytes for task keep (one part of it, what, growing to n
// bytes), even by evicting all its finished tasks but keep; or "" when it
// can. rt.mu is held.
func (rt *taskRuntime) bytesShort(acct string, o *ownerLedger, keep string, delta, n int64, what string) string {
	if delta <= 0 {
		return ""
	}
	var freeable int64 // the bytes of the account's other finished tasks
	for _, t := range o.tasks {
		if t.finished && t.id != keep {
			freeable += t.bytes
		}
	}
	_, maxBytes, _ := rt.accountBounds(acct)
	needOwner := o.bytes + delta - maxBytes
	needServer := rt.ledger.bytes + delta - rt.maxStoredBytes
	old := n - delta // what the part held so far, counted in o.bytes
	switch {
	case needOwner > freeable && acct != poolAccount:
		return fmt.Sprintf("%s is %d bytes, and the requestor's tasks already hold %d of at most %d (TaskOptions.MaxStoredBytesPerOwner)", what, n, o.bytes-old, maxBytes)
	case needServer > freeable || needOwner > freeable:
		return fmt.Sprintf("%s is %d bytes, and the server's tasks already hold %d of at most %d (TaskOptions.MaxStoredBytes)", what, n, rt.ledger.bytes-old, rt.maxStoredBytes)
	}
	return ""
}

// evictBytes evicts account acct's oldest finished tasks with bytes, but
// keep, until delta more bytes fit under its bound and the server's, and
// returns them; bytesShort has said they can. rt.mu is held.
func (rt *taskRuntime) evictBytes(acct string, o *ownerLedger, keep string, delta int64) []*keptTask {
	_, maxBytes, _ := rt.accountBounds(acct)
	var gone []*keptTask
	for delta > 0 && (o.bytes+delta > maxBytes || rt.ledger.bytes+delta > rt.maxStoredBytes) {
		v := rt.evictOldest(acct, keep, true)
		if v == nil {
			break // not reached: bytesShort found enough
		}
		gone = append(gone, v)
	}
	return gone
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

// errTaskBytes says why a task cannot hold more bytes.
type errTaskBytes string

func (e errTaskBytes) Error() string { return string(e) }

// resize changes one part of what task id of acct holds, what, from old
// bytes to n, evicting the account's oldest finished tasks if its or the
// server's bytes would pass their bound. It returns the tasks evicted or
// found expired, which the caller deletes from the store, and, when even
// evicting cannot make room, an errTaskBytes (then the task's bytes are
// unchanged). A task the ledger has forgotten (its session ended) holds
// nothing. rt.mu is held.
func (rt *taskRuntime) resize(acct, id string, old, n int64, what string) ([]*keptTask, error) {
	o, i := rt.findTask(acct, id)
	if o == nil {
		return nil, nil
	}
	entry := o.tasks[i]
	delta := n - old
	var gone []*keptTask
	if delta > 0 && rt.ledger.bytes+delta > rt.maxStoredBytes {
		// Tasks past their ttl still count until swept.
		gone = rt.dropAllExpired(time.Now())
	}
	if detail := rt.bytesShort(acct, o, id, delta, n, what); detail != "" {
		return gone, errTaskBytes(detail)
	}
	gone = append(gone, rt.evictBytes(acct, o, id, delta)...)
	rt.addBytes(o, entry, delta)
	return gone, nil
}

// addBytes adds delta to what entry, of the account whose ledger is o,
// holds. rt.mu is held.
func (rt *taskRuntime) addBytes(o *ownerLedger, entry *keptTask, delta int64) {
	entry.bytes += delta
	o.bytes += delta
	rt.ledger.bytes += delta
}

// held returns what task id of acct holds, 0 if forgotten. rt.mu is held.
func (rt *taskRuntime) held(acct, id string) int64 {
	if o, i := rt.findTask(acct, id); o != nil {
		return o.tasks[i].bytes
	}
	return 0
}

// settle sets what a finished task holds to n, without bounds: the
// outcome a task fails with when its own cannot be kept, a few hundred
// bytes at most, or the cancelled state a cancelled task keeps. rt.mu is
// held.
func (rt *taskRuntime) settle(acct, id string, n int64) {
	if o, i := rt.findTask(acct, id); o != nil {
		rt.addBytes(o, o.tasks[i], n-o.tasks[i].bytes)
	}
}

// errResultTooLarge is the error a task fails with when its result cannot
// be kept: -32603, as the failure is the server's, with the detail as data.
func errResultTooLarge(detail string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error", detail)
}

// ErrTaskTooLarge is returned by RunningTask.SetStatus, and by
// Request.Input in a task of the stateless era's tasks extension, when
// what the task would hold (its status message, its outstanding input
// requests) passes TaskOptions.MaxStoredBytesPerOwner or MaxStoredBytes
// even after the requestor's oldest finished tasks are deleted. The error
// wraps it and says which bound and by how much. The task's state is left
// as it was. The spec says receivers SHOULD enforce limits per requestor
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#resource-management).
//
// # Experimental
//
// Part of the experimental tasks API.
var ErrTaskTooLarge = errors.New("mcp: the task cannot hold more bytes")

// deleteTasks deletes evicted tasks from the store.
func (s *Server) deleteTasks(ctx context.Context, tasks []*keptTask) {
	store := s.taskRT().store
	for _, t := range tasks {
		if err := store.Delete(context.WithoutCancel(ctx), t.owner, t.id); err != nil && !errors.Is(err, ErrTaskNotFound) {
			s.logger.Error("mcp: deleting an evicted task", "task", t.id, "err", err)
		}
	}
}

// resizeRun changes one part of what a running task holds (*part, its
// status message or input requests, guarded by rt.mu) to n bytes. It
// returns the tasks evicted for it, which the caller deletes from the
// store, and an error wrapping ErrTaskTooLarge when the part cannot grow
// (then *part is unchanged).
func (s *Server) resizeRun(run *taskRun, part *int64, n int, what string) ([]*keptTask, error) {
	rt := s.taskRT()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	gone, err := rt.resize(run.acct, run.id, *part, int64(n), what)
	if err != nil {
		return gone, fmt.Errorf("%w: %w", ErrTaskTooLarge, err)
	}
	*part = int64(n)
	return gone, nil
}

// keepOutcome accounts what a finishing task keeps: its result (or error)
// of resultBytes and its status message of msgBytes, in place of all it
// held while it ran, deleting the tasks evicted for it. A non-nil error is
// what the task fails with instead, its result not kept; the task then
// holds that error and its status message.
func (s *Server) keepOutcome(ctx context.Context, run *taskRun, resultBytes, msgBytes int) *jsonrpc.Error {
	rt := s.taskRT()
	var kerr *jsonrpc.Error
	if int64(resultBytes) > rt.maxResultBytes {
		kerr = errResultTooLarge(fmt.Sprintf("the task's result is %d bytes, over the limit of %d (TaskOptions.MaxResultBytes)", resultBytes, rt.maxResultBytes))
	}
	rt.mu.Lock()
	var gone []*keptTask
	if kerr == nil {
		var err error
		gone, err = rt.resize(run.acct, run.id, rt.held(run.acct, run.id), int64(resultBytes+msgBytes), "the task's result")
		if err != nil {
			kerr = errResultTooLarge(err.Error())
		}
	}
	if kerr != nil {
		rt.settle(run.acct, run.id, int64(errBytes(kerr)+len(errorStatusMessage(kerr))))
	}
	run.settled = true
	rt.mu.Unlock()
	s.deleteTasks(ctx, gone)
	return kerr
}

// errBytes is what a JSON-RPC error kept as a task's outcome weighs.
func errBytes(e *jsonrpc.Error) int { return len(e.Message) + len(e.Data) }
