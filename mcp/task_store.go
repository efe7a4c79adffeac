package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// TaskState is everything a server keeps about one task: plain,
// serializable data, like SessionState. The work that runs the task, its
// cancel function and the calls waiting for its result live beside it in
// the Server, never inside it, so that a TaskStore can keep tasks anywhere
// (in memory, or in Redis for many replicas).
//
// # Experimental
//
// Part of the experimental tasks API.
type TaskState struct {
	// Task is what tasks/get answers.
	Task Task `json:"task"`
	// Owner is who may see the task: by default the session that created
	// it. Other owners are told the task does not exist
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#task-isolation-and-access-control).
	Owner string `json:"owner"`
	// Method is the request the task runs, such as "tools/call".
	Method string `json:"method"`
	// ExpiresAt is when the task may be forgotten (CreatedAt + TTL); zero
	// for a task without a TTL.
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
	// Result is the underlying request's result, once the task completed
	// or failed with a result (a tool result with isError), as it is sent:
	// by tasks/result with the related-task _meta in it (2025-11-25), by
	// tasks/get with resultType "complete" (the tasks extension).
	Result json.RawMessage `json:"result,omitempty"`
	// Error is the underlying request's JSON-RPC error, once the task
	// failed with one. tasks/result sends it unchanged.
	Error *jsonrpc.Error `json:"error,omitempty"`
	// InputRequests, for a task of the stateless era's tasks extension
	// that is input_required, is the object of its outstanding input
	// requests by key, as tasks/get shows them.
	InputRequests json.RawMessage `json:"inputRequests,omitempty"`
}

// expired reports whether the task's TTL has run out at now.
func (st *TaskState) expired(now time.Time) bool {
	return !st.ExpiresAt.IsZero() && !now.Before(st.ExpiresAt)
}

// clone returns a deep copy, so that a store and its callers never share
// memory.
func (st *TaskState) clone() *TaskState {
	c := *st
	if st.Task.TTL != nil {
		ttl := *st.Task.TTL
		c.Task.TTL = &ttl
	}
	c.Result = slices.Clone(st.Result)
	c.InputRequests = slices.Clone(st.InputRequests)
	if st.Error != nil {
		e := *st.Error
		e.Data = slices.Clone(st.Error.Data)
		c.Error = &e
	}
	return &c
}

var (
	// ErrTaskNotFound is returned by a TaskStore for a task it does not
	// hold, that has expired, or that belongs to another owner.
	//
	// # Experimental
	//
	// Part of the experimental tasks API.
	ErrTaskNotFound = errors.New("mcp: task not found")
	// ErrInvalidTaskCursor is returned by TaskStore.List for a cursor it
	// did not make.
	//
	// # Experimental
	//
	// Part of the experimental tasks API.
	ErrInvalidTaskCursor = errors.New("mcp: invalid task cursor")
	// ErrInvalidTaskTransition is returned when a status change would break
	// the task state machine: leaving a terminal status, or (from
	// RunningTask.SetStatus) entering one
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#task-status-lifecycle).
	//
	// # Experimental
	//
	// Part of the experimental tasks API.
	ErrInvalidTaskTransition = errors.New("mcp: invalid task status transition")
)

// A TaskStore keeps TaskState by task id, for the tasks a Server runs
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks).
// [NewMemoryTaskStore] is the default; a shared store (redisstore's) lets any
// replica answer tasks/get for a task another one runs. Implementations
// are safe for concurrent use; values passed in and returned are copies.
// A task whose ExpiresAt has passed is gone: Get, Update and List act as
// if it did not exist, and the store frees it when it likes.
//
// # Experimental
//
// Part of the experimental tasks API.
type TaskStore interface {
	// Create stores a new task.
	Create(ctx context.Context, st *TaskState) error
	// Get returns a task, or ErrTaskNotFound (possibly wrapped) for an
	// unknown or expired id or a task whose Owner is not owner.
	Get(ctx context.Context, owner, id string) (*TaskState, error)
	// Update applies fn atomically: no other change to the task happens
	// between the state fn sees and the state stored. fn may be called
	// more than once (a store may retry on conflict), so it must only
	// change the state it is given. If fn returns an error, nothing is
	// stored and Update returns that error. Unknown tasks are as for Get.
	Update(ctx context.Context, owner, id string, fn func(*TaskState) error) (*TaskState, error)
	// List returns the owner's tasks in creation order, at most limit of
	// them after cursor ("" for the first page), and the cursor of the
	// next page ("" after the last). Cursors are opaque; one the store
	// did not make gets ErrInvalidTaskCursor.
	List(ctx context.Context, owner, cursor string, limit int) (tasks []*TaskState, next string, err error)
	// Delete removes a task; unknown tasks are as for Get.
	Delete(ctx context.Context, owner, id string) error
}

// NewMemoryTaskStore returns an in-process TaskStore: the one a Server
// uses when TaskOptions.Store is nil, or, given to several Servers, one
// they share within a process. A deleted task is freed at once. Expired
// tasks are dropped when they are next looked at and, in bulk, at most
// once a minute when a task is created; no goroutine or timer runs for an
// idle task. Create fails for a task id it already holds. The store also
// has the method Len() int: how many tasks it holds, expired ones not yet
// dropped included.
//
// # Experimental
//
// Part of the experimental tasks API.
func NewMemoryTaskStore() TaskStore { return &memoryTaskStore{} }

// memoryTaskStore is NewMemoryTaskStore's store. The zero value is ready
// to use.
type memoryTaskStore struct {
	mu        sync.Mutex
	seq       uint64
	byID      map[string]*memTask
	byOwner   map[string][]*memTask // in creation order
	nextSweep time.Time
}

type memTask struct {
	seq   uint64
	state *TaskState
}

// memSweepEvery bounds how often Create sweeps expired tasks.
const memSweepEvery = time.Minute

// Create implements TaskStore. A task id already held is an error.
func (m *memoryTaskStore) Create(_ context.Context, st *TaskState) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	if !now.Before(m.nextSweep) {
		m.sweep(now)
		m.nextSweep = now.Add(memSweepEvery)
	}
	if m.byID == nil {
		m.byID = make(map[string]*memTask)
		m.byOwner = make(map[string][]*memTask)
	}
	if _, dup := m.byID[st.Task.TaskID]; dup {
		return errors.New("mcp: task id already in use")
	}
	m.seq++
	t := &memTask{seq: m.seq, state: st.clone()}
	m.byID[st.Task.TaskID] = t
	m.byOwner[st.Owner] = append(m.byOwner[st.Owner], t)
	return nil
}

// lookup returns the owner's live task id; it drops the task if expired.
// m.mu is held.
func (m *memoryTaskStore) lookup(owner, id string) *memTask {
	t, ok := m.byID[id]
	if !ok || t.state.Owner != owner {
		return nil
	}
	if t.state.expired(time.Now()) {
		m.remove(t)
		return nil
	}
	return t
}

// remove forgets t at once: its entry in byID and in its owner's list,
// so that nothing keeps its state reachable (a deleted task's result is
// freed by the next GC, not by the next sweep). m.mu is held.
func (m *memoryTaskStore) remove(t *memTask) {
	delete(m.byID, t.state.Task.TaskID)
	owner := t.state.Owner
	ts := m.byOwner[owner]
	if i, ok := slices.BinarySearchFunc(ts, t.seq, cmpSeq); ok {
		ts = slices.Delete(ts, i, i+1) // clears the freed slot
	}
	if len(ts) == 0 {
		delete(m.byOwner, owner)
	} else {
		m.byOwner[owner] = ts
	}
}

// cmpSeq orders an owner's tasks by creation number.
func cmpSeq(t *memTask, seq uint64) int {
	switch {
	case t.seq < seq:
		return -1
	case t.seq > seq:
		return 1
	}
	return 0
}

// sweep drops expired tasks. m.mu is held.
func (m *memoryTaskStore) sweep(now time.Time) {
	for owner, ts := range m.byOwner {
		kept := ts[:0]
		for _, t := range ts {
			if t.state.expired(now) {
				delete(m.byID, t.state.Task.TaskID)
				continue
			}
			kept = append(kept, t)
		}
		clear(ts[len(kept):])
		if len(kept) == 0 {
			delete(m.byOwner, owner)
		} else {
			m.byOwner[owner] = kept
		}
	}
}

// Get implements TaskStore.
func (m *memoryTaskStore) Get(_ context.Context, owner, id string) (*TaskState, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.lookup(owner, id)
	if t == nil {
		return nil, ErrTaskNotFound
	}
	return t.state.clone(), nil
}

// Update implements TaskStore.
func (m *memoryTaskStore) Update(_ context.Context, owner, id string, fn func(*TaskState) error) (*TaskState, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.lookup(owner, id)
	if t == nil {
		return nil, ErrTaskNotFound
	}
	st := t.state.clone()
	if err := fn(st); err != nil {
		return nil, err
	}
	// The id and owner are the store's keys: fn may not change them.
	st.Task.TaskID, st.Owner = id, owner
	t.state = st
	return st.clone(), nil
}

// List implements TaskStore.
func (m *memoryTaskStore) List(_ context.Context, owner, cursor string, limit int) ([]*TaskState, string, error) {
	var after uint64
	if cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil {
			return nil, "", ErrInvalidTaskCursor
		}
		s, ok := strings.CutPrefix(string(b), "mcpkit-task:")
		if !ok {
			return nil, "", ErrInvalidTaskCursor
		}
		if after, err = strconv.ParseUint(s, 10, 64); err != nil {
			return nil, "", ErrInvalidTaskCursor
		}
	}
	limit = positiveOr(limit, 100) // client.go
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	ts := m.byOwner[owner]
	i, _ := slices.BinarySearchFunc(ts, after, cmpSeq)
	var (
		out     []*TaskState
		last    uint64
		expired []*memTask
		next    string
	)
	for ; i < len(ts); i++ {
		t := ts[i]
		if t.seq <= after {
			continue
		}
		if t.state.expired(now) {
			expired = append(expired, t)
			continue
		}
		if len(out) == limit {
			next = base64.RawURLEncoding.EncodeToString([]byte("mcpkit-task:" + strconv.FormatUint(last, 10)))
			break
		}
		out = append(out, t.state.clone())
		last = t.seq
	}
	for _, t := range expired {
		m.remove(t)
	}
	return out, next, nil
}

// Delete implements TaskStore.
func (m *memoryTaskStore) Delete(_ context.Context, owner, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.lookup(owner, id)
	if t == nil {
		return ErrTaskNotFound
	}
	m.remove(t)
	return nil
}

// Len reports how many tasks the store holds, expired ones not yet
// dropped included. A deleted task is not held: its state is freed at
// once.
func (m *memoryTaskStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.byID)
}
