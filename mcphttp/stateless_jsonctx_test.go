package mcphttp

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpkit/mcpkit/internal/ctxscope"
)

// Close cancels a 2026-07-28 request answered with one JSON body, as the
// client's leaving does (TestStatelessDisconnectCancels).
func TestStatelessJSONCloseCancels(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newStatelessFixture(t, &Options{JSONResponse: true})
	body := mbody("11", "tools/call", `{"name":"block"}`)
	req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(body))
	for k, v := range statelessHeaders(body) {
		req.Header.Set(k, v)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	done := make(chan struct{})
	go func() {
		if resp, err := f.srv.Client().Do(req); err == nil {
			resp.Body.Close()
		}
		close(done)
	}()
	ctx := <-f.tools.started
	if !ctxscope.Scoped(ctx) {
		t.Error("the handler's context is not scoped to the request")
	}
	if err := f.h.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-f.tools.ended; err != context.Canceled {
		t.Errorf("the handler's context after Close: %v", err)
	}
	<-done
	f.srv.Close()
}

// jsonCallCtx ends with the request's context or with the handler's
// closed one, whether or not anyone asked for Done first, and the
// contexts derived from it end with it.
func TestJSONCallCtx(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	type key struct{}
	for _, tc := range []struct {
		name     string
		done     bool // Done asked before the end
		closeH   bool // the handler closes (else the request ends)
		wantCaus error
	}{
		{"request-ends", false, false, context.Canceled},
		{"request-ends-after-done", true, false, context.Canceled},
		{"handler-closes", false, true, context.Canceled},
		{"handler-closes-after-done", true, true, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reqCtx, endReq := context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
			defer endReq()
			closed, closeH := context.WithCancel(context.Background())
			defer closeH()
			c := &jsonCallCtx{Context: reqCtx, closed: closed}
			defer c.release()
			if c.Err() != nil || c.Value(key{}) != "v" || !ctxscope.Scoped(c) {
				t.Fatalf("before the end: err %v, value %v, scoped %v", c.Err(), c.Value(key{}), ctxscope.Scoped(c))
			}
			if c.merged.Load() != nil {
				t.Fatal("a merged context was made before anyone asked for Done")
			}
			var child context.Context
			if tc.done {
				var cancel context.CancelFunc
				child, cancel = context.WithCancel(c)
				defer cancel()
			}
			if tc.closeH {
				closeH()
			} else {
				endReq()
			}
			if err := c.Err(); !errors.Is(err, context.Canceled) {
				t.Errorf("Err: %v", err)
			}
			if err := context.Cause(c); !errors.Is(err, tc.wantCaus) {
				t.Errorf("Cause: %v", err)
			}
			<-c.Done()
			if child != nil {
				<-child.Done()
			}
			if c.Value(key{}) != "v" {
				t.Errorf("value after the end: %v", c.Value(key{}))
			}
		})
	}
}
