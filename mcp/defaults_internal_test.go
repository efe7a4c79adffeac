package mcp

import (
	"testing"
	"time"
)

// TestPositiveOr checks the helper behind the options whose zero or
// negative value means the default (ServerOptions.PageSize,
// TaskOptions.DefaultTTL, CommandTransport.ShutdownGrace, ...): a
// positive value is kept, zero and negative values give the default.
func TestPositiveOr(t *testing.T) {
	for _, c := range []struct{ v, want int }{{5, 5}, {1, 1}, {0, 100}, {-1, 100}} {
		if got := positiveOr(c.v, 100); got != c.want {
			t.Errorf("positiveOr(%d, 100) = %d, want %d", c.v, got, c.want)
		}
	}
	if got := positiveOr(-time.Second, time.Hour); got != time.Hour {
		t.Errorf("positiveOr(-1s, 1h) = %v, want 1h", got)
	}
	if got := positiveOr(time.Nanosecond, time.Hour); got != time.Nanosecond {
		t.Errorf("positiveOr(1ns, 1h) = %v, want 1ns", got)
	}
}
