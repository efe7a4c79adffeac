package cpuclock

import "testing"

// CPU time spent in a loop shows on the clock, and it never goes back.
func TestNowAdvances(t *testing.T) {
	start := Now()
	x := 0
	for i := 0; Now() == start; i++ {
		x += i * i // busy: the clock ticks with the CPU this burns
	}
	if end := Now(); end < start {
		t.Errorf("Now went back: %v then %v", start, end)
	}
	_ = x
}
