package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpkit/mcpkit/bench/internal/targets"
)

// server is one server process under test.
type server struct {
	cmd    *exec.Cmd
	pid    int
	stdin  io.WriteCloser
	stdout io.ReadCloser
	listen string // host:port of /mcp (HTTP only)
	debug  string // host:port of the debug endpoint
	client *http.Client

	mu       sync.Mutex
	tail     []string // the last stderr lines that were not addresses
	done     chan struct{}
	stopOnce sync.Once
}

// startServer starts `self serve ...`, pinned to the server CPU when
// pinning is on, and waits for it to print its addresses.
func (h *harness) startServer(target, transport string, mode targets.HTTPMode, extra ...string) (*server, error) {
	args := []string{"serve", "-target", target, "-transport", transport}
	switch mode {
	case targets.JSON:
		args = append(args, "-json")
	case targets.Stateless:
		args = append(args, "-stateless")
	}
	args = append(args, extra...)
	var cmd *exec.Cmd
	if h.serverCPU != "" {
		// taskset execs the program, so cmd's pid is the server's.
		cmd = exec.Command("taskset", append([]string{"-c", h.serverCPU, h.self}, args...)...)
	} else {
		cmd = exec.Command(h.self, args...)
	}
	s := &server{cmd: cmd, done: make(chan struct{})}
	var err error
	if s.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if s.stdout, err = cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s.pid = cmd.Process.Pid
	addrs := make(chan [2]string, 4)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, targets.ListenPrefix):
				addrs <- [2]string{"listen", strings.TrimPrefix(line, targets.ListenPrefix)}
			case strings.HasPrefix(line, targets.DebugPrefix):
				addrs <- [2]string{"debug", strings.TrimPrefix(line, targets.DebugPrefix)}
			default:
				s.mu.Lock()
				s.tail = append(s.tail, line)
				if len(s.tail) > 20 {
					s.tail = s.tail[1:]
				}
				s.mu.Unlock()
			}
		}
		close(s.done)
	}()
	timeout := time.After(20 * time.Second)
	for s.debug == "" || (transport == "http" && s.listen == "") {
		select {
		case a := <-addrs:
			if a[0] == "listen" {
				s.listen = a[1]
			} else {
				s.debug = a[1]
			}
		case <-s.done:
			s.stop()
			return nil, fmt.Errorf("%s %s exited early: %s", target, transport, s.stderrTail())
		case <-timeout:
			s.stop()
			return nil, fmt.Errorf("%s %s did not start", target, transport)
		}
	}
	s.client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	return s, nil
}

func (s *server) stderrTail() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.tail, " | ")
}

// exitReport waits briefly for a failed server to end and says how it
// ended, with its last stderr lines.
func (s *server) exitReport() string {
	select {
	case <-s.done:
	case <-time.After(2 * time.Second):
		return "still running; stderr: " + s.stderrTail()
	}
	s.stop()
	return fmt.Sprintf("%v; stderr: %s", s.cmd.ProcessState, s.stderrTail())
}

// stop ends the server: EOF on stdin, then SIGKILL if it lingers.
func (s *server) stop() {
	s.stopOnce.Do(s.doStop)
}

func (s *server) doStop() {
	s.stdin.Close()
	exited := make(chan struct{})
	go func() {
		s.cmd.Wait()
		close(exited)
	}()
	select {
	case <-exited:
	case <-time.After(3 * time.Second):
		s.cmd.Process.Kill()
		<-exited
	}
	if s.client != nil {
		s.client.CloseIdleConnections()
	}
}

// stats reads the server's runtime stats; with gc, after garbage
// collection and returning freed memory to the OS.
func (s *server) stats(gc bool) (targets.Stats, error) {
	url := "http://" + s.debug + "/stats"
	if gc {
		url += "?gc=1"
	}
	var st targets.Stats
	resp, err := s.client.Get(url)
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	return st, json.NewDecoder(resp.Body).Decode(&st)
}

func (s *server) call(path string) error {
	resp, err := s.client.Get("http://" + s.debug + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return fmt.Errorf("%s: %s", path, body)
	}
	return nil
}

// clockTick is USER_HZ, the unit of utime and stime in /proc/PID/stat.
var clockTick = func() float64 {
	out, err := exec.Command("getconf", "CLK_TCK").Output()
	if err == nil {
		if v, err := strconv.Atoi(strings.TrimSpace(string(out))); err == nil && v > 0 {
			return float64(v)
		}
	}
	return 100
}()

// cpu returns the server's user+system CPU time from /proc/PID/stat.
func (s *server) cpu() (time.Duration, error) { return procCPU(s.pid) }

// cpuTimes returns how long CPU cpu (e.g. "0") has been idle (idle and
// iowait) and busy (user, nice, system, irq, softirq and steal: steal is
// the hypervisor's) since boot, from /proc/stat.
func cpuTimes(cpu string) (idle, busy time.Duration, err error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 9 || f[0] != "cpu"+cpu {
			continue
		}
		var t [8]float64
		for i := range t {
			if t[i], err = strconv.ParseFloat(f[i+1], 64); err != nil {
				return 0, 0, fmt.Errorf("malformed /proc/stat: %w", err)
			}
		}
		tick := func(v float64) time.Duration { return time.Duration(v / clockTick * float64(time.Second)) }
		return tick(t[3] + t[4]), tick(t[0] + t[1] + t[2] + t[5] + t[6] + t[7]), nil
	}
	return 0, 0, fmt.Errorf("no cpu%s in /proc/stat", cpu)
}

// selfCPU is this process's (the load generator's) user+system CPU time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procCPU returns process pid's user+system CPU time from /proc/PID/stat.
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces; fields after ')' are
	// fixed: state is field 3, utime 14 and stime 15.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("malformed /proc/PID/stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, errors.New("short /proc/PID/stat")
	}
	ut, err1 := strconv.ParseFloat(f[11], 64)
	st, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return 0, errors.New("malformed utime/stime in /proc/PID/stat")
	}
	return time.Duration((ut + st) / clockTick * float64(time.Second)), nil
}

// rss returns the server's resident set size in bytes (VmRSS).
func (s *server) rss() (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(s.pid) + "/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(v)
			if len(f) == 2 && f[1] == "kB" {
				n, err := strconv.ParseInt(f[0], 10, 64)
				return n * 1024, err
			}
		}
	}
	return 0, errors.New("no VmRSS in /proc/PID/status")
}
