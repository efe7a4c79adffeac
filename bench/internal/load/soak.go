package load

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Brief is err's message without the addresses and ports that make every
// occurrence distinct, for tallies: "read tcp 127.0.0.1:5001->127.0.0.1:80:
// i/o timeout" is "read: i/o timeout (after 10s)".
func Brief(err error) string {
	var ne net.Error
	timeout := errors.As(err, &ne) && ne.Timeout()
	msg := addrRE.ReplaceAllString(err.Error(), ": ")
	if timeout {
		msg += " (after " + RequestTimeout.String() + ")"
	}
	return msg
}

// addrRE matches the " tcp A->B: " of a net.OpError's message.
var addrRE = regexp.MustCompile(` tcp \S+: `)

// OpenSessions sets n sessions up with workers concurrent handshakes (each
// worker on its own connection) and returns them, all with the load
// generator's protocol version.
func OpenSessions(addr string, n, workers int) ([]Session, error) {
	return openSessions(addr, n, workers, initializeBody)
}

func openSessions(addr string, n, workers int, body []byte) ([]Session, error) {
	out := make([]Session, n)
	var next atomic.Int64
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			c, err := Dial(addr)
			if err != nil {
				mu.Lock()
				firstErr = err
				mu.Unlock()
				return
			}
			defer c.Close()
			for {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				s, err := initialize(c, body)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("session %d: %w", i, err)
					}
					mu.Unlock()
					next.Store(int64(n)) // stop the others
					return
				}
				out[i] = s
			}
		})
	}
	wg.Wait()
	return out, firstErr
}

// SoakCallers are the soak's well-behaved clients: callers goroutines, each
// on its own keep-alive connection, calling echo back to back on sessions
// picked round-robin, and checking every reply exactly.
type SoakCallers struct {
	addr     string
	sessions []Session
	rr       atomic.Uint64 // next session, round-robin
	ids      atomic.Int64  // request ids, unique across sessions
	callers  []*soakCaller
	errMu    sync.Mutex
	errs     map[string]int // distinct error messages (at most maxErrKinds)
}

const maxErrKinds = 20

type soakCaller struct {
	mu  sync.Mutex
	ok  int
	bad int
	lat []time.Duration
}

// NewSoakCallers prepares n callers over sessions.
func NewSoakCallers(addr string, sessions []Session, n int) *SoakCallers {
	l := &SoakCallers{addr: addr, sessions: sessions, errs: map[string]int{}}
	for range n {
		l.callers = append(l.callers, &soakCaller{lat: make([]time.Duration, 0, 256)})
	}
	return l
}

// Run calls until ctx ends; a call in flight is finished (at most
// RequestTimeout) and counted, none is begun after. It returns when every
// caller has stopped.
func (l *SoakCallers) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for k, w := range l.callers {
		wg.Go(func() { l.caller(ctx, k, w) })
	}
	wg.Wait()
}

func (l *SoakCallers) caller(ctx context.Context, k int, w *soakCaller) {
	c := &HTTPConn{addr: l.addr}
	defer c.Close()
	prefix := []byte("c" + strconv.Itoa(k) + "-")
	var body, text, id []byte
	var r callReply
	for seq := int64(1); ctx.Err() == nil; seq++ {
		s := l.sessions[l.rr.Add(1)%uint64(len(l.sessions))]
		n := l.ids.Add(1)
		text = strconv.AppendInt(append(text[:0], prefix...), seq, 10)
		body = appendCall(body[:0], n, text)
		id = strconv.AppendInt(id[:0], n, 10)
		t0 := time.Now()
		err := l.call(c, s, body, id, text, &r)
		d := time.Since(t0)
		w.mu.Lock()
		if err != nil {
			w.bad++
		} else {
			w.ok++
			w.lat = append(w.lat, d)
		}
		w.mu.Unlock()
		if err != nil {
			l.noteErr(err)
		}
	}
}

func (l *SoakCallers) call(c *HTTPConn, s Session, body, id, text []byte, r *callReply) error {
	rep, err := c.Post(body, s.ID, s.Version)
	if err != nil {
		return err
	}
	if rep.Status != http.StatusOK {
		return fmt.Errorf("tools/call: HTTP %d: %.200s", rep.Status, rep.Body)
	}
	*r = callReply{}
	if err := parseReply(rep.ContentType, rep.Body, id, r); err != nil {
		return err
	}
	return checkEcho(r, text)
}

func (l *SoakCallers) noteErr(err error) {
	msg := Brief(err)
	if len(msg) > 160 {
		msg = msg[:160]
	}
	l.errMu.Lock()
	defer l.errMu.Unlock()
	if _, ok := l.errs[msg]; ok || len(l.errs) < maxErrKinds {
		l.errs[msg]++
	} else {
		l.errs["(other errors)"]++
	}
}

// Errors returns the distinct error messages seen so far and their counts.
func (l *SoakCallers) Errors() map[string]int {
	l.errMu.Lock()
	defer l.errMu.Unlock()
	m := make(map[string]int, len(l.errs))
	for k, v := range l.errs {
		m[k] = v
	}
	return m
}

// An Interval is what the callers did since the previous Drain.
type Interval struct {
	OK, Errors int
	Latencies  []time.Duration // of the successful calls, unsorted
}

// Drain returns and resets the callers' tallies.
func (l *SoakCallers) Drain() Interval {
	var iv Interval
	for _, w := range l.callers {
		w.mu.Lock()
		iv.OK += w.ok
		iv.Errors += w.bad
		iv.Latencies = append(iv.Latencies, w.lat...)
		w.ok, w.bad, w.lat = 0, 0, w.lat[:0]
		w.mu.Unlock()
	}
	return iv
}

// Abuse kinds, in the order they are reported.
const (
	AbuseGETUnread  = "get-unread"
	AbuseTrickle    = "trickle"
	AbuseBatch      = "batch"
	AbuseAbandon    = "abandon"
	AbuseIdle       = "idle-session"
	AbuseMalformed  = "malformed"
	trickleBodySize = 4 << 20
)

// AbuseKinds lists the kinds of abusive client.
var AbuseKinds = []string{AbuseGETUnread, AbuseTrickle, AbuseBatch, AbuseAbandon, AbuseIdle, AbuseMalformed}

// AbuseSessionKinds are the kinds that hold a session of their own each.
var AbuseSessionKinds = []string{AbuseGETUnread, AbuseBatch, AbuseAbandon, AbuseIdle, AbuseMalformed}

// Abusers are the soak's hostile and careless clients, n of each kind.
// Their outcomes are tallied per kind and outcome ("HTTP 400", "closed by
// server", ...); none of them is a failure of the run.
type Abusers struct {
	addr   string
	n      int
	pause  time.Duration
	batchN int

	sessions map[string][]Session

	mu    sync.Mutex
	tally map[string]map[string]int
}

// NewAbusers opens the sessions the abusers hold: n per kind in
// AbuseSessionKinds (the batch kind's on protocol version 2025-03-26, the
// only one with batches). pause is the wait between two attempts of the
// abandon and malformed kinds; batchN the elements of a batch.
func NewAbusers(addr string, n int, pause time.Duration, batchN int) (*Abusers, error) {
	a := &Abusers{addr: addr, n: n, pause: pause, batchN: batchN,
		sessions: map[string][]Session{}, tally: map[string]map[string]int{}}
	for _, kind := range AbuseSessionKinds {
		body := initializeBody
		if kind == AbuseBatch {
			body = initializeBody20250326
		}
		ss, err := openSessions(addr, n, 4, body)
		if err != nil {
			return nil, fmt.Errorf("%s sessions: %w", kind, err)
		}
		a.sessions[kind] = ss
	}
	return a, nil
}

// Sessions reports how many sessions the abusers hold.
func (a *Abusers) Sessions() int { return a.n * len(AbuseSessionKinds) }

var initializeBody20250326 = []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26",` +
	`"capabilities":{},"clientInfo":{"name":"mcpbench-batch","version":"1"}}}`)

func (a *Abusers) count(kind, outcome string) {
	if len(outcome) > 80 {
		outcome = outcome[:80]
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	m := a.tally[kind]
	if m == nil {
		m = map[string]int{}
		a.tally[kind] = m
	}
	if _, ok := m[outcome]; ok || len(m) < maxErrKinds {
		m[outcome]++
	} else {
		m["(other)"]++
	}
}

// Tally returns, per kind, the count of each outcome so far.
func (a *Abusers) Tally() map[string]map[string]int {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := map[string]map[string]int{}
	for k, m := range a.tally {
		c := map[string]int{}
		for o, n := range m {
			c[o] = n
		}
		out[k] = c
	}
	return out
}

// Run runs every abuser until ctx ends and returns once all have stopped
// and closed their connections. The idle-session kind does nothing: its
// sessions were opened by NewAbusers and are never used.
func (a *Abusers) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for i := range a.n {
		wg.Go(func() { a.getUnread(ctx, a.sessions[AbuseGETUnread][i]) })
		wg.Go(func() { a.trickle(ctx) })
		wg.Go(func() { a.batch(ctx, a.sessions[AbuseBatch][i]) })
		wg.Go(func() { a.abandon(ctx, a.sessions[AbuseAbandon][i]) })
		wg.Go(func() { a.malformed(ctx, i, a.sessions[AbuseMalformed][i]) })
	}
	for range a.n {
		a.count(AbuseIdle, "held unused")
	}
	wg.Wait()
}

// dialCtx dials addr and arranges for the connection to be closed when ctx
// ends, so that an abuser blocked on it returns.
func dialCtx(ctx context.Context, addr string) (net.Conn, func(), error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	stop := context.AfterFunc(ctx, func() { c.Close() })
	return c, func() { stop(); c.Close() }, nil
}

// wait pauses for d or until ctx ends; it reports whether ctx is still live.
func wait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func requestHead(method, addr string, s Session, accept string, contentLength int) []byte {
	b := []byte(method + " /mcp HTTP/1.1\r\nHost: " + addr + "\r\nAccept: " + accept + "\r\n")
	if contentLength >= 0 {
		b = append(b, "Content-Type: application/json\r\nContent-Length: "+strconv.Itoa(contentLength)+"\r\n"...)
	}
	if s.ID != "" {
		b = append(b, "Mcp-Session-Id: "+s.ID+"\r\nMcp-Protocol-Version: "+s.Version+"\r\n"...)
	}
	return append(b, "\r\n"...)
}

// getUnread opens the session's GET stream and never reads from it. If the
// server closes it (seen only as a failed write of the next attempt), it
// opens another after a pause.
func (a *Abusers) getUnread(ctx context.Context, s Session) {
	for ctx.Err() == nil {
		c, closeConn, err := dialCtx(ctx, a.addr)
		if err != nil {
			a.count(AbuseGETUnread, "dial: "+Brief(err))
			if !wait(ctx, time.Second) {
				return
			}
			continue
		}
		_, err = c.Write(requestHead("GET", a.addr, s, "text/event-stream", -1))
		if err != nil {
			closeConn()
			a.count(AbuseGETUnread, "write: "+Brief(err))
			continue
		}
		a.count(AbuseGETUnread, "stream opened")
		<-ctx.Done()
		closeConn()
	}
}

// trickle sends a POST announcing a 4 MiB body and writes it one byte
// every 100 ms, reading whatever the server answers meanwhile. When the
// server answers or closes the connection it starts again.
func (a *Abusers) trickle(ctx context.Context) {
	for ctx.Err() == nil {
		c, closeConn, err := dialCtx(ctx, a.addr)
		if err != nil {
			a.count(AbuseTrickle, "dial: "+Brief(err))
			if !wait(ctx, time.Second) {
				return
			}
			continue
		}
		answer := make(chan string, 1)
		go func() {
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				answer <- ""
				return
			}
			resp.Body.Close()
			answer <- "HTTP " + strconv.Itoa(resp.StatusCode)
			c.Close() // ends the writer below
		}()
		head := requestHead("POST", a.addr, Session{}, "application/json, text/event-stream", trickleBodySize)
		body := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`
		_, err = c.Write(head)
		for i := 0; err == nil && ctx.Err() == nil; i++ {
			ch := byte('a')
			if i < len(body) {
				ch = body[i]
			}
			c.SetWriteDeadline(time.Now().Add(RequestTimeout))
			_, err = c.Write([]byte{ch})
			if err == nil && !wait(ctx, 100*time.Millisecond) {
				break
			}
		}
		closeConn()
		got := <-answer
		switch {
		case ctx.Err() != nil && got == "":
			a.count(AbuseTrickle, "still trickling at the end")
			return
		case got != "":
			a.count(AbuseTrickle, got+" before the body was sent")
		default:
			a.count(AbuseTrickle, "closed by the server without an answer")
		}
		if !wait(ctx, a.pause) {
			return
		}
	}
}

// batch posts batches of batchN tools/call requests back to back on a
// 2025-03-26 session and reads each reply whole.
func (a *Abusers) batch(ctx context.Context, s Session) {
	// A batch in flight at the end is finished (at most RequestTimeout).
	c := &HTTPConn{addr: a.addr}
	defer c.Close()
	var body []byte
	id := int64(1)
	for ctx.Err() == nil {
		body = append(body[:0], '[')
		for j := range a.batchN {
			if j > 0 {
				body = append(body, ',')
			}
			body = appendCall(body, id, []byte("b"+strconv.FormatInt(id, 10)))
			id++
		}
		body = append(body, ']')
		rep, err := c.Post(body, s.ID, s.Version)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			a.count(AbuseBatch, "error: "+Brief(err))
			if !wait(ctx, a.pause) {
				return
			}
		default:
			a.count(AbuseBatch, "HTTP "+strconv.Itoa(rep.Status))
		}
	}
}

// abandon posts a tools/call on a fresh connection and closes the
// connection (with a reset, so no TIME_WAIT piles up) right after the
// request is written, before the response.
func (a *Abusers) abandon(ctx context.Context, s Session) {
	id := int64(1)
	for ctx.Err() == nil {
		c, closeConn, err := dialCtx(ctx, a.addr)
		if err != nil {
			a.count(AbuseAbandon, "dial: "+Brief(err))
		} else {
			body := appendCall(nil, id, []byte("abandoned"))
			id++
			req := append(requestHead("POST", a.addr, s, "application/json, text/event-stream", len(body)), body...)
			if _, err := c.Write(req); err != nil {
				a.count(AbuseAbandon, "write: "+Brief(err))
			} else {
				a.count(AbuseAbandon, "abandoned")
			}
			if tc, ok := c.(*net.TCPConn); ok {
				tc.SetLinger(0)
			}
			closeConn()
		}
		if !wait(ctx, a.pause) {
			return
		}
	}
}

// malformedBodies are the bodies the malformed kind cycles through.
var malformedBodies = func() [][]byte {
	deep := make([]byte, 0, 20002)
	for range 10000 {
		deep = append(deep, '[')
	}
	deepObj := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`)
	for range 10000 {
		deepObj = append(deepObj, `{"a":`...)
	}
	return [][]byte{
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`),
		[]byte(`not json at all`),
		[]byte(``),
		[]byte(`[]`),
		[]byte(`{"jsonrpc":"1.0","id":1,"method":"ping"}`),
		[]byte(`{"jsonrpc":"2.0","id":{},"method":1}`),
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":5}}}`),
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope","arguments":{}}}`),
		[]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\x00\xff\xfe\"}"),
		[]byte(`{"jsonrpc":"2.0","id":1,"id":2,"method":"ping","method":"initialize"}`),
		deep,
		deepObj,
	}
}()

// malformed posts malformed bodies back to back (with a pause), on its
// session, with no session and with an unknown one, on one keep-alive
// connection (re-dialled when the server closes it).
func (a *Abusers) malformed(ctx context.Context, i int, s Session) {
	c := &HTTPConn{addr: a.addr}
	defer c.Close()
	sessions := []Session{s, {}, {ID: "no-such-session", Version: ProtocolVersion}}
	for k := i; ctx.Err() == nil; k++ {
		body := malformedBodies[k%len(malformedBodies)]
		ss := sessions[k%len(sessions)]
		rep, err := c.Post(body, ss.ID, ss.Version)
		if err != nil {
			a.count(AbuseMalformed, "error: "+Brief(err))
		} else {
			a.count(AbuseMalformed, "HTTP "+strconv.Itoa(rep.Status))
		}
		if !wait(ctx, a.pause) {
			return
		}
	}
}
