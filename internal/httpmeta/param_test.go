package httpmeta

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

func TestHeaderParams(t *testing.T) {
	cases := []struct {
		name   string
		schema string
		want   []Param
	}{
		{"spec example", `{
			"type": "object",
			"properties": {
				"region": {"type": "string", "description": "The region", "x-mcp-header": "Region"},
				"query": {"type": "string"}
			},
			"required": ["region", "query"]
		}`, []Param{{Name: "Region", Header: "Mcp-Param-Region", Key: "Mcp-Param-Region", Path: []string{"region"}, Type: "string"}}},
		{"all three types in schema order", `{"type":"object","properties":{
			"tenant_id": {"type":"string","x-mcp-header":"TenantId"},
			"count": {"type":"integer","x-mcp-header":"count"},
			"dry_run": {"type":"boolean","x-mcp-header":"Dry-Run"}
		}}`, []Param{
			{Name: "TenantId", Header: "Mcp-Param-TenantId", Key: "Mcp-Param-Tenantid", Path: []string{"tenant_id"}, Type: "string"},
			{Name: "count", Header: "Mcp-Param-count", Key: "Mcp-Param-Count", Path: []string{"count"}, Type: "integer"},
			{Name: "Dry-Run", Header: "Mcp-Param-Dry-Run", Key: "Mcp-Param-Dry-Run", Path: []string{"dry_run"}, Type: "boolean"},
		}},
		{"nested through properties", `{"type":"object","properties":{
			"target": {"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}
		}}`, []Param{{Name: "Region", Header: "Mcp-Param-Region", Key: "Mcp-Param-Region", Path: []string{"target", "region"}, Type: "string"}}},
		{"nullable type", `{"properties":{"p":{"type":["integer","null"],"x-mcp-header":"P"}}}`,
			[]Param{{Name: "P", Header: "Mcp-Param-P", Key: "Mcp-Param-P", Path: []string{"p"}, Type: "integer"}}},
		{"every tchar", "{\"properties\":{\"p\":{\"type\":\"string\",\"x-mcp-header\":\"!#$%&'*+-.^_`|~09azAZ\"}}}",
			[]Param{{Name: "!#$%&'*+-.^_`|~09azAZ", Header: "Mcp-Param-!#$%&'*+-.^_`|~09azAZ", Key: "Mcp-Param-!#$%&'*+-.^_`|~09azaz", Path: []string{"p"}, Type: "string"}}},
		{"standard header name is allowed", `{"properties":{"m":{"type":"string","x-mcp-header":"Method"}}}`,
			[]Param{{Name: "Method", Header: "Mcp-Param-Method", Key: "Mcp-Param-Method", Path: []string{"m"}, Type: "string"}}},
		{"escaped keys", `{"properties":{"r\u00e9gion":{"type":"string","x-mcp-\u0068eader":"Region"}}}`,
			[]Param{{Name: "Region", Header: "Mcp-Param-Region", Key: "Mcp-Param-Region", Path: []string{"région"}, Type: "string"}}},
		{"a property named x-mcp-header", `{"properties":{"x-mcp-header":{"type":"string"}}}`, nil},
		{"annotation-like data in default, const, enum, examples", `{"properties":{"o":{"type":"object",
			"default":{"x-mcp-header":"A"},"const":{"x-mcp-header":"B"},"enum":[{"x-mcp-header":"C"}],
			"examples":[{"x-mcp-header":"D"}]}}}`, nil},
		{"unknown keyword values are not schemas", `{"x-vendor":{"x-mcp-header":"A"},"properties":{}}`, nil},
		{"no annotations", `{"type":"object","properties":{"q":{"type":"string"}}}`, nil},
		{"empty object", `{}`, nil},
		{"no schema", ``, nil},
		{"boolean schema", `true`, nil},
		{"boolean property schemas", `{"properties":{"a":true,"b":false}}`, nil},
	}
	for _, c := range cases {
		got, err := HeaderParams(json.RawMessage(c.schema))
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: HeaderParams = %+v, %v; want %+v, nil", c.name, got, err, c.want)
		}
	}
}

func TestHeaderParamsInvalid(t *testing.T) {
	cases := []struct {
		name    string
		schema  string
		wantErr string
	}{
		{"empty", `{"properties":{"p":{"type":"string","x-mcp-header":""}}}`,
			`invalid x-mcp-header annotation: x-mcp-header must not be empty at #/properties/p`},
		{"space", `{"properties":{"p":{"type":"string","x-mcp-header":"My Region"}}}`,
			`invalid x-mcp-header annotation: x-mcp-header "My Region" is not an HTTP token: character ' ' is not allowed at #/properties/p`},
		{"colon", `{"properties":{"p":{"type":"string","x-mcp-header":"Region:Primary"}}}`,
			`invalid x-mcp-header annotation: x-mcp-header "Region:Primary" is not an HTTP token: character ':' is not allowed at #/properties/p`},
		{"non-ASCII", `{"properties":{"p":{"type":"string","x-mcp-header":"Région"}}}`,
			`invalid x-mcp-header annotation: x-mcp-header "Région" is not an HTTP token: character 'é' is not allowed at #/properties/p`},
		{"tab", `{"properties":{"p":{"type":"string","x-mcp-header":"Region\t1"}}}`,
			`invalid x-mcp-header annotation: x-mcp-header "Region\t1" is not an HTTP token: character '\t' is not allowed at #/properties/p`},
		{"CRLF", `{"properties":{"p":{"type":"string","x-mcp-header":"A\r\nX-Evil: 1"}}}`,
			`invalid x-mcp-header annotation: x-mcp-header "A\r\nX-Evil: 1" is not an HTTP token: character '\r' is not allowed at #/properties/p`},
		{"slash", `{"properties":{"p":{"type":"string","x-mcp-header":"a/b"}}}`,
			`invalid x-mcp-header annotation: x-mcp-header "a/b" is not an HTTP token: character '/' is not allowed at #/properties/p`},
		{"not a string", `{"properties":{"p":{"type":"string","x-mcp-header":1}}}`,
			`invalid x-mcp-header annotation: x-mcp-header must be a string, not number at #/properties/p`},
		{"duplicate same case", `{"properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"Region"}}}`,
			`invalid x-mcp-header annotation: x-mcp-header "Region" duplicates "Region" on property "a" (header names are case-insensitive) at #/properties/b`},
		{"duplicate other case", `{"properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"integer","x-mcp-header":"REGION"}}}`,
			`invalid x-mcp-header annotation: x-mcp-header "REGION" duplicates "Region" on property "a" (header names are case-insensitive) at #/properties/b`},
		{"duplicate across nesting", `{"properties":{"a":{"type":"string","x-mcp-header":"Region"},"t":{"properties":{"r":{"type":"string","x-mcp-header":"region"}}}}}`,
			`invalid x-mcp-header annotation: x-mcp-header "region" duplicates "Region" on property "a" (header names are case-insensitive) at #/properties/t/properties/r`},
		{"number type", `{"properties":{"p":{"type":"number","x-mcp-header":"P"}}}`,
			`invalid x-mcp-header annotation: x-mcp-header "P": the property's type is "number"; only string, integer and boolean are allowed at #/properties/p`},
		{"object type", `{"properties":{"p":{"type":"object","x-mcp-header":"P"}}}`,
			`invalid x-mcp-header annotation: x-mcp-header "P": the property's type is "object"; only string, integer and boolean are allowed at #/properties/p`},
		{"array type", `{"properties":{"p":{"type":"array","x-mcp-header":"P"}}}`,
			`invalid x-mcp-header annotation: x-mcp-header "P": the property's type is "array"; only string, integer and boolean are allowed at #/properties/p`},
		{"null type", `{"properties":{"p":{"type":"null","x-mcp-header":"P"}}}`,
			`invalid x-mcp-header annotation: x-mcp-header "P": the property's type is "null"; only string, integer and boolean are allowed at #/properties/p`},
		{"no type", `{"properties":{"p":{"enum":["a","b"],"x-mcp-header":"P"}}}`,
			`invalid x-mcp-header annotation: x-mcp-header "P": the property declares no type; it must be string, integer or boolean at #/properties/p`},
		{"two primitive types", `{"properties":{"p":{"type":["string","integer"],"x-mcp-header":"P"}}}`,
			`invalid x-mcp-header annotation: x-mcp-header "P": the property's type is ["string","integer"]; only one of string, integer and boolean (optionally with null) is allowed at #/properties/p`},
		{"only null in array", `{"properties":{"p":{"type":["null"],"x-mcp-header":"P"}}}`,
			`invalid x-mcp-header annotation: x-mcp-header "P": the property's type is ["null"]; only string, integer and boolean are allowed at #/properties/p`},
		{"on the root", `{"type":"string","x-mcp-header":"Root"}`,
			`invalid x-mcp-header annotation: x-mcp-header is not allowed on the schema root at #`},
		{"under items", `{"properties":{"list":{"type":"array","items":{"type":"string","x-mcp-header":"Item"}}}}`,
			`invalid x-mcp-header annotation: x-mcp-header is only allowed on properties reached through "properties" keys alone at #/properties/list/items`},
		{"under items then properties", `{"properties":{"list":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string","x-mcp-header":"Id"}}}}}}`,
			`invalid x-mcp-header annotation: x-mcp-header is only allowed on properties reached through "properties" keys alone at #/properties/list/items/properties/id`},
		{"under prefixItems", `{"properties":{"t":{"prefixItems":[{"type":"string"},{"type":"string","x-mcp-header":"T"}]}}}`,
			`invalid x-mcp-header annotation: x-mcp-header is only allowed on properties reached through "properties" keys alone at #/properties/t/prefixItems/1`},
		{"under oneOf", `{"oneOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`,
			`invalid x-mcp-header annotation: x-mcp-header is only allowed on properties reached through "properties" keys alone at #/oneOf/0/properties/a`},
		{"under anyOf in a property", `{"properties":{"a":{"anyOf":[{"type":"string","x-mcp-header":"A"}]}}}`,
			`invalid x-mcp-header annotation: x-mcp-header is only allowed on properties reached through "properties" keys alone at #/properties/a/anyOf/0`},
		{"under allOf", `{"allOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`,
			`invalid x-mcp-header annotation: x-mcp-header is only allowed on properties reached through "properties" keys alone at #/allOf/0/properties/a`},
		{"under not", `{"not":{"type":"string","x-mcp-header":"A"}}`,
			`invalid x-mcp-header annotation: x-mcp-header is only allowed on properties reached through "properties" keys alone at #/not`},
		{"under then", `{"if":{"properties":{"a":{"const":1}}},"then":{"properties":{"b":{"type":"string","x-mcp-header":"B"}}}}`,
			`invalid x-mcp-header annotation: x-mcp-header is only allowed on properties reached through "properties" keys alone at #/then/properties/b`},
		{"under $defs", `{"$defs":{"R":{"type":"string","x-mcp-header":"R"}},"properties":{"r":{"$ref":"#/$defs/R"}}}`,
			`invalid x-mcp-header annotation: x-mcp-header is only allowed on properties reached through "properties" keys alone at #/$defs/R`},
		{"under additionalProperties", `{"additionalProperties":{"type":"string","x-mcp-header":"A"}}`,
			`invalid x-mcp-header annotation: x-mcp-header is only allowed on properties reached through "properties" keys alone at #/additionalProperties`},
		{"under patternProperties", `{"patternProperties":{"^a/b~":{"type":"string","x-mcp-header":"A"}}}`,
			`invalid x-mcp-header annotation: x-mcp-header is only allowed on properties reached through "properties" keys alone at #/patternProperties/^a~1b~0`},
		{"not JSON", `{"properties":`,
			`invalid x-mcp-header annotation: inputSchema is not valid JSON`},
	}
	for _, c := range cases {
		got, err := HeaderParams(json.RawMessage(c.schema))
		if err == nil || err.Error() != c.wantErr || got != nil {
			t.Errorf("%s: HeaderParams = %+v, %v; want nil, %q", c.name, got, err, c.wantErr)
			continue
		}
		if !errors.Is(err, ErrInvalidAnnotation) {
			t.Errorf("%s: errors.Is(err, ErrInvalidAnnotation) = false", c.name)
		}
	}
}
