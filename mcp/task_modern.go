package mcp

// This file is the server side of the tasks extension of the stateless era
// (SEP-2663, io.modelcontextprotocol/tasks,
// https://modelcontextprotocol.io/extensions/tasks/overview), which
// replaces the session era's core tasks (task.go). A client that declares
// the extension in the clientCapabilities of its request's _meta may get,
// for a tool whose execution.taskSupport is "optional" or "required", a
// CreateTaskResult (resultType "task") instead of the tool's result; it
// polls tasks/get for a DetailedTask, answers the task's input requests
// with tasks/update and cancels it with tasks/cancel, and may follow it
// with notifications/tasks on a subscriptions/listen stream.
//
// The extension shares the session era's runtime and TaskStore: the same
// limits, TTL and poll interval (TaskOptions), the same state record
// (TaskState) and the same run table. What differs lives here: the wire
// shapes, who a task belongs to, the outcome of a tool error, and how a
// running task asks the client for input (task_modern_input.go).
//
// Scope: the stateless era has no session to bind a task to. A task
// belongs to TaskOptions.Owner(request) when the server sets it (the
// authorization context, such as the authenticated principal); when it
// does not, each stateless-era task is a scope of its own ("task:" + its
// id) and its id, 130 bits from crypto/rand, is the bearer handle that
// reaches it, as SEP-2663 allows ("Task ID unguessability"). Such tasks
// are counted together against the server-wide bounds (poolAccount in
// task_bounds.go), not against one shared owner's MaxRunning. Servers
// that authenticate callers should set Owner.

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// TasksExtensionID names the tasks extension of the stateless era, which
// replaces the session era's core tasks
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning; SEP-2663).
// A server declares it in capabilities.extensions of server/discover; a
// client declares it in the clientCapabilities of each request that may
// get a task back.
const TasksExtensionID = "io.modelcontextprotocol/tasks"

// ownerlessTaskPrefix starts the owner of a stateless-era task when
// TaskOptions.Owner is nil: the task is its own scope, reached by its id
// alone.
const ownerlessTaskPrefix = "task:"

// DetailedTask is a task as the tasks extension sends it: flat, with the
// TTL and poll interval in milliseconds, and the status's payload inline
// (SEP-2663, "Tasks"). It is the CreateTaskResult of a tools/call
// (ResultType "task", no payload), the result of tasks/get (ResultType
// "complete") and the params of notifications/tasks (no ResultType).
//
// # Experimental
//
// Part of the experimental tasks API.
type DetailedTask struct {
	Meta Meta `json:"_meta,omitempty"`
	// ResultType is "task" on a CreateTaskResult and "complete" on the
	// result of tasks/get (the server stamps it); empty in a notification.
	ResultType    string     `json:"resultType,omitempty"`
	TaskID        string     `json:"taskId"`
	Status        TaskStatus `json:"status"`
	StatusMessage string     `json:"statusMessage,omitempty"`
	// CreatedAt and LastUpdatedAt are sent as RFC 3339 timestamps.
	CreatedAt     time.Time `json:"createdAt"`
	LastUpdatedAt time.Time `json:"lastUpdatedAt"`
	// TTLMs is how long, in milliseconds from creation, the server keeps
	// the task; nil (null on the wire) means without limit.
	TTLMs *int64 `json:"ttlMs"`
	// PollIntervalMs suggests how often to poll tasks/get, in
	// milliseconds; 0 if the server suggests nothing.
	PollIntervalMs int64 `json:"pollIntervalMs,omitempty"`
	// Result is the request's result, for a completed task: for tools/call
	// a CallToolResult, isError included.
	Result json.RawMessage `json:"result,omitempty"`
	// Error is the request's JSON-RPC error, for a failed task.
	Error *jsonrpc.Error `json:"error,omitempty"`
	// InputRequests, for an input_required task, is the object of the
	// requests still waiting for an answer, by key, each {method, params}
	// as in an input_required result
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).
	InputRequests json.RawMessage `json:"inputRequests,omitempty"`
}

// UpdateTaskParams is the params of tasks/update: answers to a task's
// outstanding input requests, by the keys its DetailedTask gave them
// (SEP-2663, "Task Update Requests").
//
// # Experimental
//
// Part of the experimental tasks API.
type UpdateTaskParams struct {
	Meta           *RequestMeta   `json:"_meta,omitempty"`
	TaskID         string         `json:"taskId"`
	InputResponses InputResponses `json:"inputResponses"`
}

// tasksExtensionEnabled reports whether the server offers the tasks
// extension to stateless-era clients: when ServerOptions.Capabilities is
// set, if it names the extension (or declares task-augmented tools/call
// the session era's way); otherwise when a tool may run as a task.
func (s *Server) tasksExtensionEnabled() bool {
	if c := s.opts.Capabilities; c != nil {
		if _, ok := c.Extensions[TasksExtensionID]; ok {
			return true
		}
		return s.declaresToolTasks()
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.hasTaskTools()
}

// tasksExtensionMethod reports whether method belongs to the tasks
// extension and the server offers it. tasks/result and tasks/list are not
// part of it: the stateless era answers them -32601 (SEP-2663, "Backward
// Compatibility").
func (s *Server) tasksExtensionMethod(method string) bool {
	switch method {
	case "tasks/get", "tasks/update", "tasks/cancel":
		return s.tasksExtensionEnabled()
	}
	return false
}

// declaresTasksExtension reports whether the request's clientCapabilities
// name the tasks extension.
func declaresTasksExtension(r *Request) bool {
	if r.ClientCapabilities == nil {
		return false
	}
	v, ok := r.ClientCapabilities.Extensions[TasksExtensionID]
	return ok && len(v) > 0 && v[0] == '{'
}

// errTasksExtensionRequired is the -32021 a request gets when it needs the
// tasks extension and did not declare it (SEP-2663, "Capability
// Negotiation"): data.requiredCapabilities is a ClientCapabilities object
// naming the extension.
func errTasksExtensionRequired() *jsonrpc.Error {
	return &jsonrpc.Error{
		Code:    jsonrpc.CodeMissingClientCapability,
		Message: "Missing required client capability: extensions." + TasksExtensionID,
		Data:    json.RawMessage(`{"requiredCapabilities":{"extensions":{"` + TasksExtensionID + `":{}}}}`),
	}
}

// extTaskOwner returns who the stateless-era task id of a request belongs
// to, and its ledger account: TaskOptions.Owner's answer, or without it
// the task itself, in the pool of ownerless tasks.
func (s *Server) extTaskOwner(r *Request, id string) (owner, acct string) {
	if s.opts.Tasks.Owner != nil {
		owner = s.opts.Tasks.Owner(r)
		return owner, ownerAccount(owner)
	}
	if a := authOf(r); a != nil {
		owner = a.OwnerKey()
		return owner, ownerAccount(owner)
	}
	return ownerlessTaskPrefix + id, poolAccount
}

// extRun is the stateless-era side of a taskRun: the input requests its
// work waits on (task_modern_input.go) and the order of its updates.
type extRun struct {
	s   *Server
	run *taskRun

	// publish serializes a task's store updates with their
	// notifications, so that listeners see them in the order stored.
	publish sync.Mutex

	mu      sync.Mutex
	used    map[string]bool          // every input key issued over the task's life
	pending map[string]*extInputWait // outstanding input keys
	order   []string                 // pending keys in the order asked
}

// callToolExt serves a stateless-era tools/call of a tool that may run as
// a task (execution.taskSupport "optional" or "required"). A request that
// declares the tasks extension gets a task at once, created before the
// answer (SEP-2663, "Task Creation"); one that does not runs an optional
// tool inline and gets -32021 for a required one.
func (s *Server) callToolExt(ctx context.Context, r *Request, args json.RawMessage, t *serverTool) (any, error) {
	if !s.tasksExtensionEnabled() {
		// Not offered: as in the session era, the tool runs normally.
		return runTool(ctx, r, t, args)
	}
	if !declaresTasksExtension(r) {
		if taskSupport(t.tool) == TaskSupportRequired {
			return nil, errTasksExtensionRequired()
		}
		return runTool(ctx, r, t, args)
	}

	rt := s.taskRT()
	id := rand.Text()
	owner, acct := s.extTaskOwner(r, id)
	ttl := rt.defaultTTL
	// The work keeps copies of the params and the arguments (wr, below).
	st, err := s.createTask(ctx, rt, id, owner, acct, ttl, len(r.Params)+len(args))
	if err != nil {
		return nil, err
	}

	run := &taskRun{
		id: id, owner: owner, acct: acct, ss: r.Session,
		w:        &taskWriter{id: id, ss: r.Session},
		terminal: make(chan struct{}),
	}
	run.ext = &extRun{s: s, run: run}
	// The work outlives the request, which is answered at once: it keeps
	// the request's values but not its cancellation, and has no stream to
	// the client (SEP-2663: no progress or log messages for a task).
	wctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	run.cancel = cancel
	wctx = context.WithValue(wctx, relatedKey{}, messageWriter(noStream{}))
	wctx = context.WithValue(wctx, runningTaskKey{}, &RunningTask{s: s, run: run})
	rt.mu.Lock()
	rt.runs[id] = run
	rt.mu.Unlock()

	// The task's own Request: the transport may reuse the message's
	// bytes once the request is answered, so params are copied.
	wr := &Request{
		Method:             r.Method,
		ID:                 r.ID,
		Params:             slices.Clone(r.Params),
		Session:            r.Session,
		ProtocolVersion:    r.ProtocolVersion,
		ClientInfo:         r.ClientInfo,
		ClientCapabilities: r.ClientCapabilities,
		era:                &statelessRequest{task: run.ext},
	}
	if r.Extra != nil {
		extra := *r.Extra
		extra.closeStream = nil // the request's stream is gone
		wr.Extra = &extra
	}
	leave := s.joinTaskBus(ctx) // task_bus.go: tasks/cancel and tasks/update from other replicas
	go func() {
		defer leave()
		s.runTaskTool(wctx, run, wr, t, slices.Clone(args), ttl, s.finishExtTask)
	}()

	created := extTaskView(st)
	created.ResultType = ResultTypeTask
	return created, nil
}

// noStream is the stream of a stateless-era task's work: there is none,
// so what the work would send on it is refused.
type noStream struct{}

var errNoTaskStream = errors.New("mcp: a task of the stateless era has no stream to the client; ask for input with Request.Input")

func (noStream) WriteMessage(context.Context, jsonrpc.Message) error { return errNoTaskStream }

// finishExtTask moves a task to its terminal status from the tool's
// outcome: a result, isError included, completes it; a JSON-RPC error
// fails it (SEP-2663, "Task Execution Errors"). A task cancelled or
// expired while its tool ran stays as it is.
func (s *Server) finishExtTask(ctx context.Context, run *taskRun, res *CallToolResult, err error) {
	rt := s.taskRT()
	defer rt.release(run, run.acct)
	defer run.markTerminal()

	var apply func(st *TaskState)
	fail := func(e *jsonrpc.Error) func(st *TaskState) {
		return func(st *TaskState) {
			st.Task.Status, st.Error = TaskFailed, e
			st.Task.StatusMessage = errorStatusMessage(e)
		}
	}
	switch {
	case err == nil:
		raw, mErr := res.MarshalJSON()
		if mErr != nil {
			s.logger.Error("mcp: encoding a task's result", "task", run.id, "err", mErr)
			apply = fail(errInternal())
			break
		}
		raw = withCompleteResultType(raw)
		if kerr := s.keepOutcome(ctx, run, len(raw), 0); kerr != nil {
			apply = fail(kerr)
			break
		}
		apply = func(st *TaskState) {
			st.Result = raw
			st.Task.Status = TaskCompleted
			st.Task.StatusMessage = ""
		}
	case ctx.Err() != nil:
		// Stopped by tasks/cancel (the task is already cancelled) or by
		// its TTL (the task is gone).
		return
	default:
		var rpcErr *jsonrpc.Error
		if !errors.As(statelessError(err), &rpcErr) {
			rpcErr = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		if kerr := s.keepOutcome(ctx, run, errBytes(rpcErr), len(errorStatusMessage(rpcErr))); kerr != nil {
			rpcErr = kerr
		}
		apply = fail(rpcErr)
	}
	s.updateExtTask(context.WithoutCancel(ctx), run, func(st *TaskState) error {
		if st.Task.Status.Terminal() {
			return ErrInvalidTaskTransition
		}
		apply(st)
		st.InputRequests = nil
		return nil
	})
}

// withCompleteResultType returns a result object with resultType
// "complete" first, as a 2026-07-28 result carries it.
func withCompleteResultType(raw []byte) json.RawMessage {
	if len(raw) < 2 || raw[0] != '{' {
		return raw
	}
	out := make([]byte, 0, len(raw)+26)
	out = append(out, `{"resultType":"complete"`...)
	if len(raw) > 2 {
		out = append(out, ',')
	}
	return append(out, raw[1:]...)
}

// updateExtTask changes a task in the store and sends notifications/tasks
// with its new state to the listen streams that follow it (SEP-2663,
// "Task Status Notifications"). It returns the new state, or nil and the
// error.
func (s *Server) updateExtTask(ctx context.Context, run *taskRun, fn func(st *TaskState) error) (*TaskState, error) {
	x := run.ext
	x.publish.Lock()
	defer x.publish.Unlock()
	st, err := s.taskRT().store.Update(ctx, run.owner, run.id, func(st *TaskState) error {
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
	if st.Task.Status.Terminal() {
		run.markTerminal()
	}
	s.notifyListeners(ctx, "notifications/tasks", run.id, extTaskView(st))
	return st, nil
}

// extTaskView is a task's state as tasks/get answers it: the payload of
// its status inline, nothing else.
func extTaskView(st *TaskState) *DetailedTask {
	d := &DetailedTask{
		TaskID:         st.Task.TaskID,
		Status:         st.Task.Status,
		StatusMessage:  st.Task.StatusMessage,
		CreatedAt:      st.Task.CreatedAt,
		LastUpdatedAt:  st.Task.LastUpdatedAt,
		TTLMs:          st.Task.TTL,
		PollIntervalMs: st.Task.PollInterval,
	}
	switch st.Task.Status {
	case TaskCompleted:
		d.Result = st.Result
		if d.Result == nil {
			d.Result = json.RawMessage(`{"resultType":"complete","content":[]}`)
		}
	case TaskFailed:
		d.Error = st.Error
		if d.Error == nil {
			// A session-era task failed by a tool result with isError
			// (TaskOptions.Owner shared by both eras): the extension
			// reserves failed for JSON-RPC errors and needs one.
			msg := st.Task.StatusMessage
			if msg == "" {
				msg = "Tool execution failed."
			}
			d.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}
		}
	case TaskInputRequired:
		d.InputRequests = st.InputRequests
		if d.InputRequests == nil {
			d.InputRequests = emptyObject
		}
	}
	return d
}

// getTaskExt implements tasks/get of the extension: the task's
// DetailedTask, a pure read (SEP-2663, "Task Polling").
func (s *Server) getTaskExt(ctx context.Context, r *Request) (any, error) {
	if !declaresTasksExtension(r) {
		return nil, errTasksExtensionRequired()
	}
	id, perr := taskIDParam(r.Params)
	if perr != nil {
		return nil, perr
	}
	owner, _ := s.extTaskOwner(r, id)
	st, err := s.loadTask(ctx, owner, id, "retrieve")
	if err != nil {
		return nil, err
	}
	return extTaskView(st), nil
}

// cancelTaskExt implements tasks/cancel of the extension: an empty
// acknowledgement for any known task, terminal ones included; a working or
// input_required task moves to cancelled before the answer and its work is
// told to stop (SEP-2663, "Task Cancellation").
func (s *Server) cancelTaskExt(ctx context.Context, r *Request) (any, error) {
	if !declaresTasksExtension(r) {
		return nil, errTasksExtensionRequired()
	}
	id, perr := taskIDParam(r.Params)
	if perr != nil {
		return nil, perr
	}
	owner, _ := s.extTaskOwner(r, id)
	local := s.taskRT().run(id)
	if local != nil && local.owner != owner {
		local = nil
	}
	run := local
	if run == nil || run.ext == nil {
		// Not running here, or a session-era task (TaskOptions.Owner
		// shared by both eras): the store alone, then its work stops.
		run = &taskRun{id: id, owner: owner, terminal: make(chan struct{})}
		run.ext = &extRun{s: s, run: run}
	}
	_, err := s.updateExtTask(ctx, run, func(st *TaskState) error {
		if st.Task.Status.Terminal() {
			return ErrInvalidTaskTransition
		}
		st.Task.Status = TaskCancelled
		st.Task.StatusMessage = taskCancelledMessage
		st.InputRequests = nil
		return nil
	})
	switch {
	case errors.Is(err, ErrTaskNotFound):
		return nil, errTaskNotFound("cancel")
	case errors.Is(err, ErrInvalidTaskTransition):
		// Already terminal: cancelling is idempotent.
	case err != nil:
		return nil, errInternal()
	}
	if local != nil && local.cancel != nil {
		local.cancel(errTaskCancelledByRequest)
	} else if local == nil {
		// Its work may run on another replica (task_bus.go).
		s.publishTaskOp(ctx, taskOp{Op: "cancel", Task: id, Owner: owner})
	}
	return emptyObject, nil
}

// listenTaskIDs is the part of a subscriptions/listen filter the tasks
// extension honours: the ids of the caller's own tasks, if the request
// declared the extension; a request that asks for task notifications
// without declaring it gets -32021 (SEP-2663, "Task Status
// Notifications").
func (s *Server) listenTaskIDs(ctx context.Context, r *Request, ids []string) ([]string, error) {
	if len(ids) == 0 || !s.tasksExtensionEnabled() {
		return nil, nil
	}
	if !declaresTasksExtension(r) {
		return nil, errTasksExtensionRequired()
	}
	if s.opts.Tasks.Owner == nil && authOf(r) == nil {
		// Each task is its own scope: the id is the handle.
		return ids, nil
	}
	var out []string
	for _, id := range ids {
		owner, _ := s.extTaskOwner(r, id)
		if _, err := s.taskRT().store.Get(ctx, owner, id); err == nil {
			out = append(out, id)
		}
	}
	return out, nil
}
