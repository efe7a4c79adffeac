package load

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// OpLoad is the realistic-payload and 2026-07-28 scenarios: Groups ×
// Callers goroutines, each on its own connection, sending one Op back to
// back in one era. In the session era each group is one session.
type OpLoad struct {
	op       *Op
	era      Era
	sessions []Session
	conns    [][]*HTTPConn
	seq      atomic.Int64
	headers  []byte
}

// NewOpLoad dials the connections and, in the session era, initializes
// one session per group.
func NewOpLoad(addr string, op *Op, era Era, groups, callers int) (*OpLoad, error) {
	l := &OpLoad{op: op, era: era}
	if era == StatelessEra {
		l.headers = appendHeaders(nil, op)
	}
	for g := range groups {
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
		sess := Session{Version: ModernVersion}
		if era == SessionEra {
			var err error
			if sess, err = Initialize(row[0]); err != nil {
				l.Close()
				return nil, fmt.Errorf("session %d: %w", g, err)
			}
		}
		l.sessions = append(l.sessions, sess)
	}
	return l, nil
}

// Close closes every connection.
func (l *OpLoad) Close() {
	for _, row := range l.conns {
		for _, c := range row {
			c.Close()
		}
	}
}

// Run sends the op from every caller until d has passed; every reply is
// checked.
func (l *OpLoad) Run(d time.Duration) Result {
	var col collector
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for g, row := range l.conns {
		for _, c := range row {
			wg.Go(func() {
				w := worker{lat: make([]time.Duration, 0, 1024)}
				var body, id []byte
				var r rawReply
				for {
					t0 := time.Now()
					if t0.After(deadline) {
						break
					}
					seq := l.seq.Add(1)
					body = appendRequest(body[:0], l.op, l.era, seq, seq)
					id = strconv.AppendInt(id[:0], seq, 10)
					if err := l.call(c, l.sessions[g], body, id, seq, &r); err != nil {
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

func (l *OpLoad) call(c *HTTPConn, s Session, body, id []byte, seq int64, r *rawReply) error {
	rep, err := c.PostHeaders(body, s.ID, s.Version, l.headers)
	if err != nil {
		return err
	}
	if rep.Status != 200 {
		return fmt.Errorf("%s: HTTP %d: %.200s", l.op.Method, rep.Status, rep.Body)
	}
	*r = rawReply{}
	if err := parseRaw(rep.ContentType, rep.Body, id, r); err != nil {
		return err
	}
	return checkRaw(r, l.op, seq)
}
