package sse

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

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
		{"a long comment line", ": " + strings.Repeat("x", 8+64) + "\n\n", 0},
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
