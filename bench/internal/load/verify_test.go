package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/bench/internal/targets"
)

type replyKey struct {
	op  *Op
	seq int64
}

// replies caches reply's encodings (1 MiB each for the reads).
var replies sync.Map // replyKey -> []byte

// reply is what a correct server answers to request seq of op: the
// JSON-RPC response, encoded by encoding/json. The caller must not
// change it.
func reply(t *testing.T, op *Op, seq int64) []byte {
	t.Helper()
	if b, ok := replies.Load(replyKey{op, seq}); ok {
		return b.([]byte)
	}
	var result any
	switch op {
	case NestedOp:
		out := targets.Quoted(targets.NestedArgs(seq))
		text, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		result = map[string]any{"content": []textContent{{Type: "text", Text: string(text)}}, "structuredContent": out}
	case ReadTextOp:
		result = map[string]any{"contents": []map[string]string{{"uri": targets.TextURI, "mimeType": "text/plain", "text": targets.Text}}}
	case ReadBlobOp:
		result = map[string]any{"contents": []map[string]string{{"uri": targets.BlobURI, "mimeType": "application/octet-stream", "blob": targets.BlobBase64}}}
	case PromptOp:
		result = map[string]any{"messages": []map[string]any{{"role": "user", "content": textContent{Type: "text", Text: targets.ReviewText(reviewCode(seq), "go")}}}}
	default:
		t.Fatalf("no reply for %s", op.Name)
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": seq, "result": result})
	if err != nil {
		t.Fatal(err)
	}
	replies.Store(replyKey{op, seq}, b)
	return b
}

// sse wraps msg in an SSE stream as a session-era server sends it: a
// priming event, a notification, then the response.
func sse(msg []byte) []byte {
	var b bytes.Buffer
	b.WriteString("id: 0_0\r\ndata:\r\n\r\n")
	b.WriteString("event: message\nid: 0_1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\n")
	b.WriteString("event: message\nid: 0_2\ndata: ")
	b.Write(msg)
	b.WriteString("\n\n")
	return b.Bytes()
}

const (
	ctJSON = "application/json"
	ctSSE  = "text/event-stream"
)

// body is reply in the given content type.
func body(t *testing.T, ct string, op *Op, seq int64) []byte {
	b := reply(t, op, seq)
	if ct == ctSSE {
		return sse(b)
	}
	return b
}

// trained returns a verifier of op that has learnt its references from the
// replies to 5 and 7, and 12 and 14 for the second class (the number of
// digits changes between them).
func trained(t *testing.T, op *Op, ct string) *verifier {
	t.Helper()
	v := newVerifier(op)
	for _, seq := range []int64{5, 12, 7, 14} {
		if err := v.check(ct, body(t, ct, op, seq), seq); err != nil {
			t.Fatalf("learning from the reply to %d: %v", seq, err)
		}
	}
	for i := range v.ref.learnt {
		if v.ref.learnt[i].Load() == nil || v.ref.classes[i].full != "" {
			t.Fatalf("class %d: no reference learnt (full: %q)", i, v.ref.classes[i].full)
		}
	}
	return v
}

// TestVerifierAcceptsTheReplies: once the reference is learnt, the
// correct reply to any later request passes, whatever the length of its
// sequence number, in JSON and in SSE, and without a full check.
func TestVerifierAcceptsTheReplies(t *testing.T) {
	for _, op := range []*Op{NestedOp, ReadTextOp, ReadBlobOp, PromptOp} {
		for _, ct := range []string{ctJSON, ctSSE} {
			v := trained(t, op, ct)
			seqs := []int64{9, 16, 99, 100, 101, 1234567, 1234568}
			for _, seq := range seqs {
				if err := v.check(ct, body(t, ct, op, seq), seq); err != nil {
					t.Errorf("%s %s: reply to %d: %v", op.Name, ct, seq, err)
				}
			}
			// Each length of number is checked in full once per class;
			// after that, no reply is decoded.
			full := v.fullChecks
			for _, seq := range seqs {
				if err := v.check(ct, body(t, ct, op, seq), seq); err != nil {
					t.Errorf("%s %s: reply to %d: %v", op.Name, ct, seq, err)
				}
			}
			if v.fullChecks != full {
				t.Errorf("%s %s: %d more replies checked in full", op.Name, ct, v.fullChecks-full)
			}
			// The references: the nested tool's two (its rush flag is
			// seq%2 == 0), each cut where the order id's and the
			// JSON-RPC id's digits are.
			wantHoles := 1
			switch op {
			case NestedOp:
				// the id; the order id in the four quotes of the
				// structured content and of the text.
				wantHoles = 1 + 2*targets.OutputRepls
			case PromptOp:
				wantHoles = 2 // the id; "request N" in the code
			}
			for i := range v.ref.learnt {
				if got := len(v.ref.learnt[i].Load().segs) - 1; got != wantHoles {
					t.Errorf("%s %s class %d: %d holes, want %d", op.Name, ct, i, got, wantHoles)
				}
			}
		}
	}
}

// TestVerifierCountsEveryDifferingByte: a reply that differs from the
// correct one in one byte outside the id and sequence number is an
// error, wherever that byte is (every position of the prompt's and the
// nested tool's replies, positions spread over the 1 MiB reads), and so
// is the reply to another request (a replay).
func TestVerifierCountsEveryDifferingByte(t *testing.T) {
	for _, op := range []*Op{PromptOp, NestedOp, ReadTextOp, ReadBlobOp} {
		for _, ct := range []string{ctJSON, ctSSE} {
			v := trained(t, op, ct)
			const seq = 4321
			good := reply(t, op, seq)
			step := 1 // every byte of the prompt's reply
			if len(good) > 2000 {
				step = len(good)/300 + 1
			}
			if len(good) > 100_000 {
				step = len(good)/6 + 1
			}
			tried := 0
			for at := 0; at < len(good); at += step {
				bad := bytes.Clone(good)
				// A different byte that keeps the JSON valid where
				// possible: a letter for a letter, a digit for a digit.
				switch c := bad[at]; {
				case isDigit(c):
					bad[at] = '0' + (c-'0'+1)%10
				case 'a' <= c && c <= 'y', 'A' <= c && c <= 'Y':
					bad[at] = c + 1
				case c == 'z', c == 'Z':
					bad[at] = c - 1
				default:
					bad[at] = 'Z'
				}
				b := bad
				if ct == ctSSE {
					b = sse(bad)
				}
				if err := v.check(ct, b, seq); err == nil {
					t.Errorf("%s %s: byte %d changed from %q to %q: no error", op.Name, ct, at, good[at], bad[at])
				}
				tried++
			}
			if tried < 6 {
				t.Fatalf("%s: only %d positions tried", op.Name, tried)
			}
			// A reply to another request, or a longer one, or a shorter one.
			for _, b := range [][]byte{reply(t, op, seq+2), append(bytes.Clone(good), ' '), good[:len(good)-1]} {
				if ct == ctSSE {
					b = sse(b)
				}
				if err := v.check(ct, b, seq); err == nil {
					t.Errorf("%s %s: wrong reply %.80q...: no error", op.Name, ct, b)
				}
			}
			// And the correct one still passes.
			if err := v.check(ct, body(t, ct, op, seq), seq); err != nil {
				t.Errorf("%s %s: %v", op.Name, ct, err)
			}
		}
	}
}

// TestVerifierErrorSaysWhere: a reply that passes the full check but
// differs from the reference (here, its members reordered) is an error
// that names the byte; a JSON-RPC error is reported as one.
func TestVerifierErrorSaysWhere(t *testing.T) {
	v := trained(t, PromptOp, ctJSON)
	good := reply(t, PromptOp, 20)
	reordered := []byte(strings.Replace(string(good), `{"id":20,"jsonrpc":"2.0",`, `{"jsonrpc":"2.0","id":20,`, 1))
	err := v.check(ctJSON, reordered, 20)
	if err == nil || !strings.Contains(err.Error(), "differs from the reference at byte 2 of") {
		t.Errorf("reordered reply: got %v", err)
	}
	rpcErr := []byte(`{"jsonrpc":"2.0","id":20,"error":{"code":-32603,"message":"boom"}}`)
	if err := v.check(ctJSON, rpcErr, 20); err == nil || err.Error() != "JSON-RPC error -32603 boom " {
		t.Errorf("JSON-RPC error: got %v", err)
	}
	if err := v.check(ctSSE, []byte("id: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n"), 20); err == nil ||
		err.Error() != "no response with id 20 in SSE stream" {
		t.Errorf("SSE without the response: got %v", err)
	}
}

// TestVerifierMultiLineData: an SSE response split over several data
// lines is joined as SSE says and checked the same way; a response line
// is the response only where its event ends with it.
func TestVerifierMultiLineData(t *testing.T) {
	v := trained(t, PromptOp, ctSSE)
	msg := bytes.Clone(reply(t, PromptOp, 33))
	// Split after a comma: the joined data has a '\n' there, which
	// JSON takes as white space, so the full check passes and the
	// reference check must say it differs.
	i := bytes.IndexByte(msg, ',')
	split := append(append(append([]byte("data: "), msg[:i+1]...), "\ndata: "...), msg[i+1:]...)
	split = append(split, "\n\n"...)
	err := v.check(ctSSE, split, 33)
	if err == nil || !strings.Contains(err.Error(), "differs from the reference at byte "+strconv.Itoa(i+1)) {
		t.Errorf("split response: got %v", err)
	}
	// The whole response on its first data line, then more data in the
	// same event: the event's data is not the response.
	more := append(append([]byte("data: "), msg...), "\ndata: x\n\n"...)
	if err := v.check(ctSSE, more, 33); err == nil || !strings.HasPrefix(err.Error(), "decoding SSE event") {
		t.Errorf("response line then more data: got %v", err)
	}
	// CRLF line ends, and a stream that ends with the data line.
	for _, ok := range [][]byte{
		append(append([]byte("event: message\r\ndata: "), msg...), "\r\n\r\n"...),
		append([]byte("data:"), msg...),
	} {
		if err := v.check(ctSSE, ok, 33); err != nil {
			t.Errorf("%.30q...: %v", ok, err)
		}
	}
}

// TestVerifierFallsBackToFullChecks: when a connection's first two
// replies differ beyond the sequence number (here a member that changes
// with every reply), no reference is used: every reply is checked in
// full, none fails for it, and Note says so.
func TestVerifierFallsBackToFullChecks(t *testing.T) {
	v := newVerifier(PromptOp)
	for i, seq := range []int64{3, 4, 5, 6} {
		msg := bytes.Clone(reply(t, PromptOp, seq))
		msg = append(msg[:len(msg)-1], `,"x":"`+strings.Repeat("a", i)+`"}`...)
		if err := v.check(ctJSON, msg, seq); err != nil {
			t.Fatalf("reply to %d: %v", seq, err)
		}
	}
	if n := v.ref.fullNote(); !strings.HasPrefix(n, "prompt replies checked in full, not against a reference: the replies to 3 and 4 differ beyond the sequence number at byte ") {
		t.Errorf("note %q", n)
	}
	wrong := []byte(strings.Replace(string(reply(t, PromptOp, 7)), "Review", "Rexiew", 1))
	if err := v.check(ctJSON, wrong, 7); err == nil || !strings.HasPrefix(err.Error(), "prompts/get: wrong messages") {
		t.Errorf("wrong reply under full checks: got %v", err)
	}
}

// TestAppendNestedArgs: the nested tool's arguments, written from the
// cut encoding, are json.Marshal's.
func TestAppendNestedArgs(t *testing.T) {
	for _, seq := range []int64{1, 2, 9, 10, 11, 99, 100, 12345, 1 << 40} {
		want, err := json.Marshal(targets.NestedArgs(seq))
		if err != nil {
			t.Fatal(err)
		}
		if got := appendNestedArgs(nil, seq); !bytes.Equal(got, want) {
			t.Errorf("seq %d:\n got %s\nwant %s", seq, got, want)
		}
	}
}

// TestLearnDigitsInARun: a sequence number printed after other digits,
// or growing a digit between the two replies, is located exactly.
func TestLearnDigitsInARun(t *testing.T) {
	for _, c := range []struct{ d1, d2 string }{{"15", "16"}, {"5", "15"}, {"9", "10"}, {"15", "115"}, {"115", "15"}, {"21", "12"}} {
		r1 := []byte(`{"id":` + c.d1 + `,"x":"ord-00` + c.d1 + `","y":"` + c.d1 + `1"}`)
		r2 := []byte(`{"id":` + c.d2 + `,"x":"ord-00` + c.d2 + `","y":"` + c.d2 + `1"}`)
		segs, err := learn(r1, r2, []byte(c.d1), []byte(c.d2))
		if err != nil {
			t.Errorf("%s/%s: %v", c.d1, c.d2, err)
			continue
		}
		want := []string{`{"id":`, `,"x":"ord-00`, `","y":"`, `1"}`}
		var got []string
		for _, s := range segs {
			got = append(got, string(s))
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s/%s: segments %q, want %q", c.d1, c.d2, got, want)
		}
		if _, ok := match(segs, []byte(`{"id":777,"x":"ord-00777","y":"7771"}`), []byte("777")); !ok {
			t.Errorf("%s/%s: the reply to 777 does not match", c.d1, c.d2)
		}
	}
}

// TestVerifierSharedReference: the connections of a load share one
// reference, learnt and proven on each new length of number by whichever
// gets there first, while the others check concurrently; a wrong reply
// is still an error for any of them.
func TestVerifierSharedReference(t *testing.T) {
	for _, op := range []*Op{PromptOp, NestedOp} {
		ref := newReference(op)
		var next atomic.Int64
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		full := make([]int, 8)
		for g := range 8 {
			wg.Go(func() {
				v := &verifier{ref: ref}
				for {
					seq := next.Add(1)
					if seq > 1200 {
						break
					}
					if err := v.check(ctSSE, sse(reply(t, op, seq)), seq); err != nil {
						errs <- fmt.Errorf("reply to %d: %w", seq, err)
						return
					}
					// A wrong reply now and then.
					if seq%97 == 0 {
						bad := bytes.Clone(reply(t, op, seq))
						bad[len(bad)/2] ^= 1
						if v.check(ctJSON, bad, seq) == nil {
							errs <- fmt.Errorf("wrong reply to %d passed", seq)
							return
						}
					}
				}
				full[g] = v.fullChecks
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("%s: %v", op.Name, err)
		}
		if note := ref.fullNote(); note != "" {
			t.Errorf("%s: %s", op.Name, note)
		}
		total := 0
		for _, n := range full {
			total += n
		}
		// The wrong replies (12), each decoded for a precise error; per
		// class, the two it learns from, a proof for each length of
		// number (1 to 4 digits), and up to two per connection that
		// started before the reference was learnt: not one per reply.
		if max := 12 + max(op.Classes, 1)*(2+4+2*8); total > max {
			t.Errorf("%s: %d replies checked in full, want at most %d", op.Name, total, max)
		}
	}
}

// BenchmarkReplyCheck is the load generator's cost of checking one reply
// of each payload row, SSE and JSON: "full" decodes it with encoding/json
// and checks it with Op.Check, as every reply was before; "reference"
// compares it with the learnt reference, as every reply but a run's first
// few is now.
//
//	cd bench && go test -run XXX -bench BenchmarkReplyCheck ./internal/load/
func BenchmarkReplyCheck(b *testing.B) {
	t := &testing.T{}
	for _, op := range []*Op{NestedOp, ReadTextOp, ReadBlobOp, ListToolsOp, PromptOp} {
		for _, ct := range []string{ctSSE, ctJSON} {
			var msg []byte
			if op == ListToolsOp {
				msg = toolsListReply(b, 1000)
			} else {
				msg = reply(t, op, 1000)
			}
			// As the targets send it: a priming event, then the response.
			wrap := func(m []byte) []byte {
				return append(append([]byte("id: 0_0\ndata:\n\nevent: message\nid: 0_1\ndata: "), m...), "\n\n"...)
			}
			body := msg
			if ct == ctSSE {
				body = wrap(msg)
			}
			name := op.Name + "/" + strings.TrimPrefix(strings.TrimPrefix(ct, "application/"), "text/")
			b.Run(name+"/full", func(b *testing.B) {
				b.SetBytes(int64(len(body)))
				id := []byte("1000")
				for b.Loop() {
					var r rawReply
					if err := parseRaw(ct, body, id, &r); err != nil {
						b.Fatal(err)
					}
					if err := checkRaw(&r, op, 1000); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(name+"/reference", func(b *testing.B) {
				v := newVerifier(op)
				for _, seq := range []int64{1001, 1003, 1000, 1002} { // two per class, 4 digits
					var m []byte
					if op == ListToolsOp {
						m = toolsListReply(b, seq)
					} else {
						m = reply(t, op, seq)
					}
					if ct == ctSSE {
						m = wrap(m)
					}
					if err := v.check(ct, m, seq); err != nil {
						b.Fatal(err)
					}
				}
				full := v.fullChecks
				b.SetBytes(int64(len(body)))
				for b.Loop() {
					if err := v.check(ct, body, 1000); err != nil {
						b.Fatal(err)
					}
				}
				if v.fullChecks != full {
					b.Fatalf("%d replies checked in full", v.fullChecks-full)
				}
			})
		}
	}
}

// toolsListReply is a tools/list reply with the fixture's 502 tools.
func toolsListReply(tb testing.TB, seq int64) []byte {
	type tool struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	tools := []tool{{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: targets.NestedTool, InputSchema: targets.NestedSchema}}
	for i := range targets.ManyTools {
		tools = append(tools, tool{Name: targets.ToolName(i), Description: targets.ToolDescription(i), InputSchema: targets.ToolSchema(i)})
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": seq, "result": map[string]any{"tools": tools}})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestOpLoadCountsWrongReplies: a whole OpLoad against a server on
// 127.0.0.1 that answers prompts/get correctly, in JSON or SSE, but
// every 50th reply with a space added (the same JSON, other bytes) and
// every 50th, 25 later, with one letter of the text changed: each of
// those is one error, and every other reply passes.
func TestOpLoadCountsWrongReplies(t *testing.T) {
	var sent, spaced, changed atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     int64 `json:"id"`
			Params struct {
				Arguments struct {
					Code     string `json:"code"`
					Language string `json:"language"`
				} `json:"arguments"`
			} `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		text, _ := json.Marshal(targets.ReviewText(req.Params.Arguments.Code, req.Params.Arguments.Language))
		msg := `{"jsonrpc":"2.0","id":` + strconv.FormatInt(req.ID, 10) + `,"result":{"messages":[{"role":"user","content":{"type":"text","text":` + string(text) + `}}]}}`
		sent.Add(1)
		switch req.ID % 50 {
		case 0:
			spaced.Add(1)
			msg = strings.Replace(msg, `"role":`, `"role": `, 1)
		case 25:
			changed.Add(1)
			msg = strings.Replace(msg, "Review", "Reviex", 1)
		}
		if req.ID%2 == 1 {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write([]byte("id: 1\ndata:\n\nevent: message\ndata: " + msg + "\n\n"))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(msg))
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	l, err := NewOpLoad(ln.Addr().String(), PromptOp, StatelessEra, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var res Result
	for sent.Load() < 300 {
		r := l.Run(50 * time.Millisecond)
		res.Requests += r.Requests
		res.Errors += r.Errors
		if res.FirstErr == "" {
			res.FirstErr = r.FirstErr
		}
		if r.Note != "" {
			t.Fatalf("note: %s", r.Note)
		}
	}
	bad := spaced.Load() + changed.Load()
	if int64(res.Errors) != bad || int64(res.Requests)+bad != sent.Load() {
		t.Errorf("%d requests, %d errors (first %q); the server sent %d replies, %d with a space, %d with a letter changed",
			res.Requests, res.Errors, res.FirstErr, sent.Load(), spaced.Load(), changed.Load())
	}
	if spaced.Load() == 0 || changed.Load() == 0 {
		t.Errorf("no wrong reply sent (%d, %d)", spaced.Load(), changed.Load())
	}
}
