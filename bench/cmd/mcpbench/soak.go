package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/bench/internal/load"
	"github.com/mcpkit/mcpkit/bench/internal/targets"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// soakOptions sizes a soak (the -soak* flags).
type soakOptions struct {
	d            time.Duration // how long the load runs
	sessions     int           // all sessions: well-behaved and the abusers'
	callers      int           // concurrent well-behaved callers
	abusers      int           // abusive clients of each kind
	every        time.Duration // between two progress lines
	pause        time.Duration // abandon and malformed abusers: between attempts
	batch        int           // elements of an abusive batch
	setupWorkers int           // concurrent handshakes while opening sessions
}

// soak runs the mcpkit target's HTTP server with mcphttp's defaults under
// well-behaved and abusive clients for o.d, printing the server's footprint
// and the callers' tallies every o.every, then a summary and a verdict. It
// returns the exit code: 0 when the run was flat and no well-behaved call
// failed.
func (h *harness) soak(o soakOptions) int {
	fmt.Printf("mcpbench soak: %v; mcpkit HTTP server with mcphttp defaults; %s; %s; load average %s\n",
		o.d, h.pinNote, runtime.Version(), loadAvg())
	extra := []string{"-defaults", "-maxlife", (o.d + 10*time.Minute).String()}
	if o.sessions > mcphttp.DefaultMaxSessions {
		// The cap is mcphttp's default unless more sessions are asked for.
		extra = append(extra, "-max-sessions", strconv.Itoa(o.sessions))
	}
	s, err := h.startServer("mcpkit", "http", targets.SSE, extra...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 1
	}
	defer s.stop()
	statsClient := &http.Client{Timeout: 5 * time.Second}
	defer statsClient.CloseIdleConnections()
	sample := func(at time.Duration) (soakSample, *int) {
		smp := soakSample{at: at, goroutines: -1}
		smp.rss, _ = s.rss()
		var st targets.Stats
		resp, err := statsClient.Get("http://" + s.debug + "/stats")
		if err == nil {
			if json.NewDecoder(resp.Body).Decode(&st) == nil {
				smp.goroutines = st.Goroutines
			}
			resp.Body.Close()
		}
		return smp, st.Sessions
	}

	t0 := time.Now()
	abusers, err := load.NewAbusers(s.listen, o.abusers, o.pause, o.batch)
	if err != nil {
		fmt.Fprintf(os.Stderr, "soak: opening the abusers' sessions: %v (server: %s)\n", err, s.exitReport())
		return 1
	}
	wellN := o.sessions - abusers.Sessions()
	if wellN < 1 {
		fmt.Fprintf(os.Stderr, "soak: -soak-sessions %d leaves no session for the well-behaved callers (the abusers hold %d)\n",
			o.sessions, abusers.Sessions())
		return 2
	}
	sessions, err := load.OpenSessions(s.listen, wellN, o.setupWorkers)
	if err != nil {
		fmt.Fprintf(os.Stderr, "soak: opening the sessions: %v (server: %s)\n", err, s.exitReport())
		return 1
	}
	smp, live := sample(0)
	fmt.Printf("setup: %d well-behaved sessions + %d held by abusers (%d of each of %d kinds) opened in %.1fs; server RSS %s, %d goroutines, %s live sessions\n",
		wellN, abusers.Sessions(), o.abusers, len(load.AbuseSessionKinds), time.Since(t0).Seconds(),
		mib(smp.rss), smp.goroutines, optInt(live))
	fmt.Printf("load: %d well-behaved callers (tools/call echo, sessions round-robin, every reply checked); abusers, %d of each kind: %s (batches of %d)\n",
		o.callers, o.abusers, strings.Join(load.AbuseKinds, ", "), o.batch)
	fmt.Printf("%8s %10s %10s %9s %8s %9s %7s %9s %9s %9s\n",
		"elapsed", "rss", "goroutines", "sessions", "ok/s", "ok", "errors", "p50", "p99", "abuse-ops")

	callers := load.NewSoakCallers(s.listen, sessions, o.callers)
	ctx, cancel := context.WithTimeout(context.Background(), o.d)
	defer cancel()
	start := time.Now()
	srvCPU0, _ := s.cpu()
	genCPU0, _ := procCPU(os.Getpid())
	callersDone, abusersDone := make(chan struct{}), make(chan struct{})
	go func() { callers.Run(ctx); close(callersDone) }()
	go func() { abusers.Run(ctx); close(abusersDone) }()

	var (
		samples          []soakSample
		all              []uint32 // every well-behaved latency, µs
		totalOK, totalEr int
		lastLine         = start
		nextLine         = o.every // since start
		lastAbuse        int
		maxRSS           soakSample
		maxG             soakSample
		died             bool
	)
	// line prints the interval since the previous line; the final one only
	// when the interval is not empty.
	line := func(now time.Time, smp soakSample, live *int, final bool) {
		iv := callers.Drain()
		totalOK += iv.OK
		totalEr += iv.Errors
		for _, l := range iv.Latencies {
			all = append(all, uint32(min(l.Microseconds(), 1<<32-1)))
		}
		slices.Sort(iv.Latencies)
		abuse := sumTally(abusers.Tally())
		if final && iv.OK+iv.Errors == 0 {
			return
		}
		secs := now.Sub(lastLine).Seconds()
		fmt.Printf("%8s %10s %10d %9s %8.0f %9d %7d %9s %9s %9d\n",
			now.Sub(start).Round(time.Second), mib(smp.rss), smp.goroutines, optInt(live),
			float64(iv.OK)/secs, iv.OK, iv.Errors, pct(iv.Latencies, 50), pct(iv.Latencies, 99), abuse-lastAbuse)
		lastLine, lastAbuse = now, abuse
	}
	record := func(smp soakSample) {
		samples = append(samples, smp)
		if smp.rss > maxRSS.rss {
			maxRSS = smp
		}
		if smp.goroutines > maxG.goroutines {
			maxG = smp
		}
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
loop:
	for {
		select {
		case <-ctx.Done():
			// The line at the end of the load; the calls still in flight
			// are on the last line, once they are answered.
			smp, live := sample(time.Since(start))
			record(smp)
			if time.Since(lastLine) >= time.Second { // not just printed on schedule
				line(time.Now(), smp, live, false)
			}
			break loop
		case <-s.done:
			died = true
			cancel()
			break loop
		case now := <-tick.C:
			smp, live := sample(now.Sub(start))
			record(smp)
			// Lines keep to the schedule (every, 2*every, ...) even when
			// a slow /stats made the ticker drop ticks.
			if now.Sub(start) >= nextLine-time.Second/2 {
				line(now, smp, live, false)
				for nextLine-time.Second/2 <= now.Sub(start) {
					nextLine += o.every
				}
			}
		}
	}
	<-callersDone
	<-abusersDone
	srvCPU, _ := s.cpu()
	genCPU, _ := procCPU(os.Getpid())
	select {
	case <-s.done:
		died = true
	default:
	}
	end, live := sample(time.Since(start))
	line(time.Now(), end, live, true) // calls answered after the end, if any

	// Summary.
	slices.Sort(all)
	elapsed := time.Since(start)
	fmt.Printf("\nsummary: %v of load; %d well-behaved sessions, %d callers; %d abusers of each of %d kinds\n",
		elapsed.Round(time.Second), wellN, o.callers, o.abusers, len(load.AbuseKinds))
	fmt.Printf("well-behaved: %d calls ok (%.0f/s), %d failed; p50 %s, p99 %s, max %s over the run\n",
		totalOK, float64(totalOK)/elapsed.Seconds(), totalEr, pctU(all, 50), pctU(all, 99), pctU(all, 100))
	fmt.Printf("server: max RSS %s (at %v), max goroutines %d (at %v); after the load: RSS %s, %d goroutines, %s live sessions\n",
		mib(maxRSS.rss), maxRSS.at.Round(time.Second), maxG.goroutines, maxG.at.Round(time.Second),
		mib(end.rss), end.goroutines, optInt(live))
	fmt.Printf("cpu: server %.0f%% of one CPU, load generator %.0f%% (of %d CPUs it may use)\n",
		100*(srvCPU-srvCPU0).Seconds()/elapsed.Seconds(), 100*(genCPU-genCPU0).Seconds()/elapsed.Seconds(), runtime.GOMAXPROCS(0))
	v := judgeSoak(samples, o.d)
	if v.first.n > 0 && v.last.n > 0 {
		fmt.Printf("drift, first %v vs last %v (max of each): RSS %s -> %s (%+.1f%%), goroutines %d -> %d (%+.1f%%)\n",
			v.w, v.w, mib(v.first.rss), mib(v.last.rss), 100*growth(float64(v.first.rss), float64(v.last.rss)),
			v.first.goroutines, v.last.goroutines, 100*growth(float64(v.first.goroutines), float64(v.last.goroutines)))
	}
	fmt.Printf("flatness, [%v,%v) vs [%v,%v] (max of each): RSS %s -> %s (%+.1f%%, bound +%.0f%%), goroutines %d -> %d (%+.1f%%, bound +%.0f%%)\n",
		v.ref.from, v.ref.to, v.last.from, o.d, mib(v.ref.rss), mib(v.last.rss), 100*v.rssGrowth, 100*flatRSSGrowth,
		v.ref.goroutines, v.last.goroutines, 100*v.gGrowth, 100*flatGoroutineGrowth)
	tally := abusers.Tally()
	for _, kind := range load.AbuseKinds {
		fmt.Printf("abuser %-13s %s\n", kind, formatTally(tally[kind]))
	}
	errs := callers.Errors()
	for _, msg := range slices.Sorted(maps.Keys(errs)) {
		fmt.Printf("well-behaved error x%d: %s\n", errs[msg], msg)
	}
	code := 0
	if died {
		fmt.Printf("server exited during the soak: %s\n", s.exitReport())
		code = 1
	}
	if v.flat {
		fmt.Println("soak: flat")
	} else {
		fmt.Printf("soak: NOT flat (%s)\n", v.why)
		code = 1
	}
	fmt.Printf("well-behaved errors: %d\n", totalEr)
	if totalEr > 0 {
		code = 1
	}
	return code
}

func mib(b int64) string { return fmt.Sprintf("%.1fMiB", float64(b)/(1<<20)) }

func optInt(p *int) string {
	if p == nil {
		return "?"
	}
	return strconv.Itoa(*p)
}

// pct is the p-th percentile of sorted latencies.
func pct(sorted []time.Duration, p float64) string {
	if len(sorted) == 0 {
		return "-"
	}
	return fmtDur(sorted[int(p/100*float64(len(sorted)-1))])
}

// pctU is the p-th percentile of sorted latencies in µs.
func pctU(sorted []uint32, p float64) string {
	if len(sorted) == 0 {
		return "-"
	}
	return fmtDur(time.Duration(sorted[int(p/100*float64(len(sorted)-1))]) * time.Microsecond)
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	default:
		return d.Round(time.Microsecond).String()
	}
}

func sumTally(t map[string]map[string]int) int {
	n := 0
	for _, m := range t {
		for _, c := range m {
			n += c
		}
	}
	return n
}

func formatTally(m map[string]int) string {
	if len(m) == 0 {
		return "nothing"
	}
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s x%d", k, m[k])
	}
	return strings.Join(parts, ", ")
}
