package jsonrpc_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

func TestIDAccessors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		id       jsonrpc.ID
		valid    bool
		isString bool
		num      int64
		isInt    bool
		str      string
		raw      any
		text     string
		json     string
	}{
		{"zero", jsonrpc.ID{}, false, false, 0, false, "", nil, "null", "null"},
		{"integer", jsonrpc.Int64ID(42), true, false, 42, true, "", int64(42), "42", "42"},
		{"integer zero", jsonrpc.Int64ID(0), true, false, 0, true, "", int64(0), "0", "0"},
		{"negative", jsonrpc.Int64ID(-5), true, false, -5, true, "", int64(-5), "-5", "-5"},
		{"string", jsonrpc.StringID("abc"), true, true, 0, false, "abc", "abc", `"abc"`, `"abc"`},
		{"empty string", jsonrpc.StringID(""), true, true, 0, false, "", "", `""`, `""`},
		{"string that looks like a number", jsonrpc.StringID("42"), true, true, 0, false, "42", "42", `"42"`, `"42"`},
		{"string needing escapes", jsonrpc.StringID("a\"b\n<"), true, true, 0, false, "a\"b\n<", "a\"b\n<", `"a\"b\n<"`, `"a\"b\n\u003c"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := tc.id
			if id.IsValid() != tc.valid {
				t.Errorf("IsValid = %v", id.IsValid())
			}
			if id.IsString() != tc.isString {
				t.Errorf("IsString = %v", id.IsString())
			}
			if n, ok := id.Int64(); n != tc.num || ok != tc.isInt {
				t.Errorf("Int64 = %d, %v", n, ok)
			}
			if s, ok := id.Str(); s != tc.str || ok != tc.isString {
				t.Errorf("Str = %q, %v", s, ok)
			}
			if id.Raw() != tc.raw {
				t.Errorf("Raw = %#v, want %#v", id.Raw(), tc.raw)
			}
			if id.String() != tc.text {
				t.Errorf("String = %s, want %s", id.String(), tc.text)
			}
			if got := string(id.AppendJSON([]byte("x"))); got != "x"+tc.json {
				t.Errorf("AppendJSON = %s, want x%s", got, tc.json)
			}
			b, err := json.Marshal(id)
			if err != nil || string(b) != tc.json {
				t.Errorf("json.Marshal = %s, %v; want %s", b, err, tc.json)
			}
			// And back.
			var back jsonrpc.ID
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if back != id {
				t.Errorf("round trip = %v, want %v", back, id)
			}
		})
	}
}

func TestIDUnmarshal(t *testing.T) {
	for in, want := range map[string]jsonrpc.ID{
		`1`:                    jsonrpc.Int64ID(1),
		`-0`:                   jsonrpc.Int64ID(0),
		`9223372036854775807`:  jsonrpc.Int64ID(1<<63 - 1),
		`"x"`:                  jsonrpc.StringID("x"),
		`"\u0041\ud83d\ude00"`: jsonrpc.StringID("A😀"),
		`null`:                 {},
	} {
		var id jsonrpc.ID
		if err := json.Unmarshal([]byte(in), &id); err != nil {
			t.Errorf("Unmarshal(%s): %v", in, err)
			continue
		}
		if id != want {
			t.Errorf("Unmarshal(%s) = %v, want %v", in, id, want)
		}
	}
	for _, in := range []string{`true`, `false`, `1.5`, `1.0`, `1e2`, `{}`, `[]`, `[1]`, `9223372036854775808`, `-9223372036854775809`} {
		id := jsonrpc.Int64ID(99)
		if err := json.Unmarshal([]byte(in), &id); err == nil {
			t.Errorf("Unmarshal(%s) = %v, want an error", in, id)
		}
		if id != jsonrpc.Int64ID(99) {
			t.Errorf("Unmarshal(%s) changed the id to %v on error", in, id)
		}
	}
}

// TestIDInStruct checks ID as a field, the way params such as
// notifications/cancelled carry it.
func TestIDInStruct(t *testing.T) {
	type cancelled struct {
		RequestID jsonrpc.ID `json:"requestId"`
		Token     jsonrpc.ID `json:"token,omitzero"`
	}
	b, err := json.Marshal(cancelled{RequestID: jsonrpc.StringID("r1")})
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"requestId":"r1"}` {
		t.Errorf("Marshal = %s, want the zero token omitted", b)
	}
	b, _ = json.Marshal(cancelled{RequestID: jsonrpc.Int64ID(0), Token: jsonrpc.Int64ID(0)})
	if string(b) != `{"requestId":0,"token":0}` {
		t.Errorf("Marshal = %s, want integer zero kept", b)
	}
	var c cancelled
	if err := json.Unmarshal([]byte(`{"requestId":7,"token":"t"}`), &c); err != nil {
		t.Fatal(err)
	}
	if c.RequestID != jsonrpc.Int64ID(7) || c.Token != jsonrpc.StringID("t") {
		t.Errorf("Unmarshal = %+v", c)
	}
	if err := json.Unmarshal([]byte(`{"requestId":true}`), &c); err == nil {
		t.Error("Unmarshal accepted a boolean id")
	}
}

func TestIDAsMapKey(t *testing.T) {
	ids := []jsonrpc.ID{
		{},
		jsonrpc.Int64ID(0),
		jsonrpc.Int64ID(1),
		jsonrpc.StringID(""),
		jsonrpc.StringID("0"),
		jsonrpc.StringID("1"),
	}
	m := make(map[jsonrpc.ID]int)
	for i, id := range ids {
		m[id] = i
	}
	if len(m) != len(ids) {
		t.Fatalf("map has %d keys, want %d: string, integer and zero IDs must stay distinct", len(m), len(ids))
	}
	for i, id := range ids {
		if m[id] != i {
			t.Errorf("m[%v] = %d, want %d", id, m[id], i)
		}
	}
	// An ID decoded off the wire finds the entry made from a constructor.
	for in, want := range map[string]int{
		`{"jsonrpc":"2.0","id":1,"result":{}}`:   2,
		`{"jsonrpc":"2.0","id":"1","result":{}}`: 5,
		`{"jsonrpc":"2.0","id":0,"result":{}}`:   1,
		`{"jsonrpc":"2.0","id":"","result":{}}`:  3,
	} {
		msg, _, err := jsonrpc.Decode([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := m[msg.(*jsonrpc.Response).ID]; !ok || got != want {
			t.Errorf("lookup of the id of %s = %d, %v; want %d", in, got, ok, want)
		}
	}
}
