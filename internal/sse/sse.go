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

	"github.com/mcpkit/mcpkit/internal/frameid"
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
	// skipping is set once the event being read is over the limit: its
	// data goes to scan, not to data, up to the event's end.
	skipping bool
	scan     frameid.Scanner
}

// NewReader returns a Reader of r whose events carry at most limit bytes
// of data (0 or less: no limit).
func NewReader(r io.Reader, limit int) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, readChunk), max: max(limit, 0)}
}

// readChunk is the size of the pieces a line is read in.
const readChunk = 32 << 10

// maxFieldOverhead is what a line may hold beyond the data limit: the
// field name, the colon, the space and the line end.
const maxFieldOverhead = 64

// Next returns the next event with a name, an id or data, and the
// stream's error (io.EOF) at its end; an incomplete last line ends no
// event.
//
// An event whose data passes the limit, or that has an id, event or retry
// line over it, is read to its end without keeping its data: Next
// returns it without Data (its Name and ID as read; its id field counts
// for LastID) with a *mcp.FrameTooLargeError that carries the top-level
// "id" found in the data and whether it has a "method" (internal/frameid),
// so that a request can be answered and a response fail its call; the
// next call reads the next event. A comment or an unknown field over the
// limit is ignored, as such lines are.
func (r *Reader) Next() (Event, error) {
	var ev Event
	for {
		line, long, err := r.readLine(&ev)
		if !long && (len(line) > 0 || err == nil) {
			line = bytes.TrimRight(line, "\r\n")
			switch {
			case len(line) == 0:
				if r.skipping {
					return r.skipped(ev)
				}
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
				r.field(&ev, line)
			}
		}
		if err != nil {
			r.data.Reset()
			r.skipping = false
			return Event{}, err
		}
	}
}

// skipped ends the event over the limit just read.
func (r *Reader) skipped(ev Event) (Event, error) {
	r.skipping = false
	id, method := r.scan.Result()
	ev.Data = nil
	return ev, &mcp.FrameTooLargeError{Limit: r.max, ID: id, Request: method}
}

// skip marks the event being read as over the limit; the data read so
// far goes to the scanner.
func (r *Reader) skip(ev *Event) {
	if r.skipping {
		return
	}
	r.skipping = true
	r.scan.Reset()
	if ev.HasData {
		r.scan.Write(r.data.Bytes())
	}
	r.data.Reset()
}

// skipData adds value, a piece of the first line of a data field of an
// event over the limit, to the scanner.
func (r *Reader) skipData(ev *Event, value []byte) {
	r.skip(ev)
	if ev.HasData {
		r.scan.Write([]byte{'\n'})
	}
	ev.HasData = true
	r.scan.Write(value)
}

// field applies one field line to ev.
func (r *Reader) field(ev *Event, line []byte) {
	name, value, _ := bytes.Cut(line, []byte(":"))
	value = bytes.TrimPrefix(value, []byte(" "))
	switch string(name) {
	case "data":
		sep := 0
		if ev.HasData {
			sep = 1
		}
		if r.skipping || (r.max > 0 && r.data.Len()+sep+len(value) > r.max) {
			r.skipData(ev, value)
			return
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
}

// readLine returns the next line with its '\n', if any; a line may hold
// maxFieldOverhead bytes beyond the data limit. A longer line is read on
// in pieces and handed to skipLine; long reports it.
func (r *Reader) readLine(ev *Event) (line []byte, long bool, err error) {
	buf := r.line[:0]
	for {
		chunk, err := r.r.ReadSlice('\n')
		if r.max > 0 && len(buf)+len(chunk) > r.max+maxFieldOverhead {
			buf = append(buf, chunk...)
			r.line = buf
			return nil, true, r.skipLine(ev, buf, err)
		}
		buf = append(buf, chunk...)
		r.line = buf
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, false, err
		}
	}
}

// skipLine reads the rest of a line over the limit, of which head was
// read (with err), without keeping it. A data line's value goes to the
// scanner; an id, event or retry line marks its event as over the limit;
// a comment or an unknown field is ignored.
func (r *Reader) skipLine(ev *Event, head []byte, err error) error {
	name, value, found := bytes.Cut(head, []byte(":"))
	isData := found && string(name) == "data"
	switch {
	case isData:
		r.skipData(ev, lineEnd(bytes.TrimPrefix(value, []byte(" ")), err))
	case found && (string(name) == "id" || string(name) == "event" || string(name) == "retry"):
		r.skip(ev)
	}
	for errors.Is(err, bufio.ErrBufferFull) {
		var chunk []byte
		chunk, err = r.r.ReadSlice('\n')
		if isData {
			r.scan.Write(lineEnd(chunk, err))
		}
	}
	return err
}

// lineEnd returns the last piece of a line (read with err nil) without
// its line end, and another piece as it is.
func lineEnd(piece []byte, err error) []byte {
	if err != nil {
		return piece
	}
	return bytes.TrimRight(piece, "\r\n")
}
