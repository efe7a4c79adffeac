package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// agg is the median of a target's rounds in one scenario.
type agg struct {
	n                                       int
	ops, spread, p50, p99, cpu, util, bytes float64
	idle, other, lg                         float64
	errors                                  int
	heap, rss, goroutines                   float64
	sessions                                int
}

func median(ms []measurement, f func(measurement) float64) float64 {
	v := make([]float64, len(ms))
	for i, m := range ms {
		v[i] = f(m)
	}
	return medianOf(v)
}

func aggregate(ms []measurement) (agg, bool) {
	if len(ms) == 0 {
		return agg{}, false
	}
	a := agg{n: len(ms)}
	a.ops = median(ms, func(m measurement) float64 { return m.opsPerSec })
	lo, hi := ms[0].opsPerSec, ms[0].opsPerSec
	for _, m := range ms {
		lo, hi = min(lo, m.opsPerSec), max(hi, m.opsPerSec)
		a.errors += m.errors
	}
	if a.ops > 0 {
		a.spread = (hi - lo) / 2 / a.ops * 100
	}
	a.p50 = median(ms, func(m measurement) float64 { return float64(m.p50) })
	a.p99 = median(ms, func(m measurement) float64 { return float64(m.p99) })
	a.cpu = median(ms, func(m measurement) float64 { return m.cpuPerOp })
	a.util = median(ms, func(m measurement) float64 { return m.cpuUtil })
	a.idle = median(ms, func(m measurement) float64 { return m.idleUtil })
	a.other = median(ms, func(m measurement) float64 { return m.otherUtil })
	a.lg = median(ms, func(m measurement) float64 { return m.lgUtil })
	a.bytes = median(ms, func(m measurement) float64 { return m.bytesPerOp })
	a.heap = median(ms, func(m measurement) float64 { return m.heapPerSess })
	a.rss = median(ms, func(m measurement) float64 { return m.rssPerSess })
	a.goroutines = median(ms, func(m measurement) float64 { return m.goroutinesPerSess })
	a.sessions = ms[0].sessions
	return a, true
}

// capacity is operations per second of server CPU.
func capacity(cpuMicros float64) string {
	if cpuMicros <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", 1e6/cpuMicros)
}

// percent is a fraction in percent, "-" when unknown (negative).
func percent(f float64) string {
	if f < 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", f*100)
}

func ratio(a, b float64) string {
	if a == 0 || b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", a/b)
}

func dur(ns float64) string {
	d := time.Duration(ns)
	switch {
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%.1fms", float64(d)/1e6)
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2fms", float64(d)/1e6)
	default:
		return fmt.Sprintf("%.0fµs", float64(d)/1e3)
	}
}

func scenarioLabel(h *harness, sc *scenario) string {
	o := h.opts
	switch sc.id {
	case "1":
		return fmt.Sprintf("1 HTTP %dx%d", o.sessions, o.callers)
	case "2":
		return fmt.Sprintf("2 HTTP JSON %dx%d", o.sessions, o.callers)
	case "3":
		return fmt.Sprintf("3 stdio win %d", o.window)
	case "5":
		return fmt.Sprintf("5 setup x%d", o.setupWorkers)
	case "4":
		return fmt.Sprintf("4 idle %d", o.idle)
	}
	return scenarioLabel19(sc)
}

// printTable prints the one table: throughput scenarios, then the idle
// scenario's rows, then which of issue 6's targets hold.
func printTable(out io.Writer, h *harness, results map[string]map[string][]measurement, notes []string) {
	fmt.Fprintf(out, "\nMedians of %d round(s). ops = tools/call (scenarios 1-3) or initialize+initialized (5).\n", h.opts.rounds)
	fmt.Fprintln(out, "cpu = server user+sys CPU per op; ops/cpu-s = 1e6 / cpu, what one dedicated server CPU would give;")
	fmt.Fprintln(out, "util = server CPU / wall time; idle = the server's CPU idle (no request to work on) / wall time;")
	fmt.Fprintln(out, "other = the server's CPU taken by other processes or the hypervisor / wall time; lg = load generator CPU / wall time;")
	fmt.Fprintln(out, "B = bytes the server allocated per op; ÷plain = this target / plain handler;")
	fmt.Fprintln(out, "mcpkit÷ = mcpkit / this target (ops: higher is better for mcpkit; cpu and B: lower is better).")
	fmt.Fprintln(out)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-22s\t%-14s\tops/s\t±%%\tp50\tp99\tcpu µs/op\tops/cpu-s\tutil\tidle\tother\tlg\tB/op\tops÷plain\tcpu÷plain\tB÷plain\tmcpkit÷ ops\tmcpkit÷ cpu\tmcpkit÷ B\terrors\t\n", "scenario", "target")
	aggs := map[string]map[string]agg{}
	for _, sc := range h.opts.scenarios {
		aggs[sc.id] = map[string]agg{}
		for _, name := range h.opts.targets {
			if a, ok := aggregate(results[sc.id][name]); ok {
				aggs[sc.id][name] = a
			}
		}
	}
	var idle *scenario
	for _, sc := range h.opts.scenarios {
		if sc.idle {
			idle = sc
			continue
		}
		if sc.fanout || sc.redisIdle {
			continue
		}
		plain, hasPlain := aggs[sc.id]["plain"]
		mk, hasMK := aggs[sc.id]["mcpkit"]
		for _, name := range h.opts.targets {
			a, ok := aggs[sc.id][name]
			if !ok {
				continue
			}
			label := name
			t := targetByName(name)
			if sc.id == "1" && t != nil && t.SSEIsJSON {
				label += " (json)"
			}
			row := []string{fmt.Sprintf("%-22s", scenarioLabel(h, sc)), fmt.Sprintf("%-14s", label),
				fmt.Sprintf("%.0f", a.ops), fmt.Sprintf("%.1f", a.spread), dur(a.p50), dur(a.p99),
				fmt.Sprintf("%.1f", a.cpu), capacity(a.cpu), fmt.Sprintf("%.0f%%", a.util*100), percent(a.idle), percent(a.other), percent(a.lg), fmt.Sprintf("%.0f", a.bytes)}
			if hasPlain {
				row = append(row, ratio(a.ops, plain.ops), ratio(a.cpu, plain.cpu), ratio(a.bytes, plain.bytes))
			} else {
				row = append(row, "-", "-", "-")
			}
			if hasMK && name != "mcpkit" {
				row = append(row, ratio(mk.ops, a.ops), ratio(mk.cpu, a.cpu), ratio(mk.bytes, a.bytes))
			} else {
				row = append(row, "-", "-", "-")
			}
			row = append(row, fmt.Sprint(a.errors))
			fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
		}
	}
	if idle != nil {
		fmt.Fprintln(tw, "")
		fmt.Fprintf(tw, "%-18s\t%-14s\theap+stack B/session\tRSS B/session\tgoroutines/session\t\n", "scenario", "target")
		for _, name := range h.opts.targets {
			a, ok := aggs[idle.id][name]
			if !ok {
				continue
			}
			fmt.Fprintf(tw, "%-18s\t%-14s\t%.0f\t%.0f\t%.3f\t\n", scenarioLabel(h, idle), name, a.heap, a.rss, a.goroutines)
		}
	}
	tw.Flush()
	printFanout(out, h, aggs, results)
	printScaleOut(out, h, results)

	onlyScaleOut := true
	for _, sc := range h.opts.scenarios {
		onlyScaleOut = onlyScaleOut && isScaleOut(sc)
	}
	if !onlyScaleOut {
		fmt.Fprintln(out, "\nIssue 19 targets for mcpkit, from this run (throughput: median of per-round ratios; CPU and bytes: medians):")
		for _, c := range checks19(h, aggs, results) {
			fmt.Fprintln(out, "  "+c)
		}

		fmt.Fprintln(out, "\nIssue 6 targets for mcpkit, from this run. A throughput ratio is the median of the ratios")
		fmt.Fprintln(out, "measured in each round, where mcpkit and the peer ran seconds apart: a change in the machine's speed")
		fmt.Fprintln(out, "between rounds does not skew it. The ratio of the table's medians and the ratio of CPU per request follow.")
		for _, c := range checks(aggs, results) {
			fmt.Fprintln(out, "  "+c)
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(out, "\nNotes:")
		for _, n := range notes {
			fmt.Fprintln(out, "  "+n)
		}
	}
}

// pairedRatios returns mcpkit's throughput over peer's in each round that
// measured both, in round order.
func pairedRatios(results map[string]map[string][]measurement, sc, peer string) []float64 {
	byRound := map[int]float64{}
	for _, m := range results[sc][peer] {
		byRound[m.round] = m.opsPerSec
	}
	var out []float64
	for _, m := range results[sc]["mcpkit"] {
		if p, ok := byRound[m.round]; ok && p > 0 {
			out = append(out, m.opsPerSec/p)
		}
	}
	return out
}

// medianOf is the median of v (0 when empty), which it leaves unsorted.
func medianOf(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	switch {
	case len(v) == 0:
		return 0
	case len(v)%2 == 1:
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// throughputCheck is one "mcpkit >= want x peer" line: the median of the
// paired per-round ratios decides; the ratio of medians and the ratio of
// CPU per request are shown beside it.
func throughputCheck(aggs map[string]map[string]agg, results map[string]map[string][]measurement, sc, peer string) (have bool, paired float64, detail string) {
	mk, okMK := aggs[sc]["mcpkit"]
	p, ok := aggs[sc][peer]
	rounds := pairedRatios(results, sc, peer)
	if !okMK || !ok || p.ops == 0 || len(rounds) == 0 {
		return false, 0, ""
	}
	paired = medianOf(rounds)
	each := make([]string, len(rounds))
	for i, r := range rounds {
		each[i] = fmt.Sprintf("%.2f", r)
	}
	rc := 0.0
	if mk.cpu > 0 {
		rc = p.cpu / mk.cpu
	}
	return true, paired, fmt.Sprintf("%.2fx (rounds %s; ratio of medians %.2fx; per server CPU-second %.2fx)",
		paired, strings.Join(each, " "), mk.ops/p.ops, rc)
}

func checks(aggs map[string]map[string]agg, results map[string]map[string][]measurement) []string {
	var out []string
	check := func(desc string, have bool, ok bool, got string) {
		switch {
		case !have:
			out = append(out, fmt.Sprintf("[ n/a ] %s: not measured", desc))
		case ok:
			out = append(out, fmt.Sprintf("[ ok  ] %s: %s", desc, got))
		default:
			out = append(out, fmt.Sprintf("[MISS ] %s: %s", desc, got))
		}
	}
	get := func(sc, name string) (agg, bool) {
		a, ok := aggs[sc][name]
		return a, ok
	}
	for _, sc := range []string{"1", "2"} {
		mk, okMK := get(sc, "mcpkit")
		for _, peer := range []struct {
			name string
			want float64
		}{{"mcp-go", 2}, {"go-sdk", 6}} {
			have, r, detail := throughputCheck(aggs, results, sc, peer.name)
			check(fmt.Sprintf("scenario %s HTTP throughput >= %.0fx %s", sc, peer.want, peer.name), have, r >= peer.want, detail)
		}
		pl, okPL := get(sc, "plain")
		have := okMK && okPL && pl.cpu > 0 && pl.bytes > 0
		var rc, rb float64
		if have {
			rc, rb = mk.cpu/pl.cpu, mk.bytes/pl.bytes
		}
		check(fmt.Sprintf("scenario %s server CPU/request <= 1.5x plain", sc), have, rc <= 1.5, fmt.Sprintf("%.2fx (%.1f vs %.1f µs)", rc, mk.cpu, pl.cpu))
		check(fmt.Sprintf("scenario %s bytes/request <= 1.5x plain", sc), have, rb <= 1.5, fmt.Sprintf("%.2fx (%.0f vs %.0f B)", rb, mk.bytes, pl.bytes))
	}
	for _, peer := range []string{"go-sdk", "mcp-go"} {
		have, r, detail := throughputCheck(aggs, results, "3", peer)
		check("scenario 3 stdio throughput >= 2x "+peer, have, r >= 2, detail)
	}
	idle, okIdle := get("4", "mcpkit")
	check("scenario 4 idle session <= 2 KiB (heap+stack)", okIdle, idle.heap <= 2048, fmt.Sprintf("%.0f B", idle.heap))
	check("scenario 4 idle session: no goroutine", okIdle, idle.goroutines < 0.01, fmt.Sprintf("%.3f goroutines/session", idle.goroutines))
	return out
}
