package load

import (
	"slices"
	"sync"
	"time"
)

// Result is what one timed run did. Requests counts the completed
// operations that passed every check; Errors the failed ones.
type Result struct {
	Requests int
	Errors   int
	FirstErr string
	// Note, when set, says that some replies were checked in full
	// instead of against a reference, and why (OpLoad).
	Note    string
	Elapsed time.Duration
	lat     []time.Duration
}

// Percentile returns the p-th percentile (0..100) latency.
func (r *Result) Percentile(p float64) time.Duration {
	if len(r.lat) == 0 {
		return 0
	}
	if !slices.IsSorted(r.lat) {
		slices.Sort(r.lat)
	}
	i := int(p / 100 * float64(len(r.lat)-1))
	return r.lat[i]
}

// PerSecond is the throughput.
func (r *Result) PerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Requests) / r.Elapsed.Seconds()
}

// worker is one load goroutine's private tally.
type worker struct {
	n, errs  int
	firstErr string
	lat      []time.Duration
}

func (w *worker) fail(err error) {
	w.errs++
	if w.firstErr == "" {
		w.firstErr = err.Error()
	}
}

// collector merges workers' tallies.
type collector struct {
	mu sync.Mutex
	r  Result
}

func (c *collector) add(w *worker) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.r.Requests += w.n
	c.r.Errors += w.errs
	if c.r.FirstErr == "" {
		c.r.FirstErr = w.firstErr
	}
	c.r.lat = append(c.r.lat, w.lat...)
}
