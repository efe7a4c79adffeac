package targets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Stats is what a server process reports on its debug endpoint.
type Stats struct {
	TotalAlloc uint64 `json:"totalAlloc"`
	Mallocs    uint64 `json:"mallocs"`
	HeapAlloc  uint64 `json:"heapAlloc"`
	HeapInuse  uint64 `json:"heapInuse"`
	StackInuse uint64 `json:"stackInuse"`
	Sys        uint64 `json:"sys"`
	NumGC      uint32 `json:"numGC"`
	Goroutines int    `json:"goroutines"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	// CPUMicros is the process's user+system CPU time from getrusage,
	// in µs: finer than /proc/PID/stat's clock ticks, for short events
	// such as one fan-out.
	CPUMicros int64 `json:"cpuMicros"`
	// Sessions is the live session count of a handler that reports one
	// (mcpkit's mcphttp.Handler.SessionCount); nil for the others and
	// for stdio.
	Sessions *int `json:"sessions,omitempty"`
	// Redis is what the replicas of a scale-out target asked of Redis;
	// nil for the others.
	Redis *RedisCalls `json:"redis,omitempty"`
}

// Lines a server process writes to stderr for the harness.
const (
	ListenPrefix = "mcpbench-listen "
	DebugPrefix  = "mcpbench-debug "
)

// ServeConfig says what a server process serves.
type ServeConfig struct {
	Target    string
	Transport string // "http" or "stdio"
	Mode      HTTPMode
	// CPUProfile and MemProfile are files written between the debug
	// endpoint's /profile/start and /profile/stop (or the process's end).
	// MemProfile gets the allocs profile, and MemProfile+".base" the one at
	// start, for `go tool pprof -base`.
	CPUProfile string
	MemProfile string
	// MaxLife ends the process after this long whatever happens, so a
	// server left behind by a crashed harness stops by itself.
	MaxLife time.Duration
	// Defaults serves HTTP with the library's default options instead of
	// the benchmarks' (the soak); only targets with HTTPDefaults have it.
	// MaxSessions is then the session cap (0: the library's default).
	Defaults    bool
	MaxSessions int
}

// Serve runs one server process. It returns when stdin reaches EOF (the
// harness closed it or died), on SIGTERM/SIGINT, or after MaxLife.
func Serve(cfg ServeConfig) error {
	t, err := Get(cfg.Target)
	if err != nil {
		return err
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	if cfg.MaxLife > 0 {
		var c2 context.CancelFunc
		ctx, c2 = context.WithTimeout(ctx, cfg.MaxLife)
		defer c2()
	}

	prof := &profiler{cpu: cfg.CPUProfile, mem: cfg.MemProfile}
	defer prof.stop()
	dln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	var sessions atomic.Pointer[func() int]
	dsrv := &http.Server{Handler: debugHandler(prof, &sessions)}
	go dsrv.Serve(dln)
	defer dsrv.Close()
	fmt.Fprintf(os.Stderr, "%s%s\n", DebugPrefix, dln.Addr())

	switch cfg.Transport {
	case "stdio":
		done := make(chan error, 1)
		go func() { done <- t.Stdio(ctx) }()
		select {
		case err = <-done:
		case <-ctx.Done():
		}
		return err
	case "http":
		if t.HTTP == nil {
			return fmt.Errorf("target %s has no HTTP transport yet", t.Name)
		}
		var h http.Handler
		if cfg.Defaults {
			if t.HTTPDefaults == nil {
				return fmt.Errorf("target %s has no -defaults mode", t.Name)
			}
			h, err = t.HTTPDefaults(cfg.MaxSessions)
		} else {
			h, err = t.HTTP(cfg.Mode)
		}
		if err != nil {
			return err
		}
		if sc, ok := h.(interface{ SessionCount() int }); ok {
			f := sc.SessionCount
			sessions.Store(&f)
		}
		mux := http.NewServeMux()
		mux.Handle("/mcp", h)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		srv := &http.Server{Handler: mux}
		go srv.Serve(ln)
		defer srv.Close()
		fmt.Fprintf(os.Stderr, "%s%s\n", ListenPrefix, ln.Addr())
		eof := make(chan struct{})
		go func() {
			io.Copy(io.Discard, os.Stdin)
			close(eof)
		}()
		select {
		case <-eof:
		case <-ctx.Done():
		}
		return nil
	default:
		return fmt.Errorf("unknown transport %q", cfg.Transport)
	}
}

func debugHandler(prof *profiler, sessions *atomic.Pointer[func() int]) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/stats", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("gc") != "" {
			// Twice, so that sync.Pool victims go too, then return freed
			// memory to the OS so that RSS means something.
			runtime.GC()
			runtime.GC()
			debug.FreeOSMemory()
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		st := Stats{
			TotalAlloc: ms.TotalAlloc, Mallocs: ms.Mallocs, HeapAlloc: ms.HeapAlloc,
			HeapInuse: ms.HeapInuse, StackInuse: ms.StackInuse, Sys: ms.Sys, NumGC: ms.NumGC,
			Goroutines: runtime.NumGoroutine(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		}
		var ru syscall.Rusage
		if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
			st.CPUMicros = ru.Utime.Sec*1e6 + int64(ru.Utime.Usec) + ru.Stime.Sec*1e6 + int64(ru.Stime.Usec)
		}
		st.Redis = RedisCallsNow()
		if f := sessions.Load(); f != nil {
			n := (*f)()
			st.Sessions = &n
		}
		json.NewEncoder(w).Encode(st)
	})
	// /notify?uri=U&n=N tells the subscribers of U that it changed, N
	// times (the target's ResourceUpdated), and answers when the calls
	// have returned: the fan-out scenarios' trigger.
	mux.HandleFunc("/notify", func(w http.ResponseWriter, r *http.Request) {
		f := Notifier.Load()
		if f == nil {
			http.Error(w, "this target has no fan-out hook", http.StatusNotImplemented)
			return
		}
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		uri := r.URL.Query().Get("uri")
		var failed int
		var firstErr error
		for range max(n, 1) {
			if err := (*f)(r.Context(), uri); err != nil {
				failed++
				if firstErr == nil {
					firstErr = err
				}
			}
		}
		// Failed calls (a subscriber whose queue is full) are normal
		// for the flood; the count is reported, the first error too.
		fmt.Fprintf(w, "failed %d", failed)
		if firstErr != nil {
			msg := firstErr.Error()
			if len(msg) > 300 {
				msg = msg[:300]
			}
			fmt.Fprintf(w, ": %s", msg)
		}
	})
	mux.HandleFunc("/profile/start", func(w http.ResponseWriter, r *http.Request) {
		if err := prof.start(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	mux.HandleFunc("/profile/stop", func(w http.ResponseWriter, r *http.Request) {
		if err := prof.stop(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	return mux
}

type profiler struct {
	cpu, mem string

	mu      sync.Mutex
	cpuFile *os.File
	running bool
}

func (p *profiler) start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.running {
		return errors.New("profile already running")
	}
	if p.mem != "" {
		if err := writeProfile("allocs", p.mem+".base"); err != nil {
			return err
		}
	}
	if p.cpu != "" {
		f, err := os.Create(p.cpu)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return err
		}
		p.cpuFile = f
	}
	p.running = true
	return nil
}

func (p *profiler) stop() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.running {
		return nil
	}
	p.running = false
	var err error
	if p.cpuFile != nil {
		pprof.StopCPUProfile()
		err = p.cpuFile.Close()
		p.cpuFile = nil
	}
	if p.mem != "" {
		if werr := writeProfile("allocs", p.mem); err == nil {
			err = werr
		}
	}
	return err
}

func writeProfile(name, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup(name).WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
