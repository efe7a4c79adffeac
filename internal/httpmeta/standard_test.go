package httpmeta

import (
	"bufio"
	"encoding/json"
	"errors"
	"net/textproto"
	"strings"
	"testing"
)

func TestNameSource(t *testing.T) {
	cases := []struct {
		method       string
		wantMember   string
		wantRequired bool
	}{
		{"tools/call", "name", true},
		{"prompts/get", "name", true},
		{"resources/read", "uri", true},
		{"tasks/get", "taskId", false},
		{"tasks/update", "taskId", false},
		{"tasks/cancel", "taskId", false},
		{"tools/list", "", false},
		{"server/discover", "", false},
		{"subscriptions/listen", "", false},
		{"TOOLS/CALL", "", false},
		{"", "", false},
	}
	for _, c := range cases {
		member, required := NameSource(c.method)
		if member != c.wantMember || required != c.wantRequired {
			t.Errorf("NameSource(%q) = %q, %v; want %q, %v", c.method, member, required, c.wantMember, c.wantRequired)
		}
	}
}

func TestCheckMethod(t *testing.T) {
	cases := []struct {
		name    string
		header  string
		present bool
		method  string
		wantErr string
	}{
		{"match", "tools/list", true, "tools/list", ""},
		{"white space trimmed", " \ttools/list  ", true, "tools/list", ""},
		// http-header-validation.
		{"other method", "prompts/list", true, "tools/list",
			"Header mismatch: Mcp-Method header value 'prompts/list' does not match body value 'tools/list'"},
		{"missing", "", false, "tools/list",
			"Header mismatch: Mcp-Method header is missing"},
		{"case-sensitive", "TOOLS/LIST", true, "tools/list",
			"Header mismatch: Mcp-Method header value 'TOOLS/LIST' does not match body value 'tools/list'"},
		{"empty", "", true, "tools/list",
			"Header mismatch: Mcp-Method header value '' does not match body value 'tools/list'"},
		{"no base64 for the method", "=?base64?dG9vbHMvbGlzdA==?=", true, "tools/list",
			"Header mismatch: Mcp-Method header value '=?base64?dG9vbHMvbGlzdA==?=' does not match body value 'tools/list'"},
		{"invalid character", "tools/list\x00", true, "tools/list",
			"Header mismatch: Mcp-Method header value contains invalid characters (only visible ASCII, space and tab are allowed)"},
	}
	for _, c := range cases {
		err := CheckMethod(c.header, c.present, c.method)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.wantErr {
			t.Errorf("%s: CheckMethod(%q, %v, %q) = %q, want %q", c.name, c.header, c.present, c.method, got, c.wantErr)
		}
	}
}

func TestCheckName(t *testing.T) {
	cases := []struct {
		name    string
		method  string
		header  string
		present bool
		params  string
		wantErr string
	}{
		{"tool", "tools/call", "get_weather", true, `{"name":"get_weather","arguments":{}}`, ""},
		{"resource", "resources/read", "file:///projects/myapp/config.json", true, `{"uri":"file:///projects/myapp/config.json"}`, ""},
		{"prompt", "prompts/get", "code_review", true, `{"name":"code_review"}`, ""},
		{"task", "tasks/get", "t-1", true, `{"taskId":"t-1"}`, ""},
		{"task without header", "tasks/get", "", false, `{"taskId":"t-1"}`, ""},
		{"task mismatch", "tasks/cancel", "t-2", true, `{"taskId":"t-1"}`,
			"Header mismatch: Mcp-Name header value 't-2' does not match body value 't-1'"},
		// http-header-validation.
		{"wrong tool", "tools/call", "wrong_tool_name", true, `{"name":"test_simple_text","arguments":{}}`,
			"Header mismatch: Mcp-Name header value 'wrong_tool_name' does not match body value 'test_simple_text'"},
		{"missing", "tools/call", "", false, `{"name":"test_simple_text","arguments":{}}`,
			"Header mismatch: Mcp-Name header is missing"},
		{"white space trimmed", "tools/call", "  test_simple_text  ", true, `{"name":"test_simple_text","arguments":{}}`, ""},
		// Encoding.
		{"base64 name", "tools/call", "=?base64?5aSp5rCX?=", true, `{"name":"天気"}`, ""},
		{"escaped body name", "tools/call", "=?base64?5aSp5rCX?=", true, `{"name":"\u5929\u6c17"}`, ""},
		{"bad base64", "tools/call", "=?base64?5aSp5rCX=?=", true, `{"name":"天気"}`,
			"Header mismatch: Mcp-Name header value is not valid Base64 inside the =?base64?...?= sentinel"},
		{"base64 mismatch", "prompts/get", "=?base64?5aSp5rCX?=", true, `{"name":"x"}`,
			"Header mismatch: Mcp-Name header value \"天気\" does not match body value 'x'"},
		{"spec example", "tools/call", "foo", true, `{"name":"bar"}`,
			"Header mismatch: Mcp-Name header value 'foo' does not match body value 'bar'"},
		{"last duplicate member counts", "tools/call", "b", true, `{"name":"a","name":"b"}`, ""},
		// Body without the member.
		{"no name in body", "tools/call", "x", true, `{"arguments":{}}`,
			"Header mismatch: Mcp-Name header is present but the request body has no params.name"},
		{"no params", "resources/read", "x", true, ``,
			"Header mismatch: Mcp-Name header is present but the request body has no params.uri"},
		{"non-string member", "tools/call", "1", true, `{"name":1}`,
			"Header mismatch: Mcp-Name header value '1' does not match body value 1"},
		{"object member", "tools/call", "x", true, `{"name":{"a":1}}`,
			"Header mismatch: Mcp-Name header value 'x' does not match body value {\"a\":1}"},
		// Methods without Mcp-Name.
		{"tools/list ignores it", "tools/list", "anything", true, `{}`, ""},
		{"server/discover without it", "server/discover", "", false, `{}`, ""},
	}
	for _, c := range cases {
		err := CheckName(c.method, c.header, c.present, json.RawMessage(c.params))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.wantErr {
			t.Errorf("%s: CheckName(%q, %q, %v, %s) = %q, want %q", c.name, c.method, c.header, c.present, c.params, got, c.wantErr)
		}
	}
}

func TestFieldValue(t *testing.T) {
	v, present, err := FieldValue(HeaderName, nil)
	if v != "" || present || err != nil {
		t.Errorf("FieldValue(nil) = %q, %v, %v; want \"\", false, nil", v, present, err)
	}
	v, present, err = FieldValue(HeaderName, []string{"x"})
	if v != "x" || !present || err != nil {
		t.Errorf("FieldValue([x]) = %q, %v, %v; want \"x\", true, nil", v, present, err)
	}
	v, present, err = FieldValue(HeaderName, []string{"a", "b"})
	if want := "Header mismatch: Mcp-Name header appears more than once"; v != "" || !present || err == nil || err.Error() != want || !errors.Is(err, ErrDuplicate) {
		t.Errorf("FieldValue([a b]) = %q, %v, %v; want \"\", true, %q", v, present, err, want)
	}
}

// TestParamKeyMatchesWire checks that Param.Key is the key net/http's
// header parser files an incoming header under, whatever case the client
// used.
func TestParamKeyMatchesWire(t *testing.T) {
	params, err := HeaderParams(json.RawMessage(`{"properties":{"t":{"type":"string","x-mcp-header":"TenantId"}}}`))
	if err != nil || len(params) != 1 {
		t.Fatalf("HeaderParams = %v, %v", params, err)
	}
	for _, line := range []string{"Mcp-Param-TenantId: acme", "mcp-param-tenantid: acme", "MCP-PARAM-TENANTID: acme"} {
		r := textproto.NewReader(bufio.NewReader(strings.NewReader(line + "\r\n\r\n")))
		h, err := r.ReadMIMEHeader()
		if err != nil {
			t.Fatal(err)
		}
		if got := h[params[0].Key]; len(got) != 1 || got[0] != "acme" {
			t.Errorf("%q: header[%q] = %q, want [acme]", line, params[0].Key, got)
		}
	}
}
