package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// elicitForm is a form with every shape the spec allows, in an order that
// is not alphabetical.
func elicitForm() *mcp.ElicitSchema {
	return &mcp.ElicitSchema{
		Properties: []mcp.ElicitProperty{
			{Name: "name", Schema: &mcp.PrimitiveSchema{Type: "string", Title: "Name", Description: "Your name", MinLength: askPtr(1), MaxLength: askPtr(50), Default: "Ada"}},
			{Name: "email", Schema: &mcp.PrimitiveSchema{Type: "string", Format: "email"}},
			{Name: "born", Schema: &mcp.PrimitiveSchema{Type: "string", Format: "date"}},
			{Name: "age", Schema: &mcp.PrimitiveSchema{Type: "integer", Minimum: askPtr(0.0), Maximum: askPtr(150.0), Default: 36}},
			{Name: "score", Schema: &mcp.PrimitiveSchema{Type: "number", Default: 95.5}},
			{Name: "agree", Schema: &mcp.PrimitiveSchema{Type: "boolean", Default: false}},
			{Name: "color", Schema: &mcp.PrimitiveSchema{Type: "string", Enum: []string{"red", "green"}, Default: "red"}},
			{Name: "size", Schema: &mcp.PrimitiveSchema{Type: "string", OneOf: []mcp.EnumOption{{Const: "s", Title: "Small"}, {Const: "l", Title: "Large"}}}},
			{Name: "legacy", Schema: &mcp.PrimitiveSchema{Type: "string", Enum: []string{"a", "b"}, EnumNames: []string{"A", "B"}}},
			{Name: "tags", Schema: &mcp.PrimitiveSchema{Type: "array", MinItems: askPtr(1), MaxItems: askPtr(2),
				Items: &mcp.EnumItems{Type: "string", Enum: []string{"x", "y", "z"}}, Default: []string{"x"}}},
			{Name: "langs", Schema: &mcp.PrimitiveSchema{Type: "array",
				Items: &mcp.EnumItems{AnyOf: []mcp.EnumOption{{Const: "go", Title: "Go"}, {Const: "rs", Title: "Rust"}}}}},
		},
		Required: []string{"name", "email"},
	}
}

const elicitFormJSON = `{"type":"object","properties":{` +
	`"name":{"type":"string","title":"Name","description":"Your name","minLength":1,"maxLength":50,"default":"Ada"},` +
	`"email":{"type":"string","format":"email"},` +
	`"born":{"type":"string","format":"date"},` +
	`"age":{"type":"integer","minimum":0,"maximum":150,"default":36},` +
	`"score":{"type":"number","default":95.5},` +
	`"agree":{"type":"boolean","default":false},` +
	`"color":{"type":"string","enum":["red","green"],"default":"red"},` +
	`"size":{"type":"string","oneOf":[{"const":"s","title":"Small"},{"const":"l","title":"Large"}]},` +
	`"legacy":{"type":"string","enum":["a","b"],"enumNames":["A","B"]},` +
	`"tags":{"type":"array","items":{"type":"string","enum":["x","y","z"]},"minItems":1,"maxItems":2,"default":["x"]},` +
	`"langs":{"type":"array","items":{"anyOf":[{"const":"go","title":"Go"},{"const":"rs","title":"Rust"}]}}` +
	`},"required":["name","email"]}`

// TestElicitSchemaJSON: the schema encodes in the order given and decodes
// back to the same properties, in the same order.
func TestElicitSchemaJSON(t *testing.T) {
	raw, err := json.Marshal(elicitForm())
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != elicitFormJSON {
		t.Errorf("Marshal =\n\t%s\nwant\n\t%s", raw, elicitFormJSON)
	}
	var back mcp.ElicitSchema
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if err := back.Validate(); err != nil {
		t.Errorf("Validate of the decoded schema: %v", err)
	}
	again, _ := json.Marshal(&back)
	if string(again) != elicitFormJSON {
		t.Errorf("round trip =\n\t%s\nwant\n\t%s", again, elicitFormJSON)
	}
	var names []string
	for _, p := range back.Properties {
		names = append(names, p.Name)
	}
	if want := []string{"name", "email", "born", "age", "score", "agree", "color", "size", "legacy", "tags", "langs"}; !reflect.DeepEqual(names, want) {
		t.Errorf("decoded order %v, want %v", names, want)
	}
	// Members the spec does not allow are kept by name, for Validate.
	var odd mcp.ElicitSchema
	if err := json.Unmarshal([]byte(`{"type":"object","additionalProperties":false,"properties":{"p":{"type":"string","pattern":"^a"}},"required":[]}`), &odd); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(odd.Unknown, []string{"additionalProperties"}) || !reflect.DeepEqual(odd.Properties[0].Schema.Unknown, []string{"pattern"}) || odd.Required == nil {
		t.Errorf("decoded %+v / %+v", odd, odd.Properties[0].Schema)
	}
	if err := json.Unmarshal([]byte(`{"type":"array","properties":{}}`), &odd); err == nil {
		t.Errorf("a schema whose type is not object decoded")
	}
}

// TestElicitSchemaValidate: every shape the spec allows passes; each way
// out of them is refused with a message that names the property.
func TestElicitSchemaValidate(t *testing.T) {
	if err := elicitForm().Validate(); err != nil {
		t.Fatalf("Validate(every shape) = %v", err)
	}
	if err := (&mcp.ElicitSchema{}).Validate(); err != nil {
		t.Errorf("Validate(no properties) = %v", err)
	}
	one := func(p *mcp.PrimitiveSchema) *mcp.ElicitSchema {
		return &mcp.ElicitSchema{Properties: []mcp.ElicitProperty{{Name: "f", Schema: p}}}
	}
	for _, tc := range []struct {
		name   string
		schema *mcp.ElicitSchema
		want   string
	}{
		{"nested object", one(&mcp.PrimitiveSchema{Type: "object"}), `property "f": nested objects are not allowed: a form is flat`},
		{"no type", one(&mcp.PrimitiveSchema{}), `property "f": type is missing`},
		{"unknown type", one(&mcp.PrimitiveSchema{Type: "null"}), `property "f": type "null" is not one of string, number, integer, boolean and array`},
		{"nil schema", &mcp.ElicitSchema{Properties: []mcp.ElicitProperty{{Name: "f"}}}, `property "f" has no schema`},
		{"no name", &mcp.ElicitSchema{Properties: []mcp.ElicitProperty{{Schema: &mcp.PrimitiveSchema{Type: "string"}}}}, `a property has no name`},
		{"twice", &mcp.ElicitSchema{Properties: []mcp.ElicitProperty{{Name: "f", Schema: &mcp.PrimitiveSchema{Type: "string"}}, {Name: "f", Schema: &mcp.PrimitiveSchema{Type: "string"}}}}, `property "f" appears twice`},
		{"required unknown", &mcp.ElicitSchema{Required: []string{"g"}}, `required names "g", which is not a property`},
		{"required twice", &mcp.ElicitSchema{Properties: []mcp.ElicitProperty{{Name: "f", Schema: &mcp.PrimitiveSchema{Type: "string"}}}, Required: []string{"f", "f"}}, `required names "f" twice`},
		{"unknown root member", &mcp.ElicitSchema{Unknown: []string{"additionalProperties"}}, `member "additionalProperties" is not allowed in requestedSchema (only $schema, type, properties and required)`},
		{"unknown property member", one(&mcp.PrimitiveSchema{Type: "string", Unknown: []string{"pattern"}}), `property "f": member "pattern" is not allowed`},
		{"bad format", one(&mcp.PrimitiveSchema{Type: "string", Format: "phone"}), `property "f": format "phone" is not one of email, uri, date and date-time`},
		{"minLength above maxLength", one(&mcp.PrimitiveSchema{Type: "string", MinLength: askPtr(5), MaxLength: askPtr(2)}), `property "f": minLength 5 is greater than maxLength 2`},
		{"negative minLength", one(&mcp.PrimitiveSchema{Type: "string", MinLength: askPtr(-1)}), `property "f": minLength must not be negative`},
		{"minimum on a string", one(&mcp.PrimitiveSchema{Type: "string", Minimum: askPtr(1.0)}), `property "f": minimum is not allowed on a string`},
		{"default not a string", one(&mcp.PrimitiveSchema{Type: "string", Default: 3}), `property "f": default: want a string, got 3`},
		{"default too short", one(&mcp.PrimitiveSchema{Type: "string", MinLength: askPtr(3), Default: "ab"}), `property "f": default: "ab" is shorter than 3 characters`},
		{"default not an email", one(&mcp.PrimitiveSchema{Type: "string", Format: "email", Default: "nobody"}), `property "f": default: "nobody" is not an email address`},
		{"default not a date-time", one(&mcp.PrimitiveSchema{Type: "string", Format: "date-time", Default: "2025-01-01"}), `property "f": default: "2025-01-01" is not an RFC 3339 date-time`},
		{"default not a uri", one(&mcp.PrimitiveSchema{Type: "string", Format: "uri", Default: "nowhere"}), `property "f": default: "nowhere" is not an absolute URI`},
		{"minimum above maximum", one(&mcp.PrimitiveSchema{Type: "number", Minimum: askPtr(2.0), Maximum: askPtr(1.0)}), `property "f": minimum 2 is greater than maximum 1`},
		{"format on a number", one(&mcp.PrimitiveSchema{Type: "number", Format: "email"}), `property "f": format is not allowed on a number`},
		{"default not a number", one(&mcp.PrimitiveSchema{Type: "number", Default: "3"}), `property "f": default: want a number, got "3"`},
		{"default not an integer", one(&mcp.PrimitiveSchema{Type: "integer", Default: 2.5}), `property "f": default: want an integer, got 2.5`},
		{"default below minimum", one(&mcp.PrimitiveSchema{Type: "integer", Minimum: askPtr(10.0), Default: 3}), `property "f": default: 3 is less than the minimum 10`},
		{"enum on a boolean", one(&mcp.PrimitiveSchema{Type: "boolean", Enum: []string{"a"}}), `property "f": enum is not allowed on a boolean`},
		{"default not a boolean", one(&mcp.PrimitiveSchema{Type: "boolean", Default: "true"}), `property "f": default: want a boolean, got "true"`},
		{"empty enum", one(&mcp.PrimitiveSchema{Type: "string", Enum: []string{}}), `property "f": enum is empty`},
		{"enum value twice", one(&mcp.PrimitiveSchema{Type: "string", Enum: []string{"a", "a"}}), `property "f": enum lists "a" twice`},
		{"enumNames of another length", one(&mcp.PrimitiveSchema{Type: "string", Enum: []string{"a", "b"}, EnumNames: []string{"A"}}), `property "f": enumNames has 1 names for 2 enum values`},
		{"enumNames without enum", one(&mcp.PrimitiveSchema{Type: "string", EnumNames: []string{"A"}}), `property "f": enumNames is not allowed on a string`},
		{"format on an enum", one(&mcp.PrimitiveSchema{Type: "string", Enum: []string{"a"}, Format: "email"}), `property "f": format is not allowed on a single-select enum`},
		{"enum and oneOf", one(&mcp.PrimitiveSchema{Type: "string", Enum: []string{"a"}, OneOf: []mcp.EnumOption{{Const: "a", Title: "A"}}}), `property "f": enum is not allowed on a titled single-select enum (oneOf)`},
		{"default outside the enum", one(&mcp.PrimitiveSchema{Type: "string", Enum: []string{"a"}, Default: "b"}), `property "f": default: "b" is not one of ["a"]`},
		{"default outside oneOf", one(&mcp.PrimitiveSchema{Type: "string", OneOf: []mcp.EnumOption{{Const: "a", Title: "A"}}, Default: "A"}), `property "f": default: "A" is not one of ["a"]`},
		{"oneOf const twice", one(&mcp.PrimitiveSchema{Type: "string", OneOf: []mcp.EnumOption{{Const: "a", Title: "A"}, {Const: "a", Title: "B"}}}), `property "f": oneOf lists "a" twice`},
		{"array without items", one(&mcp.PrimitiveSchema{Type: "array"}), `property "f": a multi-select enum needs items`},
		{"array of anything", one(&mcp.PrimitiveSchema{Type: "array", Items: &mcp.EnumItems{Type: "string"}}), `property "f": items needs enum or anyOf`},
		{"items enum without type", one(&mcp.PrimitiveSchema{Type: "array", Items: &mcp.EnumItems{Enum: []string{"a"}}}), `property "f": items.type must be "string", not ""`},
		{"items of numbers", one(&mcp.PrimitiveSchema{Type: "array", Items: &mcp.EnumItems{Type: "number", AnyOf: []mcp.EnumOption{{Const: "1", Title: "one"}}}}), `property "f": items.type must be "string", not "number"`},
		{"items enum and anyOf", one(&mcp.PrimitiveSchema{Type: "array", Items: &mcp.EnumItems{Type: "string", Enum: []string{"a"}, AnyOf: []mcp.EnumOption{{Const: "a", Title: "A"}}}}), `property "f": items has both enum and anyOf`},
		{"minItems above maxItems", one(&mcp.PrimitiveSchema{Type: "array", Items: &mcp.EnumItems{Type: "string", Enum: []string{"a"}}, MinItems: askPtr(2), MaxItems: askPtr(1)}), `property "f": minItems 2 is greater than maxItems 1`},
		{"enum on an array", one(&mcp.PrimitiveSchema{Type: "array", Enum: []string{"a"}, Items: &mcp.EnumItems{Type: "string", Enum: []string{"a"}}}), `property "f": enum is not allowed on a multi-select enum`},
		{"default not a list", one(&mcp.PrimitiveSchema{Type: "array", Items: &mcp.EnumItems{Type: "string", Enum: []string{"a"}}, Default: "a"}), `property "f": default: want a list of strings, got "a"`},
		{"default outside the options", one(&mcp.PrimitiveSchema{Type: "array", Items: &mcp.EnumItems{AnyOf: []mcp.EnumOption{{Const: "a", Title: "A"}}}, Default: []string{"b"}}), `property "f": default: "b" is not one of ["a"]`},
		{"default with too many", one(&mcp.PrimitiveSchema{Type: "array", Items: &mcp.EnumItems{Type: "string", Enum: []string{"a", "b"}}, MaxItems: askPtr(1), Default: []string{"a", "b"}}), `property "f": default: 2 chosen, at most 1 allowed`},
		{"default chosen twice", one(&mcp.PrimitiveSchema{Type: "array", Items: &mcp.EnumItems{Type: "string", Enum: []string{"a", "b"}}, Default: []string{"a", "a"}}), `property "f": default: "a" is chosen twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.schema.Validate()
			if !errors.Is(err, mcp.ErrInvalidElicitation) {
				t.Fatalf("Validate = %v, want ErrInvalidElicitation", err)
			}
			if want := "mcp: invalid elicitation schema: " + tc.want; err.Error() != want {
				t.Errorf("Validate =\n\t%s\nwant\n\t%s", err, want)
			}
		})
	}
}

// TestElicitFormRoundTrip: the client's handler gets the form exactly as
// sent, properties in order; its answer reaches the tool. Decline and
// cancel drop any content.
func TestElicitFormRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name, action, content, want string
	}{
		{"accept", "accept", `{"name":"Grace","email":"grace@example.com","age":85,"score":1.5,"agree":true,"color":"green","size":"l","legacy":"b","tags":["y","z"],"langs":[]}`,
			`{"action":"accept","content":{"name":"Grace","email":"grace@example.com","age":85,"score":1.5,"agree":true,"color":"green","size":"l","legacy":"b","tags":["y","z"],"langs":[]}}`},
		{"accept with only what is required", "accept", `{"name":"G","email":"g@example.com"}`, `{"action":"accept","content":{"name":"G","email":"g@example.com"}}`},
		{"decline with content", "decline", `{"name":"x"}`, `{"action":"decline"}`},
		{"cancel", "cancel", ``, `{"action":"cancel"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := make(chan *mcp.ElicitParams, 1)
			s := askServer(t, nil, func(ctx context.Context, req *mcp.Request) (string, error) {
				res, err := req.Elicit(ctx, &mcp.ElicitParams{Mode: mcp.ElicitationModeForm, Message: "Who are you?", RequestedSchema: elicitForm()})
				if err != nil {
					return "", err
				}
				raw, _ := json.Marshal(res)
				return string(raw), nil
			})
			p := connectClient(t, s, &mcp.ClientOptions{
				ElicitationHandler: func(_ context.Context, _ *mcp.ClientSession, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
					got <- params
					return &mcp.ElicitResult{Action: tc.action, Content: json.RawMessage(tc.content)}, nil
				},
			})
			text, isErr := askCall(t, p.cs)
			if isErr || text != tc.want {
				t.Errorf("tool = %s (isError %v), want %s", text, isErr, tc.want)
			}
			params := recvWithin(t, got, "the handler's params")
			if params.Mode != "form" || params.Message != "Who are you?" {
				t.Errorf("handler params = %+v", params)
			}
			raw, _ := json.Marshal(params.RequestedSchema)
			if string(raw) != elicitFormJSON {
				t.Errorf("the handler's schema =\n\t%s\nwant\n\t%s", raw, elicitFormJSON)
			}
		})
	}
}

// TestElicitCapabilityGating: a mode the client did not declare is never
// sent. An empty elicitation capability means form mode, as before
// 2025-11-25.
func TestElicitCapabilityGating(t *testing.T) {
	form := &mcp.ElicitParams{Message: "m", RequestedSchema: &mcp.ElicitSchema{}}
	formExplicit := &mcp.ElicitParams{Mode: "form", Message: "m", RequestedSchema: &mcp.ElicitSchema{}}
	url := &mcp.ElicitParams{Mode: "url", Message: "m", ElicitationID: "e1", URL: "https://example.com/connect"}
	for _, tc := range []struct {
		name, caps string
		params     *mcp.ElicitParams
		capability string // "" when the request goes out
	}{
		{"none declared, form", `{}`, form, "elicitation"},
		{"none declared, url", `{"sampling":{}}`, url, "elicitation"},
		{"empty object allows form", `{"elicitation":{}}`, form, ""},
		{"empty object allows form with mode", `{"elicitation":{}}`, formExplicit, ""},
		{"empty object refuses url", `{"elicitation":{}}`, url, "elicitation.url"},
		{"form declared refuses url", `{"elicitation":{"form":{}}}`, url, "elicitation.url"},
		{"url only refuses form", `{"elicitation":{"url":{}}}`, form, "elicitation.form"},
		{"url only allows url", `{"elicitation":{"url":{}}}`, url, ""},
		{"both allow form", `{"elicitation":{"form":{},"url":{}}}`, formExplicit, ""},
		{"both allow url", `{"elicitation":{"form":{},"url":{}}}`, url, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errc := make(chan error, 1)
			s := askServer(t, nil, func(ctx context.Context, req *mcp.Request) (string, error) {
				res, err := req.Elicit(ctx, tc.params)
				errc <- err
				if err != nil {
					return "", err
				}
				return res.Action, nil
			})
			c := askRaw(t, s, tc.caps)
			c.request("tools/call", `{"name":"ask"}`)
			frame := c.read()
			if tc.capability != "" {
				err := <-errc
				want := "mcp: elicitation/create not sent: the client did not declare the " + tc.capability + " capability"
				if !errors.Is(err, mcp.ErrCapabilityNotDeclared) || err.Error() != want {
					t.Fatalf("Elicit = %v, want ErrCapabilityNotDeclared: %s", err, want)
				}
				askWantToolError(t, frame, "3", err.Error())
				return
			}
			req := askRequest(t, frame, "elicitation/create")
			jsonEqual(t, "params", req.Params, string(askJSON(t, tc.params)))
			c.send(`{"jsonrpc":"2.0","id":` + req.ID.String() + `,"result":{"action":"decline"}}`)
			if got, want := string(c.read()), `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"decline"}]}}`; got != want {
				t.Errorf("tool answer %s, want %s", got, want)
			}
			if err := <-errc; err != nil {
				t.Errorf("Elicit = %v", err)
			}
		})
	}
}

func askJSON(t testing.TB, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestElicitInvalidNotSent: bad params and schemas are refused before
// anything is sent, and the error says why.
func TestElicitInvalidNotSent(t *testing.T) {
	for _, tc := range []struct {
		name   string
		params *mcp.ElicitParams
		is     error
		want   string
	}{
		{"nil params", nil, mcp.ErrInvalidElicitation, "mcp: invalid elicitation/create params: params are required"},
		{"no message", &mcp.ElicitParams{RequestedSchema: &mcp.ElicitSchema{}}, mcp.ErrInvalidElicitation, "mcp: invalid elicitation/create params: message is required"},
		{"form without schema", &mcp.ElicitParams{Message: "m"}, mcp.ErrInvalidElicitation, "mcp: invalid elicitation/create params: form mode needs a requestedSchema"},
		{"form with url", &mcp.ElicitParams{Message: "m", RequestedSchema: &mcp.ElicitSchema{}, URL: "https://a.example"}, mcp.ErrInvalidElicitation, "mcp: invalid elicitation/create params: elicitationId and url belong to URL mode"},
		{"nested schema", &mcp.ElicitParams{Message: "m", RequestedSchema: &mcp.ElicitSchema{Properties: []mcp.ElicitProperty{{Name: "addr", Schema: &mcp.PrimitiveSchema{Type: "object"}}}}},
			mcp.ErrInvalidElicitation, `mcp: invalid elicitation schema: property "addr": nested objects are not allowed: a form is flat`},
		{"url with schema", &mcp.ElicitParams{Mode: "url", Message: "m", ElicitationID: "e", URL: "https://a.example", RequestedSchema: &mcp.ElicitSchema{}}, mcp.ErrInvalidElicitation, "mcp: invalid elicitation/create params: requestedSchema belongs to form mode"},
		{"url without id", &mcp.ElicitParams{Mode: "url", Message: "m", URL: "https://a.example"}, mcp.ErrInvalidElicitation, "mcp: invalid elicitation/create params: URL mode needs an elicitationId"},
		{"url not absolute", &mcp.ElicitParams{Mode: "url", Message: "m", ElicitationID: "e", URL: "/connect"}, mcp.ErrInvalidElicitation, `mcp: invalid elicitation/create params: URL mode needs an absolute url, not "/connect"`},
		{"unknown mode", &mcp.ElicitParams{Mode: "voice", Message: "m"}, mcp.ErrInvalidElicitation, `mcp: invalid elicitation/create params: mode "voice" is not form or url`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errc := make(chan error, 1)
			s := askServer(t, nil, func(ctx context.Context, req *mcp.Request) (string, error) {
				_, err := req.Elicit(ctx, tc.params)
				errc <- err
				return "", err
			})
			c := askRaw(t, s, `{"elicitation":{"form":{},"url":{}}}`)
			frame := askRawTool(c)
			err := <-errc
			if !errors.Is(err, tc.is) || err.Error() != tc.want {
				t.Fatalf("Elicit =\n\t%v\nwant\n\t%s", err, tc.want)
			}
			askWantToolError(t, frame, "3", tc.want)
		})
	}
}

// TestElicitServerChecksAnswer: the server checks what the client answers:
// an unknown action is an error; an accepted form's content must match the
// schema; content with decline, cancel or URL mode is dropped.
func TestElicitServerChecksAnswer(t *testing.T) {
	schema := &mcp.ElicitSchema{
		Properties: []mcp.ElicitProperty{
			{Name: "n", Schema: &mcp.PrimitiveSchema{Type: "integer", Maximum: askPtr(10.0)}},
			{Name: "s", Schema: &mcp.PrimitiveSchema{Type: "string"}},
		},
		Required: []string{"n"},
	}
	for _, tc := range []struct {
		name, mode, result, want string
	}{
		{"accepted", "form", `{"action":"accept","content":{"n":3,"s":"x"}}`, `ok {"action":"accept","content":{"n":3,"s":"x"}}`},
		{"required missing", "form", `{"action":"accept","content":{"s":"x"}}`, `mcp: elicitation/create: the client's content: mcp: elicitation content does not match the requested schema: required "n" is missing`},
		{"no content at all", "form", `{"action":"accept"}`, `mcp: elicitation/create: the client's content: mcp: elicitation content does not match the requested schema: required "n" is missing`},
		{"above the maximum", "form", `{"action":"accept","content":{"n":11}}`, `mcp: elicitation/create: the client's content: mcp: elicitation content does not match the requested schema: n: 11 is greater than the maximum 10`},
		{"not an integer", "form", `{"action":"accept","content":{"n":1.5}}`, `mcp: elicitation/create: the client's content: mcp: elicitation content does not match the requested schema: n: want an integer, got 1.5`},
		{"unknown member", "form", `{"action":"accept","content":{"n":1,"x":true}}`, `mcp: elicitation/create: the client's content: mcp: elicitation content does not match the requested schema: "x" is not a property of the requested schema`},
		{"content not an object", "form", `{"action":"accept","content":[1]}`, `mcp: elicitation/create: the client's content: mcp: elicitation content does not match the requested schema: content must be a JSON object`},
		{"unknown action", "form", `{"action":"maybe"}`, `mcp: elicitation/create: the client answered action "maybe", not accept, decline or cancel`},
		{"decline with content", "form", `{"action":"decline","content":{"s":"x"}}`, `ok {"action":"decline"}`},
		{"url accept with content", "url", `{"action":"accept","content":{"s":"x"}}`, `ok {"action":"accept"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			params := &mcp.ElicitParams{Message: "m", RequestedSchema: schema}
			if tc.mode == "url" {
				params = &mcp.ElicitParams{Mode: "url", Message: "m", ElicitationID: "e", URL: "https://a.example/x"}
			}
			s := askServer(t, nil, func(ctx context.Context, req *mcp.Request) (string, error) {
				res, err := req.Elicit(ctx, params)
				if err != nil {
					return err.Error(), nil
				}
				return "ok " + string(askJSON(t, res)), nil
			})
			c := askRaw(t, s, `{"elicitation":{"form":{},"url":{}}}`)
			c.request("tools/call", `{"name":"ask"}`)
			req := askRequest(t, c.read(), "elicitation/create")
			c.send(`{"jsonrpc":"2.0","id":` + req.ID.String() + `,"result":` + tc.result + `}`)
			frame := c.read()
			var resp struct {
				Result mcp.CallToolResult `json:"result"`
			}
			if err := json.Unmarshal(frame, &resp); err != nil || len(resp.Result.Content) != 1 {
				t.Fatalf("tool answer %s", frame)
			}
			if got := resp.Result.Content[0].(*mcp.TextContent).Text; !strings.HasPrefix(got, tc.want) {
				t.Errorf("tool got\n\t%s\nwant\n\t%s", got, tc.want)
			}
		})
	}
}

// TestElicitClientChecks: the client answers -32601 without any
// elicitation handler, -32602 for a mode it has no handler for, an
// unknown mode or missing members, and -32603 (sending nothing of it)
// when its handler accepts with content that does not match the schema.
func TestElicitClientChecks(t *testing.T) {
	accept := func(content string) func(context.Context, *mcp.ClientSession, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		return func(context.Context, *mcp.ClientSession, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: json.RawMessage(content)}, nil
		}
	}
	form := `{"message":"m","requestedSchema":{"type":"object","properties":{"n":{"type":"integer"},"c":{"type":"string","enum":["a","b"]}},"required":["n"]}}`
	url := `{"mode":"url","message":"m","elicitationId":"e1","url":"https://example.com/x"}`
	for _, tc := range []struct {
		name   string
		opts   *mcp.ClientOptions
		params string
		want   string
	}{
		{"no handler at all", &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}}, form,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found","data":"elicitation/create"}}`},
		{"form without a form handler", &mcp.ClientOptions{URLElicitationHandler: accept("")}, form,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params","data":"this client does not support form-mode elicitation"}}`},
		{"url without a url handler", &mcp.ClientOptions{ElicitationHandler: accept(`{"n":1}`)}, url,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params","data":"this client does not support URL-mode elicitation"}}`},
		{"unknown mode", &mcp.ClientOptions{ElicitationHandler: accept(`{"n":1}`)}, `{"mode":"voice","message":"m"}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params","data":"unknown elicitation mode voice"}}`},
		{"form without schema", &mcp.ClientOptions{ElicitationHandler: accept(`{"n":1}`)}, `{"message":"m"}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params","data":"form-mode elicitation requires requestedSchema"}}`},
		{"url without id", &mcp.ClientOptions{URLElicitationHandler: accept("")}, `{"mode":"url","message":"m","url":"https://example.com"}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params","data":"URL-mode elicitation requires elicitationId and url"}}`},
		{"schema of another type", &mcp.ClientOptions{ElicitationHandler: accept(`{"n":1}`)}, `{"message":"m","requestedSchema":{"type":"string"}}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params","data":"invalid params: requestedSchema.type must be \"object\""}}`},
		{"no params", &mcp.ClientOptions{ElicitationHandler: accept(`{"n":1}`)}, ``,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params","data":"missing params: elicitation/create requires message"}}`},
		{"content missing a required field", &mcp.ClientOptions{ElicitationHandler: accept(`{"c":"a"}`)}, form,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"Internal error: the client's answer does not match the requested schema"}}`},
		{"content outside the enum", &mcp.ClientOptions{ElicitationHandler: accept(`{"n":1,"c":"z"}`)}, form,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"Internal error: the client's answer does not match the requested schema"}}`},
		{"unknown action", &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ClientSession, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "ok"}, nil
		}}, form, `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"Internal error"}}`},
		{"nil result", &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ClientSession, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return nil, nil
		}}, form, `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"Internal error"}}`},
		{"valid content", &mcp.ClientOptions{ElicitationHandler: accept(`{"n":2,"c":"b"}`)}, form,
			`{"jsonrpc":"2.0","id":7,"result":{"action":"accept","content":{"n":2,"c":"b"}}}`},
		{"accept without content is {}", &mcp.ClientOptions{ElicitationHandler: accept(``)}, `{"message":"m","requestedSchema":{"type":"object","properties":{}}}`,
			`{"jsonrpc":"2.0","id":7,"result":{"action":"accept","content":{}}}`},
		{"url accept sends no content", &mcp.ClientOptions{URLElicitationHandler: accept(`{"n":2}`)}, url,
			`{"jsonrpc":"2.0","id":7,"result":{"action":"accept"}}`},
		{"defaults applied", &mcp.ClientOptions{ElicitationApplyDefaults: true, ElicitationHandler: accept(`{"n":1}`)},
			`{"message":"m","requestedSchema":{"type":"object","properties":{"n":{"type":"integer","default":5},"name":{"type":"string","default":"John Doe"},"ok":{"type":"boolean","default":true},"tags":{"type":"array","items":{"type":"string","enum":["a"]},"default":["a"]},"x":{"type":"number"}}}}`,
			`{"jsonrpc":"2.0","id":7,"result":{"action":"accept","content":{"n":1,"name":"John Doe","ok":true,"tags":["a"]}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := askPeer(t, tc.opts)
			if got := string(askPeerCall(p, "7", "elicitation/create", tc.params)); got != tc.want {
				t.Errorf("client answered\n\t%s\nwant\n\t%s", got, tc.want)
			}
		})
	}
}

// TestElicitURLAndCompletion: a URL-mode elicitation reaches the URL
// handler; once accepted, notifications/elicitation/complete for its id
// reaches ElicitationCompleteHandler once. Unknown and repeated ids are
// ignored.
func TestElicitURLAndCompletion(t *testing.T) {
	completed := make(chan string, 10)
	got := make(chan *mcp.ElicitParams, 1)
	var server *mcp.ServerSession
	s := askServer(t, nil, func(ctx context.Context, req *mcp.Request) (string, error) {
		server = req.Session
		res, err := req.Elicit(ctx, &mcp.ElicitParams{
			Mode: mcp.ElicitationModeURL, Message: "Connect your account.",
			ElicitationID: "550e8400", URL: "https://mcp.example.com/connect?elicitationId=550e8400",
		})
		if err != nil {
			return "", err
		}
		return res.Action, nil
	})
	p := connectClient(t, s, &mcp.ClientOptions{
		URLElicitationHandler: func(_ context.Context, _ *mcp.ClientSession, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			got <- params
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept}, nil
		},
		ElicitationCompleteHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ElicitationCompleteParams) {
			completed <- p.ElicitationID
		},
	})
	if text, isErr := askCall(t, p.cs); isErr || text != "accept" {
		t.Fatalf("tool = %q (isError %v)", text, isErr)
	}
	params := recvWithin(t, got, "the URL handler")
	jsonEqual(t, "URL params", params, `{"mode":"url","message":"Connect your account.","elicitationId":"550e8400","url":"https://mcp.example.com/connect?elicitationId=550e8400"}`)
	ctx := context.Background()
	for _, id := range []string{"unknown", "550e8400", "550e8400"} {
		if err := server.NotifyElicitationComplete(ctx, id); err != nil {
			t.Fatalf("NotifyElicitationComplete(%s): %v", id, err)
		}
	}
	// A ping after the notifications: the read loop has handled them all
	// once it is answered.
	if err := server.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if ids := drain(completed); !reflect.DeepEqual(ids, []string{"550e8400"}) {
		t.Errorf("completions seen %v, want [550e8400] once", ids)
	}
}

// TestNotifyElicitationCompleteNeedsURLCapability: without elicitation.url
// the notification is not sent.
func TestNotifyElicitationCompleteNeedsURLCapability(t *testing.T) {
	errc := make(chan error, 1)
	s := askServer(t, nil, func(ctx context.Context, req *mcp.Request) (string, error) {
		err := req.Session.NotifyElicitationComplete(ctx, "e1")
		errc <- err
		return "", err
	})
	c := askRaw(t, s, `{"elicitation":{}}`)
	frame := askRawTool(c)
	if err := <-errc; !errors.Is(err, mcp.ErrCapabilityNotDeclared) || err.Error() != "mcp: notifications/elicitation/complete not sent: the client did not declare the elicitation.url capability" {
		t.Fatalf("NotifyElicitationComplete = %v", err)
	}
	askWantToolError(t, frame, "3", "mcp: notifications/elicitation/complete not sent: the client did not declare the elicitation.url capability")
}

// TestURLElicitationRequired: a tool answers -32042 with the elicitations
// in data; the client reads them with URLElicitationRequired, which also
// lets their completion through to ElicitationCompleteHandler.
func TestURLElicitationRequired(t *testing.T) {
	completed := make(chan string, 10)
	var server *mcp.ServerSession
	s := askServer(t, nil, func(ctx context.Context, req *mcp.Request) (string, error) {
		server = req.Session
		return "", mcp.URLElicitationRequiredError(&mcp.ElicitParams{
			Message: "Authorization is required.", ElicitationID: "e-42", URL: "https://mcp.example.com/connect?elicitationId=e-42",
		})
	})
	p := connectClient(t, s, &mcp.ClientOptions{
		URLElicitationHandler: func(context.Context, *mcp.ClientSession, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
		ElicitationCompleteHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ElicitationCompleteParams) {
			completed <- p.ElicitationID
		},
	})
	_, err := p.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask"})
	wantRPCError(t, err, jsonrpc.CodeURLElicitationRequired, "This request requires more information.",
		`{"elicitations":[{"mode":"url","message":"Authorization is required.","elicitationId":"e-42","url":"https://mcp.example.com/connect?elicitationId=e-42"}]}`)
	ctx := context.Background()
	// Before the client looks at the error, the id is unknown.
	if err := server.NotifyElicitationComplete(ctx, "e-42"); err != nil {
		t.Fatal(err)
	}
	if err := server.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if ids := drain(completed); len(ids) != 0 {
		t.Fatalf("completion passed on before the client knew the id: %v", ids)
	}
	els, ok := p.cs.URLElicitationRequired(err)
	if !ok || len(els) != 1 || els[0].ElicitationID != "e-42" || els[0].URL != "https://mcp.example.com/connect?elicitationId=e-42" {
		t.Fatalf("URLElicitationRequired = %+v, %v", els, ok)
	}
	if err := server.NotifyElicitationComplete(ctx, "e-42"); err != nil {
		t.Fatal(err)
	}
	if err := server.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if ids := drain(completed); !reflect.DeepEqual(ids, []string{"e-42"}) {
		t.Errorf("completions %v, want [e-42]", ids)
	}
	if _, ok := mcp.URLElicitations(errors.New("other")); ok {
		t.Errorf("URLElicitations accepted a plain error")
	}
	if _, ok := mcp.URLElicitations(jsonrpc.InvalidParamsError(nil)); ok {
		t.Errorf("URLElicitations accepted -32602")
	}
}

// TestURLElicitationRequiredErrorMisuse: only valid URL-mode elicitations
// make the -32042 error.
func TestURLElicitationRequiredErrorMisuse(t *testing.T) {
	for _, tc := range []struct {
		name string
		els  []*mcp.ElicitParams
		want string
	}{
		{"none", nil, "mcp: invalid elicitation/create params: URLElicitationRequired needs at least one elicitation"},
		{"nil", []*mcp.ElicitParams{nil}, "mcp: invalid elicitation/create params: elicitation 0 is nil"},
		{"form", []*mcp.ElicitParams{{Mode: "form", Message: "m", RequestedSchema: &mcp.ElicitSchema{}}}, "mcp: invalid elicitation/create params: elicitation 0: URLElicitationRequired allows URL mode only"},
		{"no id", []*mcp.ElicitParams{{Message: "m", URL: "https://a.example"}}, "elicitation 0: mcp: invalid elicitation/create params: URL mode needs an elicitationId"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := mcp.URLElicitationRequiredError(tc.els...)
			var rpcErr *jsonrpc.Error
			if errors.As(err, &rpcErr) || !errors.Is(err, mcp.ErrInvalidElicitation) || err.Error() != tc.want {
				t.Errorf("URLElicitationRequiredError = %v, want %q", err, tc.want)
			}
		})
	}
}
