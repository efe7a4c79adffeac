package load

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"
)

// StdioLoad is scenario 3: one session over a server's stdin/stdout with
// up to Window tools/call requests in flight.
type StdioLoad struct {
	w      *bufio.Writer
	r      *bufio.Reader
	nextID int64
	runs   int
	era    Era
	// OnStuck, if set, is called when a run has not finished by d+drain
	// (the server stopped answering); it should end the server.
	OnStuck func()
}

// NewStdioLoad runs the handshake over the pipes.
func NewStdioLoad(stdin io.Writer, stdout io.Reader) (*StdioLoad, error) {
	return NewStdioLoadEra(stdin, stdout, SessionEra)
}

// NewStdioLoadEra is NewStdioLoad in either era: in the stateless era
// there is no handshake, and every request carries the 2026-07-28 _meta.
func NewStdioLoadEra(stdin io.Writer, stdout io.Reader, era Era) (*StdioLoad, error) {
	l := &StdioLoad{w: bufio.NewWriterSize(stdin, 64<<10), r: bufio.NewReaderSize(stdout, 64<<10), nextID: 1, era: era}
	if era == StatelessEra {
		return l, nil
	}
	l.w.Write(initializeBody)
	l.w.WriteByte('\n')
	if err := l.w.Flush(); err != nil {
		return nil, err
	}
	for {
		line, err := l.readLine()
		if err != nil {
			return nil, fmt.Errorf("initialize: %w", err)
		}
		var r callReply
		if err := parseReply("application/json", line, []byte("0"), &r); err != nil {
			continue // not our reply (a notification or a log line)
		}
		if r.Error != nil {
			return nil, fmt.Errorf("initialize: %w", r.Error)
		}
		break
	}
	l.w.Write(initializedBody)
	l.w.WriteByte('\n')
	return l, l.w.Flush()
}

func (l *StdioLoad) readLine() ([]byte, error) {
	line, err := l.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		buf := append([]byte(nil), line...)
		for err == bufio.ErrBufferFull {
			line, err = l.r.ReadSlice('\n')
			buf = append(buf, line...)
		}
		line = buf
	}
	return line, err
}

// Run sends calls until d has passed, keeping up to window in flight, then
// waits for the outstanding replies (at most drain). The end of the
// requests is marked by a ping with a string id: once its reply and every
// call's reply are in, the run is over, and nothing is left to read.
func (l *StdioLoad) Run(d time.Duration, window int, drain time.Duration) (Result, error) {
	var (
		mu      sync.Mutex
		pending = make(map[int64]time.Time, window)
		sent    int64
		slots   = make(chan struct{}, window)
		w       = worker{lat: make([]time.Duration, 0, 1<<16)}
		wdone   = make(chan error, 1)
	)
	l.runs++
	endID := []byte(`"end-` + strconv.Itoa(l.runs) + `"`)
	start := time.Now()
	deadline := start.Add(d)
	go func() { // writer
		var body, text []byte
		for {
			select {
			case slots <- struct{}{}:
			default:
				if err := l.w.Flush(); err != nil {
					wdone <- err
					return
				}
				slots <- struct{}{}
			}
			now := time.Now()
			if now.After(deadline) {
				break
			}
			id := l.nextID
			l.nextID++
			if l.era == StatelessEra {
				body = appendRequest(body[:0], EchoOp, StatelessEra, id, id)
			} else {
				text = strconv.AppendInt(append(text[:0], "stdio-"...), id, 10)
				body = appendCall(body[:0], id, text)
			}
			body = append(body, '\n')
			mu.Lock()
			pending[id] = now
			sent++
			mu.Unlock()
			if _, err := l.w.Write(body); err != nil {
				wdone <- err
				return
			}
		}
		// The end marker takes the slot acquired last.
		if l.era == StatelessEra {
			l.w.WriteString(`{"jsonrpc":"2.0","id":` + string(endID) + `,"method":"ping","params":{` + modernMeta + `}}` + "\n")
		} else {
			l.w.WriteString(`{"jsonrpc":"2.0","id":` + string(endID) + `,"method":"ping"}` + "\n")
		}
		wdone <- l.w.Flush()
	}()

	if l.OnStuck != nil {
		// A read blocks until the server writes; if it never does, the
		// caller ends the server, which ends the read.
		t := time.AfterFunc(d+drain, l.OnStuck)
		defer t.Stop()
	}
	var got int64
	var r callReply
	var text []byte
	ended := false
	for {
		mu.Lock()
		over := ended && got == sent
		mu.Unlock()
		if over {
			break
		}
		line, err := l.readLine()
		if err != nil {
			return Result{}, fmt.Errorf("stdio read: %w", err)
		}
		r = callReply{}
		if err := json.Unmarshal(line, &r); err != nil {
			w.fail(fmt.Errorf("stdio: decoding reply: %w", err))
			continue
		}
		if bytes.Equal(r.ID, endID) {
			ended = true
			<-slots
			continue
		}
		id, err := strconv.ParseInt(string(r.ID), 10, 64)
		if err != nil {
			continue // a notification or a server request: not a reply of ours
		}
		mu.Lock()
		t0, ok := pending[id]
		delete(pending, id)
		if ok {
			got++
		}
		mu.Unlock()
		if !ok {
			w.fail(fmt.Errorf("reply to unknown id %d", id))
			continue
		}
		<-slots
		if l.era == StatelessEra {
			text = echoText(text[:0], id)
		} else {
			text = strconv.AppendInt(append(text[:0], "stdio-"...), id, 10)
		}
		if err := checkEcho(&r, text); err != nil {
			w.fail(err)
			continue
		}
		w.lat = append(w.lat, time.Since(t0))
		w.n++
	}
	if err := <-wdone; err != nil {
		return Result{}, fmt.Errorf("stdio write: %w", err)
	}
	return Result{Requests: w.n, Errors: w.errs, FirstErr: w.firstErr, Elapsed: time.Since(start), lat: w.lat}, nil
}
