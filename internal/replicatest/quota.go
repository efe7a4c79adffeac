package replicatest

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/mcpkit/mcpkit/mcphttp"
)

// NewQuotaStore returns a fresh, empty shared store that lets one owner
// hold at most maxPerOwner sessions across every replica.
type NewQuotaStore func(t *testing.T, maxPerOwner int) Store

const principalRefused = `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Too Many Requests: session limit per principal reached","data":{"quota":"MaxSessionsPerPrincipal","max":%d}}}`

// RunQuotas runs the per-principal quota across replicas (issue 25 item
// 3): each replica's own count stays under the quota, yet the store's
// refuses alice's third session, with 429, Retry-After retryAfter and the
// quota's error; bob still gets a session, and a DELETE on the other
// replica frees alice's place.
func RunQuotas(t *testing.T, newStore NewQuotaStore, retryAfter string) {
	t.Run("the per-principal quota holds across replicas", func(t *testing.T) { runQuotas(t, newStore, retryAfter) })
}

func runQuotas(t *testing.T, newStore NewQuotaStore, retryAfter string) {
	const quota = 2
	c := newClusterOpts(t, func(t *testing.T, _ int) Store { return newStore(t, quota) }, 0, true, func(o *mcphttp.Options) {
		o.MaxSessionsPerPrincipal = quota // as mcpkit serve sets both
	})
	a1 := c.initialize(t, c.a, c.b, "alice")
	c.initialize(t, c.b, c.a, "alice")
	r := c.a.do(t, http.MethodPost, "", "alice", initBody)
	if r.header.Get("Retry-After") != retryAfter || r.header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("alice's third initialize: Retry-After %q, Mcp-Session-Id %q; want %s, none", r.header.Get("Retry-After"), r.header.Get("Mcp-Session-Id"), retryAfter)
	}
	r.want(t, "alice's third initialize", http.StatusTooManyRequests, fmt.Sprintf(principalRefused, quota))
	c.initialize(t, c.b, c.a, "bob")
	if n := c.s.Count(t); n != 3 {
		t.Fatalf("the store holds %d sessions, want 3", n)
	}
	c.b.do(t, http.MethodDelete, a1, "alice", "").want(t, "DELETE of alice's first session on B", http.StatusNoContent, "")
	c.initialize(t, c.a, c.b, "alice")
}
