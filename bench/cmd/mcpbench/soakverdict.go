package main

import (
	"fmt"
	"math"
	"time"
)

// soakSample is the server's footprint at one instant of a soak.
type soakSample struct {
	at         time.Duration // since the load began
	rss        int64         // bytes
	goroutines int           // -1 when /stats did not answer
}

// windowMax is the largest RSS and goroutine count sampled in [from, to).
type windowMax struct {
	from, to   time.Duration
	n          int // samples in the window
	rss        int64
	goroutines int
}

func maxIn(samples []soakSample, from, to time.Duration) windowMax {
	w := windowMax{from: from, to: to}
	for _, s := range samples {
		if s.at < from || s.at >= to {
			continue
		}
		w.n++
		w.rss = max(w.rss, s.rss)
		w.goroutines = max(w.goroutines, s.goroutines)
	}
	return w
}

// Flatness bounds: the last window's maxima may exceed the reference
// window's by at most these fractions.
const (
	flatRSSGrowth       = 0.20
	flatGoroutineGrowth = 0.10
)

// soakVerdict says whether the server's footprint stayed flat.
//
// The run is cut into windows of w = min(1 minute, d/3 in whole seconds): the first window
// is warm-up (sessions, connections and pools filling), the second is the
// reference, and the last, [d-w, d] (samples are taken while the load
// runs), is compared with it. The run is flat
// when the last window's maximum RSS is at most 20% above the reference
// window's and its maximum goroutine count at most 10% above. Only growth
// counts: a fall (the runtime returning memory to the OS) is not a leak.
// For a 5-minute soak this is minute 5 against minute 2.
type soakVerdict struct {
	w                  time.Duration
	first, ref, last   windowMax
	rssGrowth, gGrowth float64 // last vs ref, as fractions
	flat               bool
	why                string // what is not flat, or why no verdict
}

func judgeSoak(samples []soakSample, d time.Duration) soakVerdict {
	w := min(time.Minute, (d / 3).Truncate(time.Second))
	v := soakVerdict{w: w}
	v.first = maxIn(samples, 0, w)
	v.ref = maxIn(samples, w, 2*w)
	v.last = maxIn(samples, d-w, math.MaxInt64) // the sample at the end is often just after d
	switch {
	case w <= 0 || v.ref.n == 0 || v.last.n == 0:
		v.why = "too few samples to judge"
		return v
	case v.ref.rss <= 0 || v.ref.goroutines <= 0:
		v.why = "no RSS or goroutine count in the reference window"
		return v
	}
	v.rssGrowth = growth(float64(v.ref.rss), float64(v.last.rss))
	v.gGrowth = growth(float64(v.ref.goroutines), float64(v.last.goroutines))
	v.flat = true
	if v.rssGrowth > flatRSSGrowth {
		v.flat = false
		v.why = fmt.Sprintf("RSS grew %+.1f%% (bound +%.0f%%)", 100*v.rssGrowth, 100*flatRSSGrowth)
	}
	if v.gGrowth > flatGoroutineGrowth {
		v.flat = false
		if v.why != "" {
			v.why += "; "
		}
		v.why += fmt.Sprintf("goroutines grew %+.1f%% (bound +%.0f%%)", 100*v.gGrowth, 100*flatGoroutineGrowth)
	}
	return v
}

// growth is (b-a)/a.
func growth(a, b float64) float64 {
	if a == 0 {
		return 0
	}
	return (b - a) / a
}
