package mcp

import (
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// workers counts the goroutines running workPool.work.
func workers() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	return strings.Count(string(buf), "mcp.(*workPool).work(")
}

// A stream session reuses its workers while busy and keeps none once idle
// for workerIdle: an idle session holds no goroutine for its requests.
func TestServeWorkersEndWhenIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := lcNewServer(nil)
		lcAddEcho(t, s)
		c := lcConnectMemory(t, s)
		c.handshake("2025-11-25", lcInitResultTools(0, "2025-11-25"))
		for range 3 {
			c.run(`
				-> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}}
				<- {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a"}]}}
			`)
		}
		synctest.Wait()
		if n := workers(); n != 1 {
			t.Errorf("%d workers after three calls in a row, want 1 (reused)", n)
		}
		time.Sleep(workerIdle - time.Millisecond)
		synctest.Wait()
		if n := workers(); n != 1 {
			t.Errorf("%d workers before workerIdle has passed, want 1", n)
		}
		time.Sleep(2 * time.Millisecond)
		synctest.Wait()
		if n := workers(); n != 0 {
			t.Errorf("%d workers after workerIdle, want 0", n)
		}
		// A new request starts a new worker.
		c.run(`
			-> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"b"}}}
			<- {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"b"}]}}
		`)
		c.finish()
	})
}
