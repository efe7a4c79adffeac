package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/bench/internal/load"
	"github.com/mcpkit/mcpkit/bench/internal/targets"
)

// The scenarios of issue 19: the 2026-07-28 era over HTTP and stdio,
// realistic payloads in both eras, and fan-out to many subscribers.

// payloadOps are the realistic-payload rows, by the letter of their
// scenario id (8x: session era, 9x: 2026-07-28).
var payloadOps = []struct {
	letter string
	op     *load.Op
}{
	{"n", load.NestedOp},
	{"t", load.ReadTextOp},
	{"b", load.ReadBlobOp},
	{"l", load.ListToolsOp},
	{"p", load.PromptOp},
}

func init() {
	add := func(sc *scenario) {
		scenarios = append(scenarios, sc)
		scenarioByID[sc.id] = sc
	}
	add(&scenario{id: "6", title: "HTTP 2026 tools/call", applies: hasHTTP,
		run: func(h *harness, t *targets.Target) (measurement, error) {
			return h.runOp(t, load.EchoOp, load.StatelessEra, h.opts.sessions, h.opts.callers, false)
		}})
	add(&scenario{id: "7", title: "stdio 2026", applies: func(t *targets.Target) bool { return t.Stdio != nil },
		run: func(h *harness, t *targets.Target) (measurement, error) { return h.runStdioEra(t, load.StatelessEra) }})
	for _, era := range []load.Era{load.SessionEra, load.StatelessEra} {
		prefix := "8"
		if era == load.StatelessEra {
			prefix = "9"
		}
		for _, p := range payloadOps {
			op := p.op
			add(&scenario{id: prefix + p.letter, title: era.String() + " " + op.Name, payload: true, applies: hasHTTP,
				run: func(h *harness, t *targets.Target) (measurement, error) {
					return h.runOp(t, op, era, h.opts.psessions, h.opts.pcallers, true)
				}})
		}
	}
	// mcp-go has no call that notifies one resource's subscribers: its
	// notifier tells every session, so the flood meant for the slow
	// subscribers goes to all 10,000 (it did not end within the 30 s the
	// harness waits), and it is left out of the fan-out scenarios.
	fanApplies := func(t *targets.Target) bool {
		return hasHTTP(t) && t.Name != "plain" && t.Name != "floor" && t.Name != "mcp-go"
	}
	add(&scenario{id: "10", title: "fan-out sessions", fanout: true, once: true, applies: fanApplies,
		run: func(h *harness, t *targets.Target) (measurement, error) { return h.runFanout(t, load.SessionEra) }})
	// (mcp-go's stateless mode would not do for 11 either: no
	// notification reached a listen stream, none of 980 in 10 s.)
	add(&scenario{id: "11", title: "fan-out listen 2026", fanout: true, once: true, applies: fanApplies,
		run: func(h *harness, t *targets.Target) (measurement, error) { return h.runFanout(t, load.StatelessEra) }})
}

// expandScenarios turns -scenarios into scenarios; "8" and "9" name
// every payload row of their era.
func expandScenarios(list string) ([]*scenario, error) {
	var out []*scenario
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if s == "8" || s == "9" {
			for _, p := range payloadOps {
				out = append(out, scenarioByID[s+p.letter])
			}
			continue
		}
		sc, ok := scenarioByID[s]
		if !ok {
			return nil, fmt.Errorf("unknown scenario %q", s)
		}
		out = append(out, sc)
	}
	return out, nil
}

// runOp is scenario 6 and the payload rows: one op in one era over HTTP.
func (h *harness) runOp(t *targets.Target, op *load.Op, era load.Era, groups, callers int, payload bool) (measurement, error) {
	mode := targets.SSE
	if era == load.StatelessEra {
		mode = targets.Stateless
	}
	s, err := h.startServer(t.Name, "http", mode)
	if err != nil {
		return measurement{}, err
	}
	defer s.stop()
	l, err := load.NewOpLoad(s.listen, op, era, groups, callers)
	if err != nil {
		return measurement{}, err
	}
	defer l.Close()
	run := func(d time.Duration) (load.Result, error) { return l.Run(d), nil }
	if payload {
		return h.measureFor(s, h.opts.pwarmup, h.opts.pdur, run)
	}
	return h.measure(s, run)
}

// runStdioEra is scenario 7 (and 3 in the session era).
func (h *harness) runStdioEra(t *targets.Target, era load.Era) (measurement, error) {
	s, err := h.startServer(t.Name, "stdio", targets.SSE)
	if err != nil {
		return measurement{}, err
	}
	defer s.stop()
	l, err := load.NewStdioLoadEra(s.stdin, s.stdout, era)
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

// measureFor is measure with its own durations.
func (h *harness) measureFor(s *server, warmup, d time.Duration, run func(time.Duration) (load.Result, error)) (measurement, error) {
	saved := h.opts
	h.opts.warmup, h.opts.dur = warmup, d
	defer func() { h.opts = saved }()
	return h.measure(s, run)
}

// runFanout is scenarios 10 and 11: -fanout subscribers, of which
// -fanout-slow never read and are flooded first; then -fanout-waves
// notifications of the one resource, each timed from the trigger to the
// last fast subscriber's receipt. CPU and allocations are the server's
// over a wave (getrusage and TotalAlloc around it).
func (h *harness) runFanout(t *targets.Target, era load.Era) (measurement, error) {
	o := h.opts
	mode := targets.SSE
	if era == load.StatelessEra {
		mode = targets.Stateless
	}
	var extra []string
	var cpuProf, memProf string
	if o.fanoutProfile != "" {
		if err := os.MkdirAll(o.fanoutProfile, 0o755); err != nil {
			return measurement{}, err
		}
		base := filepath.Join(o.fanoutProfile, t.Name+"-"+era.String())
		cpuProf, memProf = base+".cpu.pprof", base+".allocs.pprof"
		extra = []string{"-cpuprofile", cpuProf, "-memprofile", memProf}
	}
	s, err := h.startServer(t.Name, "http", mode, extra...)
	if err != nil {
		return measurement{}, err
	}
	defer s.stop()
	st0, err := s.stats(true)
	if err != nil {
		return measurement{}, err
	}
	setup := time.Now()
	l, err := load.NewFanoutLoad(s.listen, era, o.fanout, o.fanoutSlow, o.setupWorkers)
	if err != nil {
		return measurement{}, err
	}
	defer l.Close()
	setupTime := time.Since(setup)
	st1, err := s.stats(true)
	if err != nil {
		return measurement{}, err
	}
	m := measurement{sessions: o.fanout, goroutinesPerSess: float64(st1.Goroutines-st0.Goroutines) / float64(o.fanout),
		heapPerSess: (float64(st1.HeapAlloc+st1.StackInuse) - float64(st0.HeapAlloc+st0.StackInuse)) / float64(o.fanout)}
	m.fanNote = fmt.Sprintf("set-up %v", setupTime.Round(time.Millisecond))
	if o.fanoutSlow > 0 && o.fanoutFlood > 0 {
		res, err := s.get(fmt.Sprintf("/notify?uri=%s&n=%d", url.QueryEscape(targets.FloodURI), o.fanoutFlood))
		if err != nil {
			return m, fmt.Errorf("flood: %w", err)
		}
		m.fanNote += fmt.Sprintf("; flood of %d to %d slow: %s", o.fanoutFlood, o.fanoutSlow, res)
	}
	var lasts, cpus, allocs []float64
	if cpuProf != "" {
		if err := s.call("/profile/start"); err != nil {
			return m, err
		}
		defer func() {
			s.call("/profile/stop")
			fmt.Fprintf(os.Stderr, "\nprofiles of the waves: go tool pprof -top %s; go tool pprof -sample_index=alloc_space -base %s.base -top %s\n", cpuProf, memProf, memProf)
		}()
	}
	for range o.fanoutWaves {
		a, err := s.stats(false)
		if err != nil {
			return m, err
		}
		last, _, err := l.Wave(func() error {
			res, err := s.get("/notify?uri=" + url.QueryEscape(targets.FanoutURI))
			if err == nil && !strings.HasPrefix(res, "failed 0") && o.fanoutSlow == 0 {
				err = fmt.Errorf("notify: %s", res)
			}
			return err
		}, 10*time.Second)
		if err != nil {
			return m, err
		}
		b, err := s.stats(false)
		if err != nil {
			return m, err
		}
		lasts = append(lasts, float64(last))
		cpus = append(cpus, float64(b.CPUMicros-a.CPUMicros))
		allocs = append(allocs, float64(b.TotalAlloc-a.TotalAlloc))
	}
	m.fanLast, m.fanCPU, m.fanBytes = medianOf(lasts), medianOf(cpus), medianOf(allocs)
	m.fanMaxLast = slices.Max(lasts)
	return m, nil
}

// get is a GET on the debug endpoint; it returns the body.
func (s *server) get(path string) (string, error) {
	resp, err := s.client.Get("http://" + s.debug + path)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return "", fmt.Errorf("%s: HTTP %d: %s", path, resp.StatusCode, b)
	}
	return string(b), nil
}

// encodedSize is the size of the result JSON of the 1 MB reads: the
// figure their allocations are held to (issue 19: at most 2x).
var encodedSize = func() map[string]float64 {
	text, _ := json.Marshal(targets.Text)
	blob, _ := json.Marshal(targets.BlobBase64)
	return map[string]float64{"t": float64(len(text)), "b": float64(len(blob))}
}()

func scenarioLabel19(sc *scenario) string {
	switch {
	case sc.id == "6":
		return "6 HTTP 2026"
	case sc.id == "7":
		return "7 stdio 2026"
	case sc.payload:
		return sc.id + " " + sc.title
	}
	return sc.id + " " + sc.title
}

// checks19 are issue 19's targets, each a PASS or FAIL line (or n/a when
// the run did not measure it).
func checks19(h *harness, aggs map[string]map[string]agg, results map[string]map[string][]measurement) []string {
	var out []string
	line := func(desc string, have, ok bool, got string) {
		switch {
		case !have:
			out = append(out, fmt.Sprintf("n/a  %s: not measured", desc))
		case ok:
			out = append(out, fmt.Sprintf("PASS %s: %s", desc, got))
		default:
			out = append(out, fmt.Sprintf("FAIL %s: %s", desc, got))
		}
	}
	cpuVsPlain := func(sc string, limit float64, what string) {
		mk, ok1 := aggs[sc]["mcpkit"]
		pl, ok2 := aggs[sc]["plain"]
		have := ok1 && ok2 && pl.cpu > 0
		r := 0.0
		if have {
			r = mk.cpu / pl.cpu
		}
		line(fmt.Sprintf("scenario %s %s server CPU/request <= %.1fx plain", sc, what, limit), have, r <= limit,
			fmt.Sprintf("%.2fx (%.1f vs %.1f µs)", r, mk.cpu, pl.cpu))
	}
	for _, sc := range []string{"1", "2", "3", "6", "7"} {
		cpuVsPlain(sc, 1.0, "tools/call")
	}
	for _, prefix := range []string{"8", "9"} {
		for _, p := range payloadOps {
			sc := prefix + p.letter
			for _, peer := range []struct {
				name string
				want float64
			}{{"mcp-go", 2}, {"go-sdk", 6}} {
				have, r, detail := throughputCheck(aggs, results, sc, peer.name)
				line(fmt.Sprintf("scenario %s (%s) req/s >= %.0fx %s", sc, scenarioByID[sc].title, peer.want, peer.name), have, r >= peer.want, detail)
			}
			what := "(" + scenarioByID[sc].title + ")"
			if p.letter == "l" {
				what += ", vs writing the cached bytes,"
			}
			cpuVsPlain(sc, 1.2, what)
			if size, ok := encodedSize[p.letter]; ok {
				mk, have := aggs[sc]["mcpkit"]
				line(fmt.Sprintf("scenario %s (%s) allocates <= 2x its encoded size (%.0f B)", sc, scenarioByID[sc].title, size),
					have, mk.bytes <= 2*size, fmt.Sprintf("%.2fx (%.0f B/request)", mk.bytes/size, mk.bytes))
			}
		}
	}
	for _, sc := range []string{"10", "11"} {
		ms := results[sc]["mcpkit"]
		have := len(ms) > 0
		var m measurement
		if have {
			m = ms[0]
		}
		title := scenarioByID[sc].title
		line(fmt.Sprintf("scenario %s (%s) to %d: last notification < 100 ms, %d slow subscribers flooded", sc, title, h.opts.fanout, h.opts.fanoutSlow),
			have, m.fanMaxLast < float64(100*time.Millisecond), fmt.Sprintf("median %s, worst %s of %d waves", dur(m.fanLast), dur(m.fanMaxLast), h.opts.fanoutWaves))
		// net/http runs two goroutines for a connection with a response
		// in progress (its serve loop and its background read); an SDK
		// that adds none of its own stays at 2.
		line(fmt.Sprintf("scenario %s (%s): no goroutine per subscriber beyond net/http's two per open response (<= 2.05)", sc, title),
			have, m.goroutinesPerSess <= 2.05, fmt.Sprintf("%.3f goroutines/subscriber", m.goroutinesPerSess))
	}
	return out
}

// printFanout prints the fan-out rows.
func printFanout(out io.Writer, h *harness, aggs map[string]map[string]agg, results map[string]map[string][]measurement) {
	var rows []string
	for _, sc := range h.opts.scenarios {
		if !sc.fanout {
			continue
		}
		for _, name := range h.opts.targets {
			ms := results[sc.id][name]
			if len(ms) == 0 {
				continue
			}
			m := ms[0]
			rows = append(rows, fmt.Sprintf("%-22s %-8s %8d %10s %10s %10.0f %12.0f %8.3f %10.0f  %s", sc.id+" "+sc.title, name, m.sessions,
				dur(m.fanLast), dur(m.fanMaxLast), m.fanCPU, m.fanBytes, m.goroutinesPerSess, m.heapPerSess, m.fanNote))
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(out, "\nFan-out (one run, median of %d waves; last = trigger to the last fast subscriber's receipt):\n", h.opts.fanoutWaves)
	fmt.Fprintf(out, "%-22s %-8s %8s %10s %10s %10s %12s %8s %10s\n", "scenario", "target", "subs", "last", "worst", "cpu µs", "alloc B", "gor/sub", "heap B/sub")
	for _, r := range rows {
		fmt.Fprintln(out, r)
	}
}
