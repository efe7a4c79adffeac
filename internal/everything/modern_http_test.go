package everything_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/everything"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// TestModernFixturesOverHTTP posts, as the suite does, the requests whose
// answer depends on Streamable HTTP: test_header_param's Mcp-Param-Region
// header is checked against the body (http-custom-header-server-validation),
// and test_missing_capability's -32021 is a 400 (server-stateless).
func TestModernFixturesOverHTTP(t *testing.T) {
	h := mcphttp.NewHandler(everything.NewServer(nil), &mcphttp.Options{JSONResponse: true})
	ts := httptest.NewServer(h)
	defer func() {
		ts.Close()
		h.Close()
	}()
	post := func(t *testing.T, params string, header map[string]string) (int, map[string]json.RawMessage) {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + string(withMeta(params, `{}`)) + `}`
		req, err := http.NewRequest("POST", ts.URL, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("body %q: %v", raw, err)
		}
		return resp.StatusCode, m
	}
	code := func(m map[string]json.RawMessage) string {
		var e struct{ Code json.RawMessage }
		json.Unmarshal(m["error"], &e)
		return string(e.Code)
	}

	for _, tc := range []struct {
		body, header string // the region argument and the Mcp-Param-Region header ("-": none)
		status       int
		code         string
	}{
		{"Hello", "=?base64?SGVsbG8=?=", 200, ""},
		{"SGVsbG8=", "SGVsbG8=", 200, ""},
		{"=?base64?SGVsbG8=", "=?base64?SGVsbG8=", 200, ""},
		{"Hello", "=?base64?SGVsbG8?=", 400, "-32020"},
		{"Hello", "=?base64?SGVs!!!bG8=?=", 400, "-32020"},
		{"test-value", "-", 400, "-32020"},
	} {
		args, _ := json.Marshal(map[string]string{"region": tc.body})
		header := map[string]string{"Mcp-Name": "test_header_param"}
		if tc.header != "-" {
			header["Mcp-Param-Region"] = tc.header
		}
		status, m := post(t, `{"name":"test_header_param","arguments":`+string(args)+`}`, header)
		if status != tc.status || code(m) != tc.code {
			t.Errorf("region %q, header %q: HTTP %d, error code %q; want %d, %q", tc.body, tc.header, status, code(m), tc.status, tc.code)
		}
		if tc.status == 200 && !strings.Contains(string(m["result"]), `"text":"Region: `) {
			t.Errorf("region %q: result %s", tc.body, m["result"])
		}
	}

	status, m := post(t, `{"name":"test_missing_capability","arguments":{}}`, map[string]string{"Mcp-Name": "test_missing_capability"})
	if status != 400 || code(m) != "-32021" {
		t.Errorf("test_missing_capability: HTTP %d, error %s; want 400, -32021", status, m["error"])
	}
}
