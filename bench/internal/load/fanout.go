package load

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpkit/mcpkit/bench/internal/targets"
)

// FanoutLoad is the fan-out scenarios: N subscribers of one resource,
// each with its own open stream on its own connection, reading every
// notification as it comes. In the session era a subscriber is a session
// (initialize, resources/subscribe, then the GET stream); in the
// stateless era it is a subscriptions/listen request whose SSE response
// stays open. Slow subscribers (the first Slow of them) never read their
// stream, and also subscribe to a second resource that the server floods,
// so that their connections are full when the measured notification is
// sent.
type FanoutLoad struct {
	addr string
	era  Era
	subs []*subscriber
	slow int
	ctrl []*HTTPConn
	wave atomic.Int64 // wave number being counted
	got  atomic.Int64 // fast subscribers that saw the current wave
	cur  atomic.Pointer[waveEnd]
	mu   sync.Mutex
	last time.Time // the last fast subscriber's receipt in the current wave
}

// waveEnd is closed when every fast subscriber saw the current wave.
type waveEnd struct {
	done chan struct{}
	once sync.Once
}

type subscriber struct {
	c    net.Conn
	slow bool
	seen int64 // waves seen (reader goroutine only)
}

// NewFanoutLoad opens n subscribers (slow of them slow) with workers
// connections doing the set-up.
func NewFanoutLoad(addr string, era Era, n, slow, workers int) (*FanoutLoad, error) {
	l := &FanoutLoad{addr: addr, era: era, slow: slow}
	l.cur.Store(&waveEnd{done: make(chan struct{})})
	for range workers {
		c, err := Dial(addr)
		if err != nil {
			l.Close()
			return nil, err
		}
		l.ctrl = append(l.ctrl, c)
	}
	l.subs = make([]*subscriber, n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	next := atomic.Int64{}
	for _, c := range l.ctrl {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				s, err := l.open(c, i < slow)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("subscriber %d: %w", i, err)
					}
					mu.Unlock()
					next.Store(int64(n))
					return
				}
				l.subs[i] = s
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		l.Close()
		return nil, firstErr
	}
	return l, nil
}

func (l *FanoutLoad) uris(slow bool) []string {
	if slow {
		return []string{targets.FanoutURI, targets.FloodURI}
	}
	return []string{targets.FanoutURI}
}

// dialStream dials a stream's connection; a slow subscriber's receive
// buffer is made small, so that the server's writes to it back up soon.
func dialStream(addr string, slow bool) (net.Conn, error) {
	d := net.Dialer{}
	if slow {
		d.Control = func(_, _ string, rc syscall.RawConn) error {
			var serr error
			err := rc.Control(func(fd uintptr) {
				serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
			})
			return errors.Join(err, serr)
		}
	}
	return d.Dial("tcp", addr)
}

func (l *FanoutLoad) open(ctrl *HTTPConn, slow bool) (*subscriber, error) {
	var req []byte
	if l.era == SessionEra {
		sess, err := Initialize(ctrl)
		if err != nil {
			return nil, err
		}
		for _, uri := range l.uris(slow) {
			body := []byte(`{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"` + uri + `"}}`)
			rep, err := ctrl.Post(body, sess.ID, sess.Version)
			if err != nil {
				return nil, err
			}
			var r rawReply
			if rep.Status != 200 {
				return nil, fmt.Errorf("resources/subscribe: HTTP %d: %.200s", rep.Status, rep.Body)
			}
			if err := parseRaw(rep.ContentType, rep.Body, []byte("1"), &r); err != nil {
				return nil, err
			}
			if r.Error != nil {
				return nil, fmt.Errorf("resources/subscribe: %w", r.Error)
			}
		}
		req = []byte("GET /mcp HTTP/1.1\r\nHost: " + l.addr + "\r\nAccept: text/event-stream\r\nMcp-Session-Id: " +
			sess.ID + "\r\nMcp-Protocol-Version: " + sess.Version + "\r\n\r\n")
	} else {
		var filter []byte
		for i, uri := range l.uris(slow) {
			if i > 0 {
				filter = append(filter, ',')
			}
			filter = strconv.AppendQuote(filter, uri)
		}
		body := `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{` + modernMeta +
			`,"notifications":{"resourceSubscriptions":[` + string(filter) + `]}}}`
		req = []byte("POST /mcp HTTP/1.1\r\nHost: " + l.addr + "\r\nAccept: application/json, text/event-stream\r\n" +
			"Content-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\nMCP-Protocol-Version: " +
			ModernVersion + "\r\nMcp-Method: subscriptions/listen\r\n\r\n" + body)
	}
	c, err := dialStream(l.addr, slow)
	if err != nil {
		return nil, err
	}
	c.SetDeadline(time.Now().Add(RequestTimeout))
	if _, err := c.Write(req); err != nil {
		c.Close()
		return nil, err
	}
	br := bufio.NewReaderSize(c, 4096)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("stream: %w", err)
	}
	if resp.StatusCode != 200 || !bytes.HasPrefix([]byte(resp.Header.Get("Content-Type")), []byte("text/event-stream")) {
		c.Close()
		return nil, fmt.Errorf("stream: HTTP %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	body := bufio.NewReaderSize(resp.Body, 4096)
	if l.era == StatelessEra {
		// The stream is live once it is acknowledged.
		for {
			line, err := body.ReadSlice('\n')
			if err != nil {
				c.Close()
				return nil, fmt.Errorf("listen: no acknowledgement: %w", err)
			}
			if bytes.Contains(line, []byte("notifications/subscriptions/acknowledged")) {
				break
			}
		}
	}
	c.SetDeadline(time.Time{})
	s := &subscriber{c: c, slow: slow}
	if !slow {
		go l.read(s, body)
	}
	return s, nil
}

var fanoutMark = []byte(`"` + targets.FanoutURI + `"`)

// read counts the notifications about FanoutURI on a fast subscriber's
// stream.
func (l *FanoutLoad) read(s *subscriber, body *bufio.Reader) {
	for {
		line, err := body.ReadSlice('\n')
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
		if !bytes.HasPrefix(line, []byte("data:")) || !bytes.Contains(line, []byte("notifications/resources/updated")) ||
			!bytes.Contains(line, fanoutMark) {
			continue
		}
		now := time.Now()
		s.seen++
		if s.seen != l.wave.Load() {
			continue
		}
		l.mu.Lock()
		if now.After(l.last) {
			l.last = now
		}
		l.mu.Unlock()
		if l.got.Add(1) == int64(len(l.subs)-l.slow) {
			e := l.cur.Load()
			e.once.Do(func() { close(e.done) })
		}
	}
}

// Wave runs one notification: trigger must make the server notify
// FanoutURI's subscribers once. It returns the time from the call of
// trigger to the last fast subscriber's receipt, and how many fast
// subscribers got it within timeout.
func (l *FanoutLoad) Wave(trigger func() error, timeout time.Duration) (time.Duration, int, error) {
	l.got.Store(0)
	end := &waveEnd{done: make(chan struct{})}
	l.cur.Store(end)
	l.mu.Lock()
	l.last = time.Time{}
	l.mu.Unlock()
	l.wave.Add(1)
	start := time.Now()
	if err := trigger(); err != nil {
		return 0, 0, err
	}
	select {
	case <-end.done:
	case <-time.After(timeout):
	}
	l.mu.Lock()
	last := l.last
	l.mu.Unlock()
	got := int(l.got.Load())
	if got < len(l.subs)-l.slow {
		return last.Sub(start), got, fmt.Errorf("%d of %d subscribers notified within %v", got, len(l.subs)-l.slow, timeout)
	}
	return last.Sub(start), got, nil
}

// Close closes every connection.
func (l *FanoutLoad) Close() {
	for _, s := range l.subs {
		if s != nil {
			s.c.Close()
		}
	}
	for _, c := range l.ctrl {
		c.Close()
	}
}
