package mcphttp

import (
	"fmt"
	"sync/atomic"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// This file holds the errors of the memory bounds a Handler puts on what
// one client may make it hold: the time a body may take to arrive
// (Options.BodyReadTimeout) and the size and concurrency of a 2025-03-26
// batch (Options.MaxBatchLength, Options.MaxBatchConcurrency).

func errBatchTooLong(n, limit int) *jsonrpc.Error {
	return invalidRequest(fmt.Sprintf("a JSON-RPC batch may hold at most %d messages, this one holds %d", limit, n))
}

// bodyBufferHook, when set, is told the capacity of each buffer readBody
// allocates for a body (a test hook).
var bodyBufferHook atomic.Pointer[func(int)]

func bodyBufferGrown(n int) {
	if f := bodyBufferHook.Load(); f != nil {
		(*f)(n)
	}
}
