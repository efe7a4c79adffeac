package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"

	"github.com/mcpkit/mcpkit/mcp"
)

// statusLine shows the progress a server reports
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress)
// on stderr: on a terminal as one live line, redrawn in place (carriage
// return, erase line) and erased when the call ends or another line must
// be printed; otherwise one plain line per notification, for logs and
// pipes.
type statusLine struct {
	mu    sync.Mutex
	w     io.Writer
	live  bool // w is a terminal
	shown bool // a live line is on screen
}

// eraseLine is a carriage return and ANSI "erase in line" (EL, mode 0).
const eraseLine = "\r\x1b[K"

func newStatusLine(w io.Writer) *statusLine {
	return &statusLine{w: w, live: isTerminal(w)}
}

// isTerminal reports whether w is a terminal that understands a redrawn
// line.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("TERM") == "dumb" {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// progress shows a progress notification.
func (s *statusLine) progress(p *mcp.ProgressParams) {
	text := progressText(p)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live {
		fmt.Fprint(s.w, eraseLine+text)
		s.shown = true
		return
	}
	fmt.Fprintln(s.w, text)
}

// println prints a line of its own (a server log message), erasing the
// live line first; the next notification draws it again.
func (s *statusLine) println(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.eraseLocked()
	fmt.Fprintln(s.w, line)
}

// Write passes on what the server process writes on its stderr (its
// logs), erasing the live line first. It is the one writer to stderr
// besides the status line itself, so that the two do not interleave.
func (s *statusLine) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.eraseLocked()
	return s.w.Write(p)
}

// clear erases the live line, if one is shown.
func (s *statusLine) clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.eraseLocked()
}

func (s *statusLine) eraseLocked() {
	if s.shown {
		fmt.Fprint(s.w, eraseLine)
		s.shown = false
	}
}

// progressText is a notification as shown: "progress P[/TOTAL][: MESSAGE]".
func progressText(p *mcp.ProgressParams) string {
	text := "progress " + strconv.FormatFloat(p.Progress, 'f', -1, 64)
	if p.Total > 0 {
		text += "/" + strconv.FormatFloat(p.Total, 'f', -1, 64)
	}
	if p.Message != "" {
		text += ": " + p.Message
	}
	return text
}
