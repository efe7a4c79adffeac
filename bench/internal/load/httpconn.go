// Package load is the load generator: a lean HTTP/1.1 client for
// Streamable HTTP, real MCP handshakes, reply parsing (JSON or SSE) and
// checks of every echoed text, plus the stdio pipeline.
package load

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"
)

// RequestTimeout bounds one HTTP round trip.
const RequestTimeout = 10 * time.Second

// An HTTPConn is one keep-alive HTTP/1.1 connection to a server under test,
// used by one goroutine at a time. It writes requests by hand and parses
// replies with net/http's reader, so that the load generator spends little
// CPU per request and the server, not the client, is measured.
type HTTPConn struct {
	addr string
	c    net.Conn
	br   *bufio.Reader
	wbuf []byte
	body bytes.Buffer
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
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		c.c.Close()
		c.c = nil
		return Reply{}, fmt.Errorf("reading reply: %w", err)
	}
	c.body.Reset()
	_, err = c.body.ReadFrom(resp.Body)
	resp.Body.Close()
	if err != nil {
		c.c.Close()
		c.c = nil
		return Reply{}, fmt.Errorf("reading reply body: %w", err)
	}
	if resp.Close {
		c.c.Close()
		c.c = nil
	}
	return Reply{
		Status:      resp.StatusCode,
		ContentType: resp.Header.Get("Content-Type"),
		SessionID:   resp.Header.Get("Mcp-Session-Id"),
		Body:        c.body.Bytes(),
	}, nil
}
