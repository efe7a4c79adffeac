package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpkit/mcpkit/bench/internal/load"
	"github.com/mcpkit/mcpkit/bench/internal/targets"
	"github.com/redis/go-redis/v9"
)

// The scale-out scenarios of issue 14: mcpkit in memory (target mcpkit)
// beside three replicas sharing one redis-server behind a round-robin
// proxy (mcpkit-redis), and one in-memory server behind the same proxy
// (mcpkit-proxy), which tells the proxy's cost from Redis's.

func init() {
	add := func(sc *scenario) {
		scenarios = append(scenarios, sc)
		scenarioByID[sc.id] = sc
	}
	add(&scenario{id: "14r", title: "scale-out tools/call", applies: scaleOutApplies,
		run: func(h *harness, t *targets.Target) (measurement, error) { return h.runScaleOut(t, targets.SSE) }})
	add(&scenario{id: "14j", title: "scale-out JSON tools/call", applies: scaleOutApplies,
		run: func(h *harness, t *targets.Target) (measurement, error) { return h.runScaleOut(t, targets.JSON) }})
	add(&scenario{id: "14s", title: "scale-out 2026 tools/call", applies: scaleOutApplies,
		run: func(h *harness, t *targets.Target) (measurement, error) { return h.runScaleOut(t, targets.Stateless) }})
	redisOnly := func(t *targets.Target) bool { return t.Name == "mcpkit-redis" }
	add(&scenario{id: "14i", title: "scale-out idle sessions", redisIdle: true, once: true, applies: redisOnly,
		run: func(h *harness, t *targets.Target) (measurement, error) { return h.runRedisIdle(t, targets.SSE) }})
	add(&scenario{id: "14ij", title: "scale-out idle sessions JSON", redisIdle: true, once: true, applies: redisOnly,
		run: func(h *harness, t *targets.Target) (measurement, error) { return h.runRedisIdle(t, targets.JSON) }})
}

func scaleOutApplies(t *targets.Target) bool { return t.Name == "mcpkit" || t.ScaleOut }

// isScaleOut reports whether a scenario is one of 14x.
func isScaleOut(sc *scenario) bool { return strings.HasPrefix(sc.id, "14") }

// redisFigures are a scale-out run's Redis costs.
type redisFigures struct {
	tripsPerOp   float64            // round trips (commands and pipelines) the replicas made, per op
	cmdsPerOp    float64            // commands Redis executed per op, those inside scripts included
	cpuPerOp     float64            // µs of redis-server CPU per op
	byCommand    map[string]float64 // INFO commandstats calls per op, by command
	byPath       map[string]float64 // round trips per op by command and code path (-redis-trace)
	usedPerSess  float64            // idle: used_memory delta per session
	keysPerSess  float64            // idle: MEMORY USAGE of the prefix's keys, per session
	nKeysPerSess float64            // idle: keys per session
	byKind       map[string]float64 // idle: MEMORY USAGE per session by kind of key
}

// redisServer is the harness's redis-server (or MCPKIT_REDIS_ADDR's),
// or with -redis-cluster the Redis Cluster of MCPKIT_REDIS_CLUSTER_ADDRS.
type redisServer struct {
	addr    string // host:port, or the Cluster's seeds, comma-separated
	cluster bool
	cmd     *exec.Cmd // nil when not ours
	dir     string
	rdb     redis.UniversalClient
}

var prefixSeq atomic.Int64

// redis returns the Redis the scale-out targets use: MCPKIT_REDIS_ADDR
// when set, else a redis-server started now on a free 127.0.0.1 port,
// without persistence, pinned with the load generator, kept for the run.
func (h *harness) redis() (*redisServer, error) {
	if h.rs != nil {
		return h.rs, nil
	}
	rs := &redisServer{addr: os.Getenv("MCPKIT_REDIS_ADDR"), cluster: h.opts.redisCluster}
	switch {
	case rs.cluster:
		if rs.addr = os.Getenv("MCPKIT_REDIS_CLUSTER_ADDRS"); rs.addr == "" {
			return nil, errors.New("-redis-cluster needs MCPKIT_REDIS_CLUSTER_ADDRS (scripts/redis.sh --cluster sets it)")
		}
		rs.rdb = redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(rs.addr, ","), DisableIdentity: true, ContextTimeoutEnabled: true})
	case rs.addr == "":
		if err := rs.start(h.loadCPU); err != nil {
			return nil, err
		}
		fallthrough
	default:
		rs.rdb = redis.NewClient(&redis.Options{Addr: rs.addr, DisableIdentity: true, ContextTimeoutEnabled: true})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := rs.rdb.Ping(ctx).Err(); err != nil {
		rs.stop()
		return nil, fmt.Errorf("redis at %s: %w", rs.addr, err)
	}
	h.rs = rs
	return rs, nil
}

func (rs *redisServer) start(cpu string) error {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return errors.New("redis-server not found (apt-get install redis-server, or set MCPKIT_REDIS_ADDR)")
	}
	if rs.dir, err = os.MkdirTemp("", "mcpbench-redis-"); err != nil {
		return err
	}
	var last error
	for range 5 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		ln.Close()
		args := []string{"--bind", "127.0.0.1", "--port", port, "--protected-mode", "yes", "--save", "", "--appendonly", "no",
			"--maxmemory-policy", "noeviction", "--dir", rs.dir, "--logfile", filepath.Join(rs.dir, "redis.log")}
		if cpu != "" {
			rs.cmd = exec.Command("taskset", append([]string{"-c", cpu, bin}, args...)...)
		} else {
			rs.cmd = exec.Command(bin, args...)
		}
		// Killed with the harness, however it ends (taskset execs it, so
		// the pid is redis-server's).
		rs.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := rs.cmd.Start(); err != nil {
			return err
		}
		rs.addr = "127.0.0.1:" + port
		for range 50 {
			c, err := net.DialTimeout("tcp", rs.addr, 100*time.Millisecond)
			if err == nil {
				c.Close()
				return nil
			}
			last = err
			time.Sleep(100 * time.Millisecond) // polling a child process's port: no channel to wait on
		}
		rs.cmd.Process.Kill()
		rs.cmd.Wait()
	}
	return fmt.Errorf("redis-server did not start: %v (log in %s)", last, rs.dir)
}

func (rs *redisServer) stop() {
	if rs.rdb != nil {
		rs.rdb.Close()
	}
	if rs.cmd != nil && rs.cmd.Process != nil {
		rs.cmd.Process.Kill()
		rs.cmd.Wait()
		os.RemoveAll(rs.dir)
	}
}

// redisSnap is Redis's counters at one instant.
type redisSnap struct {
	commands int64            // total_commands_processed
	cpu      float64          // used_cpu_user + used_cpu_sys, seconds
	byCmd    map[string]int64 // commandstats calls
	usedMem  int64
	nodes    int // servers read (a Cluster's masters)
}

// eachNode runs fn on the one server, or on each master of the Cluster
// in turn.
func (rs *redisServer) eachNode(ctx context.Context, fn func(ctx context.Context, c *redis.Client) error) error {
	switch c := rs.rdb.(type) {
	case *redis.ClusterClient:
		var mu sync.Mutex // ForEachMaster runs fn concurrently
		return c.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
			mu.Lock()
			defer mu.Unlock()
			return fn(ctx, c)
		})
	case *redis.Client:
		return fn(ctx, c)
	}
	return fmt.Errorf("unexpected client %T", rs.rdb)
}

// snap reads Redis's counters, summed over a Cluster's masters.
func (rs *redisServer) snap() (redisSnap, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	sum := redisSnap{byCmd: map[string]int64{}}
	err := rs.eachNode(ctx, func(ctx context.Context, c *redis.Client) error {
		info, err := c.Info(ctx, "stats", "cpu", "commandstats", "memory").Result()
		if err != nil {
			return err
		}
		s := parseInfo(info)
		sum.commands += s.commands
		sum.cpu += s.cpu
		sum.usedMem += s.usedMem
		sum.nodes++
		for k, v := range s.byCmd {
			sum.byCmd[k] += v
		}
		return nil
	})
	return sum, err
}

// parseInfo reads the counters of redisSnap from the text of INFO stats,
// cpu, commandstats and memory.
func parseInfo(info string) redisSnap {
	s := redisSnap{byCmd: map[string]int64{}}
	for line := range strings.SplitSeq(info, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		switch {
		case k == "total_commands_processed":
			s.commands, _ = strconv.ParseInt(v, 10, 64)
		case k == "used_memory":
			s.usedMem, _ = strconv.ParseInt(v, 10, 64)
		case k == "used_cpu_user" || k == "used_cpu_sys":
			f, _ := strconv.ParseFloat(v, 64)
			s.cpu += f
		case strings.HasPrefix(k, "cmdstat_"):
			calls, _, _ := strings.Cut(strings.TrimPrefix(v, "calls="), ",")
			s.byCmd[strings.TrimPrefix(k, "cmdstat_")], _ = strconv.ParseInt(calls, 10, 64)
		}
	}
	return s
}

// keyKind is what a key of the stores is, for the idle breakdown: the
// key after prefix, up to its first ':' or '{' ("s", "ev", "sessions").
func keyKind(prefix, key string) string {
	kind := strings.TrimPrefix(key, prefix)
	if i := strings.IndexAny(kind, ":{"); i >= 0 {
		kind = kind[:i]
	}
	return kind
}

// keys sums MEMORY USAGE over the keys starting with prefix, in all and
// by kind (the key after prefix, up to its first ':' or '{').
func (rs *redisServer) keys(prefix string) (n, bytes int64, byKind map[string]int64, err error) {
	byKind = map[string]int64{}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	err = rs.eachNode(ctx, func(ctx context.Context, c *redis.Client) error {
		it := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for it.Next(ctx) {
			b, err := c.MemoryUsage(ctx, it.Val(), 0).Result()
			if err != nil && !errors.Is(err, redis.Nil) {
				return err
			}
			n++
			bytes += b
			byKind[keyKind(prefix, it.Val())] += b
		}
		return it.Err()
	})
	return n, bytes, byKind, err
}

// forget deletes the keys starting with prefix, so that a run leaves
// nothing behind in a shared Redis.
func (rs *redisServer) forget(prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rs.eachNode(ctx, func(ctx context.Context, c *redis.Client) error {
		// One key a command: a Cluster refuses keys of several slots.
		it := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		p := c.Pipeline()
		for it.Next(ctx) {
			p.Unlink(ctx, it.Val())
			if p.Len() == 500 {
				p.Exec(ctx)
			}
		}
		p.Exec(ctx)
		return nil
	})
}

// startScaleOut starts target t's server process; for a Redis target,
// with its own key prefix, returned for forget.
func (h *harness) startScaleOut(t *targets.Target, mode targets.HTTPMode, extra ...string) (*server, *redisServer, string, error) {
	if t.Name != "mcpkit-redis" {
		s, err := h.startServer(t.Name, "http", mode, extra...)
		return s, nil, "", err
	}
	rs, err := h.redis()
	if err != nil {
		return nil, nil, "", err
	}
	prefix := fmt.Sprintf("mcpbench:%d:%d:", os.Getpid(), prefixSeq.Add(1))
	extra = append(extra, "-redis", rs.addr, "-redis-prefix", prefix)
	if rs.cluster {
		extra = append(extra, "-redis-cluster")
	}
	if h.opts.redisTrace {
		extra = append(extra, "-redis-trace")
	}
	if d := h.opts.redisJSONWithin; d > 0 {
		extra = append(extra, "-redis-json-within", d.String())
	}
	s, err := h.startServer(t.Name, "http", mode, extra...)
	if err != nil {
		return nil, nil, "", err
	}
	return s, rs, prefix, nil
}

// runScaleOut is 14r (session era, SSE replies, as scenario 1), 14j
// (session era, JSON replies, as scenario 2) and 14s (2026-07-28, JSON
// replies, as scenario 6): -sessions x -callers connections calling echo
// back to back, with Redis's counters read around the measured run.
func (h *harness) runScaleOut(t *targets.Target, mode targets.HTTPMode) (measurement, error) {
	s, rs, prefix, err := h.startScaleOut(t, mode)
	if err != nil {
		return measurement{}, err
	}
	defer s.stop()
	if rs != nil {
		defer rs.forget(prefix)
	}
	run, closeLoad, err := h.scaleOutLoad(s, mode)
	if err != nil {
		return measurement{}, err
	}
	defer closeLoad()
	measured := func(d time.Duration) (load.Result, error) { return run(d), nil }
	if rs == nil {
		return h.measure(s, measured)
	}
	return h.measureAround(s, measured, func() (func(load.Result, *measurement) error, error) {
		st0, err := s.stats(false)
		if err != nil {
			return nil, err
		}
		r0, err := rs.snap()
		if err != nil {
			return nil, err
		}
		return func(res load.Result, m *measurement) error {
			r1, err := rs.snap()
			if err != nil {
				return err
			}
			st1, err := s.stats(false)
			if err != nil {
				return err
			}
			ops := float64(res.Requests)
			f := &redisFigures{byCommand: map[string]float64{}, byPath: map[string]float64{}}
			f.cpuPerOp = (r1.cpu - r0.cpu) * 1e6 / ops
			// The first snapshot's INFO is counted, once on each server.
			f.cmdsPerOp = float64(r1.commands-r0.commands-int64(r0.nodes)) / ops
			for k, v := range r1.byCmd {
				if d := v - r0.byCmd[k]; d > 0 && k != "info" {
					f.byCommand[k] = float64(d) / ops
				}
			}
			if st0.Redis != nil && st1.Redis != nil {
				f.tripsPerOp = float64(st1.Redis.RoundTrips-st0.Redis.RoundTrips) / ops
				for k, v := range st1.Redis.ByPath {
					if d := v - st0.Redis.ByPath[k]; d > 0 {
						f.byPath[k] = float64(d) / ops
					}
				}
			}
			m.redis = f
			return nil
		}, nil
	})
}

// scaleOutLoad is the load of 14r, 14j (session era, as scenarios 1 and 2)
// and 14s (2026-07-28, as scenario 6) on s, and its Close.
func (h *harness) scaleOutLoad(s *server, mode targets.HTTPMode) (func(time.Duration) load.Result, func(), error) {
	if mode == targets.Stateless {
		l, err := load.NewOpLoad(s.listen, load.EchoOp, load.StatelessEra, h.opts.sessions, h.opts.callers)
		if err != nil {
			return nil, nil, err
		}
		return l.Run, l.Close, nil
	}
	l, err := load.NewCallLoad(s.listen, h.opts.sessions, h.opts.callers)
	if err != nil {
		return nil, nil, err
	}
	return l.Run, l.Close, nil
}

// runRedisIdle is 14i: the Redis memory that -redis-idle idle sessions
// take (used_memory, and MEMORY USAGE of their keys), through the proxy
// onto the replicas, after a baseline of 4.
func (h *harness) runRedisIdle(t *targets.Target, mode targets.HTTPMode) (measurement, error) {
	s, rs, prefix, err := h.startScaleOut(t, mode)
	if err != nil {
		return measurement{}, err
	}
	defer s.stop()
	defer rs.forget(prefix)
	l, err := load.NewSetupLoad(s.listen, 4)
	if err != nil {
		return measurement{}, err
	}
	defer l.Close()
	if _, err := l.OpenSessions(4); err != nil {
		return measurement{}, err
	}
	r0, err := rs.snap()
	if err != nil {
		return measurement{}, err
	}
	k0, b0, kinds0, err := rs.keys(prefix)
	if err != nil {
		return measurement{}, err
	}
	st0, err := s.stats(true)
	if err != nil {
		return measurement{}, err
	}
	n, err := l.OpenSessions(h.opts.redisIdle)
	if err != nil {
		return measurement{}, fmt.Errorf("after %d sessions: %w", n, err)
	}
	r1, err := rs.snap()
	if err != nil {
		return measurement{}, err
	}
	k1, b1, kinds1, err := rs.keys(prefix)
	if err != nil {
		return measurement{}, err
	}
	st1, err := s.stats(true)
	if err != nil {
		return measurement{}, err
	}
	fn := float64(n)
	byKind := map[string]float64{}
	for k, v := range kinds1 {
		byKind[k] = float64(v-kinds0[k]) / fn
	}
	return measurement{
		sessions:          n,
		heapPerSess:       (float64(st1.HeapAlloc+st1.StackInuse) - float64(st0.HeapAlloc+st0.StackInuse)) / fn,
		goroutinesPerSess: float64(st1.Goroutines-st0.Goroutines) / fn,
		redis: &redisFigures{
			usedPerSess:  float64(r1.usedMem-r0.usedMem) / fn,
			keysPerSess:  float64(b1-b0) / fn,
			nKeysPerSess: float64(k1-k0) / fn,
			byKind:       byKind,
		},
	}, nil
}

// printScaleOut prints the scale-out rows: Redis's costs per operation
// beside the throughput, the breakdowns, the idle sessions, and issue
// 14's two Redis targets.
func printScaleOut(out io.Writer, h *harness, results map[string]map[string][]measurement) {
	var any bool
	for _, sc := range h.opts.scenarios {
		any = any || isScaleOut(sc)
	}
	if !any {
		return
	}
	where := "one redis-server"
	if h.opts.redisCluster {
		where = "one Redis Cluster"
	}
	fmt.Fprintf(out, "\nScale-out (issue 14): %d replicas sharing %s behind a round-robin proxy (mcpkit-redis),\n", targets.Replicas, where)
	fmt.Fprintln(out, "one in-memory server behind the same proxy (mcpkit-proxy), one in-memory server (mcpkit). Server CPU is the")
	fmt.Fprintln(out, "whole server process (replicas and proxy); Redis's CPU is its own (INFO cpu). Medians of the rounds.")
	fmt.Fprintf(out, "%-28s %-13s %9s %9s %9s %11s %11s %12s %12s\n", "scenario", "target", "ops/s", "p50", "p99", "server µs/op", "redis µs/op", "round trips", "redis cmds")
	tripsBy := map[string]float64{}
	for _, sc := range h.opts.scenarios {
		if !isScaleOut(sc) || sc.redisIdle {
			continue
		}
		for _, name := range h.opts.targets {
			ms := results[sc.id][name]
			a, ok := aggregate(ms)
			if !ok {
				continue
			}
			trips, cmds, rcpu := "-", "-", "-"
			var rf []*redisFigures
			for _, m := range ms {
				if m.redis != nil {
					rf = append(rf, m.redis)
				}
			}
			if len(rf) > 0 {
				t := medianF(rf, func(f *redisFigures) float64 { return f.tripsPerOp })
				trips = fmt.Sprintf("%.2f", t)
				cmds = fmt.Sprintf("%.2f", medianF(rf, func(f *redisFigures) float64 { return f.cmdsPerOp }))
				rcpu = fmt.Sprintf("%.1f", medianF(rf, func(f *redisFigures) float64 { return f.cpuPerOp }))
				if sc.id == "14r" || sc.id == "14j" {
					tripsBy[sc.id] = t
				}
			}
			fmt.Fprintf(out, "%-28s %-13s %9.0f %9s %9s %11.1f %11s %12s %12s\n", sc.id+" "+sc.title, name, a.ops, dur(a.p50), dur(a.p99), a.cpu, rcpu, trips, cmds)
			if len(rf) > 0 {
				last := rf[len(rf)-1]
				fmt.Fprintf(out, "    Redis commands per op (INFO commandstats, last round; inside scripts too): %s\n", perOp(last.byCommand))
				if len(last.byPath) > 0 {
					fmt.Fprintln(out, "    round trips per op by code path (-redis-trace, last round):")
					for _, l := range sortedPerOp(last.byPath) {
						fmt.Fprintln(out, "      "+l)
					}
				}
			}
		}
	}
	idle := map[string]*redisFigures{}
	for _, sc := range h.opts.scenarios {
		ms := results[sc.id]["mcpkit-redis"]
		if !sc.redisIdle || len(ms) == 0 {
			continue
		}
		m := ms[0]
		idle[sc.id] = m.redis
		fmt.Fprintf(out, "%-28s %-13s %d sessions: Redis used_memory %.0f B/session, MEMORY USAGE of their keys %.0f B/session (%.2f keys/session); server heap+stack %.0f B/session, %.3f goroutines/session\n",
			sc.id+" "+sc.title, "mcpkit-redis", m.sessions, m.redis.usedPerSess, m.redis.keysPerSess, m.redis.nKeysPerSess, m.heapPerSess, m.goroutinesPerSess)
		fmt.Fprintf(out, "    MEMORY USAGE per session by key: %s\n", perOp(m.redis.byKind))
	}
	fmt.Fprintln(out, "\nIssue 14 targets for mcpkit-redis, from this run:")
	line := func(desc string, have, ok bool, got string) {
		switch {
		case !have:
			fmt.Fprintf(out, "  n/a  %s: not measured\n", desc)
		case ok:
			fmt.Fprintf(out, "  PASS %s: %s\n", desc, got)
		default:
			fmt.Fprintf(out, "  FAIL %s: %s\n", desc, got)
		}
	}
	for _, id := range []string{"14r", "14j"} {
		t, have := tripsBy[id]
		line(fmt.Sprintf("Redis round trips per session-era tools/call <= 2 (%s)", id), have, t <= 2, fmt.Sprintf("%.2f", t))
	}
	for _, id := range []string{"14i", "14ij"} {
		f := idle[id]
		desc := fmt.Sprintf("Redis memory per idle session <= 1 KiB (%s)", id)
		if f == nil {
			line(desc, false, false, "")
			continue
		}
		worst := max(f.usedPerSess, f.keysPerSess)
		line(desc, true, worst <= 1024, fmt.Sprintf("used_memory %.0f B, keys %.0f B", f.usedPerSess, f.keysPerSess))
	}
}

func medianF(fs []*redisFigures, f func(*redisFigures) float64) float64 {
	v := make([]float64, len(fs))
	for i, x := range fs {
		v[i] = f(x)
	}
	return medianOf(v)
}

// perOp formats a per-op map, largest first.
func perOp(m map[string]float64) string {
	return strings.Join(sortedPerOp(m), ", ")
}

func sortedPerOp(m map[string]float64) []string {
	type kv struct {
		k string
		v float64
	}
	var s []kv
	for k, v := range m {
		if v >= 0.0005 {
			s = append(s, kv{k, v})
		}
	}
	sort.Slice(s, func(i, j int) bool { return s[i].v > s[j].v || (s[i].v == s[j].v && s[i].k < s[j].k) })
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = fmt.Sprintf("%.3f %s", x.v, x.k)
	}
	return out
}

// profileScaleOut is -profile for 14r, 14j and 14s: the mcpkit-redis
// server process (replicas and proxy) under the scenario's load for -d.
func (h *harness) profileScaleOut(sc *scenario, dir string) error {
	mode := map[string]targets.HTTPMode{"14r": targets.SSE, "14j": targets.JSON, "14s": targets.Stateless}[sc.id]
	if sc.redisIdle {
		return fmt.Errorf("profiling is for 14r, 14j and 14s, not %s", sc.id)
	}
	t, _ := targets.Get("mcpkit-redis")
	cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "allocs.pprof")
	s, rs, prefix, err := h.startScaleOut(t, mode, "-cpuprofile", cpu, "-memprofile", mem)
	if err != nil {
		return err
	}
	defer s.stop()
	defer rs.forget(prefix)
	defer rs.stop()
	run, closeLoad, err := h.scaleOutLoad(s, mode)
	if err != nil {
		return err
	}
	defer closeLoad()
	run(h.opts.warmup)
	if err := s.call("/profile/start"); err != nil {
		return err
	}
	res := run(h.opts.dur)
	if err := s.call("/profile/stop"); err != nil {
		return err
	}
	fmt.Printf("mcpkit-redis scenario %s under profile: %.0f req/s, %d errors, %s\n", sc.id, res.PerSecond(), res.Errors, h.pinNote)
	fmt.Printf("CPU:    go tool pprof -top %s\nallocs: go tool pprof -sample_index=alloc_space -base %s.base -top %s\n", cpu, mem, mem)
	return nil
}
