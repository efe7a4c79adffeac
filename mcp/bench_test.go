package mcp

import (
	"context"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

type benchEchoIn struct {
	Text string `json:"text"`
}

func newBenchServer(b *testing.B) *Server {
	s := NewServer(Implementation{Name: "bench", Version: "1"}, nil)
	if err := AddTool(s, &Tool{Name: "echo", Description: "echo"}, func(_ context.Context, _ *Request, in benchEchoIn) (string, error) {
		return in.Text, nil
	}); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkToolsCallRoundTrip measures one tools/call as a transport sees
// it: decode the frame, dispatch, run a typed echo tool, encode the reply.
func BenchmarkToolsCallRoundTrip(b *testing.B) {
	s := newBenchServer(b)
	ss := s.NewSession(&SessionOptions{Preinitialized: true})
	defer ss.Close()
	ctx := context.Background()
	frame := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, world"}}}`)
	b.ReportAllocs()
	n, start := 0, cpuClock()
	for b.Loop() {
		n++
		msg, _, err := jsonrpc.Decode(frame)
		if err != nil {
			b.Fatal(err)
		}
		resp, err := ss.HandleRequest(ctx, msg.(*jsonrpc.Request), nil)
		if err != nil || resp.Error != nil {
			b.Fatal(err, resp.Error)
		}
		if _, err := jsonrpc.Encode(resp); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start, n)
}

// BenchmarkToolsCallInMemory measures a tools/call round trip through the
// in-memory transport and the session's read loop.
func BenchmarkToolsCallInMemory(b *testing.B) {
	s := newBenchServer(b)
	ct, st := NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.Connect(ctx, st)
	if err != nil {
		b.Fatal(err)
	}
	c, _ := ct.Connect(ctx)
	c.Write(ctx, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`))
	c.Read(ctx)
	c.Write(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	pre := []byte(`{"jsonrpc":"2.0","id":`)
	post := []byte(`,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, world"}}}`)
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	i, start := 0, cpuClock()
	for b.Loop() {
		i++
		buf = append(strconv.AppendInt(append(buf[:0], pre...), int64(i), 10), post...)
		if err := c.Write(ctx, buf); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Read(ctx); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start, i)
	b.StopTimer()
	c.Close()
	ss.Wait()
}

// cpuClock reports the process's user+system CPU time, so that benchmarks
// can report CPU per operation (steadier than wall time on a busy machine).
func cpuClock() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds a cpu-ns/op metric measured from start.
func reportCPU(b *testing.B, start time.Duration, n int) {
	b.ReportMetric(float64(cpuClock()-start)/float64(n), "cpu-ns/op")
}
