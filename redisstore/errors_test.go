package redisstore_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/redisstore"
	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

// fakeRedis is a RESP server on 127.0.0.1 that fails in one way, for
// the error paths a real server will not take on demand. It refuses the
// handshake commands (HELLO, CLIENT), so go-redis speaks RESP2, and
// answers every other command as mode says: "hang" never answers (Redis
// stalled mid-call), "drop" closes the connection (Redis died mid-call),
// anything else is sent as an error reply ("-OOM ...").
type fakeRedis struct {
	ln    net.Listener
	mode  string
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns []net.Conn
}

func newFakeRedis(t *testing.T, mode string) *fakeRedis {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeRedis{ln: ln, mode: mode}
	f.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			f.mu.Lock()
			f.conns = append(f.conns, c)
			f.mu.Unlock()
			f.wg.Go(func() { f.serve(c) })
		}
	})
	return f
}

func (f *fakeRedis) addr() string { return f.ln.Addr().String() }

// close stops the server and waits for its goroutines.
func (f *fakeRedis) close() {
	_ = f.ln.Close()
	f.mu.Lock()
	for _, c := range f.conns {
		_ = c.Close()
	}
	f.mu.Unlock()
	f.wg.Wait()
}

func (f *fakeRedis) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	for {
		cmd, err := readCommand(r)
		if err != nil {
			return
		}
		var reply string
		switch {
		case cmd == "HELLO" || cmd == "CLIENT":
			reply = "-ERR unknown command\r\n"
		case f.mode == "hang":
			continue
		case f.mode == "drop":
			return
		default:
			reply = "-" + f.mode + "\r\n"
		}
		if _, err := io.WriteString(c, reply); err != nil {
			return
		}
	}
}

// readCommand reads one RESP array of bulk strings and returns its first
// element, upper-cased.
func readCommand(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "*")))
	if err != nil {
		return "", err
	}
	var first string
	for i := range n {
		hdr, err := r.ReadString('\n')
		if err != nil {
			return "", err
		}
		size, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(hdr, "$")))
		if err != nil {
			return "", err
		}
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return "", err
		}
		if i == 0 {
			first = strings.ToUpper(string(buf[:size]))
		}
	}
	return first, nil
}

// storeCalls is every call of the three stores, to run against a Redis
// that fails.
func storeCalls(t *testing.T, rdb redis.UniversalClient, timeout time.Duration) map[string]func(ctx context.Context) error {
	ss, err := redisstore.NewSessionStore(rdb, &redisstore.SessionOptions{Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	es, err := redisstore.NewEventStore(rdb, &redisstore.EventOptions{Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := redisstore.NewTaskStore(rdb, &redisstore.TaskOptions{Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	noop := func(*mcp.SessionState) error { return nil }
	return map[string]func(ctx context.Context) error{
		"SessionStore.Create": func(ctx context.Context) error { return ss.Create(ctx, sessionState("s1", "a")) },
		"SessionStore.Load":   func(ctx context.Context) error { _, err := ss.Load(ctx, "a", "s1"); return err },
		"SessionStore.Touch":  func(ctx context.Context) error { _, err := ss.Touch(ctx, "a", "s1"); return err },
		"SessionStore.Update": func(ctx context.Context) error { _, err := ss.Update(ctx, "a", "s1", noop); return err },
		"SessionStore.Delete": func(ctx context.Context) error { return ss.Delete(ctx, "a", "s1") },
		"SessionStore.Count":  func(ctx context.Context) error { _, err := ss.Count(ctx); return err },
		"EventStore.Append":   func(ctx context.Context) error { return es.Append(ctx, "s1", "A", "e1", []byte("x")) },
		"EventStore.Replay": func(ctx context.Context) error {
			return es.Replay(ctx, "s1", "A", "e0", func(string, []byte) error { return nil })
		},
		"EventStore.DeleteSession": func(ctx context.Context) error { return es.DeleteSession(ctx, "s1") },
		"EventStore.SessionSize":   func(ctx context.Context) error { _, err := es.SessionSize(ctx, "s1"); return err },
		"EventStore.Watch": func(ctx context.Context) error {
			wctx, cancel := context.WithCancel(ctx)
			defer cancel()
			ch, err := es.Watch(wctx, "s1")
			if err == nil {
				cancel()
				for range ch {
				}
			}
			return err
		},
		"TaskStore.Create": func(ctx context.Context) error { return ts.Create(ctx, taskState("t1", "a", time.Hour)) },
		"TaskStore.Get":    func(ctx context.Context) error { _, err := ts.Get(ctx, "a", "t1"); return err },
		"TaskStore.Update": func(ctx context.Context) error {
			_, err := ts.Update(ctx, "a", "t1", func(*mcp.TaskState) error { return nil })
			return err
		},
		"TaskStore.List":   func(ctx context.Context) error { _, _, err := ts.List(ctx, "a", "", 10); return err },
		"TaskStore.Delete": func(ctx context.Context) error { return ts.Delete(ctx, "a", "t1") },
	}
}

func TestUnavailable(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, mode := range []string{"refused", "hang", "drop", "OOM command not allowed when used memory > 'maxmemory'.", "LOADING Redis is loading the dataset in memory", "READONLY You can't write against a read only replica."} {
		t.Run(strings.Fields(mode)[0], func(t *testing.T) {
			var addr string
			if mode == "refused" {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				addr = ln.Addr().String()
				ln.Close()
			} else {
				f := newFakeRedis(t, mode)
				defer f.close()
				addr = f.addr()
			}
			rdb := redis.NewClient(&redis.Options{Addr: addr, DisableIdentity: true, MaxRetries: -1, ContextTimeoutEnabled: true})
			defer rdb.Close()
			for name, call := range storeCalls(t, rdb, 200*time.Millisecond) {
				err := call(context.Background())
				if !errors.Is(err, redisstore.ErrUnavailable) || !errors.Is(err, mcp.ErrStoreUnavailable) {
					t.Errorf("%s = %v, want ErrUnavailable, matching mcp.ErrStoreUnavailable", name, err)
				}
				if errors.Is(err, mcp.ErrSessionNotFound) || errors.Is(err, mcp.ErrTaskNotFound) {
					t.Errorf("%s = %v: unavailable must never read as not found", name, err)
				}
			}
		})
	}
}

func TestUnavailableHangRespectsTimeout(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFakeRedis(t, "hang")
	defer f.close()
	rdb := redis.NewClient(&redis.Options{Addr: f.addr(), DisableIdentity: true, MaxRetries: -1, ContextTimeoutEnabled: true})
	defer rdb.Close()
	ss, err := redisstore.NewSessionStore(rdb, &redisstore.SessionOptions{Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// The caller's context has no deadline: only the store's Timeout ends
	// the call.
	_, err = ss.Load(context.Background(), "a", "s1")
	if !errors.Is(err, redisstore.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Load = %v, want ErrUnavailable wrapping context.DeadlineExceeded", err)
	}
}

func TestCallerCancelIsNotUnavailable(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFakeRedis(t, "hang")
	defer f.close()
	rdb := redis.NewClient(&redis.Options{Addr: f.addr(), DisableIdentity: true, MaxRetries: -1, ContextTimeoutEnabled: true})
	defer rdb.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, call := range storeCalls(t, rdb, time.Minute) {
		err := call(ctx)
		if !errors.Is(err, context.Canceled) || errors.Is(err, redisstore.ErrUnavailable) {
			t.Errorf("%s = %v, want context.Canceled, not ErrUnavailable", name, err)
		}
	}
}

func TestOtherErrorRepliesAreNotUnavailable(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFakeRedis(t, "ERR something is wrong with the script")
	defer f.close()
	rdb := redis.NewClient(&redis.Options{Addr: f.addr(), DisableIdentity: true, MaxRetries: -1, ContextTimeoutEnabled: true})
	defer rdb.Close()
	ss, err := redisstore.NewSessionStore(rdb, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ss.Load(context.Background(), "a", "s1")
	if err == nil || errors.Is(err, redisstore.ErrUnavailable) || errors.Is(err, mcp.ErrSessionNotFound) {
		t.Fatalf("Load = %v, want a plain error", err)
	}
}

func TestConstructorErrors(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	if _, err := redisstore.NewSessionStore(nil, nil); !errors.Is(err, redisstore.ErrNilClient) {
		t.Errorf("NewSessionStore(nil) = %v", err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", ContextTimeoutEnabled: true})
	defer rdb.Close()
	plain := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer plain.Close()
	if _, err := redisstore.NewEventStore(plain, nil); !errors.Is(err, redisstore.ErrNoContextTimeout) {
		t.Errorf("a client without ContextTimeoutEnabled: %v, want ErrNoContextTimeout", err)
	}
	for _, p := range []string{"a{", "}b"} {
		_, err1 := redisstore.NewSessionStore(rdb, &redisstore.SessionOptions{Prefix: p})
		_, err2 := redisstore.NewEventStore(rdb, &redisstore.EventOptions{Prefix: p})
		_, err3 := redisstore.NewTaskStore(rdb, &redisstore.TaskOptions{Prefix: p})
		for _, err := range []error{err1, err2, err3} {
			if !errors.Is(err, redisstore.ErrBadPrefix) {
				t.Errorf("prefix %q: %v, want ErrBadPrefix", p, err)
			}
		}
	}
}
