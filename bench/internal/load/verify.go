package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// The payload rows' replies are large (1 MiB reads, 500 tools, 8 KB
// quotes), and decoding each one with encoding/json on the load
// generator's one CPU made the generator, not the server, the bottleneck.
// They are checked exactly but cheaply: a run's first replies are
// decoded and checked in full (Op.Check) and become the reference; every
// later reply must equal the reference byte for byte, except at the spots
// where the request's sequence number (which is also its JSON-RPC id) is
// printed, located once by comparing two replies that both passed the
// full check. The first reply whose sequence number has more digits than
// any before is checked both ways.

// A reference is what the replies of one Op from one server must be,
// shared by the verifiers of an OpLoad's connections.
type reference struct {
	op *Op
	// learnt[c] is class c's reference once learnt (read without the
	// lock; replaced, never changed, under it).
	learnt []atomic.Pointer[learnt]
	mu     sync.Mutex
	// classes is the learning state of each class, under mu.
	classes []refClass
}

// learnt is one class's reference.
type learnt struct {
	// segs is the reference cut at its holes: a reply for seq is
	// segs[0], seq's digits, segs[1], ..., seq's digits, segs[len-1].
	segs [][]byte
	// proven has bit n set once a reply whose seq has n digits was
	// decoded and checked in full as well as compared: a reference learnt
	// on 2-digit numbers is proven on 3-digit ones too.
	proven uint32
}

// refClass is how far the reference of the replies to the sequence
// numbers of one class (seq % Op.Classes) is learnt.
type refClass struct {
	// first is the first reply, fully checked, kept until a second one
	// locates the holes.
	first    []byte
	firstSeq int64
	// proving has bit n set while one connection checks a reply with an
	// n-digit seq in full; the others compare theirs meanwhile.
	proving uint32
	// full, when set, is why this class's replies are all checked in full
	// (its first two replies differed beyond the sequence number).
	full string
}

func newReference(op *Op) *reference {
	n := max(op.Classes, 1)
	return &reference{op: op, learnt: make([]atomic.Pointer[learnt], n), classes: make([]refClass, n)}
}

// fullNote reports why some replies were checked in full instead of
// against the reference, or "".
func (r *reference) fullNote() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.classes {
		if c.full != "" {
			return c.full
		}
	}
	return ""
}

// claim reports whether the caller is to prove class c's reference on
// numbers of length bit (no one else is).
func (r *reference) claim(c int, bit uint32) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.classes[c].proving&bit != 0 {
		return false
	}
	r.classes[c].proving |= bit
	return true
}

// A verifier checks the replies on one connection (one goroutine at a
// time) against a reference.
type verifier struct {
	ref  *reference
	data []byte // an SSE event's data lines, joined
	dec  []byte
	rr   rawReply
	// fullChecks counts the replies decoded and checked in full.
	fullChecks int
}

func newVerifier(op *Op) *verifier { return &verifier{ref: newReference(op)} }

// check verifies one HTTP reply body (JSON or SSE) to request seq, whose
// JSON-RPC id is seq too.
func (v *verifier) check(contentType string, body []byte, seq int64) error {
	v.dec = strconv.AppendInt(v.dec[:0], seq, 10)
	if strings.HasPrefix(contentType, "application/json") {
		return v.checkMessage(body, seq, true)
	}
	if !strings.HasPrefix(contentType, "text/event-stream") {
		return fmt.Errorf("reply content type %q: %.200s", contentType, body)
	}
	// SSE: events separated by a blank line, data lines joined by '\n'
	// (the response is one line of data from every target: no copy).
	var data []byte
	lines := 0
	l := v.ref.learnt[int(seq%int64(len(v.ref.classes)))].Load()
	proven := l != nil && l.proven&(uint32(1)<<min(len(v.dec), 31)) != 0
	for len(body) > 0 {
		// The response, compared where it lies: a first data line that
		// is the reference, ending the event.
		if proven && lines == 0 && bytes.HasPrefix(body, []byte("data:")) && isResponseEvent(l.segs, body[5:], v.dec) {
			return nil
		}
		var line []byte
		line, body = cutLine(body)
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			d = bytes.TrimPrefix(d, []byte{' '})
			switch lines {
			case 0:
				data = d
			case 1:
				v.data = append(append(append(v.data[:0], data...), '\n'), d...)
				data = v.data
			default:
				v.data = append(append(v.data, '\n'), d...)
				data = v.data
			}
			lines++
		}
		if (len(line) == 0 || len(body) == 0) && len(data) > 0 {
			if err := v.checkMessage(data, seq, false); err != errNotOurs {
				return err
			}
		}
		if len(line) == 0 {
			data, lines = nil, 0
		}
	}
	return fmt.Errorf("no response with id %d in SSE stream", seq)
}

// isResponseEvent reports whether d, what follows "data:" at the start of
// an SSE line, is the reference with dec in its holes, followed by the
// end of the line and of the event (a blank line or the end of the
// stream): without scanning the line for its end first.
func isResponseEvent(segs [][]byte, d, dec []byte) bool {
	d = bytes.TrimPrefix(d, []byte{' '})
	n, ok := matchPrefix(segs, d, dec)
	if !ok {
		return false
	}
	rest := d[n:]
	for range 2 { // the data line's end, then a blank line
		switch {
		case len(rest) == 0:
			return true
		case rest[0] == '\n':
			rest = rest[1:]
		case bytes.HasPrefix(rest, []byte("\r\n")):
			rest = rest[2:]
		default:
			return false
		}
	}
	return true
}

// errNotOurs is an SSE event that is not the response to the request
// (a notification, a request of the server's, another id): skipped.
var errNotOurs = errors.New("not the response")

// checkMessage checks one JSON-RPC message: the whole JSON reply (only),
// or one SSE event's data, where other messages may come first.
func (v *verifier) checkMessage(msg []byte, seq int64, only bool) (err error) {
	r := v.ref
	ci := int(seq % int64(len(r.classes)))
	bit := uint32(1) << min(len(v.dec), 31)
	claimed := false
	if l := r.learnt[ci].Load(); l != nil {
		if l.proven&bit != 0 || !r.claim(ci, bit) {
			if _, ok := match(l.segs, msg, v.dec); ok {
				return nil
			}
		} else {
			claimed = true
			defer func() {
				r.mu.Lock()
				r.classes[ci].proving &^= bit
				r.mu.Unlock()
			}()
		}
	}
	// The full check: today's decoding, also of a reply that differs
	// from the reference (for a precise error) and of an SSE event that
	// may be another message.
	v.rr = rawReply{}
	if err := json.Unmarshal(msg, &v.rr); err != nil {
		if only {
			return fmt.Errorf("decoding JSON reply: %w", err)
		}
		return fmt.Errorf("decoding SSE event: %w", err)
	}
	if !bytes.Equal(v.rr.ID, v.dec) || (v.rr.Result == nil && v.rr.Error == nil) {
		if only {
			return fmt.Errorf("reply id %s, want %s", v.rr.ID, v.dec)
		}
		return errNotOurs
	}
	v.fullChecks++
	if err := checkRaw(&v.rr, r.op, seq); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c := &r.classes[ci]
	if c.full != "" {
		return nil
	}
	if l := r.learnt[ci].Load(); l != nil {
		if at, ok := match(l.segs, msg, v.dec); !ok {
			return fmt.Errorf("reply to %d differs from the reference at byte %d of %d: %q", seq, at, len(msg), excerpt(msg, at))
		}
		if claimed {
			r.learnt[ci].Store(&learnt{segs: l.segs, proven: l.proven | bit})
		}
		return nil
	}
	if c.first == nil {
		c.first, c.firstSeq = append([]byte(nil), msg...), seq
		return nil
	}
	d1 := strconv.AppendInt(nil, c.firstSeq, 10)
	segs, err := learn(c.first, msg, d1, v.dec)
	if err != nil {
		c.full = fmt.Sprintf("%s replies checked in full, not against a reference: %v", r.op.Name, err)
		c.first = nil
		return nil
	}
	c.first = nil
	r.learnt[ci].Store(&learnt{segs: segs, proven: bit | uint32(1)<<min(len(d1), 31)})
	return nil
}

// match reports whether msg is segs with dec in every hole; if not, the
// offset of the first byte that differs.
func match(segs [][]byte, msg, dec []byte) (int, bool) {
	off, ok := matchPrefix(segs, msg, dec)
	return off, ok && off == len(msg)
}

// matchPrefix reports whether msg starts with segs with dec in every
// hole, and where that ends; if not, the offset of the first byte that
// differs.
func matchPrefix(segs [][]byte, msg, dec []byte) (int, bool) {
	off := 0
	for i, seg := range segs {
		if i > 0 {
			if !bytes.HasPrefix(msg[off:], dec) {
				return off + commonPrefix(msg[off:], dec), false
			}
			off += len(dec)
		}
		if !bytes.HasPrefix(msg[off:], seg) {
			return off + commonPrefix(msg[off:], seg), false
		}
		off += len(seg)
	}
	return off, true
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// learn cuts r1, the reply to the request whose sequence number prints as
// d1, at the spots where r2, the reply to d2, differs from it: each must
// be d1 in r1 and d2 in r2. Anything else that differs is an error. The
// segments are r1's (which the caller no longer changes).
func learn(r1, r2, d1, d2 []byte) ([][]byte, error) {
	var segs [][]byte
	i, j, start := 0, 0, 0
	for {
		n := commonPrefix(r1[i:], r2[j:])
		i, j = i+n, j+n
		if i == len(r1) && j == len(r2) {
			segs = append(segs, r1[start:])
			break
		}
		// A hole starts within the digits just before the first
		// difference, or at it.
		k := 0
		for k < i-start && isDigit(r1[i-1-k]) {
			k++
		}
		found := false
		for d := k; d >= 0 && !found; d-- {
			q1, q2 := i-d, j-d
			if bytes.HasPrefix(r1[q1:], d1) && bytes.HasPrefix(r2[q2:], d2) && (q1+len(d1) > i || q2+len(d2) > j) {
				segs = append(segs, r1[start:q1])
				i, j = q1+len(d1), q2+len(d2)
				start = i
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("the replies to %s and %s differ beyond the sequence number at byte %d: %q vs %q", d1, d2, i, excerpt(r1, i), excerpt(r2, j))
		}
	}
	if len(segs) < 2 {
		return nil, fmt.Errorf("the replies to %s and %s do not carry the sequence number", d1, d2)
	}
	if _, ok := match(segs, r1, d1); !ok {
		return nil, fmt.Errorf("the reference does not give back the reply to %s", d1)
	}
	if _, ok := match(segs, r2, d2); !ok {
		return nil, fmt.Errorf("the reference does not give back the reply to %s", d2)
	}
	return segs, nil
}

// excerpt is up to 40 bytes of b around offset at, for an error message.
func excerpt(b []byte, at int) []byte {
	lo, hi := max(at-20, 0), min(at+20, len(b))
	if lo > hi {
		return nil
	}
	return b[lo:hi]
}
