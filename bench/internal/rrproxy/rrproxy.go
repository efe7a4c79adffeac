// Package rrproxy is the round-robin reverse proxy of the scale-out
// scenarios: every request goes to the next backend in turn, with no
// stickiness, the worst case a load balancer can be for a session-era
// client
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).
// Responses are flushed as they arrive, so SSE replies pass through
// unbuffered.
package rrproxy

import (
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
)

// New returns a handler sending each request to the next of backends
// (base URLs such as http://127.0.0.1:8081), keeping up to idlePerBackend
// idle keep-alive connections to each so that a busy run does not dial
// per request.
func New(backends []*url.URL, idlePerBackend int) *httputil.ReverseProxy {
	var next atomic.Uint64
	tr := &http.Transport{
		MaxIdleConns:        idlePerBackend * len(backends),
		MaxIdleConnsPerHost: idlePerBackend,
		DisableCompression:  true,
	}
	return &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(backends[(next.Add(1)-1)%uint64(len(backends))])
			r.Out.Host = r.In.Host
		},
		Transport:     tr,
		FlushInterval: -1,
		BufferPool:    &bufferPool{},
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, _ error) {
			w.WriteHeader(http.StatusBadGateway)
		},
	}
}

// bufferPool reuses the proxy's copy buffers (otherwise 32 KiB allocated
// per response).
type bufferPool struct{ p sync.Pool }

func (b *bufferPool) Get() []byte {
	if v, ok := b.p.Get().(*[]byte); ok {
		return *v
	}
	return make([]byte, 32<<10)
}

func (b *bufferPool) Put(buf []byte) { b.p.Put(&buf) }
