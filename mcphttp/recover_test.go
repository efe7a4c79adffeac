package mcphttp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
)

// A panic in a server callback run for a POSTed notification
// (InitializedHandler, RootsListChangedHandler) is recovered in mcp: the
// POST is answered 202, the session keeps serving, and it can be deleted
// (it does not stay in flight for ever).
func TestNotificationCallbackPanicLeavesSessionServing(t *testing.T) {
	s := mcp.NewServer(mcp.Implementation{Name: "test", Version: "1"}, &mcp.ServerOptions{
		InitializedHandler:      func(context.Context, *mcp.ServerSession) { panic("initialized boom") },
		RootsListChangedHandler: func(context.Context, *mcp.ServerSession) { panic("roots boom") },
	})
	h := NewHandler(s, nil)
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close()
		srv.Close()
		srv.Client().CloseIdleConnections()
	})
	f := &fixture{t: t, h: h, srv: srv, url: srv.URL + "/mcp"}
	sid := f.initialize("2025-11-25") // notifications/initialized: 202
	if r := f.post(sid, `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`); r.status != http.StatusAccepted {
		t.Fatalf("notifications/roots/list_changed: status %d, body %s", r.status, r.body)
	}
	r := f.post(sid, pingBody)
	if r.status != http.StatusOK {
		t.Fatalf("ping: status %d, body %s", r.status, r.body)
	}
	if got := string(r.message(t)["result"]); got != `{}` {
		t.Errorf("ping result = %s, want {}", got)
	}
	if n := h.SessionCount(); n != 1 {
		t.Errorf("%d sessions, want 1", n)
	}
	if r := f.do(http.MethodDelete, hdrs{"Mcp-Session-Id": sid}, ""); r.status != http.StatusNoContent {
		t.Errorf("DELETE: status %d, body %s", r.status, r.body)
	}
	if n := h.SessionCount(); n != 0 {
		t.Errorf("%d sessions after DELETE, want 0", n)
	}
}
