package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/bench/internal/load"
	"github.com/mcpkit/mcpkit/bench/internal/targets"
)

type options struct {
	rounds       int
	dur, warmup  time.Duration
	sessions     int
	callers      int
	window       int
	setupWorkers int
	idle         int
	targets      []string
	scenarios    []*scenario
	noPin        bool
	profileDir   string

	// -profile-target: the target -profile profiles (mcpkit by default)
	profileTarget string

	// issue 19
	pdur, pwarmup       time.Duration
	psessions, pcallers int
	prounds             int
	fanout, fanoutSlow  int
	fanoutFlood         int
	fanoutWaves         int
	fanoutProfile       string

	// issue 14
	redisIdle  int
	redisTrace bool
	// redisJSONWithin is the mcpkit-redis replicas' JSONReplyWithin.
	redisJSONWithin time.Duration
	redisCluster    bool
}

// A scenario is one kind of run. Throughput scenarios fill req/s, latency,
// CPU and bytes per operation; the idle scenario fills the per-session
// costs.
type scenario struct {
	id    string
	title string
	idle  bool
	// payload rows run for -pd after -pwarmup, on -psessions x -pcallers.
	payload bool
	// fanout scenarios fill the fan-out figures; once: first round only.
	fanout, once bool
	// redisIdle is 14i, printed in the scale-out section only.
	redisIdle bool
	// applies reports whether the target takes part.
	applies func(t *targets.Target) bool
	run     func(h *harness, t *targets.Target) (measurement, error)
}

var scenarios = []*scenario{
	{id: "1", title: "HTTP stateful", applies: hasHTTP,
		run: func(h *harness, t *targets.Target) (measurement, error) { return h.runCalls(t, targets.SSE) }},
	{id: "2", title: "HTTP JSON replies", applies: func(t *targets.Target) bool { return hasHTTP(t) && (t.HasJSONMode || t.SSEIsJSON) },
		run: func(h *harness, t *targets.Target) (measurement, error) { return h.runCalls(t, targets.JSON) }},
	{id: "3", title: "stdio pipelined", applies: func(t *targets.Target) bool { return t.Stdio != nil },
		run: (*harness).runStdio},
	{id: "5", title: "HTTP session setup", applies: hasHTTP,
		run: (*harness).runSetup},
	{id: "4", title: "idle sessions", idle: true, applies: hasHTTP,
		run: (*harness).runIdle},
}

var scenarioByID = func() map[string]*scenario {
	m := map[string]*scenario{}
	for _, s := range scenarios {
		m[s.id] = s
	}
	return m
}()

// hasHTTP reports a target the HTTP scenarios run on: the scale-out
// targets run only their own (14x).
func hasHTTP(t *targets.Target) bool { return t.HTTP != nil && !t.ScaleOut }

// measurement is one run of one scenario on one target.
type measurement struct {
	round     int // 0-based, so that targets measured in one round can be paired
	opsPerSec float64
	p50, p99  time.Duration
	cpuPerOp  float64 // µs of server CPU per operation
	cpuUtil   float64 // server CPU time / wall time
	// idleUtil is the time the server's CPU was idle / wall time: the
	// server had no request to work on (the load generator or the
	// network was slower); otherUtil the time other processes or the
	// hypervisor (steal) took that CPU / wall time; both -1 when the
	// servers are not pinned. lgUtil is the load generator's CPU time /
	// wall time.
	idleUtil, otherUtil, lgUtil float64
	bytesPerOp                  float64 // bytes the server allocated per operation
	errors                      int
	firstErr                    string
	// note: the load generator checked some replies in full instead of
	// against a reference (load.Result.Note).
	note string

	// idle sessions
	heapPerSess, rssPerSess, goroutinesPerSess float64
	sessions                                   int

	// fan-out
	fanLast, fanMaxLast float64 // ns
	fanCPU, fanBytes    float64 // per wave
	fanNote             string

	// scale-out: Redis's costs (nil for the in-memory targets)
	redis *redisFigures
}

type harness struct {
	opts      options
	self      string
	serverCPU string // taskset CPU list for servers; "" when not pinning
	loadCPU   string
	pinNote   string
	rs        *redisServer // the scale-out scenarios' Redis, started on first use
}

// pin puts the load generator (this process) on every CPU but 0 and the
// servers on CPU 0.
func (h *harness) pin() {
	n := runtime.NumCPU()
	switch {
	case h.opts.noPin:
		h.pinNote = "not pinned (-nopin)"
		return
	case n < 2:
		h.pinNote = "not pinned: only one CPU"
		return
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		h.pinNote = "not pinned: taskset (util-linux) not found"
		return
	}
	loadCPU := "1"
	if n > 2 {
		loadCPU = "1-" + strconv.Itoa(n-1)
	}
	// -a: every thread of this process; threads made later inherit it.
	if out, err := exec.Command("taskset", "-a", "-p", "-c", loadCPU, strconv.Itoa(os.Getpid())).CombinedOutput(); err != nil {
		h.pinNote = fmt.Sprintf("not pinned: taskset failed: %v %s", err, out)
		return
	}
	runtime.GOMAXPROCS(n - 1)
	h.serverCPU, h.loadCPU = "0", loadCPU
	h.pinNote = fmt.Sprintf("servers pinned to CPU 0, load generator to CPU %s (taskset)", loadCPU)
}

// snapshot is the server's counters at one instant.
type snapshot struct {
	cpu   time.Duration
	alloc uint64
	// idle and busy are the server CPU's times (cpuTimes; idle -1 when
	// the servers are not pinned), lg the load generator's CPU time.
	idle, busy, lg time.Duration
}

func (h *harness) snap(s *server) (snapshot, error) {
	st, err := s.stats(false)
	if err != nil {
		return snapshot{}, err
	}
	sn := snapshot{alloc: st.TotalAlloc, idle: -1, lg: selfCPU()}
	if h.serverCPU != "" && !strings.ContainsAny(h.serverCPU, ",-") {
		if idle, busy, err := cpuTimes(h.serverCPU); err == nil {
			sn.idle, sn.busy = idle, busy
		}
	}
	sn.cpu, err = s.cpu()
	return sn, err
}

// measure runs warm-up load, then the measured load between two snapshots.
func (h *harness) measure(s *server, run func(time.Duration) (load.Result, error)) (measurement, error) {
	return h.measureAround(s, run, nil)
}

// measureAround is measure with figures of the caller's own taken around
// the measured load: around, when not nil, is called just after the first
// snapshot, and what it returns once the second is taken, with the result
// and the measurement to add to (not when no request was made).
func (h *harness) measureAround(s *server, run func(time.Duration) (load.Result, error),
	around func() (after func(load.Result, *measurement) error, err error)) (measurement, error) {
	if _, err := run(h.opts.warmup); err != nil {
		return measurement{}, err
	}
	s0, err := h.snap(s)
	if err != nil {
		return measurement{}, err
	}
	var after func(load.Result, *measurement) error
	if around != nil {
		if after, err = around(); err != nil {
			return measurement{}, err
		}
	}
	res, err := run(h.opts.dur)
	if err != nil {
		return measurement{}, err
	}
	s1, err := h.snap(s)
	if err != nil {
		return measurement{}, err
	}
	m := measurement{
		opsPerSec: res.PerSecond(),
		p50:       res.Percentile(50),
		p99:       res.Percentile(99),
		cpuUtil:   float64(s1.cpu-s0.cpu) / float64(res.Elapsed),
		idleUtil:  -1,
		otherUtil: -1,
		lgUtil:    float64(s1.lg-s0.lg) / float64(res.Elapsed),
		errors:    res.Errors,
		firstErr:  res.FirstErr,
		note:      res.Note,
	}
	if s0.idle >= 0 && s1.idle >= 0 {
		m.idleUtil = float64(s1.idle-s0.idle) / float64(res.Elapsed)
		m.otherUtil = max(0, float64(s1.busy-s0.busy-(s1.cpu-s0.cpu))/float64(res.Elapsed))
	}
	if res.Requests > 0 {
		m.cpuPerOp = float64(s1.cpu-s0.cpu) / float64(time.Microsecond) / float64(res.Requests)
		m.bytesPerOp = float64(s1.alloc-s0.alloc) / float64(res.Requests)
		if after != nil {
			return m, after(res, &m)
		}
	}
	return m, nil
}

// runCalls is scenarios 1 and 2.
func (h *harness) runCalls(t *targets.Target, mode targets.HTTPMode) (measurement, error) {
	s, err := h.startServer(t.Name, "http", mode)
	if err != nil {
		return measurement{}, err
	}
	defer s.stop()
	l, err := load.NewCallLoad(s.listen, h.opts.sessions, h.opts.callers)
	if err != nil {
		return measurement{}, err
	}
	defer l.Close()
	return h.measure(s, func(d time.Duration) (load.Result, error) { return l.Run(d), nil })
}

// runStdio is scenario 3.
func (h *harness) runStdio(t *targets.Target) (measurement, error) {
	s, err := h.startServer(t.Name, "stdio", targets.SSE)
	if err != nil {
		return measurement{}, err
	}
	defer s.stop()
	l, err := load.NewStdioLoad(s.stdin, s.stdout)
	if err != nil {
		return measurement{}, fmt.Errorf("%w (server stderr: %s)", err, s.stderrTail())
	}
	l.OnStuck = func() { s.cmd.Process.Kill() }
	m, err := h.measure(s, func(d time.Duration) (load.Result, error) {
		return l.Run(d, h.opts.window, 10*time.Second)
	})
	if err != nil {
		return m, fmt.Errorf("%w (server: %s)", err, s.exitReport())
	}
	return m, nil
}

// runSetup is scenario 5.
func (h *harness) runSetup(t *targets.Target) (measurement, error) {
	s, err := h.startServer(t.Name, "http", targets.SSE)
	if err != nil {
		return measurement{}, err
	}
	defer s.stop()
	l, err := load.NewSetupLoad(s.listen, h.opts.setupWorkers)
	if err != nil {
		return measurement{}, err
	}
	defer l.Close()
	return h.measure(s, func(d time.Duration) (load.Result, error) { return l.Run(d), nil })
}

// runIdle is scenario 4: the heap, RSS and goroutines that n idle
// sessions add, after garbage collection.
func (h *harness) runIdle(t *targets.Target) (measurement, error) {
	s, err := h.startServer(t.Name, "http", targets.SSE)
	if err != nil {
		return measurement{}, err
	}
	defer s.stop()
	l, err := load.NewSetupLoad(s.listen, 4)
	if err != nil {
		return measurement{}, err
	}
	defer l.Close()
	// One session per connection first, so that connections, pools and
	// lazily built tables are in the baseline.
	if _, err := l.OpenSessions(4); err != nil {
		return measurement{}, err
	}
	st0, err := s.stats(true)
	if err != nil {
		return measurement{}, err
	}
	rss0, err := s.rss()
	if err != nil {
		return measurement{}, err
	}
	n, err := l.OpenSessions(h.opts.idle)
	if err != nil {
		return measurement{}, fmt.Errorf("after %d sessions: %w", n, err)
	}
	st1, err := s.stats(true)
	if err != nil {
		return measurement{}, err
	}
	rss1, err := s.rss()
	if err != nil {
		return measurement{}, err
	}
	return measurement{
		sessions:          n,
		heapPerSess:       (float64(st1.HeapAlloc+st1.StackInuse) - float64(st0.HeapAlloc+st0.StackInuse)) / float64(n),
		rssPerSess:        float64(rss1-rss0) / float64(n),
		goroutinesPerSess: float64(st1.Goroutines-st0.Goroutines) / float64(n),
	}, nil
}

// run runs every scenario on every target for every round, rotating the
// target order each round, and prints the table.
func (h *harness) run() {
	o := h.opts
	start := time.Now()
	fmt.Printf("mcpbench: %d round(s), %v measured (+%v warm-up) per run, %s; %s; load average at start %s\n",
		o.rounds, o.dur, o.warmup, h.pinNote, runtime.Version(), loadAvg())
	results := map[string]map[string][]measurement{}
	var notes []string
	for _, sc := range o.scenarios {
		results[sc.id] = map[string][]measurement{}
		for _, name := range o.targets {
			t, _ := targets.Get(name)
			if !sc.applies(t) && !isScaleOut(sc) && !t.ScaleOut {
				notes = append(notes, fmt.Sprintf("scenario %s (%s): %s not run: %s", sc.id, sc.title, name, notApplicable(sc, t)))
			}
		}
	}
	for r := range o.rounds {
		for _, sc := range o.scenarios {
			for i := range o.targets {
				name := o.targets[(i+r)%len(o.targets)]
				t, _ := targets.Get(name)
				if !sc.applies(t) || (sc.once && r > 0) || (sc.payload && r >= o.prounds) {
					continue
				}
				fmt.Fprintf(os.Stderr, "round %d/%d  scenario %s %-20s %-7s ", r+1, o.rounds, sc.id, sc.title, name)
				m, err := sc.run(h, t)
				if err != nil {
					fmt.Fprintf(os.Stderr, "FAILED: %v\n", err)
					notes = append(notes, fmt.Sprintf("round %d scenario %s %s failed: %v", r+1, sc.id, name, err))
					continue
				}
				if sc.redisIdle {
					fmt.Fprintf(os.Stderr, "%.0f B used_memory/session, %.0f B of keys/session\n", m.redis.usedPerSess, m.redis.keysPerSess)
				} else if sc.fanout {
					fmt.Fprintf(os.Stderr, "last %s (worst %s), %.0f µs cpu, %.0f B per wave, %.3f goroutines/subscriber; %s\n",
						dur(m.fanLast), dur(m.fanMaxLast), m.fanCPU, m.fanBytes, m.goroutinesPerSess, m.fanNote)
				} else if sc.idle {
					fmt.Fprintf(os.Stderr, "%.0f B heap+stack/session, %.3f goroutines/session\n", m.heapPerSess, m.goroutinesPerSess)
				} else {
					fmt.Fprintf(os.Stderr, "%8.0f /s  %6.1f µs cpu  %7.0f B  errors %d  util %.0f%% idle %s other %s lg %.0f%%\n",
						m.opsPerSec, m.cpuPerOp, m.bytesPerOp, m.errors, m.cpuUtil*100, percent(m.idleUtil), percent(m.otherUtil), m.lgUtil*100)
				}
				if m.errors > 0 {
					notes = append(notes, fmt.Sprintf("round %d scenario %s %s: %d errors, first: %s", r+1, sc.id, name, m.errors, m.firstErr))
				}
				if m.note != "" {
					notes = append(notes, fmt.Sprintf("round %d scenario %s %s: %s", r+1, sc.id, name, m.note))
				}
				m.round = r
				results[sc.id][name] = append(results[sc.id][name], m)
			}
		}
	}
	if h.rs != nil {
		h.rs.stop()
	}
	notes = append(notes, "load average at end "+loadAvg()+" (other processes on the machine skew throughput more than CPU and bytes per op)")
	printTable(os.Stdout, h, results, notes)
	fmt.Printf("\ntotal time %v\n", time.Since(start).Round(time.Second))
}

func notApplicable(sc *scenario, t *targets.Target) string {
	if t.HTTP == nil && sc.id != "3" {
		return "no Streamable HTTP handler wired in this build"
	}
	return "the target has no such mode"
}

// profile runs one scenario (1, 2 or 3: the first of -scenarios) on
// mcpkit with the server's profiles on, for -d after the warm-up.
func (h *harness) profile() error {
	dir, err := filepath.Abs(h.opts.profileDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	sc := h.opts.scenarios[0]
	if isScaleOut(sc) {
		return h.profileScaleOut(sc, dir)
	}
	name := h.opts.profileTarget
	if name == "" {
		name = "mcpkit"
	}
	t, err := targets.Get(name)
	if err != nil {
		return err
	}
	transport, mode := "http", targets.SSE
	switch sc.id {
	case "1":
	case "2":
		mode = targets.JSON
	case "3", "7":
		transport = "stdio"
	case "6":
		mode = targets.Stateless
	default:
		if !sc.payload {
			return fmt.Errorf("profiling is for scenarios 1, 2, 3, 6, 7, 8x and 9x, not %s", sc.id)
		}
		if sc.id[0] == '9' {
			mode = targets.Stateless
		}
	}
	if transport == "http" && t.HTTP == nil {
		return fmt.Errorf("%s has no Streamable HTTP handler wired in this build", name)
	}
	cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "allocs.pprof")
	s, err := h.startServer(name, transport, mode, "-cpuprofile", cpu, "-memprofile", mem)
	if err != nil {
		return err
	}
	defer s.stop()
	var run func(time.Duration) (load.Result, error)
	era := load.SessionEra
	if sc.id == "6" || sc.id == "7" || sc.id[0] == '9' {
		era = load.StatelessEra
	}
	var op *load.Op
	for _, p := range payloadOps {
		if sc.payload && sc.id[1:] == p.letter {
			op = p.op
		}
	}
	if sc.id == "6" {
		op = load.EchoOp
	}
	switch {
	case op != nil:
		groups, callers := h.opts.sessions, h.opts.callers
		if sc.payload {
			groups, callers = h.opts.psessions, h.opts.pcallers
		}
		l, err := load.NewOpLoad(s.listen, op, era, groups, callers)
		if err != nil {
			return err
		}
		defer l.Close()
		run = func(d time.Duration) (load.Result, error) { return l.Run(d), nil }
	case transport == "stdio":
		l, err := load.NewStdioLoadEra(s.stdin, s.stdout, era)
		if err != nil {
			return err
		}
		l.OnStuck = func() { s.cmd.Process.Kill() }
		run = func(d time.Duration) (load.Result, error) { return l.Run(d, h.opts.window, 10*time.Second) }
	default:
		l, err := load.NewCallLoad(s.listen, h.opts.sessions, h.opts.callers)
		if err != nil {
			return err
		}
		defer l.Close()
		run = func(d time.Duration) (load.Result, error) { return l.Run(d), nil }
	}
	if _, err := run(h.opts.warmup); err != nil {
		return err
	}
	if err := s.call("/profile/start"); err != nil {
		return err
	}
	res, err := run(h.opts.dur)
	if err != nil {
		return err
	}
	if err := s.call("/profile/stop"); err != nil {
		return err
	}
	fmt.Printf("%s scenario %s (%s) under profile: %.0f req/s, %d errors, %s\n", name, sc.id, sc.title, res.PerSecond(), res.Errors, h.pinNote)
	fmt.Printf("CPU:    go tool pprof -top %s\nallocs: go tool pprof -sample_index=alloc_space -base %s.base -top %s\n", cpu, mem, mem)
	if goBin, err := exec.LookPath("go"); err == nil {
		for _, args := range [][]string{
			{"tool", "pprof", "-top", "-nodecount=30", cpu},
			{"tool", "pprof", "-top", "-cum", "-nodecount=30", cpu},
			{"tool", "pprof", "-top", "-nodecount=30", "-sample_index=alloc_space", "-base", mem + ".base", mem},
		} {
			out, err := exec.Command(goBin, args...).CombinedOutput()
			fmt.Printf("\n$ go %v\n%s", args, out)
			if err != nil {
				fmt.Println(err)
			}
		}
	}
	return nil
}

func targetByName(name string) *targets.Target {
	t, err := targets.Get(name)
	if err != nil {
		return nil
	}
	return t
}

// loadAvg is the first three fields of /proc/loadavg.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
