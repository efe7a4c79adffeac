package load

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// CallLoad is scenario 1 and 2: Sessions sessions, each with Callers
// goroutines calling echo back to back, each goroutine on its own
// connection.
type CallLoad struct {
	sessions []Session
	conns    [][]*HTTPConn
	// ids hands out request ids per session: ids must be unique among a
	// session's requests in flight.
	ids []atomic.Int64
}

// NewCallLoad dials and initializes the sessions.
func NewCallLoad(addr string, sessions, callers int) (*CallLoad, error) {
	l := &CallLoad{ids: make([]atomic.Int64, sessions)}
	for s := range sessions {
		var row []*HTTPConn
		for range callers {
			c, err := Dial(addr)
			if err != nil {
				l.Close()
				return nil, err
			}
			row = append(row, c)
		}
		l.conns = append(l.conns, row)
		sess, err := Initialize(row[0])
		if err != nil {
			l.Close()
			return nil, fmt.Errorf("session %d: %w", s, err)
		}
		l.sessions = append(l.sessions, sess)
	}
	return l, nil
}

// Close closes every connection.
func (l *CallLoad) Close() {
	for _, row := range l.conns {
		for _, c := range row {
			c.Close()
		}
	}
}

// Run calls echo from every caller until d has passed.
func (l *CallLoad) Run(d time.Duration) Result {
	var col collector
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for s, row := range l.conns {
		for k, c := range row {
			wg.Go(func() {
				w := worker{lat: make([]time.Duration, 0, 1024)}
				prefix := []byte("s" + strconv.Itoa(s) + "c" + strconv.Itoa(k) + "-")
				var body, text []byte
				var r callReply
				var id []byte
				for seq := int64(1); ; seq++ {
					t0 := time.Now()
					if t0.After(deadline) {
						break
					}
					text = strconv.AppendInt(append(text[:0], prefix...), seq, 10)
					n := l.ids[s].Add(1)
					body = appendCall(body[:0], n, text)
					id = strconv.AppendInt(id[:0], n, 10)
					if err := l.call(c, l.sessions[s], body, id, text, &r); err != nil {
						w.fail(err)
						continue
					}
					w.lat = append(w.lat, time.Since(t0))
					w.n++
				}
				col.add(&w)
			})
		}
	}
	wg.Wait()
	col.r.Elapsed = time.Since(start)
	return col.r
}

func (l *CallLoad) call(c *HTTPConn, s Session, body, id, text []byte, r *callReply) error {
	rep, err := c.Post(body, s.ID, s.Version)
	if err != nil {
		return err
	}
	if rep.Status != 200 {
		return fmt.Errorf("tools/call: HTTP %d: %.200s", rep.Status, rep.Body)
	}
	*r = callReply{}
	if err := parseReply(rep.ContentType, rep.Body, id, r); err != nil {
		return err
	}
	return checkEcho(r, text)
}

// SetupLoad is scenario 5: workers, each on its own connection, run the
// handshake (initialize + notifications/initialized) back to back.
type SetupLoad struct {
	conns []*HTTPConn
}

// NewSetupLoad dials the workers' connections.
func NewSetupLoad(addr string, workers int) (*SetupLoad, error) {
	l := &SetupLoad{}
	for range workers {
		c, err := Dial(addr)
		if err != nil {
			l.Close()
			return nil, err
		}
		l.conns = append(l.conns, c)
	}
	return l, nil
}

// Close closes every connection.
func (l *SetupLoad) Close() {
	for _, c := range l.conns {
		c.Close()
	}
}

// Run sets sessions up until d has passed. Each operation is one
// handshake; its latency covers both round trips.
func (l *SetupLoad) Run(d time.Duration) Result {
	var col collector
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for _, c := range l.conns {
		wg.Go(func() {
			w := worker{lat: make([]time.Duration, 0, 1024)}
			for {
				t0 := time.Now()
				if t0.After(deadline) {
					break
				}
				if _, err := Initialize(c); err != nil {
					w.fail(err)
					continue
				}
				w.lat = append(w.lat, time.Since(t0))
				w.n++
			}
			col.add(&w)
		})
	}
	wg.Wait()
	col.r.Elapsed = time.Since(start)
	return col.r
}

// OpenSessions sets n sessions up on the connections (one goroutine per
// connection) and leaves them idle.
func (l *SetupLoad) OpenSessions(n int) (int, error) {
	var mu sync.Mutex
	var firstErr error
	opened := 0
	var wg sync.WaitGroup
	per := (n + len(l.conns) - 1) / len(l.conns)
	for i, c := range l.conns {
		todo := min(per, n-i*per)
		wg.Go(func() {
			for range todo {
				_, err := Initialize(c)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				if err == nil {
					opened++
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	return opened, firstErr
}
