package mcp

import (
	"context"
	"errors"
	"testing"

	"go.uber.org/goleak"
)

// lazyCancelCtx behaves as context.WithCancel(parent) whether its cancel
// comes before or after anyone asked for Done, and whether the parent or
// the cancel ends it; it makes its cancelable context only when asked.
func TestLazyCancelCtx(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	type key struct{}
	for _, tc := range []struct {
		name       string
		done       bool // Done asked (a derived context made) before the end
		parentEnds bool // the parent ends (else cancel is called)
	}{
		{"cancel", false, false},
		{"cancel-after-done", true, false},
		{"parent-ends", false, true},
		{"parent-ends-after-done", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent, endParent := context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
			defer endParent()
			c := &lazyCancelCtx{Context: parent}
			defer c.cancel()
			if c.Err() != nil || c.Value(key{}) != "v" {
				t.Fatalf("before the end: err %v, value %v", c.Err(), c.Value(key{}))
			}
			if c.merged.Load() != nil {
				t.Fatal("a cancelable context was made before anyone asked for Done")
			}
			var child context.Context
			if tc.done {
				var cancel context.CancelFunc
				child, cancel = context.WithCancel(c)
				defer cancel()
			}
			if tc.parentEnds {
				endParent()
			} else {
				c.cancel()
			}
			if err := c.Err(); !errors.Is(err, context.Canceled) {
				t.Errorf("Err: %v", err)
			}
			if err := context.Cause(c); !errors.Is(err, context.Canceled) {
				t.Errorf("Cause: %v", err)
			}
			<-c.Done()
			if child != nil {
				<-child.Done()
				if child.Err() != context.Canceled {
					t.Errorf("derived context: %v", child.Err())
				}
			}
			if c.Value(key{}) != "v" {
				t.Errorf("value after the end: %v", c.Value(key{}))
			}
		})
	}
}
