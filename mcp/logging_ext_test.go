package mcp_test

// Logging seen from outside the package: the slog handler (checked with
// testing/slogtest and for its level mapping), a Client that sets the level
// and receives the messages, and the schema rows for every logging message.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/slogtest"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// fakeLogSender records what a LoggingHandler sends; it lets through
// messages at min or above.
type fakeLogSender struct {
	min mcp.LoggingLevel

	mu   sync.Mutex
	sent []mcp.LoggingMessageParams
}

var levelOrder = []mcp.LoggingLevel{mcp.LevelDebug, mcp.LevelInfo, mcp.LevelNotice, mcp.LevelWarning, mcp.LevelError, mcp.LevelCritical, mcp.LevelAlert, mcp.LevelEmergency}

func (f *fakeLogSender) LogEnabled(level mcp.LoggingLevel) bool {
	return slices.Index(levelOrder, level) >= slices.Index(levelOrder, f.min)
}

func (f *fakeLogSender) Log(_ context.Context, level mcp.LoggingLevel, logger string, data any) error {
	if !f.LogEnabled(level) {
		return nil
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	f.mu.Lock()
	f.sent = append(f.sent, mcp.LoggingMessageParams{Level: level, Logger: logger, Data: raw})
	f.mu.Unlock()
	return nil
}

func (f *fakeLogSender) take() []mcp.LoggingMessageParams {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.sent
	f.sent = nil
	return out
}

func TestLoggingHandlerSlogtest(t *testing.T) {
	var f *fakeLogSender
	slogtest.Run(t, func(*testing.T) slog.Handler {
		f = &fakeLogSender{min: mcp.LevelDebug}
		return mcp.NewLoggingHandler(f, nil)
	}, func(t *testing.T) map[string]any {
		sent := f.take()
		if len(sent) != 1 {
			t.Fatalf("%d messages sent, want 1", len(sent))
		}
		var m map[string]any
		if err := json.Unmarshal(sent[0].Data, &m); err != nil {
			t.Fatalf("data %s: %v", sent[0].Data, err)
		}
		// The level travels in the notification's params.
		m[slog.LevelKey] = string(sent[0].Level)
		return m
	})
}

func TestLoggingHandlerLevelMapping(t *testing.T) {
	f := &fakeLogSender{min: mcp.LevelDebug}
	logger := slog.New(mcp.NewLoggingHandler(f, nil))
	ctx := context.Background()
	for _, tc := range []struct {
		level slog.Level
		want  mcp.LoggingLevel
	}{
		{slog.LevelDebug - 4, "debug"}, {slog.LevelDebug, "debug"}, {slog.LevelInfo - 1, "debug"},
		{slog.LevelInfo, "info"}, {slog.LevelInfo + 1, "info"},
		{slog.LevelInfo + 2, "notice"}, {slog.LevelWarn - 1, "notice"},
		{slog.LevelWarn, "warning"}, {slog.LevelError - 1, "warning"},
		{slog.LevelError, "error"}, {slog.LevelError + 3, "error"},
		{slog.LevelError + 4, "critical"}, {slog.LevelError + 7, "critical"},
		{slog.LevelError + 8, "alert"}, {slog.LevelError + 11, "alert"},
		{slog.LevelError + 12, "emergency"}, {slog.LevelError + 112, "emergency"},
	} {
		logger.Log(ctx, tc.level, "m")
		sent := f.take()
		if len(sent) != 1 || sent[0].Level != tc.want {
			t.Errorf("slog level %v sent %+v, want one message at %q", tc.level, sent, tc.want)
		}
	}
}

func TestLoggingHandlerFiltersAndEncodes(t *testing.T) {
	f := &fakeLogSender{min: mcp.LevelWarning}
	h := mcp.NewLoggingHandler(f, &mcp.LoggingHandlerOptions{LoggerName: "db", Level: slog.LevelError})
	ctx := context.Background()
	// Below the handler's own Level, and below the session's level.
	if h.Enabled(ctx, slog.LevelWarn) || h.Enabled(ctx, slog.LevelInfo) {
		t.Error("Enabled below the handler's Level")
	}
	if !h.Enabled(ctx, slog.LevelError) {
		t.Error("Enabled(error) = false")
	}
	f.min = mcp.LevelCritical
	if h.Enabled(ctx, slog.LevelError) {
		t.Error("Enabled(error) = true below the session's level")
	}
	f.min = mcp.LevelDebug

	type point struct {
		X, Y int
	}
	logger := slog.New(h).With("service", "api").WithGroup("req")
	when := time.Date(2025, 11, 25, 12, 0, 0, 5, time.UTC)
	r := slog.NewRecord(when, slog.LevelError, "query failed", 0)
	r.AddAttrs(
		slog.String("s", "a \"quoted\" <string>\n"),
		slog.Int("i", -3),
		slog.Uint64("u", math.MaxUint64),
		slog.Float64("f", 1.5),
		slog.Float64("nan", math.NaN()),
		slog.Float64("inf", math.Inf(-1)),
		slog.Bool("b", true),
		slog.Duration("d", 1500*time.Millisecond),
		slog.Time("t", when),
		slog.Any("err", errors.New("connection refused")),
		slog.Any("p", point{1, 2}),
		slog.Any("ch", make(chan int)), // no JSON: its %+v text
		slog.Any("nil", nil),
		slog.Group("g", slog.Int("a", 1), slog.Group("empty")),
		slog.Group("", slog.Int("inlined", 2)),
		slog.Attr{},
	)
	if err := logger.Handler().Handle(ctx, r); err != nil {
		t.Fatal(err)
	}
	sent := f.take()
	if len(sent) != 1 {
		t.Fatalf("sent %d messages, want 1", len(sent))
	}
	if sent[0].Level != mcp.LevelError || sent[0].Logger != "db" {
		t.Errorf("level %q logger %q, want error db", sent[0].Level, sent[0].Logger)
	}
	var data map[string]any
	if err := json.Unmarshal(sent[0].Data, &data); err != nil {
		t.Fatalf("data is not JSON: %v\n%s", err, sent[0].Data)
	}
	var want map[string]any
	if err := json.Unmarshal([]byte(`{
		"time":"2025-11-25T12:00:00.000000005Z",
		"msg":"query failed",
		"service":"api",
		"req":{
			"s":"a \"quoted\" <string>\n","i":-3,"u":18446744073709551615,"f":1.5,
			"nan":"NaN","inf":"-Inf","b":true,"d":1500000000,
			"t":"2025-11-25T12:00:00.000000005Z","err":"connection refused",
			"p":{"X":1,"Y":2},"ch":"CHAN","nil":null,
			"g":{"a":1},"inlined":2
		}
	}`), &want); err != nil {
		t.Fatal(err)
	}
	// The channel's text is an address; check its shape, then compare the rest.
	req := data["req"].(map[string]any)
	if s, ok := req["ch"].(string); !ok || len(s) < 3 || s[:2] != "0x" {
		t.Errorf(`"ch" = %v, want the channel's address as text`, req["ch"])
	}
	req["ch"] = "CHAN"
	got, _ := json.Marshal(data)
	wantJSON, _ := json.Marshal(want)
	if string(got) != string(wantJSON) {
		t.Errorf("data =\n\t%s\nwant\n\t%s", got, wantJSON)
	}
	// Members keep the record's order on the wire.
	if prefix := `{"time":"2025-11-25T12:00:00.000000005Z","msg":"query failed","service":"api","req":{"s":`; string(sent[0].Data[:len(prefix)]) != prefix {
		t.Errorf("data starts %s, want %s", sent[0].Data, prefix)
	}
	// A record without time has no "time"; an empty group is left out.
	if err := slog.New(h).WithGroup("nothing").Handler().Handle(ctx, slog.NewRecord(time.Time{}, slog.LevelError, "bare", 0)); err != nil {
		t.Fatal(err)
	}
	if sent := f.take(); len(sent) != 1 || string(sent[0].Data) != `{"msg":"bare"}` {
		t.Errorf("sent %+v, want data {\"msg\":\"bare\"}", sent)
	}
}

// logServer returns a server that declares logging, with a tool "work"
// that logs through Request.Log and through a LoggingHandler on the
// request, and reports progress.
func logServer(t *testing.T, opts *mcp.LoggingOptions) *mcp.Server {
	t.Helper()
	s := mcp.NewServer(serverTestInfo, &mcp.ServerOptions{Logging: opts})
	if err := mcp.AddTool(s, &mcp.Tool{Name: "work", Description: "Logs at every level."},
		func(ctx context.Context, req *mcp.Request, _ struct{}) (string, error) {
			if err := req.Log(ctx, mcp.LevelDebug, "work", "debug detail"); err != nil {
				return "", err
			}
			if err := req.Log(ctx, mcp.LevelWarning, "work", map[string]any{"disk": "90%"}); err != nil {
				return "", err
			}
			logger := slog.New(mcp.NewLoggingHandler(req, &mcp.LoggingHandlerOptions{LoggerName: "slog"}))
			logger.InfoContext(ctx, "via slog", "n", 1)
			return "done", nil
		}); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestClientSetLogLevel(t *testing.T) {
	var mu sync.Mutex
	var got []string
	p := connectClient(t, logServer(t, &mcp.LoggingOptions{}), &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, m *mcp.LoggingMessageParams) {
			mu.Lock()
			got = append(got, fmt.Sprintf("%s %s %s", m.Level, m.Logger, m.Data))
			mu.Unlock()
		},
	})
	if p.cs.ServerCapabilities().Logging == nil {
		t.Error("the server does not declare logging")
	}
	ctx := context.Background()
	call := func() []string {
		t.Helper()
		if _, err := p.cs.CallTool(ctx, &mcp.CallToolParams{Name: "work"}); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		out := got
		got = nil
		return out
	}
	// The default level, info, leaves debug out.
	want := []string{`warning work {"disk":"90%"}`, `info slog {"msg":"via slog","n":1}`}
	if g := stripTime(call()); !slices.Equal(g, want) {
		t.Errorf("before SetLogLevel: %q, want %q", g, want)
	}
	if err := p.cs.SetLogLevel(ctx, &mcp.SetLevelParams{Level: mcp.LevelDebug}); err != nil {
		t.Fatal(err)
	}
	if got := p.ss.LogLevel(); got != mcp.LevelDebug {
		t.Errorf("server session LogLevel = %q, want debug", got)
	}
	want = append([]string{`debug work "debug detail"`}, want...)
	if g := stripTime(call()); !slices.Equal(g, want) {
		t.Errorf("at debug: %q, want %q", g, want)
	}
	if err := p.cs.SetLogLevel(ctx, &mcp.SetLevelParams{Level: mcp.LevelError}); err != nil {
		t.Fatal(err)
	}
	if g := call(); len(g) != 0 {
		t.Errorf("at error: %q, want nothing", g)
	}
	err := p.cs.SetLogLevel(ctx, &mcp.SetLevelParams{Level: "loud"})
	wantRPCError(t, err, jsonrpc.CodeInvalidParams, "Invalid params",
		`"level must be one of \"debug\", \"info\", \"notice\", \"warning\", \"error\", \"critical\", \"alert\", \"emergency\"; got \"loud\""`)
	if err := p.cs.SetLogLevel(ctx, nil); err == nil {
		t.Error("SetLogLevel(nil) succeeded")
	}
}

// stripTime removes the slog handler's "time" member from logged lines,
// so that the rest can be compared exactly.
func stripTime(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = timeMember.ReplaceAllString(l, "")
	}
	return out
}

var timeMember = regexp.MustCompile(`"time":"[^"]*",`)

func TestClientSetLogLevelOnServerWithoutLogging(t *testing.T) {
	p := connectClient(t, newToolServer(t, nil), nil)
	err := p.cs.SetLogLevel(context.Background(), &mcp.SetLevelParams{Level: mcp.LevelInfo})
	wantRPCError(t, err, jsonrpc.CodeMethodNotFound, "Method not found", `"logging/setLevel"`)
}

// schemaLogServer is the schema fixture server with logging declared, at
// debug for sessions that did not set a level, and a tool "log" that logs
// through Request.Log (a string) and through a LoggingHandler (an object
// with a logger name).
func schemaLogServer(t *testing.T) *mcp.Server {
	t.Helper()
	srv := schemaFixture(t, &mcp.ServerOptions{Logging: &mcp.LoggingOptions{DefaultLevel: mcp.LevelDebug}})
	if err := srv.AddTool(&mcp.Tool{Name: "log"}, func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		if err := req.Log(ctx, mcp.LevelNotice, "", "plain text"); err != nil {
			return nil, err
		}
		slog.New(mcp.NewLoggingHandler(req, &mcp.LoggingHandlerOptions{LoggerName: "tools.log"})).
			ErrorContext(ctx, "failed", "err", errors.New("boom"), slog.Group("host", "name", "db", "port", 5432))
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	return srv
}

func init() {
	schemaCases = append(schemaCases,
		// Logging (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging).
		schemaCase{name: "logging/setLevel", message: "JSONRPCResultResponse", result: "EmptyResult",
			produce: func(t *testing.T) []byte {
				frame := schemaReady(t, schemaLogServer(t)).call("logging/setLevel", `{"level":"warning"}`)
				if !strings.HasSuffix(string(frame), `"result":{}}`) {
					t.Errorf("setLevel result is not exactly {}: %s", frame)
				}
				return frame
			}},
		schemaCase{name: "logging/setLevel with an unknown level", message: "JSONRPCErrorResponse", code: jsonrpc.CodeInvalidParams,
			produce: func(t *testing.T) []byte {
				return schemaReady(t, schemaLogServer(t)).call("logging/setLevel", `{"level":"verbose"}`)
			}},
		schemaCase{name: "logging/setLevel on a server without logging", message: "JSONRPCErrorResponse", code: jsonrpc.CodeMethodNotFound,
			produce: schemaAfterInit(func(c *schemaConn) []byte { return c.call("logging/setLevel", `{"level":"info"}`) })},
		schemaCase{name: "notifications/message with string data", message: "LoggingMessageNotification", method: "notifications/message",
			produce: func(t *testing.T) []byte {
				c := schemaReady(t, schemaLogServer(t))
				c.request("tools/call", `{"name":"log"}`)
				frames := [][]byte{c.read(), c.read(), c.read()}
				return frames[0]
			}},
		schemaCase{name: "notifications/message from slog, with logger and object data", message: "LoggingMessageNotification", method: "notifications/message",
			produce: func(t *testing.T) []byte {
				c := schemaReady(t, schemaLogServer(t))
				c.request("tools/call", `{"name":"log"}`)
				frames := [][]byte{c.read(), c.read(), c.read()}
				return frames[1]
			}},
		schemaCase{name: "notifications/message outside a request", message: "LoggingMessageNotification", method: "notifications/message",
			produce: func(t *testing.T) []byte {
				c := schemaReady(t, schemaLogServer(t))
				if err := c.ss.Log(context.Background(), mcp.LevelEmergency, "system", json.RawMessage(`[1,"two",{"three":3}]`)); err != nil {
					t.Fatal(err)
				}
				return c.read()
			}},
		schemaCase{name: "client logging/setLevel", message: "SetLevelRequest", method: "logging/setLevel",
			produce: schemaClientCall(`{}`, func(ctx context.Context, cs *mcp.ClientSession) error {
				return cs.SetLogLevel(ctx, &mcp.SetLevelParams{Level: mcp.LevelAlert})
			})},
	)
}
