package mcp

// The session era's tasks
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks):
// task-augmented tools/call, tasks/get, tasks/result, tasks/list,
// tasks/cancel and notifications/tasks/status, on the engine of
// task_engine.go.

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/internal/jsonenc"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// sessionTaskWire is the taskWire of the session era's tasks.
type sessionTaskWire struct{}

// result keeps the tool's result as tasks/result sends it
// (sessionTaskResult); a result with isError fails the task.
func (sessionTaskWire) result(id string, res *CallToolResult) (json.RawMessage, int, TaskStatus, string, error) {
	raw, size, err := sessionTaskResult(id, res)
	if err != nil || !res.IsError {
		return raw, size, TaskCompleted, "", err
	}
	return raw, size, TaskFailed, toolErrorStatusMessage(res), nil
}

// sessionTaskResult encodes res as tasks/result sends it for task id: its
// members in name order, with the related-task entry in _meta
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#associating-task-related-messages).
// size is its length without that entry: the length of res's own JSON.
func sessionTaskResult(id string, res *CallToolResult) (raw []byte, size int, err error) {
	type named struct {
		Meta              Meta            `json:"_meta,omitempty"`
		Content           []Content       `json:"content"`
		IsError           bool            `json:"isError,omitempty"`
		StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	}
	entry := relatedTaskMeta(id)
	meta := make(Meta, len(res.Meta)+1)
	maps.Copy(meta, res.Meta)
	meta[relatedTaskMetaKey] = entry
	raw, err = jsonenc.Marshal(&named{Meta: meta, Content: res.Content, IsError: res.IsError, StructuredContent: res.StructuredContent})
	added := len(`"`+relatedTaskMetaKey+`":`) + len(entry)
	if len(meta) == 1 {
		added += len(`"_meta":{},`)
	} else {
		added += len(",")
	}
	return raw, len(raw) - added, err
}

func (sessionTaskWire) toolError(err error) error { return err }

func (sessionTaskWire) setStatus(status TaskStatus) (bool, error) {
	if status != TaskWorking && status != TaskInputRequired {
		return false, fmt.Errorf("%w: a handler may set only working or input_required, not %q", ErrInvalidTaskTransition, status)
	}
	return true, nil
}

// notify sends notifications/tasks/status when the status changed (MAY):
// the whole task, without related-task _meta, before a waiting
// tasks/result is woken, so that it travels on that call's stream
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#task-status-notification).
func (sessionTaskWire) notify(ctx context.Context, s *Server, run *taskRun, before TaskStatus, st *TaskState) {
	if st.Task.Status == before {
		return
	}
	if err := run.w.WriteMessage(ctx, &jsonrpc.Notification{
		Method: "notifications/tasks/status",
		Params: mustMarshal(&TaskStatusNotificationParams{Task: st.Task}),
	}); err != nil {
		s.logger.Debug("mcp: task status notification not delivered", "task", run.id, "err", err)
	}
}

func toolErrorStatusMessage(res *CallToolResult) string {
	for _, c := range res.Content {
		if t, ok := c.(*TextContent); ok && t.Text != "" {
			return "Tool execution failed: " + t.Text
		}
	}
	return "Tool execution failed."
}

// taskOwner returns who the request's tasks belong to: TaskOptions.Owner's
// answer, else the authenticated user, else the session
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#task-isolation-and-access-control).
func (s *Server) taskOwner(r *Request) string {
	if owner, ok := s.boundOwner(r); ok {
		return owner
	}
	ss := r.Session
	if id := ss.ID(); id != "" {
		return sessionOwnerPrefix + id
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
// capabilities, without tasks where they could not be served
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#task-support-and-handling).
func (s *Server) sessionCapabilities(ss *ServerSession, auth *TokenInfo) ServerCapabilities {
	c := s.capabilities()
	if !s.sessionTasks(ss, auth) {
		c.Tasks = nil
	}
	return c
}

// tasksCapability declares tasks{list, cancel, requests.tools.call} when
// a tool may run as a task
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#server-capabilities).
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
		// Tasks are not declared on an ephemeral session: an optional tool
		// runs normally, one that requires a task cannot run.
		if taskSupport(t.tool) == TaskSupportRequired {
			return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found",
				"Tool "+p.Name+" must be called as a task, and this server keeps no tasks here: every request has a session of its own (stateless mode) and tasks belong to their session")
		}
		return runTool(ctx, r, t, p.Arguments)
	}
	if !s.declaresToolTasks() {
		// Not declared: the request is processed normally, params.task
		// ignored (MUST).
		return runTool(ctx, r, t, p.Arguments)
	}
	if p.Task == nil {
		// Only a "required" tool gets here: MUST -32601.
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
	ttl := rt.defaultTTL
	if asked := p.Task.TTL; asked != nil && *asked > 0 {
		ttl = rt.maxTTL
		if *asked < ttl.Milliseconds() { // compared in ms: no overflow
			ttl = time.Duration(*asked) * time.Millisecond
		}
	}
	run := newTaskRun(rand.Text(), owner, ownerAccount(owner), r.Session, sessionTaskWire{})
	run.endsWithSession = s.sessionOwned(r)
	// The work keeps the request (wr, below) and the arguments.
	st, err := s.createTask(ctx, run, ttl, len(r.Params)+len(p.Arguments))
	if err != nil {
		return nil, err
	}
	wr := *r
	wr.related = run.w
	s.startTask(ctx, run, &wr, run.w, t, p.Arguments, ttl)
	return &CreateTaskResult{Task: st.Task}, nil
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
// it waits until the task is terminal, then answers what the underlying
// request would have. While it waits, the messages the task sends travel
// on this request's stream.
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
			// The work runs on another replica sharing the store: poll it.
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

// taskPayload is tasks/result's answer for a terminal task: its result
// as stored, or its error.
func taskPayload(st *TaskState) (any, error) {
	switch {
	case st.Error != nil:
		return nil, st.Error
	case st.Result != nil:
		return st.Result, nil
	}
	// Cancelled before it had an outcome: the spec names no error, and
	// -32602 says this taskId has no result.
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
	owner := s.taskOwner(r)
	st, terminal, err := s.stopTask(ctx, id, owner, newTaskRun(id, owner, "", r.Session, sessionTaskWire{}))
	switch {
	case errors.Is(err, ErrTaskNotFound):
		return nil, errTaskNotFound("cancel")
	case errors.Is(err, ErrInvalidTaskTransition):
		return nil, errInvalidParams("Cannot cancel task: already in terminal status '" + string(terminal) + "'")
	case err != nil:
		return nil, errInternal()
	}
	return &CancelTaskResult{Task: st.Task}, nil
}

// paramsWithMeta returns the params object raw of a message a task's
// work sends with _meta[key] set to value, keeping its other members and
// _meta keys.
func paramsWithMeta(raw json.RawMessage, key string, value json.RawMessage) (json.RawMessage, error) {
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
	var params *json.RawMessage
	var method string
	switch m := msg.(type) {
	case *jsonrpc.Request:
		c := *m
		msg, params, method = &c, &c.Params, m.Method
	case *jsonrpc.Notification:
		if m.Method == "notifications/tasks/status" {
			return m, nil
		}
		c := *m
		msg, params, method = &c, &c.Params, m.Method
	default:
		return msg, nil
	}
	tagged, err := paramsWithMeta(*params, relatedTaskMetaKey, relatedTaskMeta(w.id))
	if err != nil {
		return nil, fmt.Errorf("mcp: tagging %s with its task: %w", method, err)
	}
	*params = tagged
	return msg, nil
}
