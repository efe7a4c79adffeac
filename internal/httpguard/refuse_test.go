package httpguard

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

func TestRefuse(t *testing.T) {
	tests := []struct {
		name   string
		status int
		id     jsonrpc.ID
		e      *jsonrpc.Error
		want   string
	}{
		{"null id", http.StatusRequestEntityTooLarge, jsonrpc.ID{}, TooLarge(10),
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Payload Too Large: the body exceeds 10 bytes"}}`},
		{"request id", http.StatusServiceUnavailable, jsonrpc.Int64ID(7), CapReached(3),
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"Service unavailable: maximum concurrent sessions (3) reached"}}`},
		{"forbidden", http.StatusForbidden, jsonrpc.ID{}, Forbidden("Origin", "http://evil.example"),
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Forbidden: Origin not allowed: http://evil.example"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			Refuse(rec, tt.status, tt.id, tt.e)
			if rec.Code != tt.status {
				t.Errorf("status = %d, want %d", rec.Code, tt.status)
			}
			if got := rec.Header().Get("Content-Type"); got != "application/json" {
				t.Errorf("Content-Type = %q, want application/json", got)
			}
			if got, want := rec.Header().Get("Content-Length"), len(tt.want); got != strconv.Itoa(want) {
				t.Errorf("Content-Length = %q, want %d", got, want)
			}
			if got := rec.Body.String(); got != tt.want {
				t.Errorf("body = %s\nwant   %s", got, tt.want)
			}
		})
	}
}
