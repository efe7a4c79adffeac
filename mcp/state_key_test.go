package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/mcpkit/mcpkit/mcp"
)

// keyStore is a shared SessionStore whose RequestStateKey fails with
// fail(n) on its n-th call (1-based) while fail returns an error.
type keyStore struct {
	mcp.SessionStore
	fail  func(n int) error
	mu    sync.Mutex
	calls int
}

func (s *keyStore) RequestStateKey(ctx context.Context) ([]byte, error) {
	s.mu.Lock()
	s.calls++
	n := s.calls
	s.mu.Unlock()
	if err := s.fail(n); err != nil {
		return nil, err
	}
	return s.SessionStore.(interface {
		RequestStateKey(context.Context) ([]byte, error)
	}).RequestStateKey(ctx)
}

func (s *keyStore) called() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// errSlowFirst is what redisstore returns when its first call outlasts
// its Timeout (a cold Redis Cluster client).
var errSlowFirst = fmt.Errorf("redisstore: reading the requestState key: %w: no answer within 500ms", mcp.ErrStoreUnavailable)

// TestInputSharedStoreKeyRetried: replica b fetches the shared store's
// requestState key on a's retry; the store's first answer is
// ErrStoreUnavailable (a slow first call), its second the key: the retry
// is served, not -32603. A store that stays unavailable is asked three
// times, then the retry is -32603 and logged; the next request asks again.
// An error that is not ErrStoreUnavailable is not asked again. The clock
// (the backoff between attempts) is testing/synctest's.
func TestInputSharedStoreKeyRetried(t *testing.T) {
	retry := func(state string) string {
		return modParams(modAllCaps, `,"name":"rounds","inputResponses":{"a":`+modYes+`},"requestState":"`+state+`"`)
	}
	const internal = `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Internal error"}}`
	for _, tc := range []struct {
		name  string
		fail  func(n int) error
		calls int    // RequestStateKey calls b made for the retry
		want  string // b's answer, its requestState masked
		log   string // what b logged
	}{
		{"unavailable once", func(n int) error {
			if n == 1 {
				return errSlowFirst
			}
			return nil
		}, 2, modInputRequired("2", `"b":`+modConfirmRequest("B")), ""},
		{"unavailable twice", func(n int) error {
			if n <= 2 {
				return errSlowFirst
			}
			return nil
		}, 3, modInputRequired("2", `"b":`+modConfirmRequest("B")), ""},
		{"unavailable throughout", func(int) error { return errSlowFirst }, 3, internal,
			`level=ERROR msg="mcp: verifying a requestState" err="mcp: no requestState key shared by the replicas: the SessionStore's: redisstore: reading the requestState key: mcp: session store unavailable: no answer within 500ms"`},
		{"another error", func(int) error { return errors.New("wrong type") }, 1, internal,
			`level=ERROR msg="mcp: verifying a requestState" err="mcp: no requestState key shared by the replicas: the SessionStore's: wrong type"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				shared := mcp.NewMemorySessionStore(&mcp.MemorySessionStoreOptions{Share: true})
				a := modServer(t, &mcp.ServerOptions{SessionStore: shared}, nil)
				bStore := &keyStore{SessionStore: shared, fail: tc.fail}
				var log strings.Builder
				b := modServer(t, &mcp.ServerOptions{SessionStore: bStore, Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{
					ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
						if a.Key == slog.TimeKey {
							return slog.Attr{}
						}
						return a
					},
				}))}, nil)
				state, _ := modState(t, modCall(t, a, "1", "tools/call", modParams(modAllCaps, `,"name":"rounds"`)))
				got := modCall(t, b, "2", "tools/call", retry(state))
				if tc.want != internal {
					_, got = modState(t, got)
				}
				if got != tc.want {
					t.Errorf("the retry on b:\n\t%s\nwant\n\t%s", got, tc.want)
				}
				if n := bStore.called(); n != tc.calls {
					t.Errorf("b asked the store %d times, want %d", n, tc.calls)
				}
				if got := strings.TrimSuffix(log.String(), "\n"); got != tc.log {
					t.Errorf("b logged:\n\t%s\nwant\n\t%s", got, tc.log)
				}
				if tc.want == internal {
					// Not remembered: the next retry asks the store again.
					modCall(t, b, "2", "tools/call", retry(state))
					if n := bStore.called(); n != 2*tc.calls {
						t.Errorf("after a second retry, b asked the store %d times, want %d", n, 2*tc.calls)
					}
				}
			})
		})
	}
}
