package redistest

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { Main(m) }

// fakeTB records what Fatal or Skip says and ends the calling goroutine,
// as testing.T does, so that a test can check a failure without failing.
type fakeTB struct {
	testing.TB
	fatal, skip string
}

func (*fakeTB) Helper() {}

func (f *fakeTB) Fatal(args ...any) {
	f.fatal = fmt.Sprint(args...)
	runtime.Goexit()
}

func (f *fakeTB) Skip(args ...any) {
	f.skip = fmt.Sprint(args...)
	runtime.Goexit()
}

// onGoroutine runs f on a goroutine of its own, whose runtime.Goexit ends
// only it, and waits for it.
func onGoroutine(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	<-done
}

// setShort sets the -short flag to value for the rest of t.
func setShort(t *testing.T, value string) {
	t.Helper()
	short := flag.Lookup("test.short")
	was := short.Value.String()
	if err := short.Value.Set(value); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = short.Value.Set(was) })
}

// lastProc returns the server started last.
func lastProc(t *testing.T) *exec.Cmd {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if len(procs) == 0 {
		t.Fatal("no server was started")
	}
	return procs[len(procs)-1]
}

// With no MCPKIT_REDIS_ADDR, Addr starts one private server, configured
// as scripts/redis.sh configures its, returns it to every caller, and
// stop kills it and removes its directory.
func TestAddrStartsAPrivateServer(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	t.Setenv(addrEnv, "")
	stop()
	defer stop()

	addr := Addr(t)
	if again := Addr(t); again != addr {
		t.Fatalf("second Addr = %q, want the first, %q", again, addr)
	}
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("Addr = %q, want 127.0.0.1:port", addr)
	}
	cmd := lastProc(t)
	info, err := command(addr, "INFO", "server")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := infoField(info, "process_id"), fmt.Sprint(cmd.Process.Pid); got != want {
		t.Fatalf("process_id = %s, want the started server's, %s", got, want)
	}
	for param, want := range map[string]string{
		"maxmemory-policy": "noeviction",
		"appendonly":       "no",
		"save":             "",
		"bind":             "127.0.0.1",
		"maxmemory":        "536870912",
		"cluster-enabled":  "no",
	} {
		got, err := command(addr, "CONFIG", "GET", param)
		if err != nil {
			t.Fatal(err)
		}
		if got != param+"\n"+want {
			t.Errorf("CONFIG GET %s = %q, want %q", param, got, param+"\n"+want)
		}
	}
	mu.Lock()
	d := dir
	mu.Unlock()

	stop()
	if cmd.ProcessState == nil {
		t.Fatal("stop did not wait for the server")
	}
	if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stat %s after stop: %v, want it removed", d, err)
	}
	if _, err := command(addr, "PING"); err == nil {
		t.Fatalf("%s still answers after stop", addr)
	}
}

// With no MCPKIT_REDIS_CLUSTER_ADDRS, ClusterAddrs starts a private
// 3-node Cluster, every node of which serves a third of the slots and
// reports cluster_state:ok.
func TestClusterAddrsStartsAPrivateCluster(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	t.Setenv(clusterAddrsEnv, "")
	stop()
	defer stop()

	addrs := ClusterAddrs(t)
	if len(addrs) != 3 {
		t.Fatalf("ClusterAddrs = %q, want 3 addresses", addrs)
	}
	if again := ClusterAddrs(t); strings.Join(again, ",") != strings.Join(addrs, ",") {
		t.Fatalf("second ClusterAddrs = %q, want the first, %q", again, addrs)
	}
	for _, addr := range addrs {
		info, err := command(addr, "CLUSTER", "INFO")
		if err != nil {
			t.Fatal(err)
		}
		for field, want := range map[string]string{
			"cluster_state":          "ok",
			"cluster_known_nodes":    "3",
			"cluster_size":           "3",
			"cluster_slots_assigned": "16384",
		} {
			if got := infoField(info, field); got != want {
				t.Errorf("%s: %s = %q, want %q", addr, field, got, want)
			}
		}
	}
}

// The environment variables win: nothing starts.
func TestEnvironmentNamesTheServers(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	t.Setenv(addrEnv, "127.0.0.1:1")
	t.Setenv(clusterAddrsEnv, "127.0.0.1:2,127.0.0.1:3")
	t.Setenv("PATH", t.TempDir())
	stop()

	if got := Addr(t); got != "127.0.0.1:1" {
		t.Errorf("Addr = %q, want MCPKIT_REDIS_ADDR's", got)
	}
	if got := ClusterAddrs(t); strings.Join(got, " ") != "127.0.0.1:2 127.0.0.1:3" {
		t.Errorf("ClusterAddrs = %q, want MCPKIT_REDIS_CLUSTER_ADDRS's", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(procs) != 0 || dir != "" {
		t.Errorf("started %d servers in %q, want none", len(procs), dir)
	}
}

// Without redis-server on PATH the test fails, saying what to do; it does
// not skip.
func TestNotInstalledFails(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	t.Setenv(addrEnv, "")
	t.Setenv(clusterAddrsEnv, "")
	t.Setenv("PATH", t.TempDir())
	setShort(t, "false")
	stop()
	defer stop()

	for _, c := range []struct {
		call func(testing.TB)
		want string
	}{
		{func(tb testing.TB) { Addr(tb) }, "redistest: redis-server is not installed: install Debian's redis-server (scripts/redis.sh does), set MCPKIT_REDIS_ADDR, or run with -short: "},
		{func(tb testing.TB) { ClusterAddrs(tb) }, "redistest: redis-server is not installed: install Debian's redis-server (scripts/redis.sh does), set MCPKIT_REDIS_CLUSTER_ADDRS, or run with -short: "},
	} {
		// Twice: the second call gets the first's answer.
		for range 2 {
			tb := &fakeTB{}
			onGoroutine(func() { c.call(tb) })
			if !strings.HasPrefix(tb.fatal, c.want) || tb.skip != "" {
				t.Errorf("Fatal(%q), Skip(%q); want Fatal starting %q", tb.fatal, tb.skip, c.want)
			}
		}
	}
}

// With -short and no environment, Addr and ClusterAddrs skip, naming
// -short, and start nothing.
func TestShortSkips(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	t.Setenv(addrEnv, "")
	t.Setenv(clusterAddrsEnv, "")
	stop()
	setShort(t, "true")

	for _, call := range []func(testing.TB){
		func(tb testing.TB) { Addr(tb) },
		func(tb testing.TB) { ClusterAddrs(tb) },
	} {
		tb := &fakeTB{}
		onGoroutine(func() { call(tb) })
		if !strings.HasPrefix(tb.skip, "skipped with -short: ") || tb.fatal != "" {
			t.Errorf("Skip(%q), Fatal(%q); want Skip naming -short", tb.skip, tb.fatal)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(procs) != 0 || dir != "" {
		t.Errorf("started %d servers in %q, want none", len(procs), dir)
	}
}
