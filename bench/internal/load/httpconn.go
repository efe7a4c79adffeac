// Package load is the load generator: a lean HTTP/1.1 client for
// Streamable HTTP, real MCP handshakes, reply parsing (JSON or SSE) and
// checks of every echoed text, plus the stdio pipeline.
package load

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"time"
)

// RequestTimeout bounds one HTTP round trip.
const RequestTimeout = 10 * time.Second

// An HTTPConn is one keep-alive HTTP/1.1 connection to a server under test,
// used by one goroutine at a time. It writes requests and reads replies by
// hand into buffers it reuses, so that the load generator spends little
// CPU per request and the server, not the client, is measured.
type HTTPConn struct {
	addr string
	c    net.Conn
	br   *bufio.Reader
	wbuf []byte
	rr   replyReader
}

// Dial opens a connection to addr (host:port on 127.0.0.1).
func Dial(addr string) (*HTTPConn, error) {
	c := &HTTPConn{addr: addr}
	return c, c.redial()
}

func (c *HTTPConn) redial() error {
	if c.c != nil {
		c.c.Close()
	}
	conn, err := net.Dial("tcp", c.addr)
	if err != nil {
		return err
	}
	c.c = conn
	c.br = bufio.NewReaderSize(conn, 16<<10)
	return nil
}

// Close closes the connection.
func (c *HTTPConn) Close() error {
	if c.c == nil {
		return nil
	}
	return c.c.Close()
}

// A Reply is one HTTP response. Body is valid until the next request on
// the same connection.
type Reply struct {
	Status      int
	ContentType string
	SessionID   string
	Body        []byte
}

// Post sends body to /mcp with the MCP headers (sessionID and version are
// omitted when empty) and reads the whole reply.
func (c *HTTPConn) Post(body []byte, sessionID, version string) (Reply, error) {
	return c.do("POST", body, sessionID, version, nil)
}

// PostHeaders is Post with more header lines (each ending in CRLF).
func (c *HTTPConn) PostHeaders(body []byte, sessionID, version string, extra []byte) (Reply, error) {
	return c.do("POST", body, sessionID, version, extra)
}

// Delete ends a session.
func (c *HTTPConn) Delete(sessionID, version string) (Reply, error) {
	return c.do("DELETE", nil, sessionID, version, nil)
}

func (c *HTTPConn) do(method string, body []byte, sessionID, version string, extra []byte) (Reply, error) {
	if c.c == nil {
		if err := c.redial(); err != nil {
			return Reply{}, err
		}
	}
	b := c.wbuf[:0]
	b = append(b, method...)
	b = append(b, " /mcp HTTP/1.1\r\nHost: "...)
	b = append(b, c.addr...)
	b = append(b, "\r\nAccept: application/json, text/event-stream\r\n"...)
	if body != nil {
		b = append(b, "Content-Type: application/json\r\nContent-Length: "...)
		b = strconv.AppendInt(b, int64(len(body)), 10)
		b = append(b, "\r\n"...)
	}
	if sessionID != "" {
		b = append(b, "Mcp-Session-Id: "...)
		b = append(b, sessionID...)
		b = append(b, "\r\n"...)
	}
	if version != "" {
		b = append(b, "Mcp-Protocol-Version: "...)
		b = append(b, version...)
		b = append(b, "\r\n"...)
	}
	b = append(b, extra...)
	b = append(b, "\r\n"...)
	b = append(b, body...)
	c.wbuf = b
	// A server that stops answering fails the request instead of
	// hanging the run.
	c.c.SetDeadline(time.Now().Add(RequestTimeout))
	if _, err := c.c.Write(b); err != nil {
		c.c.Close()
		c.c = nil
		return Reply{}, err
	}
	rep, closeConn, err := c.rr.read(c.br)
	if err != nil {
		c.c.Close()
		c.c = nil
		return Reply{}, fmt.Errorf("reading reply: %w", err)
	}
	if closeConn {
		c.c.Close()
		c.c = nil
	}
	return rep, nil
}

// MaxReplyBody bounds the body of one reply the load generator reads
// (a server that sends more fails the request): far above the payload
// rows' 1.4 MB.
const MaxReplyBody = 64 << 20

// A replyReader reads HTTP/1.1 responses into buffers it reuses, for the
// few headers the load generator looks at: net/http's reader allocated a
// Response, a header map and its strings per reply, a tenth of the load
// generator's CPU on the small replies.
type replyReader struct {
	body        []byte
	contentType string
	sessionID   string
}

// read reads one response from br: its status, Content-Type and
// Mcp-Session-Id, and its whole body (valid until the next read), as
// net/http's reader would. closeConn reports that the connection ends
// with it (Connection: close, HTTP/1.0, or a body delimited by the end of
// the connection).
func (r *replyReader) read(br *bufio.Reader) (rep Reply, closeConn bool, err error) {
	line, err := readLine(br)
	if err != nil {
		return Reply{}, false, err
	}
	// HTTP/1.x SP 3DIGIT [SP reason]
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || (line[7] != '0' && line[7] != '1') || line[8] != ' ' ||
		(len(line) > 12 && line[12] != ' ') || !isDigit(line[9]) || !isDigit(line[10]) || !isDigit(line[11]) {
		return Reply{}, false, fmt.Errorf("malformed status line %q", line)
	}
	rep.Status = int(line[9]-'0')*100 + int(line[10]-'0')*10 + int(line[11]-'0')
	http10 := line[7] == '0'
	closeConn, keepAlive := false, false
	length, chunked := int64(-1), false
	contentType, sessionID := "", ""
	for {
		line, err := readLine(br)
		if err != nil {
			return Reply{}, false, err
		}
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || len(name) == 0 || name[len(name)-1] == ' ' || name[len(name)-1] == '\t' {
			return Reply{}, false, fmt.Errorf("malformed header line %q", line)
		}
		value = bytes.Trim(value, " \t")
		switch {
		case bytes.EqualFold(name, []byte("Content-Type")):
			if contentType == "" {
				contentType = r.intern(&r.contentType, value)
			}
		case bytes.EqualFold(name, []byte("Mcp-Session-Id")):
			if sessionID == "" {
				sessionID = r.intern(&r.sessionID, value)
			}
		case bytes.EqualFold(name, []byte("Content-Length")):
			n, ok := parseUint(value, 10)
			if !ok || (length >= 0 && n != length) {
				return Reply{}, false, fmt.Errorf("bad Content-Length %q", value)
			}
			length = n
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			if !bytes.EqualFold(value, []byte("chunked")) {
				return Reply{}, false, fmt.Errorf("unsupported Transfer-Encoding %q", value)
			}
			chunked = true
		case bytes.EqualFold(name, []byte("Connection")):
			for tok := range bytes.SplitSeq(value, []byte(",")) {
				tok = bytes.Trim(tok, " \t")
				closeConn = closeConn || bytes.EqualFold(tok, []byte("close"))
				keepAlive = keepAlive || bytes.EqualFold(tok, []byte("keep-alive"))
			}
		}
	}
	closeConn = closeConn || (http10 && !keepAlive)
	rep.ContentType, rep.SessionID = contentType, sessionID
	b := r.body[:0]
	switch {
	case rep.Status/100 == 1 || rep.Status == 204 || rep.Status == 304:
		// no body
	case chunked:
		for {
			line, err := readLine(br)
			if err != nil {
				return Reply{}, false, err
			}
			if i := bytes.IndexByte(line, ';'); i >= 0 {
				line = line[:i] // a chunk extension
			}
			n, ok := parseUint(bytes.Trim(line, " \t"), 16)
			if !ok {
				return Reply{}, false, fmt.Errorf("malformed chunk size %q", line)
			}
			if n == 0 {
				for { // trailers, up to the blank line
					line, err := readLine(br)
					if err != nil {
						return Reply{}, false, err
					}
					if len(line) == 0 {
						break
					}
				}
				break
			}
			if b, err = readN(br, b, n); err != nil {
				return Reply{}, false, err
			}
			if line, err := readLine(br); err != nil || len(line) != 0 {
				return Reply{}, false, fmt.Errorf("chunk not followed by CRLF (%q): %v", line, err)
			}
		}
	case length >= 0:
		if b, err = readN(br, b, length); err != nil {
			return Reply{}, false, err
		}
	default: // the body ends with the connection
		closeConn = true
		for {
			if len(b) == cap(b) {
				if len(b) >= MaxReplyBody {
					return Reply{}, false, fmt.Errorf("reply body over %d bytes", MaxReplyBody)
				}
				b = slices.Grow(b, 64<<10)
			}
			n, err := br.Read(b[len(b):cap(b)])
			b = b[:len(b)+n]
			if err == io.EOF {
				break
			}
			if err != nil {
				return Reply{}, false, err
			}
		}
	}
	r.body = b
	rep.Body = b
	return rep, closeConn, nil
}

// intern returns v as a string, the previous one when it is the same (a
// server sends the same content type on every reply).
func (r *replyReader) intern(prev *string, v []byte) string {
	if string(v) != *prev {
		*prev = string(v)
	}
	return *prev
}

// readLine reads one line, without its CRLF (or LF).
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		return nil, fmt.Errorf("header line longer than %d bytes", br.Size())
	}
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	line = line[:len(line)-1]
	return bytes.TrimSuffix(line, []byte{'\r'}), nil
}

// readN appends n bytes from br to b.
func readN(br *bufio.Reader, b []byte, n int64) ([]byte, error) {
	if n > MaxReplyBody-int64(len(b)) {
		return b, fmt.Errorf("reply body over %d bytes", MaxReplyBody)
	}
	l := len(b)
	b = slices.Grow(b, int(n))[:l+int(n)]
	if _, err := io.ReadFull(br, b[l:]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return b[:l], err
	}
	return b, nil
}

// parseUint parses a non-empty decimal or hexadecimal number of at most
// 15 digits.
func parseUint(s []byte, base int64) (int64, bool) {
	if len(s) == 0 || len(s) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range s {
		var d int64
		switch {
		case '0' <= c && c <= '9':
			d = int64(c - '0')
		case base == 16 && 'a' <= c && c <= 'f':
			d = int64(c-'a') + 10
		case base == 16 && 'A' <= c && c <= 'F':
			d = int64(c-'A') + 10
		default:
			return 0, false
		}
		n = n*base + d
	}
	return n, true
}
