// Package sse reads Server-Sent Events
// (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation)
// for the client transports of mcphttp and mcpsse, bounding each line and
// each event's data, and holds the keep-alive comment their servers write.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
)

// KeepAlive is the comment a server writes on a quiet stream.
var KeepAlive = []byte(": keep-alive\n\n")

// Event is one event of a stream.
type Event struct {
	Name    string // the event field, "" when none
	ID      string // the id field, "" when none
	Data    []byte // the data fields joined by '\n'; the caller's own
	HasData bool   // a data field was read (Data may still be empty)
}

// Reader reads the events of a stream.
type Reader struct {
	// LastID and Retry are the last id and retry fields read, kept
	// across events and set as soon as the field is read.
	LastID string
	Retry  time.Duration

	r    *bufio.Reader
	max  int // the limit on an event's data; 0: none
	line []byte
	data bytes.Buffer
}

// NewReader returns a Reader of r whose events carry at most limit bytes
// of data (0 or less: no limit).
func NewReader(r io.Reader, limit int) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 32<<10), max: max(limit, 0)}
}

// errLineTooLong is line's error for a line over the limit.
var errLineTooLong = errors.New("sse: line too long")

// Next returns the next event with a name, an id or data. It returns a
// *mcp.FrameTooLargeError at an event (or a line) over the limit, and the
// stream's error (io.EOF) at its end; an incomplete last line ends no
// event.
func (r *Reader) Next() (Event, error) {
	var ev Event
	for {
		line, err := r.readLine()
		if errors.Is(err, errLineTooLong) {
			return Event{}, &mcp.FrameTooLargeError{Limit: r.max}
		}
		if len(line) > 0 || err == nil {
			line = bytes.TrimRight(line, "\r\n")
			switch {
			case len(line) == 0:
				if ev.HasData || ev.ID != "" || ev.Name != "" {
					if ev.HasData {
						ev.Data = bytes.Clone(r.data.Bytes())
					}
					r.data.Reset()
					return ev, nil
				}
			case line[0] == ':':
				// A comment: keep-alive.
			default:
				if err := r.field(&ev, line); err != nil {
					return Event{}, err
				}
			}
		}
		if err != nil {
			r.data.Reset()
			return Event{}, err
		}
	}
}

// field applies one field line to ev.
func (r *Reader) field(ev *Event, line []byte) error {
	name, value, _ := bytes.Cut(line, []byte(":"))
	value = bytes.TrimPrefix(value, []byte(" "))
	switch string(name) {
	case "data":
		sep := 0
		if ev.HasData {
			sep = 1
		}
		if r.max > 0 && r.data.Len()+sep+len(value) > r.max {
			r.data.Reset()
			return &mcp.FrameTooLargeError{Limit: r.max}
		}
		if ev.HasData {
			r.data.WriteByte('\n')
		}
		r.data.Write(value)
		ev.HasData = true
	case "event":
		ev.Name = string(value)
	case "id":
		if !bytes.Contains(value, []byte{0}) {
			ev.ID = string(value)
			r.LastID = ev.ID
		}
	case "retry":
		if ms, err := strconv.Atoi(string(value)); err == nil && ms >= 0 {
			r.Retry = time.Duration(ms) * time.Millisecond
		}
	}
	return nil
}

// readLine returns the next line with its '\n', if any; a line may hold
// the field name, the space and the line end beyond the data limit.
func (r *Reader) readLine() ([]byte, error) {
	buf := r.line[:0]
	for {
		chunk, err := r.r.ReadSlice('\n')
		if r.max > 0 && len(buf)+len(chunk) > r.max+64 {
			return nil, errLineTooLong
		}
		buf = append(buf, chunk...)
		r.line = buf
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, err
		}
	}
}
