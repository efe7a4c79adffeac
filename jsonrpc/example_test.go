package jsonrpc_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// A server's read loop in miniature: decode each frame once, answer
// requests, refuse what is not a message with the error Decode returns.
func Example() {
	frames := []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"nope"}`,
		`{"jsonrpc":"2.0","id":3,"method":`,
	}
	for _, frame := range frames {
		msg, id, err := jsonrpc.Decode([]byte(frame))
		var resp *jsonrpc.Response
		switch m := msg.(type) {
		case nil:
			resp = jsonrpc.NewErrorResponse(id, err.(*jsonrpc.Error))
		case *jsonrpc.Request:
			if m.Method == "ping" {
				resp = &jsonrpc.Response{ID: m.ID} // a nil result is {}
			} else {
				resp = jsonrpc.NewErrorResponse(m.ID, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found", m.Method))
			}
		case *jsonrpc.Notification:
			continue // never answered
		}
		out, _ := jsonrpc.Encode(resp)
		fmt.Println(string(out))
	}
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{}}
	// {"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found","data":"nope"}}
	// {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}
}

// Decode reads the envelope and leaves params raw, byte for byte, for the
// handler to decode into its own type.
func ExampleDecode() {
	msg, _, err := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":"a1","method":"tools/call","params":{"name": "echo"}}`))
	if err != nil {
		panic(err)
	}
	req := msg.(*jsonrpc.Request)
	fmt.Println(req.ID, req.Method, string(req.Params))

	var params struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(req.Params, &params)
	fmt.Println(params.Name)
	// Output:
	// "a1" tools/call {"name": "echo"}
	// echo
}

// A message Decode refuses comes back as an *Error ready to send, with the
// id when it could be read.
func ExampleDecode_invalid() {
	for _, frame := range []string{
		`{"jsonrpc":"2.0","id":7,"method":42}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`[1,2,3]`,
		`{"jsonrpc":"2.0","id":7,"method":"ping"`,
	} {
		_, id, err := jsonrpc.Decode([]byte(frame))
		var e *jsonrpc.Error
		errors.As(err, &e)
		fmt.Println(id, e.Code, string(e.Data))
	}
	// Output:
	// 7 -32600 "Invalid Request: method must be a string"
	// null -32600 "Invalid Request: a request id must not be null"
	// null -32600 "Invalid Request: JSON-RPC message must be a single object"
	// null -32700
}

// Encode writes compact JSON with no trailing newline: framing belongs to
// the transport.
func ExampleEncode() {
	out, _ := jsonrpc.Encode(&jsonrpc.Notification{
		Method: "notifications/progress",
		Params: json.RawMessage(`{ "progressToken": 1,
			"progress": 50 }`),
	})
	fmt.Printf("%s|\n", out)
	// Output:
	// {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":50}}|
}

// AppendEncode lets a stdio transport reuse one buffer per line.
func ExampleAppendEncode() {
	buf := make([]byte, 0, 256)
	for i := range int64(2) {
		buf, _ = jsonrpc.AppendEncode(buf[:0], &jsonrpc.Response{ID: jsonrpc.Int64ID(i), Result: json.RawMessage(`{}`)})
		buf = append(buf, '\n')
		fmt.Print(string(buf))
	}
	// Output:
	// {"jsonrpc":"2.0","id":0,"result":{}}
	// {"jsonrpc":"2.0","id":1,"result":{}}
}

// DecodeBatch is separate from Decode: only 2025-03-26 peers may send
// arrays. Each element is decoded on its own.
func ExampleDecodeBatch() {
	msgs, errs, _ := jsonrpc.DecodeBatch([]byte(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"1.0"}]`))
	for i := range msgs {
		if errs[i] != nil {
			fmt.Println(i, errs[i])
			continue
		}
		fmt.Println(i, msgs[i].(*jsonrpc.Request).Method)
	}
	// Output:
	// 0 ping
	// 1 jsonrpc error -32600: Invalid Request: "Invalid Request: jsonrpc must be \"2.0\""
}

// IDs are comparable values: a string "1" and an integer 1 are different
// requests, so they key a map of pending calls safely.
func ExampleID() {
	pending := map[jsonrpc.ID]string{
		jsonrpc.Int64ID(1):    "tools/list",
		jsonrpc.StringID("1"): "ping",
	}
	msg, _, _ := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":"1","result":{}}`))
	fmt.Println(pending[msg.(*jsonrpc.Response).ID])
	// Output:
	// ping
}

// A handler returns an *Error to choose what its caller sees; errors.Is
// matches by code.
func ExampleError() {
	err := fmt.Errorf("looking up tool: %w", jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params", "Unknown tool: nope"))
	fmt.Println(errors.Is(err, jsonrpc.InvalidParamsError(nil)))
	var e *jsonrpc.Error
	if errors.As(err, &e) {
		out, _ := jsonrpc.Encode(jsonrpc.NewErrorResponse(jsonrpc.Int64ID(4), e))
		fmt.Println(string(out))
	}
	// Output:
	// true
	// {"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params","data":"Unknown tool: nope"}}
}
