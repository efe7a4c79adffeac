package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/frameid"
	"github.com/mcpkit/mcpkit/mcp"
)

// readAll returns the events of stream and the error that ended it.
func readAll(t *testing.T, stream string, limit int) ([]Event, *Reader, error) {
	t.Helper()
	r := NewReader(strings.NewReader(stream), limit)
	var evs []Event
	for {
		ev, err := r.Next()
		if err != nil {
			return evs, r, err
		}
		evs = append(evs, ev)
	}
}

func TestNext(t *testing.T) {
	stream := ": keep-alive\n\n" +
		"event: endpoint\r\ndata: /messages?sessionId=a\r\n\r\n" +
		"id: 0-1\nretry: 1500\ndata:\n\n" +
		"data: {\"a\":\ndata:1}\n\n" +
		"event: other\n\n" +
		"id: bad\x00id\ndata: x\n\n" +
		"unknown: field\n\n" +
		"id: 0-2\ndata: cut"
	evs, r, err := readAll(t, stream, 0)
	if err != io.EOF {
		t.Fatalf("err = %v, want io.EOF", err)
	}
	want := []Event{
		{Name: "endpoint", Data: []byte("/messages?sessionId=a"), HasData: true},
		{ID: "0-1", Data: []byte{}, HasData: true},
		{Data: []byte("{\"a\":\n1}"), HasData: true},
		{Name: "other"},
		{Data: []byte("x"), HasData: true},
	}
	if len(evs) != len(want) {
		t.Fatalf("got %d events %+v, want %d", len(evs), evs, len(want))
	}
	for i, ev := range evs {
		w := want[i]
		if ev.Name != w.Name || ev.ID != w.ID || string(ev.Data) != string(w.Data) || ev.HasData != w.HasData {
			t.Errorf("event %d = %+v, want %+v", i, ev, w)
		}
	}
	// The incomplete last line's id counts; its data ends no event.
	if r.LastID != "0-2" || r.Retry != 1500*time.Millisecond {
		t.Errorf("LastID %q Retry %v, want 0-2 1.5s", r.LastID, r.Retry)
	}
}

func TestLimit(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stream string
		events int
	}{
		{"data at the limit", "data: 12345678\n\n", 1},
		{"two lines at the limit", "data: 1234\ndata: 567\n\n", 1},
		{"data over the limit", "data: 123456789\n\n", 0},
		{"two lines over the limit", "data: 1234\ndata: 5678\n\n", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, _, err := readAll(t, tc.stream, 8)
			if len(evs) != tc.events {
				t.Fatalf("%d events, want %d", len(evs), tc.events)
			}
			if tc.events == 1 {
				if err != io.EOF {
					t.Fatalf("err = %v, want io.EOF", err)
				}
				return
			}
			var tooLarge *mcp.FrameTooLargeError
			if !errors.As(err, &tooLarge) || tooLarge.Limit != 8 {
				t.Fatalf("err = %v, want *mcp.FrameTooLargeError{Limit: 8}", err)
			}
		})
	}
}

// skipResult is what Next returned for one event of TestSkip.
type skipResult struct {
	ev  Event
	err string // "" or the FrameTooLargeError as "limit id request"
}

func describe(ev Event, err error) skipResult {
	if err == nil {
		return skipResult{ev: ev}
	}
	var tooLarge *mcp.FrameTooLargeError
	if !errors.As(err, &tooLarge) {
		return skipResult{ev: ev, err: err.Error()}
	}
	return skipResult{ev: ev, err: fmt.Sprintf("limit %d id %s request %v", tooLarge.Limit, tooLarge.ID, tooLarge.Request)}
}

// An event over the limit is read to its end without keeping its data,
// reported with the top-level id and method its data holds, and the
// stream goes on with the next event.
func TestSkip(t *testing.T) {
	big := strings.Repeat("x", 100<<10) // three and more read chunks
	next := "data: {\"next\":1}\n\n"
	nextEv := skipResult{ev: Event{Data: []byte(`{"next":1}`), HasData: true}}
	for _, tc := range []struct {
		name   string
		stream string
		want   skipResult
		lastID string
	}{
		{
			"multi-line data, id first",
			"data: {\"jsonrpc\":\"2.0\",\ndata: \"id\":7,\ndata: \"result\":\"0123456789\"}\n\n",
			skipResult{ev: Event{HasData: true}, err: "limit 16 id 7 request false"}, "",
		},
		{
			"id after the big member, on one long line",
			"event: message\ndata: {\"result\":{\"text\":\"" + big + "\"},\"id\":\"abc\",\"jsonrpc\":\"2.0\"}\n\n",
			skipResult{ev: Event{Name: "message", HasData: true}, err: "limit 16 id \"abc\" request false"}, "",
		},
		{
			"a long line with CRLF ends",
			"data: {\"id\":8,\"result\":\"" + big + "\"}\r\n\r\n",
			skipResult{ev: Event{HasData: true}, err: "limit 16 id 8 request false"}, "",
		},
		{
			"nested id not taken",
			"data: {\"result\":{\"id\":5,\"text\":\"" + big + "\"},\"id\":6}\n\n",
			skipResult{ev: Event{HasData: true}, err: "limit 16 id 6 request false"}, "",
		},
		{
			"only a nested id",
			"data: {\"result\":{\"id\":5,\"text\":\"" + big + "\"}}\n\n",
			skipResult{ev: Event{HasData: true}, err: "limit 16 id null request false"}, "",
		},
		{
			"a request, lines joined by newlines",
			"data: {\"method\":\"sampling/createMessage\",\ndata: \"params\":{\"x\":\"" + big + "\"},\ndata:\"id\":3}\n\n",
			skipResult{ev: Event{HasData: true}, err: "limit 16 id 3 request true"}, "",
		},
		{
			"a newline inside a string breaks the id",
			"data: {\"a\":\"0123456789\ndata: \",\"id\":4}\n\n",
			skipResult{ev: Event{HasData: true}, err: "limit 16 id null request false"}, "",
		},
		{
			"id field after the data",
			"data: {\"id\":9,\"result\":\"" + big + "\"}\nid: ev-9\nretry: 250\n\n",
			skipResult{ev: Event{ID: "ev-9", HasData: true}, err: "limit 16 id 9 request false"}, "ev-9",
		},
		{
			"an id line over the limit",
			"id: " + big + "\ndata: {\"id\":1}\n\n",
			skipResult{ev: Event{HasData: true}, err: "limit 16 id 1 request false"}, "",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tc.stream+next), 16)
			if got := describe(r.Next()); !sameResult(got, tc.want) {
				t.Errorf("first event: %+v, want %+v", got, tc.want)
			}
			if r.LastID != tc.lastID {
				t.Errorf("LastID %q, want %q", r.LastID, tc.lastID)
			}
			if got := describe(r.Next()); !sameResult(got, nextEv) {
				t.Errorf("next event: %+v, want %+v", got, nextEv)
			}
			if _, err := r.Next(); err != io.EOF {
				t.Errorf("then %v, want io.EOF", err)
			}
			if r.data.Cap() > 64 || cap(r.line) > 16+maxFieldOverhead+readChunk {
				t.Errorf("kept %d bytes of data and %d of line", r.data.Cap(), cap(r.line))
			}
		})
	}
}

func sameResult(a, b skipResult) bool {
	return a.err == b.err && a.ev.Name == b.ev.Name && a.ev.ID == b.ev.ID && a.ev.HasData == b.ev.HasData && string(a.ev.Data) == string(b.ev.Data) && (a.ev.Data == nil) == (b.ev.Data == nil)
}

// A comment or an unknown field over the limit is ignored; an event over
// the limit cut by the end of the stream ends nothing.
func TestSkipIgnoredAndCut(t *testing.T) {
	big := strings.Repeat("x", 100<<10)
	evs, _, err := readAll(t, ": "+big+"\nfoo: "+big+"\n"+big+"\ndata: 1\n\n", 16)
	if err != io.EOF || len(evs) != 1 || string(evs[0].Data) != "1" {
		t.Errorf("events %+v, %v; want the one event after the long lines", evs, err)
	}
	for _, stream := range []string{
		"data: {\"id\":1,\"a\":\"" + big + "\"}\n",
		"data: {\"id\":1,\"a\":\"" + big,
		"data: 0123456789\ndata: 0123456789",
	} {
		evs, _, err := readAll(t, stream, 16)
		if err != io.EOF || len(evs) != 0 {
			t.Errorf("%.40q: events %+v, %v; want none and io.EOF", stream, evs, err)
		}
	}
}

// FuzzSkip reads a stream with a limit and without: each event within the
// limit is the same; each over it is reported with the id the scanner
// finds in its whole data; the last event id agrees after every event.
func FuzzSkip(f *testing.F) {
	f.Add([]byte("data: {\"id\":7,\ndata: \"a\":\"0123456789\"}\nid: 1\n\ndata: x\n\n"), uint8(8))
	f.Add([]byte(": "+strings.Repeat("c", 100)+"\ndata: {\"method\":\"m\",\"id\":\"s\"}\r\n\r\n"), uint8(4))
	f.Fuzz(func(t *testing.T, stream []byte, limit uint8) {
		max := int(limit) + 1
		for line := range bytes.SplitSeq(stream, []byte("\n")) {
			if len(line) > max+maxFieldOverhead && !bytes.HasPrefix(line, []byte(":")) && !bytes.HasPrefix(line, []byte("data")) {
				return // an id, event, retry or unknown field line over the limit
			}
		}
		whole := NewReader(bytes.NewReader(stream), 0)
		cut := NewReader(bytes.NewReader(stream), max)
		for {
			want, werr := whole.Next()
			got, err := cut.Next()
			if werr != nil {
				if err != werr {
					t.Fatalf("end: %v, want %v", err, werr)
				}
				return
			}
			if got.Name != want.Name || got.ID != want.ID || got.HasData != want.HasData || cut.LastID != whole.LastID {
				t.Fatalf("event %+v (last id %q), want %+v (%q)", got, cut.LastID, want, whole.LastID)
			}
			if len(want.Data) <= max {
				if err != nil || !bytes.Equal(got.Data, want.Data) {
					t.Fatalf("event %q, %v; want %q", got.Data, err, want.Data)
				}
				continue
			}
			var s frameid.Scanner
			s.Write(want.Data)
			id, method := s.Result()
			tooLarge, ok := errors.AsType[*mcp.FrameTooLargeError](err)
			if !ok || got.Data != nil || *tooLarge != (mcp.FrameTooLargeError{Limit: max, ID: id, Request: method}) {
				t.Fatalf("%d bytes over %d: %q, %v; want FrameTooLargeError{%d, %s, %v}", len(want.Data), max, got.Data, err, max, id, method)
			}
		}
	})
}
