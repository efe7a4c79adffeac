package mcp

// This file holds NewLoggingHandler's slog.Handler, which forwards records
// to an MCP client as notifications/message
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging#log-message-notifications).

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/mcpkit/mcpkit/internal/jsonenc"
)

// The slog levels where the MCP severities that slog does not name begin
// (NewLoggingHandler's table).
const (
	slogLevelNotice    = slog.Level(2)
	slogLevelCritical  = slog.Level(12)
	slogLevelAlert     = slog.Level(16)
	slogLevelEmergency = slog.Level(20)
)

// loggingLevelOf maps an slog level to the MCP severity it falls in: below
// info is debug, [info, notice) info, [notice, warn) notice, [warn, error)
// warning, [error, critical) error, [critical, alert) critical, [alert,
// emergency) alert, and emergency from there up.
func loggingLevelOf(l slog.Level) LoggingLevel {
	switch {
	case l < slog.LevelInfo:
		return LevelDebug
	case l < slogLevelNotice:
		return LevelInfo
	case l < slog.LevelWarn:
		return LevelNotice
	case l < slog.LevelError:
		return LevelWarning
	case l < slogLevelCritical:
		return LevelError
	case l < slogLevelAlert:
		return LevelCritical
	case l < slogLevelEmergency:
		return LevelAlert
	}
	return LevelEmergency
}

// LoggingHandlerOptions configures NewLoggingHandler. The zero value is a
// useful configuration.
type LoggingHandlerOptions struct {
	// LoggerName is sent as the logger of every message. If empty, no
	// logger is sent.
	LoggerName string
	// Level is the minimum slog level handled, applied before the
	// session's own level (see ServerSession.LogLevel). If nil, every
	// record the session's level lets through is sent.
	Level slog.Leveler
}

// loggingHandler is NewLoggingHandler's slog.Handler.
type loggingHandler struct {
	dst  LogSender
	opts LoggingHandlerOptions
	// goas are the groups and attributes added by WithGroup and
	// WithAttrs, in order.
	goas []groupOrAttrs
}

// groupOrAttrs is one WithGroup (group != "") or WithAttrs call.
type groupOrAttrs struct {
	group string
	attrs []slog.Attr
}

// NewLoggingHandler returns an slog.Handler that sends each record to the
// client of dst (a *ServerSession or a *Request) as notifications/message
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging#log-message-notifications),
// filtered by LoggingHandlerOptions.Level, then by the level the client
// chose (ServerSession.LogLevel); nothing is sent unless the server
// declares logging (ServerOptions.Logging). An slog level maps to the
// severity of the range it falls in, each from the level given up to the
// next (log the severities slog does not name with slog.Logger.Log):
//
//	below slog.LevelInfo        debug
//	slog.LevelInfo              info
//	slog.LevelInfo + 2          notice
//	slog.LevelWarn              warning
//	slog.LevelError             error
//	slog.LevelError + 4         critical
//	slog.LevelError + 8         alert
//	slog.LevelError + 12 and up emergency
//
// The data is a JSON object of "time", "msg" and the record's attributes
// (docs/design.md). The handler
// is safe for concurrent use: create one per session, or one per request
// to send on that request's stream. A nil opts is the zero
// LoggingHandlerOptions.
func NewLoggingHandler(dst LogSender, opts *LoggingHandlerOptions) slog.Handler {
	h := &loggingHandler{dst: dst}
	if opts != nil {
		h.opts = *opts
	}
	return h
}

// Enabled implements slog.Handler: it reports whether a record at level
// would be sent.
func (h *loggingHandler) Enabled(_ context.Context, level slog.Level) bool {
	if h.opts.Level != nil && level < h.opts.Level.Level() {
		return false
	}
	return h.dst.LogEnabled(loggingLevelOf(level))
}

// WithAttrs implements slog.Handler.
func (h *loggingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	return h.with(groupOrAttrs{attrs: slices.Clone(attrs)})
}

// WithGroup implements slog.Handler.
func (h *loggingHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return h.with(groupOrAttrs{group: name})
}

func (h *loggingHandler) with(g groupOrAttrs) *loggingHandler {
	h2 := *h
	h2.goas = append(slices.Clip(h.goas), g)
	return &h2
}

// Handle implements slog.Handler: it sends the record as
// notifications/message, or nothing when it is filtered out. The error is
// that of sending (see ServerSession.Log).
func (h *loggingHandler) Handle(ctx context.Context, r slog.Record) error {
	if h.opts.Level != nil && r.Level < h.opts.Level.Level() {
		return nil
	}
	level := loggingLevelOf(r.Level)
	if !h.dst.LogEnabled(level) {
		return nil
	}
	buf := make([]byte, 0, 256)
	buf = append(buf, '{')
	if !r.Time.IsZero() {
		buf = appendJSONKey(buf, slog.TimeKey)
		buf = jsonenc.AppendString(buf, r.Time.Format(time.RFC3339Nano))
	}
	buf = appendJSONKey(buf, slog.MessageKey)
	buf = jsonenc.AppendString(buf, r.Message)
	var attrs []slog.Attr
	if r.NumAttrs() > 0 {
		attrs = make([]slog.Attr, 0, r.NumAttrs())
		r.Attrs(func(a slog.Attr) bool {
			attrs = append(attrs, a)
			return true
		})
	}
	buf = appendGroupsAndAttrs(buf, h.goas, attrs)
	buf = append(buf, '}')
	return h.dst.Log(ctx, level, h.opts.LoggerName, json.RawMessage(buf))
}

// appendGroupsAndAttrs appends the members of goas followed by the
// record's attributes, which belong inside every group of goas. A group
// with no attribute inside it is left out, as slog requires.
func appendGroupsAndAttrs(buf []byte, goas []groupOrAttrs, attrs []slog.Attr) []byte {
	for i, g := range goas {
		if g.group == "" {
			for _, a := range g.attrs {
				buf = appendAttr(buf, a)
			}
			continue
		}
		if !anyAttr(goas[i+1:], attrs) {
			return buf
		}
		buf = appendJSONKey(buf, g.group)
		buf = append(buf, '{')
		buf = appendGroupsAndAttrs(buf, goas[i+1:], attrs)
		return append(buf, '}')
	}
	for _, a := range attrs {
		buf = appendAttr(buf, a)
	}
	return buf
}

// anyAttr reports whether goas or attrs hold an attribute that is output.
func anyAttr(goas []groupOrAttrs, attrs []slog.Attr) bool {
	for _, g := range goas {
		for _, a := range g.attrs {
			if !attrEmpty(a) {
				return true
			}
		}
	}
	for _, a := range attrs {
		if !attrEmpty(a) {
			return true
		}
	}
	return false
}

// attrEmpty reports whether slog's rules leave a out: an empty attribute,
// or a group with nothing to output.
func attrEmpty(a slog.Attr) bool {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return true
	}
	if a.Value.Kind() == slog.KindGroup {
		for _, m := range a.Value.Group() {
			if !attrEmpty(m) {
				return false
			}
		}
		return true
	}
	return false
}

// appendAttr appends one attribute as an object member; a group with an
// empty key is inlined.
func appendAttr(buf []byte, a slog.Attr) []byte {
	a.Value = a.Value.Resolve()
	if attrEmpty(a) {
		return buf
	}
	if a.Value.Kind() == slog.KindGroup {
		if a.Key == "" {
			for _, m := range a.Value.Group() {
				buf = appendAttr(buf, m)
			}
			return buf
		}
		buf = appendJSONKey(buf, a.Key)
		buf = append(buf, '{')
		for _, m := range a.Value.Group() {
			buf = appendAttr(buf, m)
		}
		return append(buf, '}')
	}
	buf = appendJSONKey(buf, a.Key)
	return appendValue(buf, a.Value)
}

// appendValue appends a resolved, non-group value as JSON.
func appendValue(buf []byte, v slog.Value) []byte {
	switch v.Kind() {
	case slog.KindString:
		return jsonenc.AppendString(buf, v.String())
	case slog.KindInt64:
		return strconv.AppendInt(buf, v.Int64(), 10)
	case slog.KindUint64:
		return strconv.AppendUint(buf, v.Uint64(), 10)
	case slog.KindFloat64:
		f := v.Float64()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			// JSON has no NaN or infinity.
			return jsonenc.AppendString(buf, strconv.FormatFloat(f, 'g', -1, 64))
		}
		return strconv.AppendFloat(buf, f, 'g', -1, 64)
	case slog.KindBool:
		return strconv.AppendBool(buf, v.Bool())
	case slog.KindDuration:
		return strconv.AppendInt(buf, int64(v.Duration()), 10)
	case slog.KindTime:
		return jsonenc.AppendString(buf, v.Time().Format(time.RFC3339Nano))
	}
	x := v.Any()
	if err, ok := x.(error); ok {
		if _, isMarshaler := x.(json.Marshaler); !isMarshaler {
			return jsonenc.AppendString(buf, err.Error())
		}
	}
	raw, err := jsonenc.Marshal(x)
	if err != nil {
		return jsonenc.AppendString(buf, fmt.Sprintf("%+v", x))
	}
	return append(buf, raw...)
}

// appendJSONKey appends a member's key and colon, after a comma unless the
// member is the first of its object (no JSON value ends with '{').
func appendJSONKey(buf []byte, key string) []byte {
	if buf[len(buf)-1] != '{' {
		buf = append(buf, ',')
	}
	buf = jsonenc.AppendString(buf, key)
	return append(buf, ':')
}
