package redisstore

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/redis/go-redis/v9"
)

// DefaultMaxTasksPerOwner is the per-owner task cap of a TaskStore whose
// MaxTasksPerOwner is zero. Each Server also bounds the tasks it creates
// (mcp.TaskOptions); this cap holds for all replicas together.
const DefaultMaxTasksPerOwner = 1000

// DefaultMaxTaskTTL is how long a TaskStore whose MaxTTL is zero keeps a
// task at most, whatever its own TTL.
const DefaultMaxTaskTTL = 24 * time.Hour

// ErrTaskLimit is returned by TaskStore.Create when the owner holds
// MaxTasksPerOwner live tasks.
var ErrTaskLimit = errors.New("redisstore: task limit reached")

// ErrTaskExists is returned by TaskStore.Create for a task id the owner
// already holds.
var ErrTaskExists = errors.New("redisstore: task id already in use")

// TaskOptions configures a TaskStore. The zero value is useful.
type TaskOptions struct {
	// Prefix starts every key; as SessionOptions.Prefix.
	Prefix string
	// Timeout bounds each call to Redis; past it the call fails with an
	// error wrapping ErrUnavailable. If zero, DefaultTimeout (2s).
	Timeout time.Duration
	// MaxTasksPerOwner caps the live tasks of one owner across every
	// replica; Create past it fails with ErrTaskLimit. If zero,
	// DefaultMaxTasksPerOwner (1000).
	MaxTasksPerOwner int
	// MaxTTL is how long a task is kept at most: a task without a TTL, or
	// with a longer one, is forgotten this long after it was created. If
	// zero, DefaultMaxTaskTTL (24 hours).
	MaxTTL time.Duration
	// UpdateRetries bounds how often Update retries after a concurrent
	// change by another replica; past it Update fails with ErrConflict.
	// If zero, DefaultUpdateRetries (16).
	UpdateRetries int
}

// TaskStore keeps the tasks of a server in Redis, so that any replica
// answers tasks/get, tasks/result, tasks/list and tasks/cancel for a task
// another replica runs
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks).
// It implements mcp.TaskStore.
//
// A task's key holds its owner's digest as hash tag, so a task id looked
// up under another owner names another key and finds nothing
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#task-isolation-and-access-control);
// an owner's tasks and their creation-order index share a Redis Cluster
// slot. A task expires by Redis's clock at its ExpiresAt (PEXPIREAT), or
// MaxTTL after creation if sooner; Delete removes its key at once, and
// the owner's index and counter with its last task. Update is optimistic:
// a revision number guards the write, and fn runs again after a
// concurrent change.
//
// It is safe for concurrent use.
type TaskStore struct {
	base
	max     int
	maxTTL  time.Duration
	retries int
}

var _ mcp.TaskStore = (*TaskStore)(nil)

// NewTaskStore returns a TaskStore on rdb. opts may be nil. The caller
// keeps rdb and closes it.
func NewTaskStore(rdb redis.UniversalClient, opts *TaskOptions) (*TaskStore, error) {
	if opts == nil {
		opts = &TaskOptions{}
	}
	b, err := newBase(rdb, opts.Prefix, opts.Timeout)
	if err != nil {
		return nil, err
	}
	t := &TaskStore{base: b, max: opts.MaxTasksPerOwner, maxTTL: opts.MaxTTL, retries: opts.UpdateRetries}
	if t.max <= 0 {
		t.max = DefaultMaxTasksPerOwner
	}
	if t.maxTTL <= 0 {
		t.maxTTL = DefaultMaxTaskTTL
	}
	if t.retries <= 0 {
		t.retries = DefaultUpdateRetries
	}
	return t, nil
}

// taskKeys are a task's hash, its owner's index (a sorted set of task ids
// by creation number) and its owner's creation counter.
func (t *TaskStore) taskKeys(owner, id string) []string {
	tag := "{" + ownerTag(owner) + "}"
	return []string{t.prefix + "t:" + tag + ":" + id, t.prefix + "tl:" + tag, t.prefix + "tn:" + tag}
}

// A task's hash holds st (the TaskState as JSON), own (the owner) and
// rev (bumped by every write).

// taskCreate: KEYS task, index, counter; ARGV: id, state JSON, owner,
// expires at (ms, 0 for none), max TTL ms, max tasks. When the owner is at
// the cap, it first drops the index entries of tasks that expired.
// Replies {"ok"} | {"exists"} | {"limit"}.
var taskCreate = redis.NewScript(redisNow + `
if redis.call('EXISTS', KEYS[1]) == 1 then return {'exists'} end
local max = tonumber(ARGV[6])
if redis.call('ZCARD', KEYS[2]) >= max then
	local prefix = string.sub(KEYS[1], 1, #KEYS[1] - #ARGV[1])
	for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
		if redis.call('EXISTS', prefix .. id) == 0 then redis.call('ZREM', KEYS[2], id) end
	end
	if redis.call('ZCARD', KEYS[2]) >= max then return {'limit'} end
end
local at = now + tonumber(ARGV[5])
local exp = tonumber(ARGV[4])
if exp > 0 and exp < at then at = exp end
local seq = redis.call('INCR', KEYS[3])
redis.call('HSET', KEYS[1], 'st', ARGV[2], 'own', ARGV[3], 'rev', 1)
redis.call('PEXPIREAT', KEYS[1], at)
redis.call('ZADD', KEYS[2], seq, ARGV[1])
for i = 2, 3 do
	if redis.call('PEXPIRETIME', KEYS[i]) < at then redis.call('PEXPIREAT', KEYS[i], at) end
end
return {'ok'}
`)

// taskPut: KEYS task; ARGV: expected rev, state JSON. Keeps the key's
// expiry. Replies {"ok"} | {"missing"} | {"conflict"}.
var taskPut = redis.NewScript(`
local rev = redis.call('HGET', KEYS[1], 'rev')
if not rev then return {'missing'} end
if rev ~= ARGV[1] then return {'conflict'} end
redis.call('HSET', KEYS[1], 'st', ARGV[2], 'rev', tonumber(rev) + 1)
return {'ok'}
`)

// taskDelete: KEYS task, index, counter; ARGV: id. Deleting the owner's
// last task deletes its counter too (as its expiry would), so that an
// owner whose tasks are all deleted (an ended session's) leaves no key.
// Replies 1 or 0.
var taskDelete = redis.NewScript(`
local n = redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('EXISTS', KEYS[2]) == 0 then redis.call('DEL', KEYS[3]) end
return n
`)

// Create implements mcp.TaskStore. A task id the owner holds gets
// ErrTaskExists; an owner at MaxTasksPerOwner gets ErrTaskLimit.
func (t *TaskStore) Create(ctx context.Context, st *mcp.TaskState) error {
	if st == nil || st.Task.TaskID == "" {
		return errors.New("redisstore: Create needs a task id")
	}
	raw, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("redisstore: encoding task state: %w", err)
	}
	var exp int64
	if !st.ExpiresAt.IsZero() {
		exp = max(st.ExpiresAt.UnixMilli(), 1)
	}
	var rep []string
	err = t.call(ctx, "creating a task", func(ctx context.Context) error {
		v, err := taskCreate.Run(ctx, t.rdb, t.taskKeys(st.Owner, st.Task.TaskID),
			st.Task.TaskID, raw, st.Owner, exp, t.maxTTL.Milliseconds(), t.max).Result()
		if err != nil {
			return err
		}
		rep, err = replyStrings(v)
		return err
	})
	if err != nil {
		return err
	}
	switch rep[0] {
	case "ok":
		return nil
	case "exists":
		return fmt.Errorf("%w: %q", ErrTaskExists, st.Task.TaskID)
	case "limit":
		return fmt.Errorf("%w (MaxTasksPerOwner %d)", ErrTaskLimit, t.max)
	}
	return fmt.Errorf("redisstore: unexpected reply %q", rep[0])
}

// get loads a task and its revision.
func (t *TaskStore) get(ctx context.Context, owner, id string) (*mcp.TaskState, string, error) {
	var vals []any
	err := t.call(ctx, "loading a task", func(ctx context.Context) error {
		var err error
		vals, err = t.rdb.HMGet(ctx, t.taskKeys(owner, id)[0], "st", "own", "rev").Result()
		return err
	})
	if err != nil {
		return nil, "", err
	}
	raw, _ := vals[0].(string)
	own, _ := vals[1].(string)
	rev, _ := vals[2].(string)
	if raw == "" || own != owner {
		return nil, "", fmt.Errorf("%w: %q", mcp.ErrTaskNotFound, id)
	}
	st := new(mcp.TaskState)
	if err := json.Unmarshal([]byte(raw), st); err != nil {
		return nil, "", fmt.Errorf("redisstore: decoding task %q: %w", id, err)
	}
	// Redis expires the key at ExpiresAt; this covers the moment between.
	if !st.ExpiresAt.IsZero() && !time.Now().Before(st.ExpiresAt) {
		return nil, "", fmt.Errorf("%w: %q", mcp.ErrTaskNotFound, id)
	}
	return st, rev, nil
}

// Get implements mcp.TaskStore.
func (t *TaskStore) Get(ctx context.Context, owner, id string) (*mcp.TaskState, error) {
	st, _, err := t.get(ctx, owner, id)
	return st, err
}

// Update implements mcp.TaskStore: it loads the task, calls fn and stores
// the result unless another replica changed the task in between, in which
// case it starts again (at most UpdateRetries times, then ErrConflict).
// The task keeps its expiry; fn may not change its id or owner.
func (t *TaskStore) Update(ctx context.Context, owner, id string, fn func(*mcp.TaskState) error) (*mcp.TaskState, error) {
	for range t.retries {
		st, rev, err := t.get(ctx, owner, id)
		if err != nil {
			return nil, err
		}
		if err := fn(st); err != nil {
			return nil, err
		}
		st.Task.TaskID, st.Owner = id, owner
		raw, err := json.Marshal(st)
		if err != nil {
			return nil, fmt.Errorf("redisstore: encoding task state: %w", err)
		}
		var rep []string
		err = t.call(ctx, "updating a task", func(ctx context.Context) error {
			v, err := taskPut.Run(ctx, t.rdb, t.taskKeys(owner, id)[:1], rev, raw).Result()
			if err != nil {
				return err
			}
			rep, err = replyStrings(v)
			return err
		})
		if err != nil {
			return nil, err
		}
		switch rep[0] {
		case "ok":
			return st, nil
		case "missing":
			return nil, fmt.Errorf("%w: %q", mcp.ErrTaskNotFound, id)
		}
	}
	return nil, fmt.Errorf("%w: task %q, %d tries", ErrConflict, id, t.retries)
}

// taskCursorPrefix starts the text of a List cursor, before base64.
const taskCursorPrefix = "mcpkit-redis-task:"

// List implements mcp.TaskStore: the owner's live tasks in creation
// order. It drops from the owner's index the tasks it finds expired.
func (t *TaskStore) List(ctx context.Context, owner, cursor string, limit int) ([]*mcp.TaskState, string, error) {
	after := "-inf"
	if cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil {
			return nil, "", mcp.ErrInvalidTaskCursor
		}
		s, ok := strings.CutPrefix(string(b), taskCursorPrefix)
		if !ok {
			return nil, "", mcp.ErrInvalidTaskCursor
		}
		if _, err := strconv.ParseUint(s, 10, 64); err != nil {
			return nil, "", mcp.ErrInvalidTaskCursor
		}
		after = "(" + s
	}
	if limit <= 0 {
		limit = 100
	}
	keys := t.taskKeys(owner, "")
	taskKey := keys[0] // + id
	var out []*mcp.TaskState
	var last string // creation number of the last task in out
	for {
		var zs []redis.Z
		var cmds []*redis.SliceCmd
		err := t.call(ctx, "listing tasks", func(ctx context.Context) error {
			var err error
			zs, err = t.rdb.ZRangeByScoreWithScores(ctx, keys[1], &redis.ZRangeBy{Min: after, Max: "+inf", Count: int64(limit + 1 - len(out))}).Result()
			if err != nil || len(zs) == 0 {
				return err
			}
			cmds = make([]*redis.SliceCmd, len(zs))
			_, err = t.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
				for i, z := range zs {
					id, _ := z.Member.(string)
					cmds[i] = p.HMGet(ctx, taskKey+id, "st", "own")
				}
				return nil
			})
			return err
		})
		if err != nil {
			return nil, "", err
		}
		if len(zs) == 0 {
			return out, "", nil
		}
		now := time.Now()
		var gone []any
		for i, z := range zs {
			seq := strconv.FormatFloat(z.Score, 'f', 0, 64)
			after = "(" + seq
			vals := cmds[i].Val()
			if len(vals) != 2 {
				continue
			}
			raw, _ := vals[0].(string)
			own, _ := vals[1].(string)
			if raw == "" {
				gone = append(gone, z.Member)
				continue
			}
			var st mcp.TaskState
			if own != owner || json.Unmarshal([]byte(raw), &st) != nil ||
				(!st.ExpiresAt.IsZero() && !now.Before(st.ExpiresAt)) {
				continue
			}
			if len(out) == limit {
				if err := t.forget(ctx, keys[1], gone); err != nil {
					return nil, "", err
				}
				return out, base64.RawURLEncoding.EncodeToString([]byte(taskCursorPrefix + last)), nil
			}
			out = append(out, &st)
			last = seq
		}
		if err := t.forget(ctx, keys[1], gone); err != nil {
			return nil, "", err
		}
	}
}

// forget drops expired task ids from an owner's index.
func (t *TaskStore) forget(ctx context.Context, index string, ids []any) error {
	if len(ids) == 0 {
		return nil
	}
	return t.call(ctx, "listing tasks", func(ctx context.Context) error {
		return t.rdb.ZRem(ctx, index, ids...).Err()
	})
}

// Delete implements mcp.TaskStore.
func (t *TaskStore) Delete(ctx context.Context, owner, id string) error {
	if _, _, err := t.get(ctx, owner, id); err != nil {
		return err
	}
	keys := t.taskKeys(owner, id)
	var n int64
	err := t.call(ctx, "deleting a task", func(ctx context.Context) error {
		var err error
		n, err = taskDelete.Run(ctx, t.rdb, keys, id).Int64()
		return err
	})
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("%w: %q", mcp.ErrTaskNotFound, id)
	}
	return nil
}
