package mcp

// Logging on the server side
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging):
// levels, logging/setLevel, the per-session filter and notifications/message.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/internal/jsonenc"
)

// The eight severities MCP uses, the syslog levels of RFC 5424 section
// 6.2.1, from the least to the most severe
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging#log-levels).
const (
	LevelDebug     LoggingLevel = "debug"
	LevelInfo      LoggingLevel = "info"
	LevelNotice    LoggingLevel = "notice"
	LevelWarning   LoggingLevel = "warning"
	LevelError     LoggingLevel = "error"
	LevelCritical  LoggingLevel = "critical"
	LevelAlert     LoggingLevel = "alert"
	LevelEmergency LoggingLevel = "emergency"
)

// loggingLevels lists the levels by severity; a level's index is its rank.
var loggingLevels = [...]LoggingLevel{
	LevelDebug, LevelInfo, LevelNotice, LevelWarning,
	LevelError, LevelCritical, LevelAlert, LevelEmergency,
}

// rank returns the level's severity, 0 (debug) to 7 (emergency), or -1
// for a string that is not one of the eight levels.
func (l LoggingLevel) rank() int {
	for i, v := range loggingLevels {
		if v == l {
			return i
		}
	}
	return -1
}

// IsValid reports whether l is one of the eight levels MCP defines.
func (l LoggingLevel) IsValid() bool { return l.rank() >= 0 }

// LoggingOptions configures the log messages a server sends to its clients.
// The zero value is a useful configuration.
type LoggingOptions struct {
	// DefaultLevel is the minimum level sent to a session whose client has
	// not sent logging/setLevel
	// (https://modelcontextprotocol.io/specification/2025-11-25/schema#loggingmessagenotification).
	// If empty, LevelInfo.
	DefaultLevel LoggingLevel
}

// SetLevelParams is the params of logging/setLevel, by which a client sets
// the minimum level of the log messages it wants
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging#setting-log-level).
type SetLevelParams struct {
	Meta  *RequestMeta `json:"_meta,omitempty"`
	Level LoggingLevel `json:"level"`
}

// LoggingMessageParams is the params of notifications/message, a log entry
// the server sends
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging#log-message-notifications).
type LoggingMessageParams struct {
	Meta   Meta         `json:"_meta,omitempty"`
	Level  LoggingLevel `json:"level"`
	Logger string       `json:"logger,omitempty"`
	// Data is any JSON value: a string, an object with details, ...
	Data json.RawMessage `json:"data"`
}

// A LogSender sends log messages to a client. *Request (messages about the
// request being handled, on its stream) and *ServerSession (messages on
// the session's standalone stream, or on a handler's stream when ctx comes
// from one) implement it; NewLoggingHandler forwards slog records to one.
type LogSender interface {
	// Log sends notifications/message with the given level, logger name
	// (empty for none) and data (any value that encodes as JSON), unless
	// the message is filtered out: then it sends nothing and returns nil.
	Log(ctx context.Context, level LoggingLevel, logger string, data any) error
	// LogEnabled reports whether a message at level would be sent, so
	// that a caller can skip building one that would be dropped.
	LogEnabled(level LoggingLevel) bool
}

var (
	_ LogSender = (*Request)(nil)
	_ LogSender = (*ServerSession)(nil)
)

// loggingEnabled reports whether the server declares the logging
// capability, which the spec requires of a server that sends log messages.
func (s *Server) loggingEnabled() bool {
	if s.opts.Capabilities != nil {
		return s.opts.Capabilities.Logging != nil
	}
	return s.opts.Logging != nil
}

// loggingCapability is called with s.mu read-locked.
func (s *Server) loggingCapability() *struct{} {
	if s.opts.Logging == nil {
		return nil
	}
	return &struct{}{}
}

// setLogLevel implements logging/setLevel: the level is kept in the
// session's state (SessionState.LogLevel) and saved with it. An unknown
// level is refused with -32602, as the spec asks
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging#error-handling).
// The result is exactly {}.
func (s *Server) setLogLevel(ctx context.Context, r *Request) (any, error) {
	if !s.loggingEnabled() {
		return nil, errMethodNotFound(r.Method)
	}
	if len(r.Params) == 0 {
		return nil, errInvalidParams("missing params: logging/setLevel requires level")
	}
	var p struct {
		Meta  *RequestMeta    `json:"_meta,omitempty"`
		Level json.RawMessage `json:"level"`
	}
	if err := unmarshalParams(r.Params, &p); err != nil {
		return nil, err
	}
	r.setMeta(p.Meta)
	var level LoggingLevel
	if !isJSONString(p.Level) || exactjson.Unmarshal(p.Level, &level) != nil || !level.IsValid() {
		got := "nothing"
		if len(p.Level) > 0 {
			got = string(p.Level)
		}
		return nil, errInvalidParams(fmt.Sprintf("level must be one of %s; got %s", levelList(), got))
	}
	ss := r.Session
	ss.mu.Lock()
	changed := ss.state.LogLevel != level
	ss.state.LogLevel = level
	ss.mu.Unlock()
	if changed {
		ss.update(ctx, func(st *SessionState) { st.LogLevel = level })
	}
	return emptyObject, nil
}

// levelList is the eight levels, quoted and comma-separated.
func levelList() string {
	var b strings.Builder
	for i, l := range loggingLevels {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", l)
	}
	return b.String()
}

// LogLevel returns the minimum level of the log messages the session is
// sent: the level its client set with logging/setLevel or, before that,
// LoggingOptions.DefaultLevel.
func (ss *ServerSession) LogLevel() LoggingLevel {
	ss.mu.Lock()
	level := ss.state.LogLevel
	ss.mu.Unlock()
	if level != "" {
		return level
	}
	if o := ss.server.opts.Logging; o != nil && o.DefaultLevel.IsValid() {
		return o.DefaultLevel
	}
	return LevelInfo
}

// LogEnabled reports whether a log message at level would be sent to the
// session: the server declares logging and level is at least the session's
// LogLevel.
func (ss *ServerSession) LogEnabled(level LoggingLevel) bool {
	if ss == nil || !ss.server.loggingEnabled() {
		return false
	}
	r := level.rank()
	return r >= 0 && r >= ss.LogLevel().rank()
}

// Log sends notifications/message to the client
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging#log-message-notifications),
// on the stream of the request being handled when ctx comes from a
// handler, otherwise on the standalone stream. logger may be empty; data
// is any JSON-encodable value, sent as it is (so never credentials or
// personal data). It sends nothing and returns nil when the server does
// not declare logging or level is below LogLevel; it fails for an unknown
// level, data that does not encode, or a failed write.
func (ss *ServerSession) Log(ctx context.Context, level LoggingLevel, logger string, data any) error {
	w, _ := ctx.Value(relatedKey{}).(messageWriter)
	return ss.log(ctx, w, level, logger, data)
}

// Log is ServerSession.Log on the request's stream. It sends nothing
// unless ServerOptions.Logging (or Capabilities.Logging) is set
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging#capabilities).
// In the stateless era the level is the request's own
// _meta["io.modelcontextprotocol/logLevel"]; without one nothing is sent
// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging).
func (r *Request) Log(ctx context.Context, level LoggingLevel, logger string, data any) error {
	return r.inEra().log(ctx, r, level, logger, data)
}

// LogEnabled reports whether a log message at level would be sent for
// this request; see ServerSession.LogEnabled.
func (r *Request) LogEnabled(level LoggingLevel) bool {
	return r.inEra().logEnabled(r, level)
}

func (ss *ServerSession) log(ctx context.Context, w messageWriter, level LoggingLevel, logger string, data any) error {
	if !level.IsValid() {
		return fmt.Errorf("mcp: log level %q is not one of %s", level, levelList())
	}
	if !ss.LogEnabled(level) {
		return nil
	}
	return ss.sendLog(ctx, w, level, logger, data)
}

// sendLog sends notifications/message, already filtered.
func (ss *ServerSession) sendLog(ctx context.Context, w messageWriter, level LoggingLevel, logger string, data any) error {
	raw, ok := data.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = jsonenc.Marshal(data); err != nil {
			return fmt.Errorf("mcp: encoding log data: %w", err)
		}
	}
	return ss.notifyRelated(ctx, w, "notifications/message", &LoggingMessageParams{Level: level, Logger: logger, Data: raw})
}
