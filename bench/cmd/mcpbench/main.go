// Command mcpbench runs the same echo-tool MCP server on mcpkit, the
// official go-sdk, mark3labs/mcp-go and a plain net/http handler, drives
// each with the same load, and prints one table that compares them.
//
//	cd bench && go run ./cmd/mcpbench          # full run, under 5 minutes
//	cd bench && go run ./cmd/mcpbench -quick   # smoke run, about 30 s
//
// Every server runs in its own process (this binary, re-executed with
// "serve"), pinned with taskset to CPU 0 while the load generator runs on
// the other CPUs. See README.md for what each scenario and column means.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/bench/internal/targets"
	"github.com/mcpkit/mcpkit/mcphttp"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		os.Exit(serveMain(os.Args[2:]))
	}
	os.Exit(benchMain(os.Args[1:]))
}

// serveMain is a server process: `mcpbench serve -target T -transport http`.
func serveMain(args []string) int {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	var cfg targets.ServeConfig
	fs.StringVar(&cfg.Target, "target", "mcpkit", "target: "+strings.Join(targets.Names(), ", "))
	fs.StringVar(&cfg.Transport, "transport", "http", "http or stdio")
	jsonMode := fs.Bool("json", false, "answer HTTP requests with single JSON bodies where the target can")
	stateless := fs.Bool("stateless", false, "serve HTTP the way the target serves 2026-07-28 (go-sdk Stateless, mcp-go WithStateLess; JSON replies)")
	fs.StringVar(&cfg.CPUProfile, "cpuprofile", "", "write a CPU profile between /profile/start and /profile/stop of the debug endpoint")
	fs.StringVar(&cfg.MemProfile, "memprofile", "", "write an allocs profile at /profile/stop (and FILE.base at /profile/start)")
	fs.DurationVar(&cfg.MaxLife, "maxlife", 15*time.Minute, "exit after this long whatever happens")
	fs.BoolVar(&cfg.Defaults, "defaults", false, "serve HTTP with the library's default options (mcpkit: mcphttp defaults), as the soak does")
	fs.IntVar(&cfg.MaxSessions, "max-sessions", 0, "with -defaults: the session cap (0: the library's default, 10,000 for mcpkit)")
	fs.StringVar(&targets.RedisConfig.Addr, "redis", "", "mcpkit-redis: the redis-server's host:port (with -redis-cluster, the Cluster's seeds, comma-separated)")
	fs.BoolVar(&targets.RedisConfig.Cluster, "redis-cluster", false, "mcpkit-redis: -redis names a Redis Cluster")
	fs.StringVar(&targets.RedisConfig.Prefix, "redis-prefix", "mcpbench:", "mcpkit-redis: the prefix of every key and channel")
	fs.BoolVar(&targets.RedisConfig.Trace, "redis-trace", false, "mcpkit-redis: count Redis round trips by command and code path")
	fs.DurationVar(&targets.RedisConfig.JSONReplyWithin, "redis-json-within", 0, "mcpkit-redis: the replicas' mcphttp.Options.JSONReplyWithin")
	fs.Parse(args)
	if *jsonMode {
		cfg.Mode = targets.JSON
	}
	if *stateless {
		cfg.Mode = targets.Stateless
	}
	if err := targets.Serve(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		return 1
	}
	return 0
}

func benchMain(args []string) int {
	fs := flag.NewFlagSet("mcpbench", flag.ExitOnError)
	var o options
	quick := fs.Bool("quick", false, "smoke run: 1 round, 1 s per measurement, 500 idle sessions (about 30 s)")
	fs.IntVar(&o.rounds, "rounds", 3, "rounds; every round runs every scenario on every target, in rotated order")
	fs.DurationVar(&o.dur, "d", 2*time.Second, "measured duration of each throughput run")
	fs.DurationVar(&o.warmup, "warmup", 400*time.Millisecond, "unmeasured load before each measured run")
	fs.IntVar(&o.sessions, "sessions", 16, "scenarios 1-2: sessions")
	fs.IntVar(&o.callers, "callers", 16, "scenarios 1-2: concurrent callers per session")
	fs.IntVar(&o.window, "window", 64, "scenario 3: requests in flight on stdio")
	fs.IntVar(&o.setupWorkers, "setup-workers", 16, "scenario 5: concurrent handshakes")
	fs.IntVar(&o.idle, "idle", 2000, "scenario 4: idle sessions opened")
	targetList := fs.String("targets", strings.Join(targets.Names(), ","), "targets to run (floor, net/http with no JSON work, only when named)")
	fs.DurationVar(&o.pdur, "pd", time.Second, "measured duration of each realistic-payload run (scenarios 8x, 9x)")
	fs.DurationVar(&o.pwarmup, "pwarmup", 200*time.Millisecond, "warm-up of each realistic-payload run")
	fs.IntVar(&o.prounds, "prounds", 2, "scenarios 8x, 9x: rounds (the first N of -rounds)")
	fs.IntVar(&o.psessions, "psessions", 4, "scenarios 8x, 9x: sessions (connection groups in the 2026 era)")
	fs.IntVar(&o.pcallers, "pcallers", 4, "scenarios 8x, 9x: concurrent callers per session")
	fs.IntVar(&o.fanout, "fanout", 10000, "scenarios 10, 11: subscribers")
	fs.IntVar(&o.fanoutSlow, "fanout-slow", 100, "scenarios 10, 11: subscribers that never read (among -fanout)")
	fs.IntVar(&o.fanoutFlood, "fanout-flood", 2000, "scenarios 10, 11: notifications sent to the slow subscribers before the measured waves")
	fs.StringVar(&o.fanoutProfile, "fanout-profile", "", "scenarios 10, 11: write CPU and allocs profiles of the server over the measured waves to this directory")
	fs.IntVar(&o.fanoutWaves, "fanout-waves", 5, "scenarios 10, 11: measured notifications")
	fs.IntVar(&o.redisIdle, "redis-idle", 1000, "scenario 14i: idle sessions opened on the Redis replicas")
	fs.BoolVar(&o.redisCluster, "redis-cluster", false, "scenarios 14x: run mcpkit-redis on the Redis Cluster of MCPKIT_REDIS_CLUSTER_ADDRS (scripts/redis.sh --cluster)")
	fs.BoolVar(&o.redisTrace, "redis-trace", false, "scenarios 14r, 14s: count the replicas' Redis round trips by command and code path (costs server CPU)")
	fs.DurationVar(&o.redisJSONWithin, "redis-json-within", 5*time.Millisecond, "scenarios 14x: mcphttp.Options.JSONReplyWithin of the mcpkit-redis replicas (0: SSE replies from the start, the library's default)")
	scenarioList := fs.String("scenarios", "1,2,3,4,5,6,7,8,9,10,11", "scenarios to run (8 and 9: every payload row of the era, or one of 8n,8t,8b,8l,8p, 9n...)")
	fs.BoolVar(&o.noPin, "nopin", false, "do not pin server and load generator to different CPUs")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of this process, the load generator (not the servers: see -profile), to this file")
	fs.StringVar(&o.profileDir, "profile", "", "instead of the table: profile the mcpkit server under scenario 1 for -d and write cpu.pprof and allocs.pprof to this directory")
	fs.StringVar(&o.profileTarget, "profile-target", "mcpkit", "with -profile: the target whose server is profiled (mcpkit, plain, floor...), to compare what net/http does for each")
	var so soakOptions
	fs.DurationVar(&so.d, "soak", 0, "instead of the table: soak the mcpkit HTTP server (mcphttp defaults) for this long under well-behaved and abusive clients (see README.md, Soak)")
	fs.IntVar(&so.sessions, "soak-sessions", mcphttp.DefaultMaxSessions, "soak: sessions opened, the abusers' included (above 10,000 the server's cap is raised to match)")
	fs.IntVar(&so.callers, "soak-callers", 1000, "soak: concurrent well-behaved callers")
	fs.IntVar(&so.abusers, "soak-abusers", 20, "soak: abusive clients of each kind")
	fs.DurationVar(&so.every, "soak-every", 10*time.Second, "soak: interval of the progress lines")
	fs.DurationVar(&so.pause, "soak-pause", 25*time.Millisecond, "soak: pause between two attempts of an abandoning or malformed abuser")
	fs.IntVar(&so.batch, "soak-batch", 2000, "soak: elements of an abusive 2025-03-26 batch")
	fs.Parse(args)
	if *quick {
		o.rounds, o.dur, o.warmup, o.idle = 1, time.Second, 200*time.Millisecond, 500
		o.pdur, o.pwarmup, o.fanout, o.fanoutWaves = 500*time.Millisecond, 100*time.Millisecond, 1000, 3
	}
	o.targets = strings.Split(*targetList, ",")
	targetsSet := false
	fs.Visit(func(f *flag.Flag) { targetsSet = targetsSet || f.Name == "targets" })
	for _, t := range o.targets {
		if _, err := targets.Get(t); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
	}
	scs, err := expandScenarios(*scenarioList)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	o.scenarios = scs
	if !targetsSet {
		// The scale-out scenarios bring their opt-in targets along.
		for _, sc := range scs {
			if isScaleOut(sc) {
				o.targets = append(o.targets, "mcpkit-proxy", "mcpkit-redis")
				break
			}
		}
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "cpuprofile:", err)
			return 1
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
			fmt.Fprintf(os.Stderr, "load generator's CPU profile: go tool pprof -top %s\n", *cpuProfile)
		}()
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	h := &harness{opts: o, self: self}
	h.pin()
	if so.d > 0 {
		so.setupWorkers = o.setupWorkers
		return h.soak(so)
	}
	if o.profileDir != "" {
		if err := h.profile(); err != nil {
			fmt.Fprintln(os.Stderr, "profile:", err)
			return 1
		}
		return 0
	}
	h.run()
	return 0
}
