package load

import (
	"errors"
	"fmt"
	"net"
	"os"
	"testing"
)

func TestBrief(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{&net.OpError{Op: "read", Net: "tcp", Source: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 45230},
			Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40265}, Err: os.ErrDeadlineExceeded},
			"read: i/o timeout (after 10s)"},
		{fmt.Errorf("reading reply: %w", &net.OpError{Op: "read", Net: "tcp", Source: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1},
			Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 2}, Err: errors.New("connection reset by peer")}),
			"reading reply: read: connection reset by peer"},
		{errors.New("tools/call: HTTP 503: x"), "tools/call: HTTP 503: x"},
	}
	for _, c := range cases {
		if got := Brief(c.err); got != c.want {
			t.Errorf("Brief(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
