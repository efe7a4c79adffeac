package mcp

// The task engine: what both eras' tasks share. A task-augmented tools/call
// creates a task in the TaskStore, runs its tool in a goroutine under the
// TaskOptions bounds and its ttl, records the outcome and tells the
// requestor; tasks/cancel and the end of a session stop it. Each era's
// adapter (task_session.go for the 2025-11-25 tasks utility,
// task_ext.go for the 2026-07-28 tasks extension, SEP-2663) decodes the
// params, shapes the results and notifications (taskWire) and declares
// which methods exist.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// TaskOptions configures the tasks a Server runs for task-augmented
// requests, in both eras. The zero value is a useful configuration;
// docs/limits.md ("Tasks") gives each bound's refusal.
//
// # Experimental
//
// Tasks are experimental in the 2025-11-25 specification, and so is this
// API.
type TaskOptions struct {
	// Store keeps the tasks' state. If nil, NewMemoryTaskStore().
	Store TaskStore
	// DefaultTTL is how long a task is kept, from its creation, when the
	// request asks for no ttl (or for one of 0 or less). If zero, one hour.
	DefaultTTL time.Duration
	// MaxTTL caps the ttl a request may ask for: longer ones are shortened
	// to it
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#ttl-and-resource-management).
	// If zero, 24 hours.
	MaxTTL time.Duration
	// PollInterval is the pollInterval suggested to requestors, and how
	// often a task whose session's copy on this replica closed checks the
	// shared SessionStore for the session's end. If zero, one second.
	PollInterval time.Duration
	// SessionEndTimeout bounds the deletion of an ended session's tasks
	// from the TaskStore (its DELETE, or this replica finding it gone from
	// a shared SessionStore); past it the cleanup stops, logs "mcp:
	// deleting the tasks of an ended session", and the tasks left go at
	// their ttl. If zero, 5 seconds.
	SessionEndTimeout time.Duration
	// MaxRunning bounds the tasks one owner may have working at once
	// (-32600 past it). If zero, 16.
	MaxRunning int
	// MaxRunningTotal bounds the tasks working at once on the server, all
	// owners together, and the stateless era's tasks without an owner
	// (-32600 past it). If zero, 1024.
	MaxRunningTotal int
	// MaxTasksPerOwner bounds the tasks one owner keeps, running and
	// finished: a new task past it deletes the owner's oldest finished
	// task, or is refused (-32600) when all of them run. If zero, 100.
	MaxTasksPerOwner int
	// MaxTasks bounds the tasks the server keeps for all owners together:
	// a new task past it deletes its own owner's oldest finished tasks
	// (never another owner's), or is refused (-32600). If zero, 10000.
	MaxTasks int
	// MaxResultBytes bounds the JSON of one task's result (or error): a
	// task whose result is longer fails with -32603. If zero, 4 MiB.
	MaxResultBytes int64
	// MaxStoredBytesPerOwner bounds the bytes one owner's tasks hold,
	// running (request, status message, input requests) and finished
	// (result or error, status message). Growth past it first deletes the
	// owner's oldest finished tasks, then is refused (ErrTaskTooLarge for
	// SetStatus and Request.Input). If zero, 16 MiB.
	MaxStoredBytesPerOwner int64
	// MaxStoredBytes bounds the bytes all tasks this replica created hold
	// together, counted and enforced as MaxStoredBytesPerOwner's. If zero,
	// 256 MiB.
	MaxStoredBytes int64
	// Owner names who a request's tasks belong to: only requests with the
	// same owner see them
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#task-isolation-and-access-control).
	// If nil: the verified token's TokenInfo.OwnerKey, else the session,
	// whose end deletes its tasks; a 2026-07-28 task without either is its
	// own scope, reached by its unguessable id alone. docs/design.md says
	// why.
	Owner func(r *Request) string
}

// taskRuntime is what a Server keeps, beside the TaskStore, to run tasks.
// It is set up on first use.
type taskRuntime struct {
	once       sync.Once
	store      TaskStore
	defaultTTL time.Duration
	maxTTL     time.Duration
	poll       time.Duration
	endTimeout time.Duration // TaskOptions.SessionEndTimeout
	maxRunning int
	// The bounds of task_bounds.go.
	maxPerOwner, maxTasks, maxRunningTotal        int
	maxResultBytes, maxOwnerBytes, maxStoredBytes int64

	mu      sync.Mutex
	runs    map[string]*taskRun // by task id, while the work runs
	running map[string]int      // working tasks by ledger account
	// runningTotal is the working tasks of all accounts.
	runningTotal int
	ledger       taskLedger // kept tasks (task_bounds.go)
	// sessionOwners is the owner key of each open session that created
	// tasks it owns (taskRun.endsWithSession): they are deleted when it
	// closes (task_session_end.go).
	sessionOwners map[*ServerSession]string
}

// taskWire is what differs between the eras' tasks once the engine runs
// them: what a result is kept as, which statuses a handler sets, and how
// the requestor hears of a change. sessionTaskWire (task_session.go) and
// extTaskWire (task_ext.go) implement it.
type taskWire interface {
	// result is what task id's completed tool call keeps: res encoded
	// once, as the era's task result sends it; size, the bytes of it the
	// byte bounds count; the status it ends in and that status's message.
	result(id string, res *CallToolResult) (raw json.RawMessage, size int, status TaskStatus, msg string, err error)
	// toolError is err, returned by the tool, as the era answers it.
	toolError(err error) error
	// setStatus checks RunningTask.SetStatus's status, and reports
	// whether the task takes it (else only the message changes).
	setStatus(status TaskStatus) (set bool, err error)
	// notify tells the requestor that run's task, which was before, is
	// now st. It is called in the order the changes are stored.
	notify(ctx context.Context, s *Server, run *taskRun, before TaskStatus, st *TaskState)
}

// taskRun is one task whose work runs in this process, or the handle a
// request updates a task through when its work runs elsewhere.
type taskRun struct {
	id, owner string
	acct      string // its ledger account (task_bounds.go)
	wire      taskWire
	ss        *ServerSession
	w         *taskWriter
	cancel    context.CancelCauseFunc
	// endsWithSession is set when the task belongs to its session: the
	// session's end stops and deletes it (task_session_end.go).
	endsWithSession bool
	// terminal is closed when this server moves the task to a terminal
	// status (or forgets it), waking tasks/result calls.
	terminal     chan struct{}
	terminalOnce sync.Once
	// released is closed when the work has ended here and the ledger has
	// its outcome (taskRuntime.release).
	released chan struct{}
	// publish orders the task's store updates with their notifications;
	// before is the status an update found, guarded by it.
	publish sync.Mutex
	before  TaskStatus
	// ext is the input requests of a task of the tasks extension
	// (task_ext.go).
	ext *extRun

	// What the task holds in the ledger (task_bounds.go), guarded by
	// taskRuntime.mu: the bytes of the status message and of the input
	// requests its work set, and whether its outcome has been accounted
	// (keepOutcome) in place of all it held while it ran.
	msgBytes, inputBytes int64
	settled              bool
	// sessionEnded is set, under taskRuntime.mu, when the task's session
	// ends for good while its work is still here (endOwnerRuns): its end
	// then forgets it rather than keeping its outcome.
	sessionEnded bool
}

func newTaskRun(id, owner, acct string, ss *ServerSession, wire taskWire) *taskRun {
	return &taskRun{
		id: id, owner: owner, acct: acct, wire: wire, ss: ss,
		w:        &taskWriter{id: id, ss: ss},
		terminal: make(chan struct{}),
		released: make(chan struct{}),
	}
}

func (run *taskRun) markTerminal() { run.terminalOnce.Do(func() { close(run.terminal) }) }

// taskCancelledMessage is the status message of a task cancelled by
// tasks/cancel.
const taskCancelledMessage = "The task was cancelled by request."

// Why a task's work was stopped.
var (
	errTaskCancelledByRequest = errors.New("mcp: task cancelled by tasks/cancel")
	errTaskSessionEnded       = errors.New("mcp: the task's session ended")
	errTaskExpired            = errors.New("mcp: the task's ttl expired")
)

// taskRT returns the server's task runtime, set up from its options.
func (s *Server) taskRT() *taskRuntime {
	rt := &s.tasks
	rt.once.Do(func() {
		o := s.opts.Tasks
		rt.store = o.Store
		if rt.store == nil {
			rt.store = NewMemoryTaskStore()
		}
		rt.defaultTTL = positiveOr(o.DefaultTTL, time.Hour) // client.go
		rt.maxTTL = positiveOr(o.MaxTTL, 24*time.Hour)
		rt.poll = positiveOr(o.PollInterval, time.Second)
		rt.endTimeout = positiveOr(o.SessionEndTimeout, defaultSessionEndTimeout)
		rt.maxRunning = positiveOr(o.MaxRunning, 16)
		rt.setBounds(&o)
	})
	return rt
}

// TaskStore returns the store that keeps the server's tasks.
//
// # Experimental
//
// Part of the experimental tasks API.
func (s *Server) TaskStore() TaskStore { return s.taskRT().store }

// taskSupport returns a tool's execution.taskSupport, "forbidden" if unset.
func taskSupport(t *Tool) string {
	if t.Execution == nil || t.Execution.TaskSupport == "" {
		return TaskSupportForbidden
	}
	return t.Execution.TaskSupport
}

// validTaskSupport checks a tool's execution.taskSupport when it is added.
func validTaskSupport(t *Tool) error {
	switch taskSupport(t) {
	case TaskSupportForbidden:
		if t.InputBeforeTask {
			return fmt.Errorf("mcp: tool %q: InputBeforeTask needs execution.taskSupport %q or %q", t.Name, TaskSupportOptional, TaskSupportRequired)
		}
		return nil
	case TaskSupportOptional, TaskSupportRequired:
		return nil
	}
	return fmt.Errorf("mcp: tool %q: execution.taskSupport must be %q, %q or %q, not %q",
		t.Name, TaskSupportForbidden, TaskSupportOptional, TaskSupportRequired, t.Execution.TaskSupport)
}

// hasTaskTools reports whether any tool may run as a task. s.mu is held.
func (s *Server) hasTaskTools() bool {
	for _, t := range s.tools.byKey {
		if taskSupport(t.tool) != TaskSupportForbidden {
			return true
		}
	}
	return false
}

// boundOwner returns who r's tasks belong to when that is not its session
// or, in the tasks extension, the task itself: TaskOptions.Owner's answer,
// else the verified token's TokenInfo.OwnerKey.
func (s *Server) boundOwner(r *Request) (string, bool) {
	if s.opts.Tasks.Owner != nil {
		return s.opts.Tasks.Owner(r), true
	}
	if a := authOf(r); a != nil {
		return a.OwnerKey(), true
	}
	return "", false
}

// createTask stores a new working task for run, a tools/call, if its
// account has room for one more running task and the server for one more
// task, and both for the held bytes its work keeps (its request).
func (s *Server) createTask(ctx context.Context, run *taskRun, ttl time.Duration, held int) (*TaskState, error) {
	rt := s.taskRT()
	acct := run.acct
	now := time.Now().UTC().Truncate(time.Millisecond)
	ttlMS := ttl.Milliseconds()
	st := &TaskState{
		Task: Task{
			TaskID:        run.id,
			Status:        TaskWorking,
			CreatedAt:     now,
			LastUpdatedAt: now,
			TTL:           &ttlMS,
			PollInterval:  rt.poll.Milliseconds(),
		},
		Owner:     run.owner,
		Method:    "tools/call",
		ExpiresAt: now.Add(ttl),
	}

	rt.mu.Lock()
	_, _, maxRunning := rt.accountBounds(acct)
	switch {
	case rt.running[acct] >= maxRunning && acct == poolAccount:
		rt.mu.Unlock()
		return nil, errInvalidRequest(fmt.Sprintf("too many tasks running: at most %d at once on this server (TaskOptions.MaxRunningTotal)", maxRunning))
	case rt.running[acct] >= maxRunning:
		rt.mu.Unlock()
		return nil, errInvalidRequest(fmt.Sprintf("too many tasks running: at most %d at once", maxRunning))
	case rt.runningTotal >= rt.maxRunningTotal:
		rt.mu.Unlock()
		return nil, errInvalidRequest(fmt.Sprintf("too many tasks running: at most %d at once on this server (TaskOptions.MaxRunningTotal)", rt.maxRunningTotal))
	}
	evicted, err := rt.reserveTask(acct, run.owner, run.id, st.ExpiresAt, now, int64(held))
	if err != nil {
		rt.mu.Unlock()
		s.deleteTasks(ctx, evicted)
		return nil, err
	}
	if rt.running == nil {
		rt.running = make(map[string]int)
		rt.runs = make(map[string]*taskRun)
	}
	rt.running[acct]++
	rt.runningTotal++
	rt.mu.Unlock()
	s.deleteTasks(ctx, evicted)

	if err := rt.store.Create(ctx, st); err != nil {
		rt.mu.Lock()
		rt.forgetTask(acct, run.id)
		rt.mu.Unlock()
		rt.release(nil, acct)
		s.logger.Error("mcp: creating a task", "err", err)
		return nil, errInternal()
	}
	return st, nil
}

// startTask runs the tool of run, a task createTask stored, in a goroutine
// of its own: wr is the task's own Request and related the stream its
// messages go to. The work keeps the request's values but not its
// cancellation: tasks/cancel, the ttl and (endsWithSession) the session's
// end stop it.
func (s *Server) startTask(ctx context.Context, run *taskRun, wr *Request, related messageWriter, t *serverTool, args json.RawMessage, ttl time.Duration) {
	rt := s.taskRT()
	wctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	run.cancel = cancel
	wctx = context.WithValue(wctx, relatedKey{}, related)
	wctx = context.WithValue(wctx, runningTaskKey{}, &RunningTask{s: s, run: run})
	rt.mu.Lock()
	rt.runs[run.id] = run
	if run.endsWithSession {
		rt.ownSessionTasks(run.ss, run.owner) // task_session_end.go
	}
	rt.mu.Unlock()
	if wr.Extra != nil {
		extra := *wr.Extra
		extra.CloseStream = nil // the request's stream is gone
		wr.Extra = &extra
	}
	leave := s.joinTaskBus(ctx) // task_bus.go: operations from other replicas
	go func() {
		defer leave()
		if run.endsWithSession {
			stopped := make(chan struct{})
			defer close(stopped)
			go s.watchTaskSession(run, stopped) // task_session_end.go
		}
		s.runTask(wctx, run, wr, t, args, ttl)
	}()
}

// runTask runs a task's tool under its ttl, a panic becoming an error as
// in any handler, and records the outcome. The ttl runs until the outcome
// is recorded: a task that outlives it is cancelled and marked terminal.
func (s *Server) runTask(ctx context.Context, run *taskRun, r *Request, t *serverTool, args json.RawMessage, ttl time.Duration) {
	expiry := time.AfterFunc(ttl, func() {
		run.cancel(errTaskExpired)
		run.markTerminal()
	})
	defer expiry.Stop()
	var (
		res *CallToolResult
		err error
	)
	func() {
		defer s.recoverHandler("tools/call", &err)
		res, err = runTool(ctx, r, t, args)
	}()
	s.finishTask(ctx, run, res, err)
}

// finishTask moves a task to its terminal status from the tool's outcome:
// a result as the era keeps it (taskWire.result), a JSON-RPC error fails
// it. A task stopped while its tool ran (cancelled, expired) stays as it
// is; one whose session ended is deleted.
func (s *Server) finishTask(ctx context.Context, run *taskRun, res *CallToolResult, err error) {
	rt := s.taskRT()
	defer rt.release(run, run.acct)
	defer run.markTerminal()

	if errors.Is(context.Cause(ctx), errTaskSessionEnded) {
		s.dropSessionTask(ctx, run) // no request can reach it any more
		return
	}
	fail := func(e *jsonrpc.Error) func(st *TaskState) {
		return func(st *TaskState) {
			st.Task.Status, st.Error = TaskFailed, e
			st.Task.StatusMessage = errorStatusMessage(e)
		}
	}
	var apply func(st *TaskState)
	switch {
	case err == nil:
		raw, size, status, msg, mErr := run.wire.result(run.id, res)
		if mErr != nil {
			s.logger.Error("mcp: encoding a task's result", "task", run.id, "err", mErr)
			apply = fail(errInternal())
			break
		}
		if kerr := s.keepOutcome(ctx, run, size, len(msg)); kerr != nil {
			apply = fail(kerr)
			break
		}
		apply = func(st *TaskState) {
			st.Result = raw
			st.Task.Status, st.Task.StatusMessage = status, msg
		}
	case ctx.Err() != nil:
		return // cancelled, or forgotten at its ttl
	default:
		var rpcErr *jsonrpc.Error
		if !errors.As(run.wire.toolError(err), &rpcErr) {
			rpcErr = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		if kerr := s.keepOutcome(ctx, run, errBytes(rpcErr), len(errorStatusMessage(rpcErr))); kerr != nil {
			rpcErr = kerr
		}
		apply = fail(rpcErr)
	}
	s.updateTask(context.WithoutCancel(ctx), run, func(st *TaskState) error {
		if st.Task.Status.Terminal() {
			return ErrInvalidTaskTransition
		}
		apply(st)
		st.InputRequests = nil
		return nil
	})
}

// updateTask changes a task in the store and tells the requestor
// (taskWire.notify), then wakes the tasks/result calls of a task now
// terminal. It returns the new state, or nil and the error.
func (s *Server) updateTask(ctx context.Context, run *taskRun, fn func(st *TaskState) error) (*TaskState, error) {
	run.publish.Lock()
	defer run.publish.Unlock()
	st, err := s.taskRT().store.Update(ctx, run.owner, run.id, func(st *TaskState) error {
		run.before = st.Task.Status
		if err := fn(st); err != nil {
			return err
		}
		st.Task.LastUpdatedAt = time.Now().UTC().Truncate(time.Millisecond)
		return nil
	})
	if err != nil {
		if !errors.Is(err, ErrInvalidTaskTransition) && !errors.Is(err, ErrTaskNotFound) && !errors.Is(err, errTaskUnchanged) {
			s.logger.Error("mcp: updating a task", "task", run.id, "err", err)
		}
		return nil, err
	}
	run.wire.notify(ctx, s, run, run.before, st)
	if st.Task.Status.Terminal() {
		run.markTerminal()
	}
	return st, nil
}

// errTaskUnchanged tells updateTask that an update changes nothing.
var errTaskUnchanged = errors.New("mcp: task unchanged")

// stopTask moves owner's task id to cancelled and stops its work, here or
// on the replica running it (task_bus.go). detached is the run the update
// goes through when the work does not run here. A terminal task is left
// as it is: the error wraps ErrInvalidTaskTransition and terminal is its
// status.
func (s *Server) stopTask(ctx context.Context, id, owner string, detached *taskRun) (st *TaskState, terminal TaskStatus, err error) {
	local := s.taskRT().run(id)
	if local != nil && local.owner != owner {
		local = nil
	}
	run := local
	if run == nil {
		run = detached
	}
	st, err = s.updateTask(ctx, run, func(st *TaskState) error {
		if st.Task.Status.Terminal() {
			terminal = st.Task.Status
			return ErrInvalidTaskTransition
		}
		st.Task.Status = TaskCancelled
		st.Task.StatusMessage = taskCancelledMessage
		st.InputRequests = nil
		return nil
	})
	if err != nil && !errors.Is(err, ErrInvalidTaskTransition) {
		return nil, "", err
	}
	if local == nil {
		s.publishTaskOp(ctx, taskOp{Op: "cancel", Task: id, Owner: owner})
	} else if local.cancel != nil {
		local.cancel(errTaskCancelledByRequest)
	}
	return st, terminal, err
}

// release forgets a run and frees its account's running slot.
func (rt *taskRuntime) release(run *taskRun, acct string) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if run != nil {
		delete(rt.runs, run.id)
		if run.sessionEnded {
			rt.forgetTask(acct, run.id)
		}
		rt.finishedTask(acct, run.id)
		if !run.settled {
			// Cancelled (or expired) before it had an outcome: it keeps
			// the cancelled state alone.
			rt.settle(acct, run.id, int64(len(taskCancelledMessage)))
		}
		close(run.released)
	}
	rt.runningTotal--
	if rt.running[acct]--; rt.running[acct] <= 0 {
		delete(rt.running, acct)
	}
}

// run returns the local run of a task, if its work runs here.
func (rt *taskRuntime) run(id string) *taskRun {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.runs[id]
}

// errorStatusMessage is the status message of a task failed with e.
func errorStatusMessage(e *jsonrpc.Error) string {
	var detail string
	if len(e.Data) > 0 && exactjson.Unmarshal(e.Data, &detail) == nil && detail != "" {
		return e.Message + ": " + detail
	}
	return e.Message
}

// errTaskNotFound is what tasks/get, tasks/result, tasks/update and
// tasks/cancel answer for an unknown, expired or foreign task: -32602, as
// both eras require (2025-11-25 tasks#protocol-errors; SEP-2663).
func errTaskNotFound(verb string) *jsonrpc.Error {
	return errInvalidParams("Failed to " + verb + " task: Task not found")
}

// taskIDParam decodes the params of tasks/get, tasks/result and
// tasks/cancel. Any related-task _meta is ignored: the taskId param is the
// source of truth.
func taskIDParam(params json.RawMessage) (string, *jsonrpc.Error) {
	var p TaskParams
	if len(params) == 0 {
		return "", errInvalidParams("missing params: taskId is required")
	}
	if err := unmarshalParams(params, &p); err != nil {
		return "", err
	}
	if p.TaskID == "" {
		return "", errInvalidParams("taskId is required")
	}
	return p.TaskID, nil
}

// loadTask returns owner's task, or errTaskNotFound.
func (s *Server) loadTask(ctx context.Context, owner, id, verb string) (*TaskState, error) {
	st, err := s.taskRT().store.Get(ctx, owner, id)
	if errors.Is(err, ErrTaskNotFound) {
		return nil, errTaskNotFound(verb)
	}
	if err != nil {
		s.logger.Error("mcp: loading a task", "task", id, "err", err)
		return nil, errInternal()
	}
	return st, nil
}

// runningTaskKey carries the RunningTask in the context of a task's work.
type runningTaskKey struct{}

// A RunningTask is the task a tool handler runs as, when the client called
// the tool as a task. A handler finds it with TaskFromContext, to report
// progress through the task's status: input_required while it waits for
// the client (an elicitation or sampling request), working again after.
// The terminal status comes from the handler's return: a result completes
// the task (or fails it, with isError), a *jsonrpc.Error fails it.
//
// # Experimental
//
// Part of the experimental tasks API.
type RunningTask struct {
	s   *Server
	run *taskRun
}

// TaskFromContext returns the task whose work ctx belongs to, or nil when
// the handler does not run as a task.
//
// # Experimental
//
// Part of the experimental tasks API.
func TaskFromContext(ctx context.Context) *RunningTask {
	t, _ := ctx.Value(runningTaskKey{}).(*RunningTask)
	return t
}

// ID returns the task's id.
func (t *RunningTask) ID() string { return t.run.id }

// SetStatus moves the task to working or input_required with a status
// message ("" for none), and sends notifications/tasks/status if the
// status changed
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#input-required-status).
// In the stateless era's tasks extension only working may be set: there
// input_required follows Request.Input. It returns ErrInvalidTaskTransition
// for a terminal status, or when the task is already terminal (cancelled),
// ErrTaskNotFound once the task has expired, and ErrTaskTooLarge when the
// message cannot be held.
func (t *RunningTask) SetStatus(ctx context.Context, status TaskStatus, message string) error {
	run := t.run
	set, err := run.wire.setStatus(status)
	if err != nil {
		return err
	}
	gone, err := t.s.resizeRun(run, &run.msgBytes, len(message), "the task's status message")
	t.s.deleteTasks(ctx, gone)
	if err != nil {
		return err
	}
	_, err = t.s.updateTask(context.WithoutCancel(ctx), run, func(st *TaskState) error {
		if !st.Task.Status.CanMoveTo(status) {
			return fmt.Errorf("%w: from %s to %s", ErrInvalidTaskTransition, st.Task.Status, status)
		}
		if set {
			st.Task.Status = status
		}
		st.Task.StatusMessage = message
		return nil
	})
	return err
}
