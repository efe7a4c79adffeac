package mcp_test

// Tests that a failed handshake's error says each step once: no
// "mcp: initialize: mcp: initialize:", and the probe's failure only when
// its cause differs from initialize's.

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// hangupTransport's connection ends after the client's first frame (the
// peer hangs up without answering), or, with writeErr, fails every write.
type hangupTransport struct{ writeErr error }

func (t *hangupTransport) Connect(context.Context) (mcp.Connection, error) {
	return &hangupConn{writeErr: t.writeErr, wrote: make(chan struct{}), closed: make(chan struct{})}, nil
}

type hangupConn struct {
	writeErr  error
	once      sync.Once
	wrote     chan struct{}
	closeOnce sync.Once
	closed    chan struct{}
}

func (c *hangupConn) Read(ctx context.Context) ([]byte, error) {
	select {
	case <-c.wrote:
	case <-c.closed:
	case <-ctx.Done():
	}
	return nil, io.EOF
}

func (c *hangupConn) Write(context.Context, []byte) error {
	if c.writeErr != nil {
		return c.writeErr
	}
	c.once.Do(func() { close(c.wrote) })
	return nil
}

func (c *hangupConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

func TestHandshakeErrorSaysEachThingOnce(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, tc := range []struct {
		era      mcp.ProtocolEra
		writeErr error
		want     string
	}{
		{mcp.EraSession, nil, "mcp: initialize: mcp: session closed"},
		{mcp.EraStateless, nil, "mcp: server/discover: mcp: session closed"},
		{mcp.EraAuto, nil, "mcp: initialize: mcp: session closed"},
		{mcp.EraSession, errors.New("pipe gone"), "mcp: sending initialize: pipe gone"},
		{mcp.EraStateless, errors.New("pipe gone"), "mcp: sending server/discover: pipe gone"},
		{mcp.EraAuto, errors.New("pipe gone"), "mcp: sending initialize: pipe gone"},
	} {
		c := mcp.NewClient(mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ProtocolEra: tc.era})
		cs, err := c.Connect(context.Background(), &hangupTransport{writeErr: tc.writeErr})
		if err == nil {
			cs.Close()
			t.Errorf("era %v, write error %v: connected", tc.era, tc.writeErr)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("era %v, write error %v: %q, want %q", tc.era, tc.writeErr, err.Error(), tc.want)
		}
		if tc.writeErr == nil && !errors.Is(err, mcp.ErrSessionClosed) || tc.writeErr != nil && !errors.Is(err, tc.writeErr) {
			t.Errorf("era %v: %v does not wrap its cause", tc.era, err)
		}
	}
}
