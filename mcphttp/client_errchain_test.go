package mcphttp_test

import (
	"context"
	"errors"
	"net"
	"net/url"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
	"go.uber.org/goleak"
)

// A POST that gets no response names the URL once: the *url.Error says
// "Post URL" already.
func TestClientUnreachableSaysURLOnce(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	endpoint := "http://" + addr + "/mcp"
	for _, tc := range []struct {
		era  mcp.ProtocolEra
		want string
	}{
		{mcp.EraSession, `mcp: sending initialize: mcphttp: Post "` + endpoint + `": dial tcp ` + addr + `: connect: connection refused`},
		{mcp.EraStateless, `mcp: sending server/discover: mcphttp: Post "` + endpoint + `": dial tcp ` + addr + `: connect: connection refused`},
		{mcp.EraAuto, `mcp: sending initialize: mcphttp: Post "` + endpoint + `": dial tcp ` + addr + `: connect: connection refused`},
	} {
		c := mcp.NewClient(mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ProtocolEra: tc.era})
		cs, err := c.Connect(context.Background(), &mcphttp.ClientTransport{URL: endpoint})
		if err == nil {
			cs.Close()
			t.Fatalf("era %v: connected", tc.era)
		}
		if err.Error() != tc.want {
			t.Errorf("era %v: %q, want %q", tc.era, err.Error(), tc.want)
		}
		if _, ok := errors.AsType[*url.Error](err); !ok {
			t.Errorf("era %v: %v does not wrap the *url.Error", tc.era, err)
		}
	}
}
