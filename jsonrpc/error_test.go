package jsonrpc_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

func TestErrorText(t *testing.T) {
	e := &jsonrpc.Error{Code: -32601, Message: "Method not found"}
	if got := e.Error(); got != "jsonrpc error -32601: Method not found" {
		t.Errorf("Error() = %q", got)
	}
	e.Data = json.RawMessage(`"tools/nope"`)
	if got := e.Error(); got != `jsonrpc error -32601: Method not found: "tools/nope"` {
		t.Errorf("Error() = %q", got)
	}
}

func TestErrorIsMatchesCode(t *testing.T) {
	e := jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found", "x")
	wrapped := fmt.Errorf("serving: %w", e)
	if !errors.Is(wrapped, jsonrpc.MethodNotFoundError(nil)) {
		t.Error("errors.Is(wrapped, MethodNotFoundError(nil)) = false")
	}
	if errors.Is(wrapped, jsonrpc.InvalidParamsError(nil)) {
		t.Error("errors.Is(wrapped, InvalidParamsError(nil)) = true")
	}
	var got *jsonrpc.Error
	if !errors.As(wrapped, &got) || got != e {
		t.Error("errors.As did not find the *Error")
	}
	if errors.Is(e, errors.New("Method not found")) {
		t.Error("an *Error matched a non-jsonrpc error")
	}
}

func TestStandardErrors(t *testing.T) {
	for _, tc := range []struct {
		err     *jsonrpc.Error
		code    int64
		message string
	}{
		{jsonrpc.ParseError(nil), -32700, "Parse error"},
		{jsonrpc.InvalidRequestError(nil), -32600, "Invalid Request"},
		{jsonrpc.MethodNotFoundError(nil), -32601, "Method not found"},
		{jsonrpc.InvalidParamsError(nil), -32602, "Invalid params"},
		{jsonrpc.InternalError(nil), -32603, "Internal error"},
	} {
		if tc.err.Code != tc.code || tc.err.Message != tc.message || tc.err.Data != nil {
			t.Errorf("error = %+v, want {%d %q}", tc.err, tc.code, tc.message)
		}
	}
	// Each call is a new value: changing one changes no other.
	a := jsonrpc.MethodNotFoundError(nil)
	a.Message = "changed"
	if b := jsonrpc.MethodNotFoundError(nil); b.Message != "Method not found" {
		t.Errorf("after changing one error, the next has message %q", b.Message)
	}
	if e := jsonrpc.InvalidParamsError("Unknown tool: x"); string(e.Data) != `"Unknown tool: x"` {
		t.Errorf("data = %s, want %q", e.Data, `"Unknown tool: x"`)
	}
	// The MCP codes, as the specifications number them.
	for got, want := range map[int64]int64{
		jsonrpc.CodeServerError:                -32000,
		jsonrpc.CodeSessionNotFound:            -32001,
		jsonrpc.CodeResourceNotFound:           -32002,
		jsonrpc.CodeHeaderMismatch:             -32020,
		jsonrpc.CodeMissingClientCapability:    -32021,
		jsonrpc.CodeUnsupportedProtocolVersion: -32022,
		jsonrpc.CodeURLElicitationRequired:     -32042,
	} {
		if got != want {
			t.Errorf("code %d, want %d", got, want)
		}
	}
}

func TestNewErrorData(t *testing.T) {
	for _, tc := range []struct {
		name string
		data any
		want string
	}{
		{"nil", nil, ""},
		{"string", "Unknown tool: x", `"Unknown tool: x"`},
		{"struct", struct {
			Field string `json:"field"`
		}{"name"}, `{"field":"name"}`},
		{"raw kept", json.RawMessage(`{"a": 1}`), `{"a": 1}`},
		{"unencodable dropped", make(chan int), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := jsonrpc.NewError(-32602, "Invalid params", tc.data)
			if e.Code != -32602 || e.Message != "Invalid params" || string(e.Data) != tc.want {
				t.Errorf("NewError = {%d %q %s}, want data %s", e.Code, e.Message, e.Data, tc.want)
			}
		})
	}
}

func TestNewErrorResponse(t *testing.T) {
	resp := jsonrpc.NewErrorResponse(jsonrpc.StringID("a"), jsonrpc.InternalError(nil))
	b, err := jsonrpc.Encode(resp)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"jsonrpc":"2.0","id":"a","error":{"code":-32603,"message":"Internal error"}}` {
		t.Errorf("Encode = %s", b)
	}
}
