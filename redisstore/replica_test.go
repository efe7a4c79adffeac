package redisstore_test

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/replicatest"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/redisstore"
	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

// Two mcphttp Handlers ("replicas"), each with its own Redis client and
// SessionStore on one Redis, serve each other's sessions: the scenario of
// package replicatest. On a single server the clients go through a proxy
// that the scenario cuts to take Redis down for real; on the Cluster the
// scenario fails the store's calls instead.
func TestReplicasOnRedis(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	t.Run("redis", func(t *testing.T) {
		addr := redisAddr(t)
		replicatest.Run(t, func(t *testing.T, maxSessions int) replicatest.Store {
			p := newCutProxy(t, addr)
			s := replicaStores(t, p.client(t), p.client(t), maxSessions)
			s.Down = func(t *testing.T, down bool) { p.setDown(down) }
			return s
		})
	})
	t.Run("redis-cluster", func(t *testing.T) {
		clusterAddrs(t)
		replicatest.Run(t, func(t *testing.T, maxSessions int) replicatest.Store {
			a, b := newClusterClient(t), newClusterClient(t)
			t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
			return replicaStores(t, a, b, maxSessions)
		})
	})
}

// The per-principal quota across two replicas on Redis (one node and the
// Cluster): the scenario of package replicatest. The store says when
// alice's oldest place ends: two IdleTimeouts (30 min) ahead, so
// Retry-After is its bound, 60.
func TestReplicasQuotaOnRedis(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	forBackends(t, func(t *testing.T, rdb redis.UniversalClient) {
		replicatest.RunQuotas(t, func(t *testing.T, maxPerOwner int) replicatest.Store {
			opts := redisstore.SessionOptions{Prefix: testPrefix(t), MaxSessionsPerOwner: maxPerOwner}
			a, err := redisstore.NewSessionStore(rdb, &opts)
			if err != nil {
				t.Fatal(err)
			}
			b, err := redisstore.NewSessionStore(rdb, &opts)
			if err != nil {
				t.Fatal(err)
			}
			return replicatest.Store{Store: a, StoreB: b, Count: func(t *testing.T) int {
				n, err := a.Count(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				return int(n)
			}}
		}, "60")
	})
}

// replicaStores makes the two replicas' SessionStores on one Redis and
// Prefix, and a third client's view for the scenario's checks.
func replicaStores(t *testing.T, rdbA, rdbB redis.UniversalClient, maxSessions int) replicatest.Store {
	opts := redisstore.SessionOptions{Prefix: testPrefix(t), MaxSessions: maxSessions, Timeout: 500 * time.Millisecond}
	a, err := redisstore.NewSessionStore(rdbA, &opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := redisstore.NewSessionStore(rdbB, &opts)
	if err != nil {
		t.Fatal(err)
	}
	return replicatest.Store{
		Store:  a,
		StoreB: b,
		Expire: func(t *testing.T, id string) {
			ctx := context.Background()
			// Redis's clock ends it: the key's TTL, shortened.
			rdbA.PExpire(ctx, a.SessionKey(id), time.Millisecond)
			waitFor(t, func() bool {
				_, err := a.Load(ctx, "", id)
				return errors.Is(err, mcp.ErrSessionNotFound)
			})
		},
		Count: func(t *testing.T) int {
			n, err := a.Count(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			return int(n)
		},
	}
}

// cutProxy forwards TCP connections to a Redis; setDown(true) closes them
// all and refuses new ones, as a Redis that went away does.
type cutProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(p.close)
	return p
}

func (p *cutProxy) addr() string { return p.ln.Addr().String() }

// client connects to Redis through the proxy, with no retries (so that a
// cut fails a call at once), closed when the test ends.
func (p *cutProxy) client(t *testing.T) redis.UniversalClient {
	rdb := redis.NewClient(&redis.Options{Addr: p.addr(), DisableIdentity: true, ContextTimeoutEnabled: true, MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

func (p *cutProxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.down {
			p.mu.Unlock()
			c.Close()
			continue
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns[c], p.conns[up] = struct{}{}, struct{}{}
		p.mu.Unlock()
		p.wg.Add(2)
		go p.pipe(c, up)
		go p.pipe(up, c)
	}
}

func (p *cutProxy) pipe(dst, src net.Conn) {
	defer p.wg.Done()
	_, _ = io.Copy(dst, src)
	dst.Close()
	src.Close()
	p.mu.Lock()
	delete(p.conns, dst)
	delete(p.conns, src)
	p.mu.Unlock()
}

func (p *cutProxy) setDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
	if down {
		for c := range p.conns {
			c.Close()
		}
	}
}

func (p *cutProxy) close() {
	p.ln.Close()
	p.setDown(true)
	p.wg.Wait()
}
