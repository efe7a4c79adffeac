package main

import (
	"testing"
	"time"
)

// ramp returns one sample a second over d, with RSS and goroutines given
// by f.
func ramp(d time.Duration, f func(at time.Duration) (int64, int)) []soakSample {
	var out []soakSample
	for at := time.Duration(0); at < d; at += time.Second {
		rss, g := f(at)
		out = append(out, soakSample{at: at, rss: rss, goroutines: g})
	}
	return out
}

func TestJudgeSoak(t *testing.T) {
	const mib = 1 << 20
	d := 5 * time.Minute
	cases := []struct {
		name string
		f    func(at time.Duration) (int64, int)
		flat bool
		why  string
	}{
		{"steady after warm-up", func(at time.Duration) (int64, int) {
			if at < time.Minute {
				return 40 * mib, 500 // warm-up: not compared
			}
			return 100 * mib, 2000
		}, true, ""},
		{"RSS +20% exactly", func(at time.Duration) (int64, int) {
			if at >= 4*time.Minute {
				return 120 * mib, 2000
			}
			return 100 * mib, 2000
		}, true, ""},
		{"RSS +25%", func(at time.Duration) (int64, int) {
			if at >= 4*time.Minute {
				return 125 * mib, 2000
			}
			return 100 * mib, 2000
		}, false, "RSS grew +25.0% (bound +20%)"},
		{"goroutines +11%", func(at time.Duration) (int64, int) {
			if at >= 4*time.Minute {
				return 100 * mib, 2220
			}
			return 100 * mib, 2000
		}, false, "goroutines grew +11.0% (bound +10%)"},
		{"both grow linearly", func(at time.Duration) (int64, int) {
			return int64(at/time.Second) * mib, 1000 + int(at/time.Second)*10
		}, false, "RSS grew +151.3% (bound +20%); goroutines grew +82.2% (bound +10%)"},
		{"a fall is flat", func(at time.Duration) (int64, int) {
			if at >= 4*time.Minute {
				return 50 * mib, 1000
			}
			return 100 * mib, 2000
		}, true, ""},
		{"a spike before the last minute is not compared", func(at time.Duration) (int64, int) {
			if at >= 3*time.Minute && at < 3*time.Minute+10*time.Second {
				return 300 * mib, 9000
			}
			return 100 * mib, 2000
		}, true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := judgeSoak(ramp(d, c.f), d)
			if v.flat != c.flat || v.why != c.why {
				t.Errorf("flat %v why %q, want flat %v why %q", v.flat, v.why, c.flat, c.why)
			}
			if v.w != time.Minute || v.ref.from != time.Minute || v.last.from != 4*time.Minute {
				t.Errorf("windows: w %v ref from %v last from %v, want 1m, 1m, 4m", v.w, v.ref.from, v.last.from)
			}
		})
	}
}

func TestJudgeSoakShortRun(t *testing.T) {
	d := 30 * time.Second
	v := judgeSoak(ramp(d, func(time.Duration) (int64, int) { return 1 << 20, 10 }), d)
	if !v.flat || v.w != 10*time.Second || v.ref.n != 10 || v.last.n != 10 {
		t.Errorf("flat %v w %v ref.n %d last.n %d, want true 10s 10 10", v.flat, v.w, v.ref.n, v.last.n)
	}
	// The sample taken as the load ends, just after d, is in the last window.
	v = judgeSoak(append(ramp(d, func(time.Duration) (int64, int) { return 1 << 20, 10 }),
		soakSample{at: d + 3*time.Millisecond, rss: 2 << 20, goroutines: 10}), d)
	if v.flat || v.last.rss != 2<<20 || v.why != "RSS grew +100.0% (bound +20%)" {
		t.Errorf("end sample: flat %v last.rss %d why %q", v.flat, v.last.rss, v.why)
	}
	v = judgeSoak(nil, d)
	if v.flat || v.why != "too few samples to judge" {
		t.Errorf("no samples: flat %v why %q", v.flat, v.why)
	}
	v = judgeSoak(ramp(d, func(time.Duration) (int64, int) { return 1 << 20, -1 }), d)
	if v.flat || v.why != "no RSS or goroutine count in the reference window" {
		t.Errorf("no goroutine counts: flat %v why %q", v.flat, v.why)
	}
}
