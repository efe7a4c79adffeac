// Package rrproxy is a round-robin reverse proxy for testing and
// benchmarking replicas of one MCP server: every request goes to the next
// backend in turn, with no stickiness, the worst case a load balancer can
// be for a session-era client
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).
// Responses are flushed as they arrive, so SSE streams pass through
// unbuffered.
package rrproxy

import (
	"context"
	"errors"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
)

// Proxy is an http.Handler sending each request to the next of its
// backends.
type Proxy struct {
	mu       sync.RWMutex
	backends []*url.URL
	down     map[int]bool
	next     atomic.Uint64
	rp       *httputil.ReverseProxy

	transport *http.Transport
}

// maxIdleConnsPerBackend is how many idle connections to each backend
// the proxy keeps for reuse: more than a benchmark's concurrent callers
// (bench's scale-out scenarios run 256), so that a busy run does not dial
// per request.
const maxIdleConnsPerBackend = 512

// New returns a Proxy over backends (base URLs such as
// http://127.0.0.1:8081); a request's path and query are appended to the
// chosen backend's.
func New(backends ...string) (*Proxy, error) {
	if len(backends) == 0 {
		return nil, errors.New("rrproxy: no backends")
	}
	p := &Proxy{down: map[int]bool{}}
	for _, b := range backends {
		u, err := url.Parse(b)
		if err != nil {
			return nil, err
		}
		if u.Scheme == "" || u.Host == "" {
			return nil, errors.New("rrproxy: backend " + b + " is not an absolute URL")
		}
		p.backends = append(p.backends, u)
	}
	// Its own transport, keeping enough idle connections to each backend
	// for a benchmark's concurrency (the default transport keeps 2 a
	// host, and so opens a connection for most requests under load).
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = maxIdleConnsPerBackend * len(p.backends) // the clone's 100 in all would cap the rest
	t.MaxIdleConnsPerHost = maxIdleConnsPerBackend
	t.DisableCompression = true // bytes pass through as the backend wrote them
	p.transport = t
	p.rp = &httputil.ReverseProxy{
		Transport:  t,
		BufferPool: &bufferPool{},
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(r.In.Context().Value(backendKey{}).(*url.URL))
			r.Out.Host = r.In.Host
		},
		FlushInterval: -1,
		// A backend that cannot be reached is a 502 naming why, so that a
		// test's failure shows it.
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			http.Error(w, "rrproxy: "+err.Error(), http.StatusBadGateway)
		},
	}
	return p, nil
}

type backendKey struct{}

// Pick returns the index of the backend the next request goes to, skipping
// backends marked down; -1 if all are.
func (p *Proxy) Pick() int {
	p.mu.RLock()
	defer p.mu.RUnlock()
	n := len(p.backends)
	for range n {
		i := int(p.next.Add(1)-1) % n
		if !p.down[i] {
			return i
		}
	}
	return -1
}

// CloseIdleConnections closes the Proxy's idle connections to its
// backends (call it when the backends are gone, so that none lingers).
func (p *Proxy) CloseIdleConnections() { p.transport.CloseIdleConnections() }

// SetDown takes backend i out of the rotation (down true) or puts it back.
func (p *Proxy) SetDown(i int, down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down[i] = down
}

// ServeHTTP implements http.Handler.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	i := p.Pick()
	if i < 0 {
		http.Error(w, "rrproxy: every backend is down", http.StatusBadGateway)
		return
	}
	w.Header().Set("X-Rrproxy-Backend", p.backends[i].Host)
	// The request's body is copied to the backend while its response
	// comes back. By default an HTTP/1 server consumes and closes what is
	// left of a request's body when the response's header is written, so
	// a backend answering as soon as it has read the last byte (as an MCP
	// server does) raced the copy: the copy's next read failed, the
	// transport closed the backend's connection, and the response was
	// cut mid-stream. Full duplex leaves the body to the copy.
	_ = http.NewResponseController(w).EnableFullDuplex()
	p.rp.ServeHTTP(w, r.WithContext(contextWithBackend(r, p.backends[i])))
}

func contextWithBackend(r *http.Request, u *url.URL) context.Context {
	return context.WithValue(r.Context(), backendKey{}, u)
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
