package mcp

// Logging on the wire
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging):
// the capability, logging/setLevel and its refusals, the per-session level
// filter, and which stream a log message takes. Over the in-memory and the
// stdio transports, with the lc script helpers.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// lcInitResultLogging is lcInitResult for a server that declares logging.
func lcInitResultLogging(id int, version string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"protocolVersion":%q,"capabilities":{"logging":{}},"serverInfo":{"name":"lc-server","version":"1.0.0"}}}`, id, version)
}

// lcInitResultLoggingTools is lcInitResult for a server that declares
// logging and has tools.
func lcInitResultLoggingTools(id int, version string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"protocolVersion":%q,"capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"lc-server","version":"1.0.0"}}}`, id, version)
}

// lcLogLine is the notifications/message frame for a message with data
// given as raw JSON and no logger.
func lcLogLine(level, data string) string {
	return `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"` + level + `","data":` + data + `}}`
}

// lcAddLogTool adds a tool "log" that logs, through Request.Log, one
// message per level in its arguments ({"levels":["debug",...]}), with the
// level's name as data, then answers "logged".
func lcAddLogTool(t testing.TB, s *Server) {
	t.Helper()
	if err := s.AddTool(&Tool{Name: "log"}, func(ctx context.Context, req *Request, args json.RawMessage) (*CallToolResult, error) {
		var in struct{ Levels []LoggingLevel }
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, err
		}
		for _, l := range in.Levels {
			if err := req.Log(ctx, l, "", string(l)); err != nil {
				return nil, err
			}
		}
		return &CallToolResult{Content: []Content{&TextContent{Text: "logged"}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
}

const lcLogAllLevels = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"log","arguments":{"levels":["debug","info","notice","warning","error","critical","alert","emergency"]}}}`

func lcLogged(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"logged"}]}}`, id)
}

func TestLoggingSetLevelFiltersMessages(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(&ServerOptions{Logging: &LoggingOptions{}})
		lcAddLogTool(t, s)
		c := connect(s)
		c.send(lcInit(0, "2025-11-25", "lc-client"))
		c.expect(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"lc-server","version":"1.0.0"}}}`)
		c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

		// Before logging/setLevel the default is info: no debug.
		if got := c.ss.LogLevel(); got != LevelInfo {
			t.Errorf("LogLevel before setLevel = %q, want info", got)
		}
		c.send(fmt.Sprintf(lcLogAllLevels, 1))
		for _, l := range []string{"info", "notice", "warning", "error", "critical", "alert", "emergency"} {
			c.expect(lcLogLine(l, `"`+l+`"`))
		}
		c.expect(lcLogged(1))

		// error and above only; the result is exactly {}.
		c.run(`
			-> {"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"error"}}
			<- {"jsonrpc":"2.0","id":2,"result":{}}
		`)
		if got := c.ss.State().LogLevel; got != LevelError {
			t.Errorf("SessionState.LogLevel = %q, want error", got)
		}
		c.send(fmt.Sprintf(lcLogAllLevels, 3))
		for _, l := range []string{"error", "critical", "alert", "emergency"} {
			c.expect(lcLogLine(l, `"`+l+`"`))
		}
		c.expect(lcLogged(3))

		// debug: everything, _meta in the params is accepted.
		c.run(`
			-> {"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"_meta":{"progressToken":"p"},"level":"debug"}}
			<- {"jsonrpc":"2.0","id":4,"result":{}}
		`)
		c.send(fmt.Sprintf(lcLogAllLevels, 5))
		for _, l := range loggingLevels {
			c.expect(lcLogLine(string(l), `"`+string(l)+`"`))
		}
		c.expect(lcLogged(5))

		// emergency only.
		c.run(`
			-> {"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{"level":"emergency"}}
			<- {"jsonrpc":"2.0","id":6,"result":{}}
		`)
		c.send(fmt.Sprintf(lcLogAllLevels, 7))
		c.expect(lcLogLine("emergency", `"emergency"`))
		c.expect(lcLogged(7))
		c.finish()
	})
}

func TestLoggingSetLevelRefusesInvalidLevels(t *testing.T) {
	const levels = `\"debug\", \"info\", \"notice\", \"warning\", \"error\", \"critical\", \"alert\", \"emergency\"`
	for _, tc := range []struct {
		name, params, data string
	}{
		{"unknown level", `{"level":"verbose"}`, `"level must be one of ` + levels + `; got \"verbose\""`},
		{"upper case", `{"level":"INFO"}`, `"level must be one of ` + levels + `; got \"INFO\""`},
		{"number", `{"level":3}`, `"level must be one of ` + levels + `; got 3"`},
		{"null", `{"level":null}`, `"level must be one of ` + levels + `; got null"`},
		{"missing level", `{}`, `"level must be one of ` + levels + `; got nothing"`},
		{"missing params", ``, `"missing params: logging/setLevel requires level"`},
		{"params not an object", `[1]`, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
				s := lcNewServer(&ServerOptions{Logging: &LoggingOptions{DefaultLevel: LevelWarning}})
				c := connect(s)
				c.handshake("2025-11-25", lcInitResultLogging(0, "2025-11-25"))
				req := `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel"`
				if tc.params != "" {
					req += `,"params":` + tc.params
				}
				c.send(req + "}")
				got := c.recv()
				want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params","data":` + tc.data + `}}`
				if tc.data == "" {
					// The decoder's own words: only the code and message
					// are checked.
					want = `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params","data":"invalid params: `
					if !strings.HasPrefix(got, want) {
						t.Errorf("server sent\n\t%s\nwant a frame starting\n\t%s", got, want)
					}
				} else if got != want {
					t.Errorf("server sent\n\t%s\nwant\n\t%s", got, want)
				}
				// Nothing changed.
				if st := c.ss.State(); st.LogLevel != "" {
					t.Errorf("SessionState.LogLevel = %q after a refused setLevel, want empty", st.LogLevel)
				}
				if got := c.ss.LogLevel(); got != LevelWarning {
					t.Errorf("LogLevel = %q, want the default, warning", got)
				}
				c.finish()
			})
		})
	}
}

func TestLoggingNotDeclared(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(nil)
		lcAddLogTool(t, s)
		c := connect(s)
		c.handshake("2025-11-25", lcInitResultTools(0, "2025-11-25"))
		c.run(`
			-> {"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}
			<- {"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found","data":"logging/setLevel"}}
		`)
		// Log messages are dropped without an error: the server may not
		// send them.
		c.send(fmt.Sprintf(lcLogAllLevels, 2))
		c.expect(lcLogged(2))
		if c.ss.LogEnabled(LevelEmergency) {
			t.Error("LogEnabled(emergency) = true on a server that does not declare logging")
		}
		if err := c.ss.Log(context.Background(), LevelEmergency, "", "dropped"); err != nil {
			t.Errorf("ServerSession.Log = %v, want nil", err)
		}
		c.finish()
	})
}

func TestLoggingCapabilitiesOverride(t *testing.T) {
	t.Run("declared by Capabilities", func(t *testing.T) {
		lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
			s := lcNewServer(&ServerOptions{Capabilities: &ServerCapabilities{Logging: &struct{}{}}})
			c := connect(s)
			c.handshake("2025-11-25", lcInitResultLogging(0, "2025-11-25"))
			c.run(`
				-> {"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"notice"}}
				<- {"jsonrpc":"2.0","id":1,"result":{}}
			`)
			if err := c.ss.Log(context.Background(), LevelNotice, "db", map[string]int{"port": 5432}); err != nil {
				t.Fatal(err)
			}
			c.expect(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"notice","logger":"db","data":{"port":5432}}}`)
			c.finish()
		})
	})
	t.Run("left out of Capabilities", func(t *testing.T) {
		lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
			s := lcNewServer(&ServerOptions{Logging: &LoggingOptions{}, Capabilities: &ServerCapabilities{}})
			c := connect(s)
			c.handshake("2025-11-25", lcInitResult(0, "2025-11-25"))
			c.run(`
				-> {"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"notice"}}
				<- {"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found","data":"logging/setLevel"}}
			`)
			if err := c.ss.Log(context.Background(), LevelEmergency, "", "dropped"); err != nil {
				t.Fatal(err)
			}
			c.finish()
		})
	})
}

func TestLoggingDefaultLevelOption(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(&ServerOptions{Logging: &LoggingOptions{DefaultLevel: LevelDebug}})
		lcAddLogTool(t, s)
		c := connect(s)
		c.handshake("2025-11-25", lcInitResultLoggingTools(0, "2025-11-25"))
		c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"log","arguments":{"levels":["debug"]}}}`)
		c.expect(lcLogLine("debug", `"debug"`))
		c.expect(lcLogged(1))
		c.finish()
	})
}

func TestLoggingOutsideRequestsAndBeforeInitialize(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(&ServerOptions{Logging: &LoggingOptions{}})
		c := connect(s)
		ctx := context.Background()
		// The spec allows logging before initialization.
		if err := c.ss.Log(ctx, LevelInfo, "boot", "starting"); err != nil {
			t.Fatal(err)
		}
		c.expect(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"boot","data":"starting"}}`)
		c.handshake("2025-11-25", lcInitResultLogging(0, "2025-11-25"))
		// Raw JSON is sent as it is; a nil data is null.
		if err := c.ss.Log(ctx, LevelWarning, "", json.RawMessage(`{"a":[1,2]}`)); err != nil {
			t.Fatal(err)
		}
		c.expect(lcLogLine("warning", `{"a":[1,2]}`))
		if err := c.ss.Log(ctx, LevelWarning, "", nil); err != nil {
			t.Fatal(err)
		}
		c.expect(lcLogLine("warning", `null`))
		c.finish()
	})
}

func TestLoggingErrors(t *testing.T) {
	s := lcNewServer(&ServerOptions{Logging: &LoggingOptions{}})
	ss := s.newSession(SessionOptions{})
	defer ss.Close()
	ctx := context.Background()
	if err := ss.Log(ctx, "verbose", "", "x"); err == nil || err.Error() != `mcp: log level "verbose" is not one of "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"` {
		t.Errorf("Log with an unknown level = %v", err)
	}
	var unsupported *json.UnsupportedTypeError
	if err := ss.Log(ctx, LevelError, "", make(chan int)); !errors.As(err, &unsupported) {
		t.Errorf("Log with data that does not encode = %v, want a *json.UnsupportedTypeError", err)
	}
	// No standalone writer: dropped without error.
	if err := ss.Log(ctx, LevelError, "", "x"); err != nil {
		t.Errorf("Log with no stream = %v, want nil", err)
	}
	// A Request without a session sends nothing.
	r := &Request{}
	if err := r.Log(ctx, LevelEmergency, "", "x"); err != nil || r.LogEnabled(LevelEmergency) {
		t.Errorf("Request without session: Log = %v, LogEnabled = %v", err, r.LogEnabled(LevelEmergency))
	}
}

func TestLoggingLevelIsSavedInTheSessionStore(t *testing.T) {
	store := &memorySessionStore{}
	s := lcNewServer(&ServerOptions{Logging: &LoggingOptions{}, SessionStore: store})
	ss := s.newSession(SessionOptions{ID: "sess-1"})
	defer ss.Close()
	ctx := context.Background()
	call := func(method, params string) string {
		t.Helper()
		resp, err := ss.handleRequest(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: method, Params: json.RawMessage(params)}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Error != nil {
			t.Fatalf("%s: %v", method, resp.Error)
		}
		return string(resp.Result)
	}
	call("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`)
	if got := call("logging/setLevel", `{"level":"critical"}`); got != `{}` {
		t.Fatalf("setLevel = %s", got)
	}
	st, err := store.Load(ctx, "", "sess-1")
	if err != nil {
		t.Fatal(err)
	}
	if st.LogLevel != LevelCritical {
		t.Errorf("stored LogLevel = %q, want critical", st.LogLevel)
	}
}
