package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestDocTranscripts replays every curl transcript of docs/*.md against
// the mcpkit binary and compares what it answers with what the page shows,
// so that the pages cannot drift from the code. The conventions, in a
// ```console block:
//
//   - `$ mcpkit serve ...` and `$ mcpkit dev-auth-server ...` start that
//     server for the rest of the page (the output shown under them, logs,
//     is not compared). The server listens on a free port instead of the
//     page's; the page's port is replaced by the real one in what is sent
//     and the real one by the page's in what comes back.
//   - `$ NAME=value` sets a variable for the commands after it ($NAME,
//     "$NAME").
//   - `$ curl ...` (-s, -i, -N, -X, -H, -d) is sent, and its output (the
//     lines up to the next `$` line or the block's end) must be exactly
//     what curl would print: status line, headers in order, blank line,
//     body. A page may leave out Date, Content-Length and
//     Transfer-Encoding; any other header must be shown. A Date header's
//     value may be any date; a 26-character session id (crypto/rand.Text)
//     may be any such id, and the same id the page shows again later
//     (say in `$ SID=...`) stands for the one that came back. With -N the
//     stream stays open (its session with it) after the events shown.
//   - Other commands are not run.
//
// A block right after a line `<!-- transcript: not replayed: WHY -->` is
// skipped: say why there.
func TestDocTranscripts(t *testing.T) {
	if testing.Short() {
		t.Skip("runs mcpkit servers")
	}
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no docs found: %v", err)
	}
	total := 0
	for _, page := range pages {
		t.Run(filepath.Base(page), func(t *testing.T) {
			n := replayPage(t, page)
			t.Logf("%s: %d curl transcripts as shown", page, n)
			total += n
		})
	}
	if total < 30 {
		t.Errorf("only %d curl transcripts checked in docs/: the parser missed some", total)
	}
}

// docStep is one `$` line of a console block (continuation lines joined)
// and the output shown under it.
type docStep struct {
	line    int // in the page, 1-based
	command string
	output  string
	// outStart and outEnd are the output's lines in the page (0-based,
	// end excluded).
	outStart, outEnd int
}

// consoleSteps returns the steps of every ```console block of the page.
func consoleSteps(t *testing.T, page string) []docStep {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var (
		steps   []docStep
		inBlock bool
		cur     *docStep
		out     []string
		cont    bool
	)
	var i int
	end := func() {
		if cur != nil {
			cur.output = strings.Join(out, "\n")
			cur.outStart, cur.outEnd = i-len(out), i
			steps = append(steps, *cur)
		}
		cur, out, cont = nil, nil, false
	}
	var line, prev string
	for i, line = range strings.Split(string(data), "\n") {
		switch {
		case !inBlock:
			inBlock = line == "```console" && !strings.HasPrefix(prev, "<!-- transcript: not replayed")
			if line != "" {
				prev = line
			}
		case line == "```":
			end()
			inBlock = false
		case cont:
			cur.command += "\n" + line
			cont = strings.HasSuffix(line, `\`)
		case strings.HasPrefix(line, "$ "):
			end()
			cur = &docStep{line: i + 1, command: line[2:]}
			cont = strings.HasSuffix(line, `\`)
		case cur != nil:
			out = append(out, line)
		}
	}
	return steps
}

// docReplay is the state of one page's replay.
type docReplay struct {
	t    *testing.T
	page string
	vars map[string]string
	// addrs maps a page's host:port to the real one, and back.
	addrs, back map[string]string
	// ids maps a session id the page shows to the one that came back.
	ids map[string]string
	// updates holds, with -update-docs, each step's output as it came.
	updates map[int]string
}

var updateDocs = flag.Bool("update-docs", false, "TestDocTranscripts: write what the servers answered into docs/*.md")

func replayPage(t *testing.T, page string) int {
	r := &docReplay{t: t, page: page, vars: map[string]string{}, addrs: map[string]string{}, back: map[string]string{}, ids: map[string]string{}}
	n := 0
	steps := consoleSteps(t, page)
	if *updateDocs {
		r.updates = map[int]string{}
		defer r.writeUpdates(steps)
	}
	for _, st := range steps {
		words, err := shellWords(st.command, r.vars)
		if err != nil {
			t.Fatalf("%s:%d: %v", page, st.line, err)
		}
		if len(words) > 0 && words[len(words)-1] == "&" {
			words = words[:len(words)-1] // in the background: so are the servers here
		}
		if len(words) == 0 {
			continue
		}
		switch {
		case len(words) == 1 && regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`).MatchString(words[0]):
			name, value, _ := strings.Cut(words[0], "=")
			r.vars[name] = value
		case words[0] == "mcpkit" && len(words) > 1 && (words[1] == "serve" || words[1] == "dev-auth-server"):
			r.startServer(st, words)
		case words[0] == "curl":
			r.curl(st, words)
			n++
		}
	}
	return n
}

var (
	docAddrRE   = regexp.MustCompile(`127\.0\.0\.1:\d+`)
	docSIDRE    = regexp.MustCompile(`\b[A-Z2-7]{26}\b`)
	docListenRE = regexp.MustCompile(`http://127\.0\.0\.1:(\d+)`)
)

// startServer runs the page's server command on a free port and records
// the port it got.
func (r *docReplay) startServer(st docStep, words []string) {
	t := r.t
	args := append([]string(nil), words[1:]...)
	listen := ""
	for i, a := range args {
		if i > 0 && (args[i-1] == "--http" || args[i-1] == "--addr") && docAddrRE.MatchString(a) {
			listen = a
			args[i] = "127.0.0.1:0"
		} else {
			args[i] = r.toReal(a)
		}
	}
	if listen == "" {
		t.Fatalf("%s:%d: %q names no --http or --addr 127.0.0.1:PORT", r.page, st.line, st.command)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), asMcpkitEnv+"=1", "GORACE=atexit_sleep_ms=0")
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var (
		mu   sync.Mutex
		logs strings.Builder
	)
	others := map[string]bool{} // the other servers' addresses
	for real := range r.back {
		others[real] = true
	}
	found := make(chan string, 1)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			mu.Lock()
			logs.WriteString(sc.Text() + "\n")
			mu.Unlock()
			// The first URL of a port that is not another server's.
			for _, m := range docListenRE.FindAllStringSubmatch(sc.Text(), -1) {
				if m[1] != "0" && !others["127.0.0.1:"+m[1]] {
					select {
					case found <- "127.0.0.1:" + m[1]:
					default:
					}
					break
				}
			}
		}
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); pw.Close() }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		if err := <-exited; err != nil {
			mu.Lock()
			t.Errorf("%s:%d: %v: %v; its output:\n%s", r.page, st.line, words, err, logs.String())
			mu.Unlock()
		}
		<-drained
	})
	select {
	case real := <-found:
		r.addrs[listen], r.back[real] = real, listen
	case err := <-exited:
		<-drained
		t.Fatalf("%s:%d: %v exited (%v) before it listened; its output:\n%s", r.page, st.line, words, err, logs.String())
	case <-time.After(time.Minute):
		t.Fatalf("%s:%d: %v named no URL in a minute", r.page, st.line, words)
	}
}

// toReal puts the real ports and session ids into s, as sent.
func (r *docReplay) toReal(s string) string {
	s = docAddrRE.ReplaceAllStringFunc(s, func(a string) string {
		if real, ok := r.addrs[a]; ok {
			return real
		}
		return a
	})
	return docSIDRE.ReplaceAllStringFunc(s, func(id string) string {
		if real, ok := r.ids[id]; ok {
			return real
		}
		return id
	})
}

// curl sends the request of a curl command line as curl would, and
// compares what curl would print with the page.
func (r *docReplay) curl(st docStep, words []string) {
	t := r.t
	where := fmt.Sprintf("%s:%d", r.page, st.line)
	var (
		method, body, rawURL string
		headers              [][2]string
		include, stream      bool
		hasBody              bool
	)
	for i := 1; i < len(words); i++ {
		w := words[i]
		next := func() string {
			i++
			if i >= len(words) {
				t.Fatalf("%s: %s wants a value", where, w)
			}
			return words[i]
		}
		switch {
		case w == "-X":
			method = next()
		case w == "-H":
			k, v, ok := strings.Cut(next(), ":")
			if !ok {
				t.Fatalf("%s: header %q has no colon", where, words[i])
			}
			headers = append(headers, [2]string{k, strings.TrimSpace(v)})
		case w == "-d":
			body, hasBody = next(), true
		case strings.HasPrefix(w, "-") && strings.Trim(w, "-siN") == "":
			include = include || strings.Contains(w, "i")
			stream = stream || strings.Contains(w, "N")
		case !strings.HasPrefix(w, "-") && rawURL == "":
			rawURL = w
		default:
			t.Fatalf("%s: curl option %q is not one the replay knows", where, w)
		}
	}
	if method == "" {
		method = http.MethodGet
		if hasBody {
			method = http.MethodPost
		}
	}
	u, err := url.Parse(r.toReal(rawURL))
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	if _, ok := r.back[u.Host]; !ok {
		t.Fatalf("%s: no server of the page listens on %s (start one with a `$ mcpkit serve --http ADDR` line)", where, rawURL)
	}
	req, err := http.NewRequest(method, u.String(), strings.NewReader(r.toReal(body)))
	if err != nil {
		t.Fatal(err)
	}
	if !hasBody {
		req.Body, req.ContentLength = nil, 0
	}
	req.Header.Set("User-Agent", "curl/8.5.0")
	req.Header.Set("Accept", "*/*")
	if hasBody {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for _, h := range headers {
		if strings.EqualFold(h[0], "Host") {
			req.Host = h[1]
			continue
		}
		req.Header.Set(h[0], r.toReal(h[1]))
	}

	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	if stream {
		t.Cleanup(func() { conn.Close() })
	} else {
		defer conn.Close()
	}
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	if err := req.Write(conn); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	// With -N, the events the page shows.
	events := 0
	if _, shown, _ := strings.Cut(st.output, "\n\n"); strings.TrimSpace(shown) != "" {
		events = strings.Count(strings.TrimRight(shown, "\n"), "\n\n") + 1
	}
	got, err := readCurlOutput(bufio.NewReader(conn), method, include, stream, events)
	if err != nil {
		t.Fatalf("%s: %v; read so far:\n%s", where, err, got)
	}
	if stream {
		conn.SetDeadline(time.Time{})
	}
	got = docAddrRE.ReplaceAllStringFunc(got, func(a string) string {
		if page, ok := r.back[a]; ok {
			return page
		}
		return a
	})
	got = fixContentLength(got)
	if r.updates != nil {
		r.updates[st.line] = r.asShown(st.output, got)
		return
	}
	if err := r.match(st.output, got); err != nil {
		t.Errorf("%s: `%s`\n%v\n--- the page shows:\n%s\n--- the server answered:\n%s", where, st.command, err, st.output, got)
	}
}

// readCurlOutput reads a response as curl -s prints it: with include,
// the status line and the headers in the order they came, then the body
// (decoded from chunks). With stream it stops after events SSE events.
func readCurlOutput(br *bufio.Reader, method string, include, stream bool, events int) (string, error) {
	var out strings.Builder
	tp := textproto.NewReader(br)
	status, err := tp.ReadLine()
	if err != nil {
		return "", err
	}
	if include {
		out.WriteString(status + "\n")
	}
	chunked, length := false, -1
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return out.String(), err
		}
		if line == "" {
			break
		}
		if include {
			out.WriteString(line + "\n")
		}
		k, v, _ := strings.Cut(line, ":")
		v = strings.TrimSpace(v)
		switch textproto.CanonicalMIMEHeaderKey(k) {
		case "Transfer-Encoding":
			chunked = v == "chunked"
		case "Content-Length":
			length, _ = strconv.Atoi(v)
		}
	}
	if include {
		out.WriteString("\n")
	}
	code, _ := strconv.Atoi(strings.Fields(status + " 0 0")[1])
	var body io.Reader = br
	switch {
	case method == http.MethodHead || code == http.StatusNoContent || code == http.StatusNotModified:
		body = strings.NewReader("")
	case chunked:
		body = httputil.NewChunkedReader(br)
	case length >= 0:
		body = io.LimitReader(br, int64(length))
	}
	if !stream {
		b, err := io.ReadAll(body)
		out.Write(b)
		return out.String(), err
	}
	// An open stream: read until the events shown have come.
	var b []byte
	buf := make([]byte, 4096)
	for bytes.Count(b, []byte("\n\n")) < events {
		n, err := body.Read(buf)
		b = append(b, buf[:n]...)
		if err != nil {
			out.Write(b)
			return out.String(), err
		}
	}
	out.Write(b)
	return out.String(), nil
}

// fixContentLength sets a Content-Length header in out to the length of
// the body in out, which changes when a port of another length was put
// back.
func fixContentLength(out string) string {
	head, body, ok := strings.Cut(out, "\n\n")
	if !ok {
		return out
	}
	re := regexp.MustCompile(`(?m)^Content-Length: \d+$`)
	return re.ReplaceAllString(head, "Content-Length: "+strconv.Itoa(len(body))) + "\n\n" + body
}

// optionalHeaders may be left out of a page.
var optionalHeaders = map[string]bool{"Date": true, "Content-Length": true, "Transfer-Encoding": true}

// match compares the output a page shows with the real one, as
// TestDocTranscripts describes, and records the session ids it binds.
func (r *docReplay) match(want, got string) error {
	want = strings.TrimRight(want, "\n")
	got = strings.TrimRight(got, "\n")
	// Leave out the optional headers the page does not show.
	wantHead, _, _ := strings.Cut(want, "\n\n")
	if strings.HasPrefix(want, "HTTP/") {
		shown := map[string]bool{}
		for _, l := range strings.Split(wantHead, "\n") {
			k, _, _ := strings.Cut(l, ":")
			shown[textproto.CanonicalMIMEHeaderKey(k)] = true
		}
		head, body, _ := strings.Cut(got, "\n\n")
		var kept []string
		for i, l := range strings.Split(head, "\n") {
			k, _, _ := strings.Cut(l, ":")
			if k = textproto.CanonicalMIMEHeaderKey(k); i > 0 && optionalHeaders[k] && !shown[k] {
				continue
			}
			kept = append(kept, l)
		}
		got = strings.Join(kept, "\n") + "\n\n" + body
		got = strings.TrimRight(got, "\n")
	}
	// The page's dates and session ids stand for any.
	var pattern strings.Builder
	var ids []string
	pattern.WriteString("^")
	rest := want
	for rest != "" {
		loc := docVarRE.FindStringIndex(rest)
		if loc == nil {
			pattern.WriteString(regexp.QuoteMeta(rest))
			break
		}
		pattern.WriteString(regexp.QuoteMeta(rest[:loc[0]]))
		v := rest[loc[0]:loc[1]]
		if strings.HasPrefix(v, "Date: ") {
			pattern.WriteString(`Date: [A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT`)
		} else {
			pattern.WriteString(`([A-Z2-7]{26})`)
			ids = append(ids, v)
		}
		rest = rest[loc[1]:]
	}
	pattern.WriteString("$")
	m := regexp.MustCompile(pattern.String()).FindStringSubmatch(got)
	if m == nil {
		return errors.New("the output differs")
	}
	for i, id := range ids {
		if prev, ok := r.ids[id]; ok && prev != m[i+1] {
			return fmt.Errorf("the page shows %s for two session ids, %s and %s", id, prev, m[i+1])
		}
		r.ids[id] = m[i+1]
	}
	return nil
}

var docVarRE = regexp.MustCompile(`(?m)^Date: .*$|\b[A-Z2-7]{26}\b`)

// shellWords splits a command line as a POSIX shell would for the
// commands the docs show: blanks, '...', "..." with $NAME and ${NAME},
// backslash escapes, and backslash-newline continuations.
func shellWords(line string, vars map[string]string) ([]string, error) {
	var (
		words  []string
		cur    strings.Builder
		inWord bool
	)
	expand := func(s string, i int) (string, int) {
		// s[i] == '$'
		j := i + 1
		if j < len(s) && s[j] == '{' {
			k := strings.IndexByte(s[j:], '}')
			if k < 0 {
				return "$", i + 1
			}
			return vars[s[j+1:j+k]], j + k + 1
		}
		k := j
		for k < len(s) && (s[k] == '_' || s[k] >= 'A' && s[k] <= 'Z' || s[k] >= 'a' && s[k] <= 'z' || k > j && s[k] >= '0' && s[k] <= '9') {
			k++
		}
		if k == j {
			return "$", j
		}
		return vars[s[j:k]], k
	}
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == '\\' && i+1 < len(line) && line[i+1] == '\n':
			i += 2
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
			i++
		case c == '\'':
			k := strings.IndexByte(line[i+1:], '\'')
			if k < 0 {
				return nil, fmt.Errorf("unclosed ' in %q", line)
			}
			cur.WriteString(line[i+1 : i+1+k])
			inWord = true
			i += k + 2
		case c == '"':
			inWord = true
			i++
			for {
				if i >= len(line) {
					return nil, fmt.Errorf("unclosed \" in %q", line)
				}
				if line[i] == '"' {
					i++
					break
				}
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0 {
					cur.WriteByte(line[i+1])
					i += 2
					continue
				}
				if line[i] == '$' {
					v, next := expand(line, i)
					cur.WriteString(v)
					i = next
					continue
				}
				cur.WriteByte(line[i])
				i++
			}
		case c == '\\' && i+1 < len(line):
			cur.WriteByte(line[i+1])
			inWord = true
			i += 2
		case c == '$':
			v, next := expand(line, i)
			cur.WriteString(v)
			inWord = true
			i = next
		default:
			cur.WriteByte(c)
			inWord = true
			i++
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// asShown is got with the page's session ids and dates put back, for
// -update-docs.
func (r *docReplay) asShown(want, got string) string {
	wantIDs, gotIDs := docSIDRE.FindAllString(want, -1), docSIDRE.FindAllString(got, -1)
	if len(wantIDs) == len(gotIDs) {
		for i, id := range wantIDs {
			r.ids[id] = gotIDs[i]
			got = strings.Replace(got, gotIDs[i], id, -1)
		}
	} else {
		for _, id := range gotIDs {
			r.ids[id] = id
		}
	}
	dateRE := regexp.MustCompile(`(?m)^Date: .*$`)
	if d := dateRE.FindString(want); d != "" {
		got = dateRE.ReplaceAllLiteralString(got, d)
	}
	return strings.TrimRight(got, "\n")
}

// writeUpdates writes the outputs -update-docs gathered into the page.
func (r *docReplay) writeUpdates(steps []docStep) {
	data, err := os.ReadFile(r.page)
	if err != nil {
		r.t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var out []string
	next := 0
	for _, st := range steps {
		got, ok := r.updates[st.line]
		if !ok {
			continue
		}
		out = append(out, lines[next:st.outStart]...)
		out = append(out, strings.Split(got, "\n")...)
		// Keep a blank line the page had before its next command.
		if st.outEnd > st.outStart && lines[st.outEnd-1] == "" {
			out = append(out, "")
		}
		next = st.outEnd
	}
	out = append(out, lines[next:]...)
	if err := os.WriteFile(r.page, []byte(strings.Join(out, "\n")), 0o644); err != nil {
		r.t.Fatal(err)
	}
}
