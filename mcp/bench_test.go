package mcp

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/cpuclock"
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
	ss := s.newSession(SessionOptions{Preinitialized: true})
	defer ss.Close()
	ctx := context.Background()
	frame := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, world"}}}`)
	b.ReportAllocs()
	n, start := 0, cpuclock.Now()
	for b.Loop() {
		n++
		msg, _, err := jsonrpc.Decode(frame)
		if err != nil {
			b.Fatal(err)
		}
		resp, err := ss.handleRequest(ctx, msg.(*jsonrpc.Request), nil, nil)
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
	i, start := 0, cpuclock.Now()
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

// reportCPU adds a cpu-ns/op metric measured from start.
func reportCPU(b *testing.B, start time.Duration, n int) {
	b.ReportMetric(float64(cpuclock.Now()-start)/float64(n), "cpu-ns/op")
}

// BenchmarkToolsCallStdioPipelined measures tools/call over the stdio
// transport on OS pipes with 64 requests in flight, as a client that
// pipelines would (client CPU included).
func BenchmarkToolsCallStdioPipelined(b *testing.B) {
	benchStdioPipelined(b, true, `{"name":"echo","arguments":{"text":"hello, world"}}`)
}

// benchStdioPipelined serves a bench server on OS pipes (Server.Run on a
// StdioTransport), initialized first with handshake set, and keeps 64
// tools/call requests with params in flight: a bare writer of frames
// sends one for each reply its reader takes. The echo tool's reply is
// checked; cpu-ns/op is the process's CPU per call, mostly the server's.
func benchStdioPipelined(b *testing.B, handshake bool, params string) {
	s := newBenchServer(b)
	inR, inW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), &StdioTransport{In: inR, Out: outW}) }()
	rd := bufio.NewReaderSize(outR, 64<<10)
	if handshake {
		inW.Write([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}` + "\n"))
		if _, err := rd.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
		inW.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
	}
	const window = 64
	credit := make(chan struct{}, window)
	for range window {
		credit <- struct{}{}
	}
	stop := make(chan struct{})
	sent := make(chan error, 1)
	go func() {
		w := bufio.NewWriter(inW)
		buf := make([]byte, 0, 512)
		for i := 1; ; i++ {
			select {
			case <-credit:
			case <-stop:
				sent <- w.Flush()
				return
			}
			buf = strconv.AppendInt(append(buf[:0], `{"jsonrpc":"2.0","id":`...), int64(i), 10)
			buf = append(append(append(buf, `,"method":"tools/call","params":`...), params...), "}\n"...)
			_, _ = w.Write(buf)
			if len(credit) == 0 {
				if err := w.Flush(); err != nil {
					sent <- err
					return
				}
			}
		}
	}()
	want := []byte(`"text":"hello, world"`)
	b.ReportAllocs()
	n, start := 0, cpuclock.Now()
	for b.Loop() {
		n++
		line, err := rd.ReadSlice('\n')
		if err != nil || !bytes.Contains(line, want) {
			b.Fatalf("tools/call: %q %v", line, err)
		}
		credit <- struct{}{}
	}
	reportCPU(b, start, n)
	b.StopTimer()
	close(stop)
	if err := <-sent; err != nil {
		b.Fatal(err)
	}
	inW.Close()
	for {
		if _, err := rd.ReadSlice('\n'); err != nil {
			break
		}
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	outR.Close()
	inR.Close()
	outW.Close()
}
