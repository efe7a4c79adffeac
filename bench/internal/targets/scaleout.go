package targets

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpkit/mcpkit/internal/rrproxy"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
	"github.com/mcpkit/mcpkit/redisstore"
	"github.com/redis/go-redis/v9"
)

// The scale-out targets of issue 14: mcpkit replicas behind a round-robin
// proxy, in this one process. Each replica has its own mcp.Server,
// mcphttp.Handler, http.Server on its own port and Redis client, as
// separate processes would; they share nothing but Redis.

// Replicas is the number of replicas of the mcpkit-redis target.
const Replicas = 3

// RedisConfig is what the mcpkit-redis target connects to; the serve
// command sets it from its flags before Serve.
var RedisConfig struct {
	Addr    string // host:port of the redis-server, or the Cluster's seeds, comma-separated
	Cluster bool   // Addr names a Redis Cluster
	Prefix  string // every key and channel of this process starts with it
	Trace   bool   // count round trips by command and code path (costs CPU)
	// JSONReplyWithin is the replicas' mcphttp.Options.JSONReplyWithin
	// (SSE replies only).
	JSONReplyWithin time.Duration
}

func init() {
	register(&Target{Name: "mcpkit-redis", HasJSONMode: true, OptIn: true, ScaleOut: true, HTTP: redisReplicas})
	register(&Target{Name: "mcpkit-proxy", HasJSONMode: true, OptIn: true, ScaleOut: true, HTTP: proxiedOne})
}

// redisReplicas is the mcpkit-redis target: Replicas mcpkit servers whose
// sessions, events, tasks and bus live in one Redis
// (redisstore.NewSessionStore, NewEventStore, NewTaskStore, NewBus),
// behind the round-robin proxy, which is the handler returned.
func redisReplicas(mode HTTPMode) (http.Handler, error) {
	if RedisConfig.Addr == "" {
		return nil, fmt.Errorf("mcpkit-redis needs -redis ADDR")
	}
	prefix := RedisConfig.Prefix
	var backends []*url.URL
	for i := range Replicas {
		var rdb redis.UniversalClient
		if RedisConfig.Cluster {
			rdb = redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(RedisConfig.Addr, ","), DisableIdentity: true, ContextTimeoutEnabled: true})
		} else {
			rdb = redis.NewClient(&redis.Options{Addr: RedisConfig.Addr, DisableIdentity: true, ContextTimeoutEnabled: true})
		}
		rdb.AddHook(redisCounter)
		ss, err := redisstore.NewSessionStore(rdb, &redisstore.SessionOptions{Prefix: prefix})
		if err != nil {
			return nil, err
		}
		es, err := redisstore.NewEventStore(rdb, &redisstore.EventOptions{Prefix: prefix})
		if err != nil {
			return nil, err
		}
		ts, err := redisstore.NewTaskStore(rdb, &redisstore.TaskOptions{Prefix: prefix})
		if err != nil {
			return nil, err
		}
		bus, err := redisstore.NewBus(rdb, &redisstore.BusOptions{Prefix: prefix})
		if err != nil {
			return nil, err
		}
		s, err := newMCPKitServerWith(&mcp.ServerOptions{PageSize: 1000, SessionStore: ss, Bus: bus, Tasks: mcp.TaskOptions{Store: ts}})
		if err != nil {
			return nil, err
		}
		u, err := serveReplica(mcphttp.NewHandler(s, &mcphttp.Options{JSONResponse: mode != SSE, MaxSessions: -1, EventStore: es, JSONReplyWithin: RedisConfig.JSONReplyWithin}))
		if err != nil {
			return nil, fmt.Errorf("replica %d: %w", i, err)
		}
		backends = append(backends, u)
	}
	return newProxy(backends...)
}

// proxiedOne is the mcpkit-proxy target: the mcpkit target's server, in
// memory, behind the same proxy: what the proxy alone costs.
func proxiedOne(mode HTTPMode) (http.Handler, error) {
	h, err := mcpkitTarget.HTTP(mode)
	if err != nil {
		return nil, err
	}
	u, err := serveReplica(h)
	if err != nil {
		return nil, err
	}
	return newProxy(u)
}

// serveReplica serves h at /mcp on a port of its own and returns the
// base URL. It serves until the process ends.
func serveReplica(h http.Handler) (*url.URL, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	go (&http.Server{Handler: mux}).Serve(ln)
	return &url.URL{Scheme: "http", Host: ln.Addr().String()}, nil
}

// RedisCalls is what the replicas asked of Redis, as the debug endpoint
// reports it.
type RedisCalls struct {
	// RoundTrips counts calls that waited for Redis: a command or a
	// pipeline (one each), from every replica's client, pub/sub aside.
	RoundTrips int64 `json:"roundTrips"`
	// ByPath counts round trips by "COMMAND store-method <- caller" when
	// RedisConfig.Trace is on.
	ByPath map[string]int64 `json:"byPath,omitempty"`
}

type counterHook struct {
	trips  atomic.Int64
	mu     sync.Mutex
	byPath map[string]int64
}

var redisCounter = &counterHook{byPath: map[string]int64{}}

// RedisCallsNow returns the counters so far; nil when this process
// serves no Redis target.
func RedisCallsNow() *RedisCalls {
	if RedisConfig.Addr == "" {
		return nil
	}
	c := &RedisCalls{RoundTrips: redisCounter.trips.Load()}
	redisCounter.mu.Lock()
	defer redisCounter.mu.Unlock()
	if len(redisCounter.byPath) > 0 {
		c.ByPath = make(map[string]int64, len(redisCounter.byPath))
		for k, v := range redisCounter.byPath {
			c.ByPath[k] = v
		}
	}
	return c
}

func (h *counterHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *counterHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.trips.Add(1)
		if RedisConfig.Trace {
			h.trace(cmd.Name())
		}
		return next(ctx, cmd)
	}
}

func (h *counterHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.trips.Add(1)
		if RedisConfig.Trace {
			names := make([]string, len(cmds))
			for i, c := range cmds {
				names[i] = c.Name()
			}
			h.trace("pipeline(" + strings.Join(names, ",") + ")")
		}
		return next(ctx, cmds)
	}
}

// trace counts one round trip under the redisstore method that made it
// and the first mcphttp or mcp function above that.
func (h *counterHook) trace(name string) {
	var pcs [48]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	var store, caller string
	for {
		f, more := frames.Next()
		fn := f.Function
		switch {
		case store == "" && strings.HasPrefix(fn, "github.com/mcpkit/mcpkit/redisstore."):
			store = strings.TrimPrefix(fn, "github.com/mcpkit/mcpkit/")
		case store != "" && !strings.HasPrefix(fn, "github.com/mcpkit/mcpkit/redisstore.") &&
			strings.HasPrefix(fn, "github.com/mcpkit/mcpkit/"):
			caller = strings.TrimPrefix(fn, "github.com/mcpkit/mcpkit/")
		}
		if caller != "" || !more {
			break
		}
	}
	if store == "" {
		store = "?"
	}
	if caller == "" {
		caller = "(own goroutine)"
	}
	key := strings.ToUpper(name) + " " + store + " <- " + caller
	h.mu.Lock()
	h.byPath[key]++
	h.mu.Unlock()
}

// newProxy is the round-robin proxy (the one the replica test suites and
// the conformance runs use) in front of backends.
func newProxy(backends ...*url.URL) (http.Handler, error) {
	urls := make([]string, len(backends))
	for i, u := range backends {
		urls[i] = u.String()
	}
	return rrproxy.New(urls...)
}
