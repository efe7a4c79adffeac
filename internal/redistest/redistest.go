// Package redistest gives a package's tests a Redis server and a Redis
// Cluster to run against, with no one having to start them by hand; only
// tests import it.
//
// The rule (issue 14): a test that needs Redis runs whenever `go test`
// runs, and skips only when asked to with -short. MCPKIT_REDIS_ADDR and
// MCPKIT_REDIS_CLUSTER_ADDRS, which scripts/redis.sh sets (and so
// scripts/test.sh, which shares one server among all the packages), name
// the servers to use. Without them the first test that asks starts a
// private redis-server, or a private 3-node Redis Cluster
// (https://redis.io/docs/latest/operate/oss_and_stack/management/scaling/),
// once for the whole test binary: on free 127.0.0.1 ports, with
// persistence and eviction off (an evicted key would be a session
// silently lost), in a temporary directory. [Main] stops them when the
// tests end; should the test binary die first, Linux kills them (the
// parent-death signal). Without redis-server installed such a test fails
// rather than skips: a check skipped unnoticed is worse than none.
package redistest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The environment variables naming servers started elsewhere.
const (
	addrEnv         = "MCPKIT_REDIS_ADDR"
	clusterAddrsEnv = "MCPKIT_REDIS_CLUSTER_ADDRS"
)

// The bounds of starting the servers; each is reported by name when
// reached.
const (
	// startTimeout bounds how long one redis-server may take to answer.
	startTimeout = 10 * time.Second
	// startTries is how many ports are tried for one server before giving
	// up (another process may take a free port before redis-server binds
	// it).
	startTries = 10
	// createTimeout bounds `redis-cli --cluster create`.
	createTimeout = 60 * time.Second
	// clusterOKTimeout bounds the wait for every node to report
	// cluster_state:ok after the cluster is created.
	clusterOKTimeout = 30 * time.Second
	// logTailLines is how many lines of a server's log a failure shows.
	logTailLines = 20
)

// started is the outcome of starting one deployment (the single server or
// the Cluster), kept so that every test after the first gets the same
// answer, failure included.
type started struct {
	done  bool
	addrs []string
	err   error
}

var (
	mu      sync.Mutex
	dir     string      // the servers' temporary directory; "" until one starts
	procs   []*exec.Cmd // every redis-server this binary started, to stop
	single  started
	cluster started
)

// Addr returns the address (host:port) of a Redis server for t:
// MCPKIT_REDIS_ADDR when set, else a private redis-server this test binary
// starts on first use. With -short and no MCPKIT_REDIS_ADDR it skips t.
// A package that calls it needs a TestMain calling [Main] (or [Wrap]), so
// that the server stops when the tests end.
func Addr(t testing.TB) string {
	t.Helper()
	if addr := os.Getenv(addrEnv); addr != "" {
		return addr
	}
	if testing.Short() {
		t.Skip("skipped with -short: this test needs Redis (without -short it starts a private redis-server, or uses " + addrEnv + ")")
	}
	mu.Lock()
	defer mu.Unlock()
	if !single.done {
		single.done = true
		single.addrs, single.err = startSingle()
	}
	if single.err != nil {
		t.Fatal(single.err)
	}
	return single.addrs[0]
}

// ClusterAddrs returns the seed addresses (host:port) of a Redis Cluster
// for t: MCPKIT_REDIS_CLUSTER_ADDRS (comma-separated) when set, else a
// private 3-node Cluster, without replicas, this test binary starts on
// first use. With -short and no MCPKIT_REDIS_CLUSTER_ADDRS it skips t.
// A package that calls it needs a TestMain calling [Main] (or [Wrap]).
func ClusterAddrs(t testing.TB) []string {
	t.Helper()
	if addrs := os.Getenv(clusterAddrsEnv); addrs != "" {
		return strings.Split(addrs, ",")
	}
	if testing.Short() {
		t.Skip("skipped with -short: this test needs a Redis Cluster (without -short it starts a private 3-node Cluster, or uses " + clusterAddrsEnv + ")")
	}
	mu.Lock()
	defer mu.Unlock()
	if !cluster.done {
		cluster.done = true
		cluster.addrs, cluster.err = startCluster()
	}
	if cluster.err != nil {
		t.Fatal(cluster.err)
	}
	return append([]string(nil), cluster.addrs...)
}

// Main runs the tests of a package's TestMain and stops the servers
// [Addr] and [ClusterAddrs] started, then exits with the tests' status:
//
//	func TestMain(m *testing.M) { redistest.Main(m) }
func Main(m *testing.M) {
	os.Exit(Wrap(m).Run())
}

// Wrap returns m with a Run that stops the servers [Addr] and
// [ClusterAddrs] started once the tests are done, for a TestMain that
// hands m to another wrapper, such as goleak.VerifyTestMain, which then
// checks for leaks after the servers are gone.
func Wrap(m *testing.M) interface{ Run() int } {
	return runner{m}
}

type runner struct{ m *testing.M }

func (r runner) Run() int {
	defer stop()
	return r.m.Run()
}

// stop kills every server started and removes their directory.
func stop() {
	mu.Lock()
	defer mu.Unlock()
	for _, cmd := range procs {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	procs = nil
	if dir != "" {
		_ = os.RemoveAll(dir)
		dir = ""
	}
	single, cluster = started{}, started{}
}

// lookPath finds a Redis program, or says precisely what to do without it.
func lookPath(name, env string) (string, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("redistest: %s is not installed: install Debian's redis-server (scripts/redis.sh does), set %s, or run with -short: %w", name, env, err)
	}
	return path, nil
}

// ensureDir creates the servers' temporary directory on first use.
func ensureDir() error {
	if dir != "" {
		return nil
	}
	d, err := os.MkdirTemp("", "mcpkit-redistest-")
	if err != nil {
		return fmt.Errorf("redistest: creating the servers' directory: %w", err)
	}
	dir = d
	return nil
}

// startSingle starts the private redis-server.
func startSingle() ([]string, error) {
	server, err := lookPath("redis-server", addrEnv)
	if err != nil {
		return nil, err
	}
	if err := ensureDir(); err != nil {
		return nil, err
	}
	addr, err := startServer(server, "redis", "512mb", false)
	if err != nil {
		return nil, err
	}
	return []string{addr}, nil
}

// startCluster starts three cluster-enabled redis-servers, joins them
// with `redis-cli --cluster create` and waits until every node reports
// cluster_state:ok, as scripts/redis.sh --cluster does.
func startCluster() ([]string, error) {
	server, err := lookPath("redis-server", clusterAddrsEnv)
	if err != nil {
		return nil, err
	}
	cli, err := lookPath("redis-cli", clusterAddrsEnv)
	if err != nil {
		return nil, err
	}
	if err := ensureDir(); err != nil {
		return nil, err
	}
	var addrs []string
	for range 3 {
		addr, err := startServer(server, "cluster", "256mb", true)
		if err != nil {
			return nil, err
		}
		addrs = append(addrs, addr)
	}

	ctx, cancel := context.WithTimeout(context.Background(), createTimeout)
	defer cancel()
	args := append([]string{"--cluster", "create"}, addrs...)
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	create := exec.CommandContext(ctx, cli, args...)
	create.Dir = dir
	create.SysProcAttr = sysProcAttr()
	out, err := create.CombinedOutput()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("redistest: redis-cli --cluster create %s did not finish within %v; its output:\n%s", strings.Join(addrs, " "), createTimeout, out)
	}
	if err != nil {
		return nil, fmt.Errorf("redistest: redis-cli --cluster create %s: %w; its output:\n%s", strings.Join(addrs, " "), err, out)
	}

	deadline := time.Now().Add(clusterOKTimeout)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		notOK, state := "", ""
		for _, addr := range addrs {
			info, err := command(addr, "CLUSTER", "INFO")
			if err != nil {
				notOK, state = addr, err.Error()
				break
			}
			if s := infoField(info, "cluster_state"); s != "ok" {
				notOK, state = addr, "cluster_state:"+s
				break
			}
		}
		if notOK == "" {
			return addrs, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("redistest: the Redis Cluster %s did not reach cluster_state:ok on every node within %v: %s says %s; its log ends:\n%s",
				strings.Join(addrs, ","), clusterOKTimeout, notOK, state, logTail(logPath("cluster", notOK)))
		}
		// Polling a separate process: there is nothing to wait on.
		<-tick.C
	}
}

// errPortTaken says another process holds the port a server was started
// on; startServer then tries another.
var errPortTaken = errors.New("the port is taken")

// startServer starts one redis-server on a free 127.0.0.1 port in dir,
// logging to a file of its own, and returns its address once it answers.
func startServer(server, name, maxmemory string, clustered bool) (string, error) {
	var lastErr error
	for range startTries {
		port, err := freePort(clustered)
		if err != nil {
			lastErr = err
			continue
		}
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		log := logPath(name, addr)
		args := []string{
			"--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--protected-mode", "yes",
			"--save", "", "--appendonly", "no", "--dir", dir,
			"--maxmemory", maxmemory, "--maxmemory-policy", "noeviction",
			"--daemonize", "no", "--logfile", log,
		}
		if clustered {
			args = append(args, "--cluster-enabled", "yes", "--cluster-config-file", "nodes-"+strconv.Itoa(port)+".conf")
		}
		cmd := exec.Command(server, args...)
		cmd.Dir = dir
		cmd.SysProcAttr = sysProcAttr()
		// What redis-server writes before its log is open (a bad option,
		// say) goes to its standard output or error, so to a file too: an
		// *os.File, which needs no goroutine to copy it.
		out, err := os.Create(outPath(log))
		if err != nil {
			return "", fmt.Errorf("redistest: %w", err)
		}
		cmd.Stdout, cmd.Stderr = out, out
		err = cmd.Start()
		_ = out.Close()
		if err != nil {
			return "", fmt.Errorf("redistest: starting %s: %w", server, err)
		}
		procs = append(procs, cmd)
		err = waitUp(cmd, addr, log)
		if err == nil {
			return addr, nil
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		procs = procs[:len(procs)-1]
		if !errors.Is(err, errPortTaken) {
			return "", err
		}
		lastErr = fmt.Errorf("%s: %w", addr, err)
	}
	return "", fmt.Errorf("redistest: redis-server did not start on 127.0.0.1 after %d ports: %w", startTries, lastErr)
}

// freePort returns a port in [20000, 55000) that nothing listens on now,
// as scripts/redis.sh picks them; for a cluster node, whose cluster bus
// listens on port + 10000, that port must be free too.
func freePort(clustered bool) (int, error) {
	port := 20000 + rand.IntN(35000)
	ports := []int{port}
	if clustered {
		ports = append(ports, port+10000)
	}
	for _, p := range ports {
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			return 0, fmt.Errorf("%d: %w: %w", p, errPortTaken, err)
		}
		_ = l.Close()
	}
	return port, nil
}

// waitUp waits until the server cmd started answers on addr as itself: an
// answer from another process (which took the port first) is
// errPortTaken, and so is the server's exit with "Address already in use"
// in its log.
func waitUp(cmd *exec.Cmd, addr, log string) error {
	deadline := time.Now().Add(startTimeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		info, err := command(addr, "INFO", "server")
		if err == nil {
			if pid := infoField(info, "process_id"); pid != strconv.Itoa(cmd.Process.Pid) {
				return fmt.Errorf("%w: process %s answers on %s", errPortTaken, pid, addr)
			}
			return nil
		}
		if exited(cmd.Process.Pid) {
			tail := logTail(log)
			if strings.Contains(tail, "Address already in use") {
				return fmt.Errorf("%w: redis-server says %q", errPortTaken, "Address already in use")
			}
			return fmt.Errorf("redistest: redis-server on %s exited as it started; its log ends:\n%s", addr, tail)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("redistest: redis-server on %s did not answer within %v (last: %v); its log ends:\n%s", addr, startTimeout, err, logTail(log))
		}
		// Polling a separate process: there is nothing to wait on.
		<-tick.C
	}
}

// logPath is the log file of the server named name listening on addr.
func logPath(name, addr string) string {
	_, port, _ := net.SplitHostPort(addr)
	return filepath.Join(dir, name+"-"+port+".log")
}

// outPath is the file of a server's standard output and error, beside
// its log.
func outPath(log string) string {
	return strings.TrimSuffix(log, ".log") + ".out"
}

// logTail returns the last lines of a server's log, and of its standard
// output and error when it wrote any, for a failure.
func logTail(log string) string {
	tail := lastLines(log)
	if tail == "" {
		tail = "(nothing)"
	}
	if out := lastLines(outPath(log)); out != "" {
		tail += "\nits standard output and error end:\n" + out
	}
	return tail
}

// lastLines returns the last lines of the file path, or says why not.
func lastLines(path string) string {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	if err != nil {
		return fmt.Sprintf("(%v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > logTailLines {
		lines = lines[len(lines)-logTailLines:]
	}
	return strings.Join(lines, "\n")
}

// command sends one command to the server at addr and returns its reply:
// a simple or bulk string, or an array of bulk strings joined by "\n"
// (https://redis.io/docs/latest/develop/reference/protocol-spec/).
func command(addr string, args ...string) (string, error) {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(2 * time.Second)); err != nil {
		return "", err
	}
	var req bytes.Buffer
	fmt.Fprintf(&req, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&req, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := conn.Write(req.Bytes()); err != nil {
		return "", err
	}
	r := bufio.NewReader(conn)
	reply, err := readReply(r, true)
	if err != nil {
		return "", fmt.Errorf("%s: %w", strings.Join(args, " "), err)
	}
	return reply, nil
}

// readReply reads one reply of the kinds command returns; arrays only at
// the top.
func readReply(r *bufio.Reader, top bool) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return "", errors.New("empty reply line")
	}
	n, nErr := strconv.Atoi(line[1:])
	switch line[0] {
	case '+':
		return line[1:], nil
	case '-':
		return "", errors.New(line[1:])
	case '$':
		if nErr != nil || n < 0 || n > 1<<20 {
			break
		}
		body := make([]byte, n+2)
		if _, err := io.ReadFull(r, body); err != nil {
			return "", err
		}
		return string(body[:n]), nil
	case '*':
		if !top || nErr != nil || n < 0 || n > 1024 {
			break
		}
		items := make([]string, n)
		for i := range items {
			if items[i], err = readReply(r, false); err != nil {
				return "", err
			}
		}
		return strings.Join(items, "\n"), nil
	}
	return "", fmt.Errorf("unexpected reply %q", line)
}

// infoField returns the value of field in an INFO-style reply.
func infoField(info, field string) string {
	for line := range strings.SplitSeq(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), field+":"); ok {
			return v
		}
	}
	return ""
}
