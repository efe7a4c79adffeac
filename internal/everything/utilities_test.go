package everything_test

// The logging and progress fixtures, exactly as the official conformance
// suite's scenarios expect them (conformance/README.md): the
// notifications, their order before the result, and their pacing (about
// 50 ms apart) on the fake clock of testing/synctest.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpkit/mcpkit/internal/everything"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// event is a notification or the result as the client saw it, with when
// (on the bubble's clock, from the call's start).
type event struct {
	at   time.Duration
	what string
}

// utilityCall connects a client to a new reference server in the current
// bubble, optionally sets the log level, calls tool with params (raw JSON
// for tools/call), and returns every notification and the result in the
// order the client saw them.
func utilityCall(t *testing.T, level mcp.LoggingLevel, params string) []event {
	t.Helper()
	var mu sync.Mutex
	var events []event
	var start time.Time
	add := func(what string) {
		mu.Lock()
		events = append(events, event{time.Since(start), what})
		mu.Unlock()
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := everything.NewServer(nil).Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ProtocolEra: mcp.EraSession,
		NotificationHandler: func(_ context.Context, _ *mcp.ClientSession, n *jsonrpc.Notification) {
			add(n.Method + " " + string(n.Params))
		},
	}).Connect(ctx, ct)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		cs.Close()
		ss.Wait()
	}()
	if cs.ServerCapabilities().Logging == nil {
		t.Error("the reference server does not declare logging")
	}
	if level != "" {
		if err := cs.SetLogLevel(ctx, &mcp.SetLevelParams{Level: level}); err != nil {
			t.Fatal(err)
		}
	}
	start = time.Now()
	var res json.RawMessage
	if err := cs.Call(ctx, "tools/call", json.RawMessage(params), &res); err != nil {
		t.Fatal(err)
	}
	add("result " + string(res))
	return events
}

func TestToolWithLogging(t *testing.T) {
	for _, tc := range []struct {
		name  string
		level mcp.LoggingLevel
		want  []event
	}{
		// What the tools-call-with-logging scenario does: setLevel debug.
		{"at debug", mcp.LevelDebug, nil},
		// info is also the default before any setLevel.
		{"by default", "", nil},
		{"at warning: filtered out", mcp.LevelWarning, []event{
			{100 * time.Millisecond, `result {"content":[{"type":"text","text":"Tool with logging executed successfully"}]}`},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				got := utilityCall(t, tc.level, `{"name":"test_tool_with_logging","arguments":{}}`)
				want := tc.want
				if want == nil {
					want = []event{
						{0, `notifications/message {"level":"info","data":"Tool execution started"}`},
						{50 * time.Millisecond, `notifications/message {"level":"info","data":"Tool processing data"}`},
						{100 * time.Millisecond, `notifications/message {"level":"info","data":"Tool execution completed"}`},
						{100 * time.Millisecond, `result {"content":[{"type":"text","text":"Tool with logging executed successfully"}]}`},
					}
				}
				if !slices.Equal(got, want) {
					t.Errorf("client saw\n\t%s\nwant\n\t%s", fmtEvents(got), fmtEvents(want))
				}
			})
		})
	}
}

func TestToolWithProgress(t *testing.T) {
	for _, tc := range []struct {
		name, params string
		token        string // as it must come back, raw JSON; "" for none
		text         string
	}{
		// The 0.2 harness sends this string token; the 0.1 harness's client
		// replaces it with the request's integer id.
		{"string token", `{"_meta":{"progressToken":"progress-test-1"},"name":"test_tool_with_progress","arguments":{}}`, `"progress-test-1"`,
			`Progress test completed: progress 0, 50 and 100 of 100 sent for progressToken \"progress-test-1\"`},
		{"integer token", `{"_meta":{"progressToken":3},"name":"test_tool_with_progress"}`, `3`,
			`Progress test completed: progress 0, 50 and 100 of 100 sent for progressToken 3`},
		{"no token", `{"name":"test_tool_with_progress","arguments":{}}`, ``,
			`Progress test completed: the request had no progressToken, so no progress was sent`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				got := utilityCall(t, "", tc.params)
				var want []event
				if tc.token != "" {
					for i, v := range []int{0, 50, 100} {
						want = append(want, event{time.Duration(i) * 50 * time.Millisecond,
							fmt.Sprintf(`notifications/progress {"progressToken":%s,"progress":%d,"total":100}`, tc.token, v)})
					}
				}
				want = append(want, event{100 * time.Millisecond, `result {"content":[{"type":"text","text":"` + tc.text + `"}]}`})
				if !slices.Equal(got, want) {
					t.Errorf("client saw\n\t%s\nwant\n\t%s", fmtEvents(got), fmtEvents(want))
				}
			})
		})
	}
}

// TestUtilityToolsStopWhenCancelled: a cancelled call stops between two
// notifications and sends no more.
func TestUtilityToolsStopWhenCancelled(t *testing.T) {
	for _, tool := range []string{"test_tool_with_logging", "test_tool_with_progress"} {
		t.Run(tool, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				ct, st := mcp.NewInMemoryTransports()
				ss, err := everything.NewServer(nil).Connect(ctx, st)
				if err != nil {
					t.Fatal(err)
				}
				var mu sync.Mutex
				var notes []string
				cs, err := mcp.NewClient(mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
					ProtocolEra: mcp.EraSession,
					NotificationHandler: func(_ context.Context, _ *mcp.ClientSession, n *jsonrpc.Notification) {
						mu.Lock()
						notes = append(notes, n.Method)
						mu.Unlock()
					},
				}).Connect(ctx, ct)
				if err != nil {
					t.Fatal(err)
				}
				cctx, cancel := context.WithTimeout(ctx, 60*time.Millisecond) // after the second notification
				defer cancel()
				_, err = cs.CallTool(cctx, &mcp.CallToolParams{Name: tool, Meta: &mcp.RequestMeta{ProgressToken: jsonrpc.Int64ID(1)}})
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("CallTool = %v, want context.DeadlineExceeded", err)
				}
				time.Sleep(time.Second) // on the fake clock: long after the tool would have ended
				synctest.Wait()
				cs.Close()
				ss.Wait()
				if len(notes) != 2 {
					t.Errorf("client saw %q, want the first two notifications only", notes)
				}
			})
		})
	}
}

func fmtEvents(events []event) string {
	var b strings.Builder
	for i, e := range events {
		if i > 0 {
			b.WriteString("\n\t")
		}
		fmt.Fprintf(&b, "%v %s", e.at, e.what)
	}
	return b.String()
}
