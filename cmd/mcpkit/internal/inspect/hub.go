package inspect

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// hub fans the Inspector's events out to the pages' event streams. Each
// event is encoded once, as the bytes of one SSE event. The events worth
// seeing after the fact (frames, stderr lines) are kept, the last max of
// them, for a page that opens its stream later or again.
type hub struct {
	mu       sync.Mutex
	seq      int64
	backlog  [][]byte
	max      int
	subs     map[*subscriber]struct{}
	maxSubs  int
	snapshot func() State
	done     chan struct{}
	closed   bool
}

// subscriber is one open event stream. A subscriber that falls
// subscriberQueue events behind is dropped (gone is closed): its page's
// EventSource reconnects and starts again from a snapshot.
type subscriber struct {
	ch   chan []byte
	gone chan struct{}
}

const subscriberQueue = 1024

func newHub(max, maxSubs int, snapshot func() State) *hub {
	return &hub{max: max, maxSubs: maxSubs, subs: map[*subscriber]struct{}{}, snapshot: snapshot, done: make(chan struct{})}
}

// encodeLocked makes the SSE event of typ with data as JSON.
func (h *hub) encodeLocked(typ string, data any) []byte {
	h.seq++
	b, err := json.Marshal(data)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"encodingError": err.Error()})
	}
	return fmt.Appendf(nil, "id: %d\nevent: %s\ndata: %s\n\n", h.seq, typ, b)
}

// publish sends an event to every page; keep adds it to the backlog.
func (h *hub) publish(typ string, data any, keep bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	ev := h.encodeLocked(typ, data)
	if keep {
		if len(h.backlog) >= h.max {
			n := copy(h.backlog, h.backlog[1:])
			h.backlog = h.backlog[:n]
		}
		h.backlog = append(h.backlog, ev)
	}
	for s := range h.subs {
		select {
		case s.ch <- ev:
		default:
			delete(h.subs, s)
			close(s.gone)
		}
	}
}

// subscribe opens a stream: its first events are a "reset" with the
// current state, then the backlog.
func (h *hub) subscribe() (*subscriber, [][]byte, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || len(h.subs) >= h.maxSubs {
		return nil, nil, false
	}
	s := &subscriber{ch: make(chan []byte, subscriberQueue), gone: make(chan struct{})}
	h.subs[s] = struct{}{}
	initial := make([][]byte, 0, len(h.backlog)+1)
	initial = append(initial, h.encodeLocked("reset", h.snapshot()))
	initial = append(initial, h.backlog...)
	return s, initial, true
}

func (h *hub) unsubscribe(s *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[s]; ok {
		delete(h.subs, s)
		close(s.gone)
	}
}

// close ends every stream.
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		close(h.done)
	}
}

// keepAlive is how often an idle event stream gets a comment, so that
// a dead page is noticed.
const keepAlive = 15 * time.Second

// serveEvents is GET /api/events: the page's EventSource stream.
func (in *Inspector) serveEvents(w http.ResponseWriter, r *http.Request) {
	s, initial, ok := in.hub.subscribe()
	if !ok {
		httpError(w, http.StatusTooManyRequests, "too many event streams open (at most "+strconv.Itoa(in.opts.MaxPages)+"): close a tab of the inspector")
		return
	}
	defer in.hub.unsubscribe(s)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	for _, ev := range initial {
		if _, err := w.Write(ev); err != nil {
			return
		}
	}
	if rc.Flush() != nil {
		return
	}
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		var ev []byte
		select {
		case <-r.Context().Done():
			return
		case <-s.gone:
			return
		case <-in.hub.done:
			return
		case <-tick.C:
			ev = []byte(": keep-alive\n\n")
		case ev = <-s.ch:
		}
		if _, err := w.Write(ev); err != nil {
			return
		}
		// Send what is queued with it in one flush.
		for more := true; more; {
			select {
			case next := <-s.ch:
				if _, err := w.Write(next); err != nil {
					return
				}
			default:
				more = false
			}
		}
		if rc.Flush() != nil {
			return
		}
	}
}
