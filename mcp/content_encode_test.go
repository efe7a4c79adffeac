package mcp

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The hand-written encoders know every field of the types they write; a
// field added to either type must be added to them too (content.go).
func TestHandEncodedFieldsKnown(t *testing.T) {
	for _, c := range []struct {
		typ  reflect.Type
		want []string
	}{
		// encoded is not a member: appendJSON's note of outEncoder's JSON.
		{reflect.TypeFor[CallToolResult](), []string{"Meta", "Content", "StructuredContent", "IsError", "encoded"}},
		{reflect.TypeFor[TextContent](), []string{"Text", "Annotations", "Meta"}},
	} {
		var got []string
		for f := range c.typ.Fields() {
			got = append(got, f.Name)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v fields %v, want %v: update its MarshalJSON", c.typ, got, c.want)
		}
	}
}

// encodingJSON is what encoding/json writes for r without the hand-written
// encoder.
func encodingJSON(t *testing.T, r *CallToolResult) string {
	t.Helper()
	type plain CallToolResult
	b, err := json.Marshal((*plain)(r))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCallToolResultMarshalMatchesEncodingJSON(t *testing.T) {
	one := 1.0
	for _, r := range []*CallToolResult{
		{Content: []Content{}},
		{Content: nil},
		{Content: []Content{&TextContent{Text: "hello, world"}}},
		{Content: []Content{&TextContent{Text: "<&>\u2028\xff\n\"\\"}}, IsError: true},
		{Content: []Content{&TextContent{Text: "a"}, &TextContent{Text: "b"}}},
		{Content: []Content{&TextContent{Text: "a", Annotations: &Annotations{Priority: &one}}}},
		{Content: []Content{&TextContent{Text: "a", Meta: Meta{"k": json.RawMessage(`"<v>"`)}}}},
		{Content: []Content{&ImageContent{Data: "AAAA", MIMEType: "image/png"}, &TextContent{Text: "t"}}},
		{Content: []Content{(*TextContent)(nil), nil}},
		{Content: []Content{&EmbeddedResource{Resource: &ResourceContents{URI: "file:///<x>", Text: "x"}}}},
		{Content: []Content{&TextContent{Text: "{}"}}, StructuredContent: json.RawMessage(`{"a": "<b>"}`)},
		{Content: []Content{&TextContent{Text: `{"a":"b"}`}}, StructuredContent: json.RawMessage(`{"a":"b","n":[1,2.5,{"c":null}]}`)},
		{Content: []Content{&TextContent{Text: "x"}}, StructuredContent: json.RawMessage(`{"a":" "}`), IsError: true},
		{Content: []Content{&TextContent{Text: "x"}}, StructuredContent: json.RawMessage(`{"a":"\u2028 é"}`)},
		{Content: []Content{&TextContent{Text: "x"}}, StructuredContent: json.RawMessage(`{"a":1} `)},
		{Content: []Content{&TextContent{Text: "x"}}, StructuredContent: json.RawMessage(`{"a":"&"}`)},
		{Content: []Content{}, Meta: Meta{"z": json.RawMessage(`1`), "a": json.RawMessage(`{ "x" : 2 }`)}},
	} {
		want := encodingJSON(t, r)
		got, err := json.Marshal(r)
		if err != nil || string(got) != want {
			t.Errorf("json.Marshal = %s, %v\nwant %s", got, err, want)
		}
		got, err = r.appendJSON([]byte("x"), r.ownEncoding(), nil)
		if err != nil || string(got) != "x"+want {
			t.Errorf("appendJSON = %s, %v\nwant x%s", got, err, want)
		}
	}
	for _, c := range []*TextContent{{Text: "x"}, {Text: ""}, {Text: "<\x01>"}} {
		type plain TextContent
		want, _ := json.Marshal(struct {
			Type string `json:"type"`
			*plain
		}{"text", (*plain)(c)})
		if got, err := json.Marshal(c); err != nil || string(got) != string(want) {
			t.Errorf("TextContent: %s, %v, want %s", got, err, want)
		}
	}
}
