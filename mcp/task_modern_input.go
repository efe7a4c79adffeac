package mcp

// This file is how a task of the tasks extension asks its client for
// input. The task's work calls Request.Input (or Request.Elicit,
// CreateMessage, ListRoots) as any handler does; in a task the call does
// not end the work with an input_required result, it parks: the task moves
// to input_required, tasks/get shows the outstanding requests in
// inputRequests, and the call returns once tasks/update has answered all
// of them, the task back to working (SEP-2663, "Task Update Requests").

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/internal/jsonenc"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// extInputWait is one Request.Input call of a task's work, waiting for
// its answers.
type extInputWait struct {
	wire    map[string]string          // the handler's key → the key on the wire
	reqs    map[string]*InputRequest   // by wire key
	answers map[string]json.RawMessage // by wire key
	left    int
	done    chan struct{}
}

// errTaskUnchanged tells updateExtTask that an update changes nothing.
var errTaskUnchanged = errors.New("mcp: task unchanged")

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
	_, err := s.updateExtTask(ctx, run, func(st *TaskState) error {
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
		// Its work does not run here: the replica running it, if any,
		// gets the responses through the bus (task_bus.go); without one
		// no request of it is outstanding, so every response is ignored.
		s.publishTaskOp(ctx, taskOp{Op: "update", Task: id, Owner: owner, Responses: p.InputResponses})
		return emptyObject, nil
	}
	if rpcErr := s.answerExtTask(ctx, run, responses); rpcErr != nil {
		return nil, rpcErr
	}
	return emptyObject, nil
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

// setExtStatus is RunningTask.SetStatus for a task of the extension: the
// work sets the status message; the status itself follows its input
// requests (input_required while Request.Input waits, working otherwise).
func (s *Server) setExtStatus(ctx context.Context, run *taskRun, status TaskStatus, message string) error {
	if status != TaskWorking {
		return fmt.Errorf("%w: in the tasks extension a handler sets only working; input_required follows Request.Input", ErrInvalidTaskTransition)
	}
	gone, err := s.resizeRun(run, &run.msgBytes, len(message), "the task's status message")
	s.deleteTasks(ctx, gone)
	if err != nil {
		return err
	}
	_, err = s.updateExtTask(context.WithoutCancel(ctx), run, func(st *TaskState) error {
		if st.Task.Status.Terminal() {
			return fmt.Errorf("%w: from %s to %s", ErrInvalidTaskTransition, st.Task.Status, status)
		}
		st.Task.StatusMessage = message
		return nil
	})
	return err
}
