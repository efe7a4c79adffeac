package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
	"github.com/mcpkit/mcpkit/redisstore"
	"github.com/redis/go-redis/v9"
)

// defaultRedisTimeout bounds each call serve --redis makes to Redis,
// the PING at start included (redisstore.DefaultTimeout).
const defaultRedisTimeout = redisstore.DefaultTimeout

// redisFlags are serve's --redis, --redis-cluster, --redis-prefix and
// --redis-timeout: with one of the first two, the server's state lives in
// Redis, so that replicas of `mcpkit serve --http` behind any load
// balancer serve every session
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).
type redisFlags struct {
	url     string
	cluster string
	prefix  string
	timeout time.Duration
}

// on reports whether a Redis was asked for.
func (f *redisFlags) on() bool { return f.url != "" || f.cluster != "" }

// check refuses the flag combinations serve cannot honour, as usage
// errors.
func (f *redisFlags) check(sf *serveFlags) error {
	if !f.on() {
		return nil
	}
	switch {
	case f.url != "" && f.cluster != "":
		return usagef("serve: --redis and --redis-cluster: give one (a Redis Cluster is reached through its seed addresses alone)")
	case sf.httpAddr == "":
		return usagef("serve: --redis and --redis-cluster need --http: over stdio the server has one client and nothing to share")
	case sf.stateless:
		return usagef("serve: --redis and --redis-cluster do not go with --stateless: a stateless server keeps no sessions to share")
	case sf.idleTimeout <= 0:
		return usagef("serve: --idle-timeout %v: with --redis sessions expire by Redis's clock, so it must be positive", sf.idleTimeout)
	case f.timeout <= 0:
		return usagef("serve: --redis-timeout %v: it must be positive", f.timeout)
	case strings.ContainsAny(f.prefix, "{}"):
		return usagef("serve: --redis-prefix %q: it must not contain '{' or '}' (the keys' hash tags)", f.prefix)
	}
	return nil
}

// redisBackend is what serve --redis shares through one Redis client:
// the session store and the Bus (given to the mcp.Server), the event
// store (given to the mcphttp.Handler) and the task store.
type redisBackend struct {
	rdb      redis.UniversalClient
	name     string // where Redis is, without credentials, for the logs
	sessions *redisstore.SessionStore
	events   *redisstore.EventStore
	tasks    *redisstore.TaskStore
	bus      *redisstore.Bus
	log      *redisLogger
}

// dialRedis connects to the Redis of f and PINGs it within f.timeout; an
// unreachable Redis is an error, so that serve exits at once rather than
// answer every request with 503. sf supplies the session cap and the idle
// timeout, which become the store's (cluster-wide); logger receives a
// panic of a Bus subscriber.
func dialRedis(ctx context.Context, f *redisFlags, sf *serveFlags, logger *slog.Logger) (*redisBackend, error) {
	var rdb redis.UniversalClient
	var name string
	// go-redis's own log lines (a pool that cannot dial, say) go through
	// the server's logger, not straight to stderr.
	rl := &redisLogger{logger: logger}
	redis.SetLogger(rl)
	ok := false
	defer func() {
		if !ok {
			rl.stop()
		}
	}()
	if f.url != "" {
		raw := f.url
		if !strings.Contains(raw, "://") {
			// HOST:PORT, as scripts/redis.sh prints it.
			raw = "redis://" + raw
		}
		o, err := redis.ParseURL(raw)
		if err != nil {
			return nil, usagef("serve: --redis %q: %v", f.url, err)
		}
		// The stores bound every call with their context's deadline,
		// which go-redis honours only when told to.
		o.ContextTimeoutEnabled = true
		o.DisableIdentity = true
		rdb = redis.NewClient(o)
		name = raw
		if u, err := url.Parse(raw); err == nil {
			name = u.Redacted() // the password, if any, is not logged
		}
	} else {
		addrs := splitList(f.cluster)
		if len(addrs) == 0 {
			return nil, usagef("serve: --redis-cluster %q names no address (want host:port,host:port)", f.cluster)
		}
		rdb = redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, ContextTimeoutEnabled: true, DisableIdentity: true})
		name = "redis-cluster " + strings.Join(addrs, ",")
	}
	pctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	if err := rdb.Ping(pctx).Err(); err != nil {
		rdb.Close()
		return nil, fmt.Errorf("serve: Redis at %s did not answer PING within --redis-timeout %v: %w", name, f.timeout, err)
	}
	b := &redisBackend{rdb: rdb, name: name, log: rl}
	var err error
	b.sessions, err = redisstore.NewSessionStore(rdb, &redisstore.SessionOptions{
		Prefix: f.prefix, Timeout: f.timeout, IdleTimeout: sf.idleTimeout, MaxSessions: sf.maxSessions,
		MaxSessionsPerOwner: sf.maxSessionsPerPrincipal,
	})
	if err == nil {
		b.events, err = redisstore.NewEventStore(rdb, &redisstore.EventOptions{Prefix: f.prefix, Timeout: f.timeout, TTL: sf.idleTimeout})
	}
	if err == nil {
		b.tasks, err = redisstore.NewTaskStore(rdb, &redisstore.TaskOptions{Prefix: f.prefix, Timeout: f.timeout})
	}
	if err == nil {
		b.bus, err = redisstore.NewBus(rdb, &redisstore.BusOptions{Prefix: f.prefix, Timeout: f.timeout, Logger: logger})
	}
	if err != nil {
		rdb.Close()
		if errors.Is(err, redisstore.ErrBadPrefix) {
			return nil, usagef("serve: --redis-prefix %q: %v", f.prefix, err)
		}
		return nil, fmt.Errorf("serve: %w", err)
	}
	ok = true
	return b, nil
}

// server sets the server's shared stores.
func (b *redisBackend) server(o *mcp.ServerOptions) {
	o.SessionStore = b.sessions
	o.Bus = b.bus
	o.Tasks.Store = b.tasks
}

// redisJSONReplyWithin is the handler's JSONReplyWithin with Redis: a
// quick reply is one JSON body, so that a tools/call costs Redis one
// round trip (the session's touch) instead of three to store its stream;
// anything doing real work still gets a resumable stream within 5ms.
const redisJSONReplyWithin = 5 * time.Millisecond

// handler sets the handler's event store, and answers quick requests in
// JSON.
func (b *redisBackend) handler(o *mcphttp.Options) {
	o.EventStore = b.events
	o.JSONReplyWithin = redisJSONReplyWithin
}

// close closes the client, once the server is done with it.
func (b *redisBackend) close() error {
	err := b.rdb.Close()
	b.log.stop()
	return err
}

// redisLogger passes go-redis's log lines to the server's logger, as
// warnings, until stop: go-redis's dialling goroutines may outlive the
// client's Close, and then log to no one.
type redisLogger struct {
	mu     sync.Mutex
	logger *slog.Logger
}

func (l *redisLogger) Printf(_ context.Context, format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.logger != nil {
		l.logger.Warn("mcpkit serve: " + strings.TrimSuffix(fmt.Sprintf(format, args...), "\n"))
	}
}

func (l *redisLogger) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.logger = nil
}
