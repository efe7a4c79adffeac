package mcp

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The hand-written prompts/get encoder knows every field it writes.
func TestPromptEncoderFieldsKnown(t *testing.T) {
	for _, c := range []struct {
		typ  reflect.Type
		want []string
	}{
		{reflect.TypeFor[GetPromptResult](), []string{"Meta", "Description", "Messages"}},
		{reflect.TypeFor[PromptMessage](), []string{"Role", "Content"}},
	} {
		var got []string
		for f := range c.typ.Fields() {
			got = append(got, f.Name)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v fields %v, want %v: update appendFast", c.typ, got, c.want)
		}
	}
}

// appendFast writes exactly what encoding/json writes, and declines the
// shapes it does not know.
func TestGetPromptResultAppendFast(t *testing.T) {
	one := 1.0
	for _, c := range []struct {
		name string
		r    *GetPromptResult
		ok   bool
	}{
		{"one message", &GetPromptResult{Description: "Review <code> & \"more\"", Messages: []*PromptMessage{{Role: RoleUser, Content: &TextContent{Text: "func f() {\n\treturn \"x\" \u2028 é \xff\n}"}}}}, true},
		{"no description", &GetPromptResult{Messages: []*PromptMessage{{Role: RoleUser, Content: &TextContent{Text: "a"}}, {Role: RoleAssistant, Content: &TextContent{}}}}, true},
		{"no messages", &GetPromptResult{Messages: []*PromptMessage{}}, true},
		{"nil messages", &GetPromptResult{}, false},
		{"_meta", &GetPromptResult{Meta: Meta{"k": json.RawMessage(`1`)}, Messages: []*PromptMessage{}}, false},
		{"annotations", &GetPromptResult{Messages: []*PromptMessage{{Role: RoleUser, Content: &TextContent{Text: "a", Annotations: &Annotations{Priority: &one}}}}}, false},
		{"image", &GetPromptResult{Messages: []*PromptMessage{{Role: RoleUser, Content: &ImageContent{Data: "AA==", MIMEType: "image/png"}}}}, false},
		{"nil message", &GetPromptResult{Messages: []*PromptMessage{nil}}, false},
		{"nil content", &GetPromptResult{Messages: []*PromptMessage{{Role: RoleUser}}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := c.r.appendFast(nil)
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v", ok, c.ok)
			}
			if !ok {
				return
			}
			want, err := json.Marshal(c.r)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Fatalf("appendFast:\n%s\nencoding/json:\n%s", got, want)
			}
		})
	}
}
