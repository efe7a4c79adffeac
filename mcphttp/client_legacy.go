package mcphttp

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcpsse"
)

// This file is the client's fallback to the HTTP+SSE transport of
// 2024-11-05, as the spec's backwards-compatibility section asks
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#backwards-compatibility):
// an initialize POST answered 400, 404 or 405 turns into a GET of the
// same URL that expects an SSE stream opening with an endpoint event.

// fallBack is called when the POST of initialize (frame) failed with
// postErr. On 400, 404 or 405 it connects with package mcpsse and sends
// frame there; from then on every frame goes through that connection.
// It returns postErr if no fallback applies, and both errors if the
// fallback failed too.
func (c *clientConn) fallBack(ctx context.Context, postErr error, frame []byte) error {
	var se *StatusError
	if !errors.As(postErr, &se) {
		return postErr
	}
	switch se.StatusCode {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
	default:
		return postErr
	}
	lt := &mcpsse.ClientTransport{
		URL:             c.t.URL,
		HTTPClient:      c.client,
		Header:          c.t.Header,
		MaxMessageBytes: c.t.MaxMessageBytes,
		Logger:          c.logger,
	}
	conn, err := lt.Connect(ctx)
	if err != nil {
		return fmt.Errorf("%w; the 2024-11-05 HTTP+SSE transport failed too: %w", postErr, err)
	}
	c.mu.Lock()
	c.legacy = conn
	c.mu.Unlock()
	c.logger.Debug("mcphttp: initialize refused; using the 2024-11-05 HTTP+SSE transport", "url", c.t.URL, "status", se.StatusCode)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.pumpLegacy(conn)
	}()
	return conn.Write(ctx, frame)
}

// pumpLegacy hands what the legacy connection reads to Read: frames,
// failed requests, and at last the error that ended it.
func (c *clientConn) pumpLegacy(conn mcp.Connection) {
	for {
		frame, err := conn.Read(c.bg)
		if err != nil && c.isClosed() {
			return
		}
		if !c.send(inbound{frame: frame, err: err}) {
			return
		}
		var failed *mcp.RequestFailedError
		if err != nil && !errors.As(err, &failed) {
			return
		}
	}
}

// legacyConn returns the fallback connection, or nil.
func (c *clientConn) legacyConn() mcp.Connection {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.legacy
}

// closeLegacy closes the fallback connection, if any.
func (c *clientConn) closeLegacy() {
	if l := c.legacyConn(); l != nil {
		l.Close()
	}
}
