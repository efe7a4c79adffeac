package load

import (
	"fmt"
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
	// verifiers[g][k] checks the replies on conns[g][k] against ref,
	// which is kept from one Run to the next (the warm-up learns it).
	verifiers [][]*verifier
	ref       *reference
	seq       atomic.Int64
	headers   []byte
}

// NewOpLoad dials the connections and, in the session era, initializes
// one session per group.
func NewOpLoad(addr string, op *Op, era Era, groups, callers int) (*OpLoad, error) {
	l := &OpLoad{op: op, era: era, ref: newReference(op)}
	if era == StatelessEra {
		l.headers = appendHeaders(nil, op)
	}
	for g := range groups {
		var row []*HTTPConn
		var vs []*verifier
		for range callers {
			c, err := Dial(addr)
			if err != nil {
				l.Close()
				return nil, err
			}
			row = append(row, c)
			vs = append(vs, &verifier{ref: l.ref})
		}
		l.conns = append(l.conns, row)
		l.verifiers = append(l.verifiers, vs)
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
// checked (see verifier).
func (l *OpLoad) Run(d time.Duration) Result {
	var col collector
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for g, row := range l.conns {
		for k, c := range row {
			v := l.verifiers[g][k]
			wg.Go(func() {
				w := worker{lat: make([]time.Duration, 0, 1024)}
				var body []byte
				for {
					t0 := time.Now()
					if t0.After(deadline) {
						break
					}
					seq := l.seq.Add(1)
					body = appendRequest(body[:0], l.op, l.era, seq, seq)
					if err := l.call(c, v, l.sessions[g], body, seq); err != nil {
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
	col.r.Note = l.ref.fullNote()
	return col.r
}

func (l *OpLoad) call(c *HTTPConn, v *verifier, s Session, body []byte, seq int64) error {
	rep, err := c.PostHeaders(body, s.ID, s.Version, l.headers)
	if err != nil {
		return err
	}
	if rep.Status != 200 {
		return fmt.Errorf("%s: HTTP %d: %.200s", l.op.Method, rep.Status, rep.Body)
	}
	return v.check(rep.ContentType, rep.Body, seq)
}
