package mcp

// The stateless era's tasks extension (SEP-2663,
// io.modelcontextprotocol/tasks,
// https://modelcontextprotocol.io/extensions/tasks/overview), on the engine
// of task_engine.go: a client that declares the extension may get, for a
// tool whose execution.taskSupport is "optional" or "required", a
// CreateTaskResult instead of the tool's result; it polls tasks/get,
// answers the task's input requests with tasks/update, cancels it with
// tasks/cancel, and may follow it with notifications/tasks on a
// subscriptions/listen stream. docs/design.md says who owns such a task.

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/internal/jsonenc"
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

// detailedTask is a task as the tasks extension sends it: flat, with the
// TTL and poll interval in milliseconds, and the status's payload inline
// (SEP-2663, "Tasks"). It is the CreateTaskResult of a tools/call
// (ResultType "task", no payload), the result of tasks/get (ResultType
// "complete") and the params of notifications/tasks (no ResultType).
//
// # Experimental
//
// Part of the experimental tasks API.
type detailedTask struct {
	Meta Meta `json:"_meta,omitempty"`
	// ResultType is "task" on a CreateTaskResult; when empty, the result
	// of tasks/get is sent with "complete" and a notification without.
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

// extTaskWire is the taskWire of the tasks extension.
type extTaskWire struct{}

// result keeps the tool's result, isError included, as a 2026-07-28
// result with resultType "complete": it completes the task (SEP-2663,
// "Task Execution Errors").
func (extTaskWire) result(_ string, res *CallToolResult) (json.RawMessage, int, TaskStatus, string, error) {
	var h resultHead // resultType alone
	own := res.ownEncoding()
	raw, err := res.appendJSON(make([]byte, 0, h.size()+res.jsonSize(own)), own, &h)
	return raw, len(raw), TaskCompleted, "", err
}

func (extTaskWire) toolError(err error) error { return statelessError(err) }

func (extTaskWire) setStatus(status TaskStatus) (bool, error) {
	if status != TaskWorking {
		return false, fmt.Errorf("%w: in the tasks extension a handler sets only working; input_required follows Request.Input", ErrInvalidTaskTransition)
	}
	return false, nil
}

// notify sends notifications/tasks with the task's new state to the
// listen streams that follow it (SEP-2663, "Task Status Notifications").
func (extTaskWire) notify(ctx context.Context, s *Server, run *taskRun, _ TaskStatus, st *TaskState) {
	s.notifyListeners(ctx, "notifications/tasks", run.id, extTaskView(st))
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
	}
	return s.declaresToolTasks()
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
	if owner, ok := s.boundOwner(r); ok {
		return owner, ownerAccount(owner)
	}
	return ownerlessTaskPrefix + id, poolAccount
}

// callToolExt serves a stateless-era tools/call of a tool that may run as
// a task (execution.taskSupport "optional" or "required"). A request that
// declares the tasks extension gets a task, created before the answer
// (SEP-2663, "Task Creation"): at once, or for a tool with
// Tool.InputBeforeTask once its handler, run first as a plain request, has
// the input it asks for and calls Request.BeginTask. One that does not
// declare the extension runs an optional tool inline and gets -32021 for a
// required one.
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
	var answers map[string]json.RawMessage
	if t.tool.InputBeforeTask {
		// The multi round-trip phase (SEP-2663: resolve input
		// synchronously before the CreateTaskResult), era_stateless.go.
		res, got, begun, err := r.inEra().runBeforeTask(ctx, r, t, args)
		if !begun {
			return res, err
		}
		answers = got
	}
	return s.startExtTask(ctx, r, args, t, answers)
}

// startExtTask creates the task of a stateless-era tools/call, starts its
// work and returns its CreateTaskResult. answers are the input the
// handler gathered before the task (Tool.InputBeforeTask): its
// Request.Input returns them in the task's work.
func (s *Server) startExtTask(ctx context.Context, r *Request, args json.RawMessage, t *serverTool, answers map[string]json.RawMessage) (any, error) {
	id := rand.Text()
	owner, acct := s.extTaskOwner(r, id)
	run := newTaskRun(id, owner, acct, r.Session, extTaskWire{})
	run.ext = &extRun{s: s, run: run}
	ttl := s.taskRT().defaultTTL
	// The work keeps copies of the params and the arguments; the answers
	// came in the params (inputResponses, or inside requestState).
	st, err := s.createTask(ctx, run, ttl, len(r.Params)+len(args))
	if err != nil {
		return nil, err
	}
	// The transport may reuse the message's bytes once the request is
	// answered, so params are copied. The work has no stream to the
	// client (SEP-2663: no progress or log messages for a task).
	wr := &Request{
		Method:             r.Method,
		ID:                 r.ID,
		Params:             slices.Clone(r.Params),
		Session:            r.Session,
		ProtocolVersion:    r.ProtocolVersion,
		ClientInfo:         r.ClientInfo,
		ClientCapabilities: r.ClientCapabilities,
		Extra:              r.Extra,
		era:                newTaskWorkEra(run.ext, answers), // era_stateless.go
	}
	s.startTask(ctx, run, wr, noStream{}, t, slices.Clone(args), ttl)
	created := extTaskView(st)
	created.ResultType = resultTypeTask
	return created, nil
}

// ErrBeginTask is what Request.BeginTask returns while the handler of a
// tool with Tool.InputBeforeTask runs before its task exists; the handler
// returns it, and the server creates the task and runs the handler again
// as the task's work (SEP-2663, "Task Creation").
var ErrBeginTask = errors.New("mcp: the tool's work goes on as a task")

// BeginTask marks where the handler of a tool with Tool.InputBeforeTask
// has the input it gathers before its task. While the handler runs before
// the task exists (a 2026-07-28 tools/call whose client declares the tasks
// extension), BeginTask returns ErrBeginTask, which the handler returns:
// the tools/call is then answered with a CreateTaskResult, and the handler
// runs again from the start as the task's work, where its Request.Input
// calls return the answers given before and ask for the others with the
// task's input_required status (SEP-2663, "Task Creation" and "Task Update
// Requests"). Everywhere else (in the task's work, in the session era, in a
// call that runs inline) it returns nil and the handler goes on.
func (r *Request) BeginTask() error {
	return r.inEra().beginTask()
}

// noStream is the stream of a stateless-era task's work: there is none,
// so what the work would send on it is refused.
type noStream struct{}

var errNoTaskStream = errors.New("mcp: a task of the stateless era has no stream to the client; ask for input with Request.Input")

func (noStream) WriteMessage(context.Context, jsonrpc.Message) error { return errNoTaskStream }

// extTaskView is a task's state as tasks/get answers it: the payload of
// its status inline, nothing else.
func extTaskView(st *TaskState) *detailedTask {
	d := &detailedTask{
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
// detailedTask, a pure read (SEP-2663, "Task Polling").
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
	_, _, err := s.stopTask(ctx, id, owner, newTaskRun(id, owner, "", nil, extTaskWire{}))
	switch {
	case errors.Is(err, ErrTaskNotFound):
		return nil, errTaskNotFound("cancel")
	case err != nil && !errors.Is(err, ErrInvalidTaskTransition): // terminal: idempotent
		return nil, errInternal()
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

// extRun is how a task's work asks its client for input. The work calls
// Request.Input (or Elicit, CreateMessage, ListRoots) as any handler does;
// in a task the call parks: the task moves to input_required, tasks/get
// shows the outstanding requests in inputRequests, and the call returns
// once tasks/update has answered all of them, the task back to working
// (SEP-2663, "Task Update Requests").
type extRun struct {
	s   *Server
	run *taskRun

	mu      sync.Mutex
	used    map[string]bool          // every input key issued over the task's life
	pending map[string]*extInputWait // outstanding input keys
	order   []string                 // pending keys in the order asked
}

// extInputWait is one Request.Input call of a task's work, waiting for
// its answers.
type extInputWait struct {
	wire    map[string]string          // the handler's key → the key on the wire
	reqs    map[string]*InputRequest   // by wire key
	answers map[string]json.RawMessage // by wire key
	left    int
	done    chan struct{}
}

// input asks for requests (keys sorted, capabilities checked by
// Request.Input) on behalf of the task's work and waits for the answers.
// Each request gets a key never used before in the task's life: the
// handler's own, or the handler's with "#2", "#3"... when the task already
// asked under it, as SEP-2663 forbids reusing a key. The answers come back
// under the handler's keys. If the work's context ends first (tasks/cancel,
// TTL), its error is returned.
func (x *extRun) input(ctx context.Context, keys []string, requests map[string]*InputRequest) (InputResponses, error) {
	w := &extInputWait{
		wire:    make(map[string]string, len(keys)),
		reqs:    make(map[string]*InputRequest, len(keys)),
		answers: make(map[string]json.RawMessage, len(keys)),
		left:    len(keys),
		done:    make(chan struct{}),
	}
	x.mu.Lock()
	if x.used == nil {
		x.used = make(map[string]bool)
		x.pending = make(map[string]*extInputWait)
	}
	for _, k := range keys {
		wk := k
		for n := 2; x.used[wk]; n++ {
			wk = k + "#" + strconv.Itoa(n)
		}
		x.used[wk] = true
		w.wire[k] = wk
		w.reqs[wk] = requests[k]
		x.pending[wk] = w
		x.order = append(x.order, wk)
	}
	x.mu.Unlock()
	if len(keys) == 0 {
		return InputResponses{}, nil
	}

	withdraw := func() {
		x.mu.Lock()
		for _, wk := range w.wire {
			if x.pending[wk] == w {
				delete(x.pending, wk)
				x.order = slices.DeleteFunc(x.order, func(k string) bool { return k == wk })
			}
		}
		x.mu.Unlock()
	}
	pctx := context.WithoutCancel(ctx)
	if err := x.s.publishInput(pctx, x.run); errors.Is(err, ErrTaskTooLarge) {
		// Not stored: the task stays as it was, without these requests.
		withdraw()
		return nil, err
	}
	select {
	case <-w.done:
	case <-ctx.Done():
		withdraw()
		x.s.publishInput(pctx, x.run)
		return nil, ctx.Err()
	}
	out := make(InputResponses, len(keys))
	for k, wk := range w.wire {
		out[k] = w.answers[wk]
	}
	return out, nil
}

// answer delivers a tasks/update's responses to the requests they answer.
// Keys that are not outstanding (never issued, already answered) are
// ignored, as SEP-2663 advises. The answers to outstanding keys are checked
// as an input_required retry's are; if one is malformed none is taken and
// the update gets -32602. It reports whether any request was answered, and
// returns the Input calls now fully answered: the caller wakes them (wake)
// once the task's new state is stored, so that the work's next input
// request is stored after it.
func (x *extRun) answer(responses map[string]json.RawMessage) (answered bool, done []*extInputWait, _ *jsonrpc.Error) {
	keys := make([]string, 0, len(responses))
	for k := range responses {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, k := range keys {
		w, ok := x.pending[k]
		if !ok {
			continue
		}
		if err := checkInputResponse(w.reqs[k], responses[k]); err != nil {
			return false, nil, errInvalidParams("inputResponses[" + strconv.Quote(k) + "]: " + err.Error())
		}
	}
	for _, k := range keys {
		w, ok := x.pending[k]
		if !ok {
			continue
		}
		w.answers[k] = responses[k]
		delete(x.pending, k)
		x.order = slices.DeleteFunc(x.order, func(o string) bool { return o == k })
		if w.left--; w.left == 0 {
			done = append(done, w)
		}
		answered = true
	}
	return answered, done, nil
}

// wake lets the Input calls of done return.
func wake(done []*extInputWait) {
	for _, w := range done {
		close(w.done)
	}
}

// outstanding returns the object of the requests still waiting, by key in
// the order asked, or nil when none waits.
func (x *extRun) outstanding() (json.RawMessage, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.order) == 0 {
		return nil, nil
	}
	b := []byte{'{'}
	for i, k := range x.order {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.AppendString(b, k)
		b = append(b, ':')
		q, err := jsonenc.Marshal(x.pending[k].reqs[k])
		if err != nil {
			return nil, fmt.Errorf("mcp: encoding input request %q: %w", k, err)
		}
		b = append(b, q...)
	}
	return append(b, '}'), nil
}

// publishInput records the task's outstanding input requests: status
// input_required with them, or working when none is left. A terminal task
// is left as it is. The requests count against the task's byte bounds:
// when they cannot be held, nothing is stored and the error wraps
// ErrTaskTooLarge.
func (s *Server) publishInput(ctx context.Context, run *taskRun) error {
	var gone []*keptTask
	defer func() { s.deleteTasks(ctx, gone) }() // after the store's update: never inside it
	_, err := s.updateTask(ctx, run, func(st *TaskState) error {
		if st.Task.Status.Terminal() {
			return ErrInvalidTaskTransition
		}
		reqs, err := run.ext.outstanding()
		if err != nil {
			return err
		}
		evicted, err := s.resizeRun(run, &run.inputBytes, len(reqs), "the task's inputRequests object")
		gone = append(gone, evicted...)
		if err != nil {
			return err
		}
		switch {
		case reqs != nil:
			st.Task.Status, st.InputRequests = TaskInputRequired, reqs
		case st.Task.Status == TaskInputRequired:
			st.Task.Status, st.InputRequests = TaskWorking, nil
		default:
			return errTaskUnchanged
		}
		return nil
	})
	return err
}

// updateTaskExt implements tasks/update: the answers go to the task's
// outstanding input requests and the update is acknowledged with an empty
// result; the task's new state shows on the next tasks/get (SEP-2663,
// "Task Update Requests"). An unknown task is -32602.
func (s *Server) updateTaskExt(ctx context.Context, r *Request) (any, error) {
	if !declaresTasksExtension(r) {
		return nil, errTasksExtensionRequired()
	}
	var p struct {
		TaskID         json.RawMessage `json:"taskId"`
		InputResponses json.RawMessage `json:"inputResponses"`
	}
	if len(r.Params) == 0 {
		return nil, errInvalidParams("missing params: taskId and inputResponses are required")
	}
	if err := unmarshalParams(r.Params, &p); err != nil {
		return nil, err
	}
	var id string
	if !isJSONString(p.TaskID) || exactjson.Unmarshal(p.TaskID, &id) != nil || id == "" {
		return nil, errInvalidParams("taskId is required and must be a string")
	}
	if len(p.InputResponses) == 0 || p.InputResponses[0] != '{' {
		return nil, errInvalidParams("inputResponses is required and must be an object of input responses")
	}
	var responses map[string]json.RawMessage
	if err := exactjson.Unmarshal(p.InputResponses, &responses); err != nil {
		return nil, errInvalidParams("inputResponses: " + err.Error())
	}
	owner, _ := s.extTaskOwner(r, id)
	if _, err := s.loadTask(ctx, owner, id, "update"); err != nil {
		return nil, err
	}
	run := s.taskRT().run(id)
	if run == nil || run.ext == nil || run.owner != owner {
		// Its work does not run here: the answered requests leave the
		// stored task now, so that tasks/get on any replica agrees with
		// this answer, and the replica running it, if any, gets the
		// responses through the bus (task_bus.go).
		s.dropAnsweredInput(ctx, id, owner, responses)
		s.publishTaskOp(ctx, taskOp{Op: "update", Task: id, Owner: owner, Responses: p.InputResponses})
		return emptyObject, nil
	}
	if rpcErr := s.answerExtTask(ctx, run, responses); rpcErr != nil {
		return nil, rpcErr
	}
	return emptyObject, nil
}

// dropAnsweredInput removes the input requests responses answer from the
// stored task whose work runs on another replica, in their order, and
// moves it to working when none is left (SEP-2663, "Providing Input").
// The replica running the work stores the same when it gets the
// responses, so a lost race changes nothing.
func (s *Server) dropAnsweredInput(ctx context.Context, id, owner string, responses map[string]json.RawMessage) {
	remote := newTaskRun(id, owner, "", nil, extTaskWire{})
	_, _ = s.updateTask(context.WithoutCancel(ctx), remote, func(st *TaskState) error {
		if st.Task.Status != TaskInputRequired {
			return errTaskUnchanged
		}
		members, ok := decodeObject(st.InputRequests) // era_stateless_result.go
		if !ok {
			return errTaskUnchanged
		}
		b, kept := []byte{'{'}, 0
		for _, m := range members {
			if _, answered := responses[m.name]; answered {
				continue
			}
			if kept > 0 {
				b = append(b, ',')
			}
			b = append(jsonenc.AppendString(b, m.name), ':')
			b = append(b, m.value...)
			kept++
		}
		switch {
		case kept == len(members):
			return errTaskUnchanged
		case kept == 0:
			st.Task.Status, st.InputRequests = TaskWorking, nil
		default:
			st.InputRequests = append(b, '}')
		}
		return nil
	})
}

// answerExtTask gives responses to the outstanding input requests of
// run, whose work runs here.
func (s *Server) answerExtTask(ctx context.Context, run *taskRun, responses map[string]json.RawMessage) *jsonrpc.Error {
	answered, done, rpcErr := run.ext.answer(responses)
	if rpcErr != nil {
		return rpcErr
	}
	if answered {
		_ = s.publishInput(context.WithoutCancel(ctx), run) // fewer requests: never too large
	}
	wake(done)
	return nil
}
