package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/redistest"
	"go.uber.org/goleak"
)

// redisAddr is the address of the redis-server the tests run against:
// MCPKIT_REDIS_ADDR when set (scripts/redis.sh, and so scripts/test.sh,
// sets it), else a private redis-server this test binary starts on first
// use and TestMain stops. The tests that need it skip only with -short,
// as redisstore's do.
func redisAddr(t *testing.T) string {
	t.Helper()
	return redistest.Addr(t)
}

// startServe runs `mcpkit serve` with args in-process until ctx ends and
// returns the URL it serves, from its first log line, and a channel with
// its exit status.
func startServe(t *testing.T, ctx context.Context, args ...string) (string, *lineWriter, <-chan int) {
	t.Helper()
	logs := &lineWriter{lines: make(chan string, 256)}
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, append([]string{"serve"}, args...), strings.NewReader(""), &lineWriter{lines: make(chan string, 1)}, logs)
	}()
	urlPattern := regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+/mcp)`)
	select {
	case line := <-logs.lines:
		m := urlPattern.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("first log line %q names no url", line)
		}
		if !strings.Contains(line, "redis=redis://") && !strings.Contains(line, `redis="redis-cluster 127.0.0.1:`) {
			t.Errorf("first log line %q does not name the Redis", line)
		}
		return m[1], logs, code
	case c := <-code:
		t.Fatalf("serve exited %d: %s", c, logs.rest())
	case <-time.After(30 * time.Second):
		t.Fatal("serve --http logged nothing")
	}
	return "", nil, nil
}

// post sends one JSON-RPC message to url as a session-era client and
// returns the status, the session id header and the JSON-RPC message of
// the response (from a JSON body or the first SSE event), if any.
func post(t *testing.T, c *http.Client, url, session, body string) (int, string, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var msg map[string]any
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && data != "" {
				if err := json.Unmarshal([]byte(data), &msg); err != nil {
					t.Fatalf("event %q: %v", data, err)
				}
				break
			}
		}
	} else if resp.Header.Get("Content-Type") == "application/json" {
		if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), msg
}

// redisClusterAddrs returns the seed addresses of the test Redis Cluster,
// comma-separated: MCPKIT_REDIS_CLUSTER_ADDRS when set (scripts/redis.sh
// --cluster and scripts/test.sh set it), else those of a private 3-node
// Cluster this test binary starts on first use; skipped with -short, as
// redisAddr is.
func redisClusterAddrs(t *testing.T) string {
	t.Helper()
	return strings.Join(redistest.ClusterAddrs(t), ",")
}

// Two replicas of `mcpkit serve --http --redis` (or --redis-cluster) on one
// Redis serve the same session: initialized on the first, called and
// ended on the second, gone on the first.
func TestServeRedisReplicas(t *testing.T) {
	t.Run("redis", func(t *testing.T) {
		testServeReplicas(t, "--redis", "redis://"+redisAddr(t)+"/0")
	})
	t.Run("redis-cluster", func(t *testing.T) {
		testServeReplicas(t, "--redis-cluster", redisClusterAddrs(t))
	})
}

func testServeReplicas(t *testing.T, flag, value string) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var b [6]byte
	_, _ = rand.Read(b[:])
	prefix := "mcpkit-test:cli:" + hex.EncodeToString(b[:]) + ":"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	args := []string{"--http", "127.0.0.1:0", flag, value, "--redis-prefix", prefix}
	urlA, logsA, codeA := startServe(t, ctx, args...)
	urlB, logsB, codeB := startServe(t, ctx, args...)

	c := &http.Client{Transport: &http.Transport{}}
	defer c.CloseIdleConnections()
	status, sid, msg := post(t, c, urlA, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if status != http.StatusOK || sid == "" || msg["result"] == nil {
		t.Fatalf("initialize on A: %d, session %q, %v", status, sid, msg)
	}
	if status, _, _ := post(t, c, urlB, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != http.StatusAccepted {
		t.Fatalf("notifications/initialized on B: %d; want 202", status)
	}
	status, _, msg = post(t, c, urlB, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`)
	want := `{"content":[{"text":"hi","type":"text"}]}`
	if got, _ := json.Marshal(msg["result"]); status != http.StatusOK || string(got) != want {
		t.Fatalf("tools/call on B: %d, %v; want 200 with result %s", status, msg, want)
	}
	req, _ := http.NewRequest(http.MethodDelete, urlB, nil)
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE on B: %d", resp.StatusCode)
	}
	if status, _, _ := post(t, c, urlA, sid, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); status != http.StatusNotFound {
		t.Fatalf("ping on A after DELETE on B: %d; want 404", status)
	}

	cancel()
	for i, code := range []<-chan int{codeA, codeB} {
		select {
		case c := <-code:
			if c != 0 {
				t.Errorf("replica %d: exit %d, logs %q", i, c, []*lineWriter{logsA, logsB}[i].rest())
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("replica %d did not stop when its context ended", i)
		}
	}
}

// The Redis flags refuse what they cannot do, as usage errors, and an
// unreachable Redis ends serve at once with exit status 1.
func TestServeRedisErrors(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	// A port nothing listens on.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--redis", "redis://127.0.0.1:6379/0"}, exitUsage,
			"serve: --redis and --redis-cluster need --http: over stdio the server has one client and nothing to share"},
		{[]string{"--http", "127.0.0.1:0", "--stateless", "--redis", "redis://127.0.0.1:6379/0"}, exitUsage,
			"serve: --redis and --redis-cluster do not go with --stateless: a stateless server keeps no sessions to share"},
		{[]string{"--http", "127.0.0.1:0", "--redis", "redis://127.0.0.1:6379/0", "--redis-cluster", "127.0.0.1:7000"}, exitUsage,
			"serve: --redis and --redis-cluster: give one (a Redis Cluster is reached through its seed addresses alone)"},
		{[]string{"--http", "127.0.0.1:0", "--redis", "redis://127.0.0.1:6379/0", "--idle-timeout", "-1s"}, exitUsage,
			"serve: --idle-timeout -1s: with --redis sessions expire by Redis's clock, so it must be positive"},
		{[]string{"--http", "127.0.0.1:0", "--redis", "redis://127.0.0.1:6379/0", "--redis-prefix", "a{b}:"}, exitUsage,
			`serve: --redis-prefix "a{b}:": it must not contain '{' or '}' (the keys' hash tags)`},
		{[]string{"--http", "127.0.0.1:0", "--redis", "redis://127.0.0.1:6379/0", "--redis-timeout", "0s"}, exitUsage,
			"serve: --redis-timeout 0s: it must be positive"},
		{[]string{"--http", "127.0.0.1:0", "--redis", "http://127.0.0.1:6379/0"}, exitUsage,
			`serve: --redis "http://127.0.0.1:6379/0": redis: invalid URL scheme: http`},
		{[]string{"--http", "127.0.0.1:0", "--redis-cluster", " , "}, exitUsage,
			`serve: --redis-cluster " , " names no address (want host:port,host:port)`},
		{[]string{"--http", "127.0.0.1:0", "--redis", "redis://" + closed + "/0", "--redis-timeout", "1s"}, 1,
			// go-redis reports the refused dials, or its deadline.
			"mcpkit: serve: Redis at redis://" + closed + "/0 did not answer PING within --redis-timeout 1s: "},
	} {
		code, out, errOut := runCLI(t, "", append([]string{"serve", "--log-level", "warn"}, tc.args...)...)
		if code != tc.code || out != "" || !strings.Contains(errOut, tc.msg) {
			t.Errorf("serve %q: exit %d, stdout %q, stderr %q; want %d and %q", tc.args, code, out, errOut, tc.code, tc.msg)
		}
	}
}

// `mcpkit help serve` shows the Redis flags and their defaults.
func TestServeRedisHelp(t *testing.T) {
	code, out, errOut := runCLI(t, "", "help", "serve")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	// The text is wrapped: compare its words.
	out = strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"--redis URL", "--redis-cluster ADDRS", "--redis-prefix PREFIX", "Replicas on Redis, with --http:", "(default mcpkit:)", "--redis-timeout", "(default 2s)", "HTTP+SSE"} {
		if !strings.Contains(out, want) {
			t.Errorf("help serve lacks %q:\n%s", want, out)
		}
	}
}
