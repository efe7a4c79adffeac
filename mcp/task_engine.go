package mcp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/internal/jsonenc"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// This file is the server side of tasks
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks):
// task-augmented tools/call, tasks/get, tasks/result, tasks/list,
// tasks/cancel and notifications/tasks/status. The task's state lives in a
// TaskStore; what runs it (a goroutine per task while its tool works, its
// cancel function, the tasks/result calls waiting for it) lives in the
// Server's taskRuntime.

// TaskOptions configures the tasks a Server runs for task-augmented
// requests. The zero value is a useful configuration.
//
// # Experimental
//
// Tasks are experimental in the 2025-11-25 specification, and so is this
// API.
type TaskOptions struct {
	// Store keeps the tasks' state. If nil, a new MemoryTaskStore.
	Store TaskStore
	// DefaultTTL is how long a task is kept, from its creation, when the
	// request asks for no ttl (or for one of 0 or less). If zero, one hour.
	DefaultTTL time.Duration
	// MaxTTL caps the ttl a request may ask for: longer ones are shortened
	// to it, as the spec allows
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#ttl-and-resource-management).
	// If zero, 24 hours.
	MaxTTL time.Duration
	// PollInterval is the pollInterval suggested to requestors. It is
	// also how often a session-owned task (Owner nil, no authenticated
	// user) whose replica's copy of a shared session has closed checks
	// the SessionStore, to end once the session is gone there. If zero,
	// one second.
	PollInterval time.Duration
	// SessionEndTimeout bounds the cleanup when a session that owns its
	// tasks (Owner nil, no authenticated user) ends for good on a shared
	// SessionStore: its DELETE served by this replica, or this replica
	// finding it gone from the store. Its tasks, finished and running,
	// are listed and deleted from the TaskStore then, as the spec lets a
	// receiver clean up tasks no request can reach
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#resource-management).
	// When the bound is reached the cleanup stops, logs "mcp: deleting
	// the tasks of an ended session" with an error wrapping
	// context.DeadlineExceeded that names this option, and the tasks
	// left go at their ttl; the DELETE is answered all the same. If zero,
	// 5 seconds.
	SessionEndTimeout time.Duration
	// MaxRunning bounds the tasks one owner may have working at once; a
	// task-augmented request past it is refused with -32600, as the spec
	// advises limits per requestor
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#resource-management):
	// data "Invalid Request: too many tasks running: at most N at once".
	// The stateless era's tasks without an Owner are bounded by
	// MaxRunningTotal instead. If zero, 16.
	MaxRunning int
	// MaxRunningTotal bounds the tasks working at once on the server, all
	// owners together; a task-augmented request past it is refused with
	// -32600, data "Invalid Request: too many tasks running: at most N at
	// once on this server (TaskOptions.MaxRunningTotal)". It is also the
	// running bound of the stateless era's tasks when Owner is nil, which
	// have no requestor to count per (see Owner). If zero, 1024.
	MaxRunningTotal int
	// MaxTasksPerOwner bounds the tasks one owner keeps, running and
	// finished (until their ttl). A new task past it first deletes the
	// owner's oldest finished task; when all of them run, the request is
	// refused with -32600 "Invalid Request", data "Invalid Request: too
	// many tasks: at most N per requestor, running and finished
	// (TaskOptions.MaxTasksPerOwner), and M of yours are running". The
	// spec lets a receiver delete a task after its ttl, and a cancelled
	// one at any time; deleting a finished one early is the price of a
	// bounded server
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#resource-management).
	// Another owner's tasks are never deleted to make room. If zero, 100.
	MaxTasksPerOwner int
	// MaxTasks bounds the tasks the server keeps for all owners together.
	// A new task past it deletes its own owner's oldest finished tasks
	// (never another owner's); when the owner has none to give, the
	// request is refused with -32600, data "Invalid Request: too many
	// tasks: the server keeps at most N (TaskOptions.MaxTasks), and M of
	// yours have finished". If zero, 10000.
	MaxTasks int
	// MaxResultBytes bounds the JSON of one task's result (or error): a
	// task whose result is longer fails, and tasks/result answers -32603
	// "Internal error", data "the task's result is N bytes, over the limit
	// of M (TaskOptions.MaxResultBytes)". If zero, 4 MiB.
	MaxResultBytes int64
	// MaxStoredBytesPerOwner bounds the bytes one owner's tasks hold,
	// running (request, status message, input requests) and finished
	// (result or error, status message). Growth past it first deletes the
	// owner's oldest finished tasks; when that cannot make room, the new
	// task, result, SetStatus or Request.Input is refused with the error
	// docs/limits.md gives (ErrTaskTooLarge for SetStatus and Input). If
	// zero, 16 MiB.
	MaxStoredBytesPerOwner int64
	// MaxStoredBytes bounds the bytes all tasks hold together, counted as
	// for MaxStoredBytesPerOwner; growth past it deletes its own owner's
	// oldest finished tasks (never another owner's), then is refused as
	// MaxStoredBytesPerOwner's is. Each replica bounds the tasks it
	// created. If zero, 256 MiB.
	MaxStoredBytes int64
	// Owner names who a request's tasks belong to: only requests with the
	// same owner see them
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#task-isolation-and-access-control).
	// If nil: a request's verified token (RequestExtra.Auth) gives
	// TokenInfo.OwnerKey; otherwise the session, whose tasks are deleted
	// when it ends; a 2026-07-28 task without either is its own scope,
	// reached by its unguessable id alone. Return the authenticated
	// identity to let tasks outlive sessions. docs/limits.md ("Tasks")
	// says how each choice is bounded, docs/design.md why.
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
	// tasks, when TaskOptions.Owner is nil: its tasks are deleted when it
	// closes.
	sessionOwners map[*ServerSession]string
}

// taskRun is one task whose work runs in this process.
type taskRun struct {
	id, owner string
	acct      string // its ledger account (task_bounds.go)
	ss        *ServerSession
	w         *taskWriter
	cancel    context.CancelCauseFunc
	// terminal is closed when this server moves the task to a terminal
	// status (or forgets it), waking tasks/result calls.
	terminal     chan struct{}
	terminalOnce sync.Once
	// ext is set for a task of the stateless era's tasks extension
	// (task_modern.go).
	ext *extRun

	// What the task holds in the ledger (task_bounds.go), guarded by
	// taskRuntime.mu: the bytes of the status message and of the input
	// requests its work set, and whether its outcome has been accounted
	// (keepOutcome) in place of all it held while it ran.
	msgBytes, inputBytes int64
	settled              bool
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
			rt.store = &MemoryTaskStore{}
		}
		rt.defaultTTL = o.DefaultTTL
		if rt.defaultTTL <= 0 {
			rt.defaultTTL = time.Hour
		}
		rt.maxTTL = o.MaxTTL
		if rt.maxTTL <= 0 {
			rt.maxTTL = 24 * time.Hour
		}
		rt.poll = o.PollInterval
		if rt.poll <= 0 {
			rt.poll = time.Second
		}
		rt.endTimeout = o.SessionEndTimeout
		if rt.endTimeout <= 0 {
			rt.endTimeout = defaultSessionEndTimeout
		}
		rt.maxRunning = o.MaxRunning
		if rt.maxRunning <= 0 {
			rt.maxRunning = 16
		}
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

// taskOwner returns who the request's tasks belong to.
func (s *Server) taskOwner(r *Request) string {
	if s.opts.Tasks.Owner != nil {
		return s.opts.Tasks.Owner(r)
	}
	if a := authOf(r); a != nil {
		// The authenticated user: tasks follow the user, whatever the
		// session
		// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#task-isolation-and-access-control).
		return a.OwnerKey()
	}
	ss := r.Session
	if id := ss.ID(); id != "" {
		return "session:" + id
	}
	// A session without an id (stdio, in-memory) gets a random key.
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.taskOwner == "" {
		ss.taskOwner = "conn:" + rand.Text()
	}
	return ss.taskOwner
}

// sessionTasks reports whether the session's tasks can be reached by a
// later request: not on an ephemeral session (Streamable HTTP in stateless
// mode) when tasks belong to their session (TaskOptions.Owner nil).
// A request with a verified token (auth non-nil) has its user as owner.
func (s *Server) sessionTasks(ss *ServerSession, auth *TokenInfo) bool {
	return s.opts.Tasks.Owner != nil || auth != nil || ss == nil || !ss.ephemeral
}

// sessionOwned reports whether the tasks r creates belong to its session
// (TaskOptions.Owner nil and no verified token), and so end with it.
func (s *Server) sessionOwned(r *Request) bool {
	return s.opts.Tasks.Owner == nil && authOf(r) == nil
}

// sessionCapabilities is what initialize declares on ss: the server's
// capabilities, without tasks where they could not be served. A server
// MUST NOT declare what it cannot serve, and a receiver that does not
// declare task support for tools/call processes a task-augmented request
// normally
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#task-support-and-handling).
func (s *Server) sessionCapabilities(ss *ServerSession, auth *TokenInfo) ServerCapabilities {
	c := s.capabilities()
	if !s.sessionTasks(ss, auth) {
		c.Tasks = nil
	}
	return c
}

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
	case TaskSupportForbidden, TaskSupportOptional, TaskSupportRequired:
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

// tasksCapability declares tasks{list, cancel, requests.tools.call} when
// a tool may run as a task
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#server-capabilities).
// tasks/list is declared because tasks are bound to their owner (the
// session, by default), so the list shows only the caller's own.
// It is called with s.mu read-locked.
func (s *Server) tasksCapability() json.RawMessage {
	if !s.hasTaskTools() {
		return nil
	}
	return json.RawMessage(`{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`)
}

// tasksDeclareToolCall reports whether a tasks capability declares
// task-augmented tools/call (requests.tools.call present and not null)
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#capabilities).
func tasksDeclareToolCall(tasks json.RawMessage) bool {
	if len(tasks) == 0 {
		return false
	}
	var c struct {
		Requests struct {
			Tools struct {
				Call json.RawMessage `json:"call"`
			} `json:"tools"`
		} `json:"requests"`
	}
	return exactjson.Unmarshal(tasks, &c) == nil && len(c.Requests.Tools.Call) > 0 && string(c.Requests.Tools.Call) != "null"
}

// declaresToolTasks reports whether the server declares task-augmented
// tools/call: in ServerOptions.Capabilities when set, else because a tool
// supports tasks.
func (s *Server) declaresToolTasks() bool {
	if c := s.opts.Capabilities; c != nil {
		return tasksDeclareToolCall(c.Tasks)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.hasTaskTools()
}

// callToolTask serves a tools/call that is task-augmented or whose tool
// requires a task
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#tool-level-negotiation).
func (s *Server) callToolTask(ctx context.Context, r *Request, p *CallToolParams, t *serverTool) (any, error) {
	if !s.sessionTasks(r.Session, authOf(r)) {
		// Tasks are not declared on an ephemeral session
		// (sessionCapabilities): an optional tool runs normally, as below;
		// one that requires a task cannot run.
		if taskSupport(t.tool) == TaskSupportRequired {
			return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found",
				"Tool "+p.Name+" must be called as a task, and this server keeps no tasks here: every request has a session of its own (stateless mode) and tasks belong to their session")
		}
		return runTool(ctx, r, t, p.Arguments)
	}
	if !s.declaresToolTasks() {
		// A receiver that does not declare task support for tools/call
		// MUST process the request normally, ignoring params.task
		// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#task-support-and-handling).
		return runTool(ctx, r, t, p.Arguments)
	}
	if p.Task == nil {
		// Only a "required" tool gets here: the spec says MUST -32601.
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found",
			"Tool "+p.Name+" must be called as a task (params.task); its execution.taskSupport is \"required\"")
	}
	if taskSupport(t.tool) == TaskSupportForbidden {
		// SHOULD -32601.
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found",
			"Tool "+p.Name+" cannot be called as a task; its execution.taskSupport is \"forbidden\"")
	}

	rt := s.taskRT()
	owner := s.taskOwner(r)
	acct := ownerAccount(owner)
	ttl := rt.defaultTTL
	if asked := p.Task.TTL; asked != nil && *asked > 0 {
		ttl = rt.maxTTL
		if *asked < ttl.Milliseconds() { // compared in ms: no overflow
			ttl = time.Duration(*asked) * time.Millisecond
		}
	}
	// The work keeps the request (wr, below) and the arguments.
	held := len(r.Params) + len(p.Arguments)
	st, err := s.createTask(ctx, rt, rand.Text(), owner, acct, ttl, held)
	if err != nil {
		return nil, err
	}
	if s.sessionOwned(r) {
		// The session owns the task: its end frees it (task_bounds.go).
		rt.mu.Lock()
		if rt.sessionOwners == nil {
			rt.sessionOwners = make(map[*ServerSession]string)
		}
		rt.sessionOwners[r.Session] = owner
		select {
		case <-r.Session.done:
			// Closed already, endSessionTasks perhaps done: the task's own
			// watch of the session deletes it (runTask).
			delete(rt.sessionOwners, r.Session)
		default:
		}
		rt.mu.Unlock()
	}

	// The work is detached from the request (which is answered at once)
	// but keeps its values; tasks/cancel, the ttl and (for session-owned
	// tasks) the session's end stop it.
	run := &taskRun{
		id: st.Task.TaskID, owner: owner, acct: acct, ss: r.Session,
		w:        &taskWriter{id: st.Task.TaskID, ss: r.Session},
		terminal: make(chan struct{}),
	}
	wctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	run.cancel = cancel
	wctx = context.WithValue(wctx, relatedKey{}, messageWriter(run.w))
	wctx = context.WithValue(wctx, runningTaskKey{}, &RunningTask{s: s, run: run})
	rt.mu.Lock()
	rt.runs[run.id] = run
	rt.mu.Unlock()

	wr := *r
	wr.related = run.w
	if r.Extra != nil {
		extra := *r.Extra
		extra.closeStream = nil // the request's stream is gone
		wr.Extra = &extra
	}
	args := p.Arguments
	leave := s.joinTaskBus(ctx) // task_bus.go: tasks/cancel from other replicas
	go func() {
		defer leave()
		s.runTask(wctx, run, &wr, t, args, ttl)
	}()

	return &CreateTaskResult{Task: st.Task}, nil
}

// runTask runs a task's tool and records its outcome. Without an Owner,
// a task lives no longer than its session. When the SessionStore is
// shared, the session outlives this replica's copy of it (closed when
// idle here or when the transport closes), so the task then runs until
// the store no longer has the session (deleted or expired on any
// replica), which it checks every TaskOptions.PollInterval.
func (s *Server) runTask(ctx context.Context, run *taskRun, r *Request, t *serverTool, args json.RawMessage, ttl time.Duration) {
	stopped := make(chan struct{})
	defer close(stopped)
	if s.sessionOwned(r) {
		go func() {
			select {
			case <-run.ss.done:
				if s.store.Shared() && run.ss.state.ID != "" {
					s.awaitSharedEnd(run, stopped)
					return
				}
				run.cancel(errTaskSessionEnded)
			case <-stopped:
			}
		}()
	}
	s.runTaskTool(ctx, run, r, t, args, ttl, s.finishTask)
}

// awaitSharedEnd cancels session-owned task run once its shared session,
// whose local copy has closed, is gone from the SessionStore: at once if
// it is already, or at the first check, every TaskOptions.PollInterval,
// that finds it gone. A store that cannot answer leaves the task
// running until a later check. It returns when the task stops.
func (s *Server) awaitSharedEnd(run *taskRun, stopped <-chan struct{}) {
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
			// Gone from the store: the session's end is final, and all
			// its tasks go with it (task_session_end.go).
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

// runTaskTool runs a task's tool under its TTL, a panic becoming an error
// as in any handler, and hands the outcome to finish, which records it
// (finishTask, or finishExtTask in the stateless era). The TTL runs until
// finish returns: a task that outlives it is cancelled and marked
// terminal.
func (s *Server) runTaskTool(ctx context.Context, run *taskRun, r *Request, t *serverTool, args json.RawMessage, ttl time.Duration,
	finish func(ctx context.Context, run *taskRun, res *CallToolResult, err error)) {
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
	finish(ctx, run, res, err)
}

// finishTask moves a task to its terminal status from the tool's outcome.
// A task already terminal (cancelled while its tool ran) stays as it is.
func (s *Server) finishTask(ctx context.Context, run *taskRun, res *CallToolResult, err error) {
	rt := s.taskRT()
	defer rt.release(run, run.acct)
	defer run.markTerminal()

	if errors.Is(context.Cause(ctx), errTaskSessionEnded) {
		// Its session is gone, and with it every way to reach the task.
		s.dropSessionTask(ctx, run)
		return
	}
	var apply func(st *TaskState)
	var rpcErr *jsonrpc.Error
	fail := func(e *jsonrpc.Error) func(st *TaskState) {
		return func(st *TaskState) {
			st.Task.Status, st.Error = TaskFailed, e
			st.Task.StatusMessage = errorStatusMessage(e)
		}
	}
	switch {
	case err != nil && errors.As(err, &rpcErr):
		if kerr := s.keepOutcome(ctx, run, errBytes(rpcErr), len(errorStatusMessage(rpcErr))); kerr != nil {
			rpcErr = kerr
		}
		apply = fail(rpcErr)
	case err != nil && ctx.Err() != nil:
		return // cancelled by tasks/cancel, or forgotten at its ttl
	case err != nil:
		// runTool turns other errors into results; this is a safety net.
		if kerr := s.keepOutcome(ctx, run, len(err.Error()), len(err.Error())); kerr != nil {
			apply = fail(kerr)
			break
		}
		apply = func(st *TaskState) {
			st.Task.Status, st.Error = TaskFailed, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
			st.Task.StatusMessage = err.Error()
		}
	default:
		raw, mErr := jsonenc.Marshal(res)
		if mErr != nil {
			s.logger.Error("mcp: encoding a task's result", "task", run.id, "err", mErr)
			apply = func(st *TaskState) {
				st.Task.Status, st.Error = TaskFailed, errInternal()
				st.Task.StatusMessage = "Internal error"
			}
			break
		}
		msg := ""
		if res.IsError {
			msg = toolErrorStatusMessage(res)
		}
		if kerr := s.keepOutcome(ctx, run, len(raw), len(msg)); kerr != nil {
			apply = fail(kerr)
			break
		}
		apply = func(st *TaskState) {
			st.Result = raw
			st.Task.Status = TaskCompleted
			st.Task.StatusMessage = "" // a message the work set says nothing now
			if res.IsError {
				// For tool calls, a result with isError means the task
				// failed.
				st.Task.Status = TaskFailed
				st.Task.StatusMessage = msg
			}
		}
	}
	s.updateTask(context.WithoutCancel(ctx), run, func(st *TaskState) error {
		if !st.Task.Status.CanMoveTo(TaskCompleted) {
			return ErrInvalidTaskTransition
		}
		apply(st)
		return nil
	})
}

// updateTask changes a task in the store and, when its status changed,
// tells the requestor with notifications/tasks/status. It returns the new
// state, or nil and the error.
func (s *Server) updateTask(ctx context.Context, run *taskRun, fn func(st *TaskState) error) (*TaskState, error) {
	var before TaskStatus
	st, err := s.taskRT().store.Update(ctx, run.owner, run.id, func(st *TaskState) error {
		before = st.Task.Status
		if err := fn(st); err != nil {
			return err
		}
		st.Task.LastUpdatedAt = time.Now().UTC().Truncate(time.Millisecond)
		return nil
	})
	if err != nil {
		if !errors.Is(err, ErrInvalidTaskTransition) && !errors.Is(err, ErrTaskNotFound) {
			s.logger.Error("mcp: updating a task", "task", run.id, "err", err)
		}
		return nil, err
	}
	if st.Task.Status != before {
		// https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#task-status-notification
		// (MAY): the whole task, without related-task _meta. It is sent
		// before a waiting tasks/result is woken, so that it travels on
		// that call's stream.
		if err := run.w.WriteMessage(ctx, &jsonrpc.Notification{
			Method: "notifications/tasks/status",
			Params: mustMarshal(&TaskStatusNotificationParams{Task: st.Task}),
		}); err != nil {
			s.logger.Debug("mcp: task status notification not delivered", "task", run.id, "err", err)
		}
	}
	if st.Task.Status.Terminal() {
		run.markTerminal()
	}
	return st, nil
}

// release forgets a run and frees its account's running slot.
func (rt *taskRuntime) release(run *taskRun, acct string) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if run != nil {
		delete(rt.runs, run.id)
		rt.finishedTask(acct, run.id)
		if !run.settled {
			// Cancelled (or expired) before it had an outcome: it keeps
			// the cancelled state alone.
			rt.settle(acct, run.id, int64(len(taskCancelledMessage)))
		}
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

func errorStatusMessage(e *jsonrpc.Error) string {
	var detail string
	if len(e.Data) > 0 && exactjson.Unmarshal(e.Data, &detail) == nil && detail != "" {
		return e.Message + ": " + detail
	}
	return e.Message
}

func toolErrorStatusMessage(res *CallToolResult) string {
	for _, c := range res.Content {
		if t, ok := c.(*TextContent); ok && t.Text != "" {
			return "Tool execution failed: " + t.Text
		}
	}
	return "Tool execution failed."
}

// errTaskNotFound is what tasks/get, tasks/result and tasks/cancel answer
// for an unknown, expired or foreign task: -32602, as the spec requires
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#protocol-errors).
func errTaskNotFound(verb string) *jsonrpc.Error {
	return errInvalidParams("Failed to " + verb + " task: Task not found")
}

// taskID decodes the params of tasks/get, tasks/result and tasks/cancel.
// Any related-task _meta is ignored: the taskId param is the source of
// truth.
func taskIDParam(params json.RawMessage) (string, *jsonrpc.Error) {
	var p GetTaskParams
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

// loadTask returns owner's task, or the -32602 both eras' specs require
// for an unknown one (2025-11-25 tasks; SEP-2663, "Protocol Errors").
// owner is taskOwner(r) in the session era, extTaskOwner(r) in the
// extension's.
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

// getTask implements tasks/get
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#getting-tasks).
func (s *Server) getTask(ctx context.Context, r *Request) (any, error) {
	id, perr := taskIDParam(r.Params)
	if perr != nil {
		return nil, perr
	}
	st, err := s.loadTask(ctx, s.taskOwner(r), id, "retrieve")
	if err != nil {
		return nil, err
	}
	return &GetTaskResult{Task: st.Task}, nil
}

// getTaskResult implements tasks/result
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#result-retrieval):
// it waits until the task is terminal, then answers exactly what the
// underlying request would have, with the related-task _meta added to a
// result. While it waits, the messages the task sends (elicitation or
// sampling requests, progress) travel on this request's stream.
func (s *Server) getTaskResult(ctx context.Context, r *Request) (any, error) {
	id, perr := taskIDParam(r.Params)
	if perr != nil {
		return nil, perr
	}
	rt := s.taskRT()
	for {
		st, err := s.loadTask(ctx, s.taskOwner(r), id, "retrieve")
		if err != nil {
			return nil, err
		}
		if st.Task.Status.Terminal() {
			return taskPayload(st)
		}
		if run := rt.run(id); run != nil {
			var detach func()
			if r.related != nil {
				detach = run.w.attach(ctx, r.related)
			}
			select {
			case <-run.terminal:
			case <-ctx.Done():
			}
			if detach != nil {
				detach()
			}
		} else {
			// The work runs elsewhere (another replica sharing the store):
			// poll the store.
			timer := time.NewTimer(rt.poll)
			select {
			case <-timer.C:
			case <-ctx.Done():
				timer.Stop()
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// taskPayload is tasks/result's answer for a terminal task.
func taskPayload(st *TaskState) (any, error) {
	switch {
	case st.Error != nil:
		return nil, st.Error
	case st.Result != nil:
		raw, err := withMeta(st.Result, RelatedTaskMetaKey, relatedTaskMeta(st.Task.TaskID))
		if err != nil {
			return nil, errInternal()
		}
		return raw, nil
	}
	// Cancelled before the request had an outcome: there is no result to
	// give, and the spec names no error for it. -32602 says that this
	// taskId has no result, as for a task that cannot be found.
	return nil, errInvalidParams("Failed to retrieve task result: Task " + st.Task.TaskID + " was cancelled")
}

// listTasks implements tasks/list
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#listing-tasks):
// the caller's tasks only, a page at a time.
func (s *Server) listTasks(ctx context.Context, r *Request) (any, error) {
	return serveList(s, r, func(cursor string, size int) (*listPage[*Task], error) {
		states, next, err := s.taskRT().store.List(ctx, s.taskOwner(r), cursor, size)
		if errors.Is(err, ErrInvalidTaskCursor) {
			return nil, errInvalidCursor(r.Method)
		}
		if err != nil {
			s.logger.Error("mcp: listing tasks", "err", err)
			return nil, errInternal()
		}
		pg := &listPage[*Task]{items: make([]*Task, len(states)), next: next}
		for i, st := range states {
			pg.items[i] = &st.Task
		}
		return pg, nil
	}, func(pg *listPage[*Task]) any { return &ListTasksResult{Tasks: pg.items, NextCursor: pg.next} })
}

// cancelTask implements tasks/cancel
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#task-cancellation):
// a terminal task is refused with -32602; any other moves to cancelled
// before the answer, for good, and its work is told to stop.
func (s *Server) cancelTask(ctx context.Context, r *Request) (any, error) {
	id, perr := taskIDParam(r.Params)
	if perr != nil {
		return nil, perr
	}
	rt := s.taskRT()
	owner := s.taskOwner(r)
	run := rt.run(id)
	elsewhere := run == nil
	if run == nil || run.owner != owner {
		// Not running here: update the store alone (and tell the replica
		// running it, below).
		run = &taskRun{id: id, owner: owner, ss: r.Session, w: &taskWriter{id: id, ss: r.Session}, terminal: make(chan struct{})}
	}
	var terminal TaskStatus
	st, err := s.updateTask(ctx, run, func(st *TaskState) error {
		if st.Task.Status.Terminal() {
			terminal = st.Task.Status
			return ErrInvalidTaskTransition
		}
		st.Task.Status = TaskCancelled
		st.Task.StatusMessage = taskCancelledMessage
		return nil
	})
	switch {
	case errors.Is(err, ErrTaskNotFound):
		return nil, errTaskNotFound("cancel")
	case errors.Is(err, ErrInvalidTaskTransition):
		return nil, errInvalidParams("Cannot cancel task: already in terminal status '" + string(terminal) + "'")
	case err != nil:
		return nil, errInternal()
	}
	if run.cancel != nil {
		run.cancel(errTaskCancelledByRequest)
	} else if elsewhere {
		// Its work may run on another replica (task_bus.go).
		s.publishTaskOp(ctx, taskOp{Op: "cancel", Task: id, Owner: owner})
	}
	return &CancelTaskResult{Task: st.Task}, nil
}

// withMeta returns the JSON object raw with _meta[key] set to value,
// keeping its other members and _meta keys.
func withMeta(raw json.RawMessage, key string, value json.RawMessage) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if len(raw) == 0 || string(raw) == "null" {
		obj = map[string]json.RawMessage{}
	} else if err := exactjson.Unmarshal(raw, &obj); err != nil {
		return nil, err
	}
	var meta map[string]json.RawMessage
	if m, ok := obj["_meta"]; ok && string(m) != "null" {
		if err := exactjson.Unmarshal(m, &meta); err != nil {
			return nil, err
		}
	}
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	meta[key] = value
	var err error
	if obj["_meta"], err = jsonenc.Marshal(meta); err != nil {
		return nil, err
	}
	return jsonenc.Marshal(obj)
}

// A taskWriter sends the messages of a task's work: to the stream of a
// tasks/result call waiting for the task if there is one, else on the
// session's standalone stream; with neither open (Streamable HTTP without
// a GET stream), requests and notifications wait, up to a limit, for the
// next tasks/result call. It adds the related-task _meta that the spec
// requires on every message of a task
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#associating-task-related-messages),
// except notifications/tasks/status, which SHOULD NOT carry it.
type taskWriter struct {
	id string
	ss *ServerSession

	mu      sync.Mutex
	waiters []messageWriter
	queue   []jsonrpc.Message
}

// taskQueueLimit bounds the messages a task may have waiting for a
// stream.
const taskQueueLimit = 64

func (w *taskWriter) WriteMessage(ctx context.Context, msg jsonrpc.Message) error {
	msg, err := w.tag(msg)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if n := len(w.waiters); n > 0 {
		return w.waiters[n-1].WriteMessage(ctx, msg)
	}
	w.ss.mu.Lock()
	standalone, closed := w.ss.standalone, w.ss.closed
	w.ss.mu.Unlock()
	if closed {
		return ErrSessionClosed
	}
	if standalone != nil {
		return standalone.WriteMessage(ctx, msg)
	}
	if n, ok := msg.(*jsonrpc.Notification); ok && n.Method == "notifications/tasks/status" {
		return nil // optional, and stale by the time a stream opens
	}
	if len(w.queue) >= taskQueueLimit {
		return fmt.Errorf("mcp: task %s: no stream to the client is open and %d messages already wait for one", w.id, taskQueueLimit)
	}
	w.queue = append(w.queue, msg)
	return nil
}

// attach sends the task's messages to dst (the stream of a tasks/result
// call), first those that were waiting, until detach is called.
func (w *taskWriter) attach(ctx context.Context, dst messageWriter) (detach func()) {
	w.mu.Lock()
	queued := w.queue
	w.queue = nil
	for i, msg := range queued {
		if err := dst.WriteMessage(ctx, msg); err != nil {
			w.queue = append(w.queue, queued[i:]...)
			break
		}
	}
	w.waiters = append(w.waiters, dst)
	w.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			w.mu.Lock()
			defer w.mu.Unlock()
			for i := len(w.waiters) - 1; i >= 0; i-- {
				if w.waiters[i] == dst {
					w.waiters = append(w.waiters[:i], w.waiters[i+1:]...)
					break
				}
			}
		})
	}
}

// tag adds the related-task _meta to a request's or notification's
// params.
func (w *taskWriter) tag(msg jsonrpc.Message) (jsonrpc.Message, error) {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		params, err := withMeta(m.Params, RelatedTaskMetaKey, relatedTaskMeta(w.id))
		if err != nil {
			return nil, fmt.Errorf("mcp: tagging %s with its task: %w", m.Method, err)
		}
		c := *m
		c.Params = params
		return &c, nil
	case *jsonrpc.Notification:
		if m.Method == "notifications/tasks/status" {
			return m, nil
		}
		params, err := withMeta(m.Params, RelatedTaskMetaKey, relatedTaskMeta(w.id))
		if err != nil {
			return nil, fmt.Errorf("mcp: tagging %s with its task: %w", m.Method, err)
		}
		c := *m
		c.Params = params
		return &c, nil
	}
	return msg, nil
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
// status changed. The spec says a receiver SHOULD move a task to
// input_required while it needs the requestor's input
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#input-required-status).
// It returns ErrInvalidTaskTransition for a terminal status, or when the
// task is already terminal (cancelled), and ErrTaskNotFound once the
// task has expired.
func (t *RunningTask) SetStatus(ctx context.Context, status TaskStatus, message string) error {
	if t.run.ext != nil {
		return t.s.setExtStatus(ctx, t.run, status, message) // task_modern_input.go
	}
	if status != TaskWorking && status != TaskInputRequired {
		return fmt.Errorf("%w: a handler may set only working or input_required, not %q", ErrInvalidTaskTransition, status)
	}
	gone, err := t.s.resizeRun(t.run, &t.run.msgBytes, len(message), "the task's status message")
	t.s.deleteTasks(ctx, gone)
	if err != nil {
		return err
	}
	_, err = t.s.updateTask(context.WithoutCancel(ctx), t.run, func(st *TaskState) error {
		if !st.Task.Status.CanMoveTo(status) {
			return fmt.Errorf("%w: from %s to %s", ErrInvalidTaskTransition, st.Task.Status, status)
		}
		st.Task.Status, st.Task.StatusMessage = status, message
		return nil
	})
	return err
}

// createTask stores a new working task id for a tools/call of owner's,
// in either era, if its account (ownerAccount(owner), or poolAccount) has
// room for one more running task and the server for one more task, and
// both for the held bytes its work keeps (its request).
func (s *Server) createTask(ctx context.Context, rt *taskRuntime, id, owner, acct string, ttl time.Duration, held int) (*TaskState, error) {
	now := time.Now().UTC().Truncate(time.Millisecond)
	ttlMS := ttl.Milliseconds()
	st := &TaskState{
		Task: Task{
			TaskID:        id,
			Status:        TaskWorking,
			CreatedAt:     now,
			LastUpdatedAt: now,
			TTL:           &ttlMS,
			PollInterval:  rt.poll.Milliseconds(),
		},
		Owner:     owner,
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
	evicted, err := rt.reserveTask(acct, owner, id, st.ExpiresAt, now, int64(held))
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
		rt.forgetTask(acct, id)
		rt.mu.Unlock()
		rt.release(nil, acct)
		s.logger.Error("mcp: creating a task", "err", err)
		return nil, errInternal()
	}
	return st, nil
}
