package httpmeta

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"strings"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"testing"
)

func TestEncodeArgument(t *testing.T) {
	cases := []struct {
		raw    string
		want   string
		wantOK bool
	}{
		{`"us-west1"`, "us-west1", true},
		{`"Hello, 世界"`, "=?base64?SGVsbG8sIOS4lueVjA==?=", true},
		{`"Hello, \u4e16\u754c"`, "=?base64?SGVsbG8sIOS4lueVjA==?=", true},
		{`" padded "`, "=?base64?IHBhZGRlZCA=?=", true},
		{`"line1\nline2"`, "=?base64?bGluZTEKbGluZTI=?=", true},
		{`"=?base64?literal?="`, "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=", true},
		{`""`, "", true},
		{` "x" `, "x", true},
		{`42`, "42", true},
		{`-7`, "-7", true},
		{`0`, "0", true},
		{`-0`, "0", true},
		{`42.0`, "42", true},
		{`4.2e1`, "42", true},
		{`420E-1`, "42", true},
		{`1e2`, "100", true},
		{`0.0e5`, "0", true},
		{`9007199254740991`, "9007199254740991", true},
		{`-9007199254740991`, "-9007199254740991", true},
		{`9007199254740992`, "", false}, // 2^53: outside the safe range
		{`-9007199254740992`, "", false},
		{`1e16`, "", false},
		{`1e999999999999`, "", false},
		{`3.14159`, "", false},
		{`0.5`, "", false},
		{`true`, "true", true},
		{`false`, "false", true},
		{`null`, "", false},
		{``, "", false},
		{`{"a":1}`, "", false},
		{`[1]`, "", false},
		{`tru`, "", false},
		{`042`, "", false},
		{`"abc`, "", false},
		{`1 2`, "", false},
	}
	for _, c := range cases {
		got, ok := EncodeArgument(json.RawMessage(c.raw))
		if got != c.want || ok != c.wantOK {
			t.Errorf("EncodeArgument(%s) = %q, %v; want %q, %v", c.raw, got, ok, c.want, c.wantOK)
		}
	}
}

func TestMatchArgument(t *testing.T) {
	const field = "Mcp-Param-Region"
	cases := []struct {
		name    string
		header  string
		present bool
		raw     string
		wantErr string // "" for nil
	}{
		// The spec's table of scenarios.
		{"value provided", "us-west1", true, `"us-west1"`, ""},
		{"null, no header", "", false, `null`, ""},
		{"absent, no header", "", false, ``, ""},
		{"header missing, value in body", "", false, `"us-west1"`,
			"Header mismatch: Mcp-Param-Region header is missing but the request body has a value for it"},
		{"header without body value", "us-west1", true, ``,
			"Header mismatch: Mcp-Param-Region header is present but the request body has no value for it"},
		{"header with null body value", "us-west1", true, `null`,
			"Header mismatch: Mcp-Param-Region header is present but the request body has no value for it"},
		// What the conformance suite sends with body "Hello".
		{"suite base64", "=?base64?SGVsbG8=?=", true, `"Hello"`, ""},
		{"suite literal base64 text", "SGVsbG8=", true, `"SGVsbG8="`, ""},
		{"suite missing suffix", "=?base64?SGVsbG8=", true, `"=?base64?SGVsbG8="`, ""},
		{"suite bad padding", "=?base64?SGVsbG8?=", true, `"Hello"`,
			"Header mismatch: Mcp-Param-Region header value is not valid Base64 inside the =?base64?...?= sentinel"},
		{"suite bad characters", "=?base64?SGVs!!!bG8=?=", true, `"Hello"`,
			"Header mismatch: Mcp-Param-Region header value is not valid Base64 inside the =?base64?...?= sentinel"},
		{"suite missing header", "", false, `"Hello"`,
			"Header mismatch: Mcp-Param-Region header is missing but the request body has a value for it"},
		// Strings.
		{"trimmed", "  us-west1\t", true, `"us-west1"`, ""},
		{"case-sensitive", "US-WEST1", true, `"us-west1"`,
			"Header mismatch: Mcp-Param-Region header value 'US-WEST1' does not match body value 'us-west1'"},
		{"different", "foo", true, `"bar"`,
			"Header mismatch: Mcp-Param-Region header value 'foo' does not match body value 'bar'"},
		{"escaped body", "=?base64?SGVsbG8sIOS4lueVjA==?=", true, `"Hello, \u4e16\u754c"`, ""},
		{"non-ASCII mismatch", "=?base64?SGVsbG8sIOS4lueVjA==?=", true, `"Hello"`,
			"Header mismatch: Mcp-Param-Region header value \"Hello, 世界\" does not match body value 'Hello'"},
		{"raw newline", "a\nb", true, `"a\nb"`,
			"Header mismatch: Mcp-Param-Region header value contains invalid characters (only visible ASCII, space and tab are allowed)"},
		{"raw UTF-8", "café", true, `"café"`,
			"Header mismatch: Mcp-Param-Region header value contains invalid characters (only visible ASCII, space and tab are allowed)"},
		{"literal body of a string that needs encoding", " padded ", true, `" padded "`,
			"Header mismatch: Mcp-Param-Region header value 'padded' does not match body value ' padded '"},
		{"empty string", "", true, `""`, ""},
		{"string body, number header", "42", true, `"42"`, ""},
		{"string body, other number spelling", "42.0", true, `"42"`,
			"Header mismatch: Mcp-Param-Region header value '42.0' does not match body value '42'"},
		// Integers compare numerically.
		{"integer", "42", true, `42`, ""},
		{"integer with fraction zero in header", "42.0", true, `42`, ""},
		{"integer with fraction zero in body", "42", true, `42.0`, ""},
		{"integer exponent", "4.2e1", true, `42`, ""},
		{"negative", "-7", true, `-7`, ""},
		{"negative zero", "-0", true, `0`, ""},
		{"base64 integer", "=?base64?NDI=?=", true, `42`, ""},
		{"leading zero", "042", true, `42`,
			"Header mismatch: Mcp-Param-Region header value '042' does not match body value 42"},
		{"plus sign", "+42", true, `42`,
			"Header mismatch: Mcp-Param-Region header value '+42' does not match body value 42"},
		{"hex", "0x2a", true, `42`,
			"Header mismatch: Mcp-Param-Region header value '0x2a' does not match body value 42"},
		{"different integer", "43", true, `42`,
			"Header mismatch: Mcp-Param-Region header value '43' does not match body value 42"},
		{"fraction in header", "42.5", true, `42`,
			"Header mismatch: Mcp-Param-Region header value '42.5' does not match body value 42"},
		{"not a number", "forty-two", true, `42`,
			"Header mismatch: Mcp-Param-Region header value 'forty-two' does not match body value 42"},
		{"safe maximum", "9007199254740991", true, `9007199254740991`, ""},
		{"beyond safe range", "9007199254740993", true, `9007199254740993`,
			"Header mismatch: Mcp-Param-Region header cannot carry body value 9007199254740993: integers must lie within -(2^53-1) and 2^53-1"},
		{"non-integer body", "3.5", true, `3.5`,
			"Header mismatch: Mcp-Param-Region header cannot carry body value 3.5: only strings, integers and booleans are mirrored into headers"},
		{"non-integer body, no header", "", false, `3.5`,
			"Header mismatch: Mcp-Param-Region header cannot carry body value 3.5: only strings, integers and booleans are mirrored into headers"},
		{"integer missing header", "", false, `42`,
			"Header mismatch: Mcp-Param-Region header is missing but the request body has a value for it"},
		// Booleans.
		{"true", "true", true, `true`, ""},
		{"false", "false", true, `false`, ""},
		{"boolean case", "True", true, `true`,
			"Header mismatch: Mcp-Param-Region header value 'True' does not match body value true"},
		{"boolean as number", "1", true, `true`,
			"Header mismatch: Mcp-Param-Region header value '1' does not match body value true"},
		{"boolean different", "false", true, `true`,
			"Header mismatch: Mcp-Param-Region header value 'false' does not match body value true"},
		{"invalid body JSON", "t", true, `t`,
			"Header mismatch: Mcp-Param-Region header cannot be checked: the body value is not valid JSON"},
		{"unterminated body string", "ab", true, `"abc`,
			"Header mismatch: Mcp-Param-Region header cannot be checked: the body value is not valid JSON"},
		// Values a header cannot carry.
		{"object", "x", true, `{"a":1}`,
			"Header mismatch: Mcp-Param-Region header cannot carry the body value: it is an object; only strings, integers and booleans are mirrored into headers"},
		{"array", "", false, `[1]`,
			"Header mismatch: Mcp-Param-Region header cannot carry the body value: it is an array; only strings, integers and booleans are mirrored into headers"},
	}
	for _, c := range cases {
		err := MatchArgument(field, c.header, c.present, json.RawMessage(c.raw))
		got := ""
		if err != nil {
			got = err.Error()
			var he *Error
			if !errors.As(err, &he) || he.Field != field {
				t.Errorf("%s: error %T %v is not an *Error for %s", c.name, err, err, field)
			}
		}
		if got != c.wantErr {
			t.Errorf("%s: MatchArgument(%q, %v, %s) = %q, want %q", c.name, c.header, c.present, c.raw, got, c.wantErr)
		}
	}
}

func TestMatchArgumentErrorsIs(t *testing.T) {
	err := MatchArgument("Mcp-Param-X", "=?base64?SGVsbG8?=", true, json.RawMessage(`"Hello"`))
	if !errors.Is(err, ErrInvalidBase64) {
		t.Errorf("errors.Is(%v, ErrInvalidBase64) = false", err)
	}
	err = MatchArgument("Mcp-Param-X", "a\x01", true, json.RawMessage(`"Hello"`))
	if !errors.Is(err, ErrInvalidCharacter) {
		t.Errorf("errors.Is(%v, ErrInvalidCharacter) = false", err)
	}
}

// TestEncodeThenMatch checks that the client and server halves agree: what
// EncodeArgument sends, MatchArgument accepts, and what it omits,
// MatchArgument accepts omitted only for null or absent values.
func TestEncodeThenMatch(t *testing.T) {
	raws := []string{`"us-west1"`, `"Hello, 世界"`, `" padded "`, `"=?base64?x?="`, `""`, `"\u0000"`,
		`42`, `-7`, `0`, `-0`, `42.0`, `4.2e1`, `9007199254740991`, `9007199254740992`, `3.5`,
		`true`, `false`, `null`, ``, `{}`, `[]`}
	for _, raw := range raws {
		v, ok := EncodeArgument(json.RawMessage(raw))
		err := MatchArgument("Mcp-Param-X", v, ok, json.RawMessage(raw))
		omitted := raw == `null` || raw == ``
		if (ok || omitted) != (err == nil) {
			t.Errorf("%s: EncodeArgument = %q, %v; MatchArgument = %v", raw, v, ok, err)
		}
	}
}

func TestArgumentAt(t *testing.T) {
	cases := []struct {
		args        string
		path        []string
		want        string
		wantPresent bool
		wantErr     error
	}{
		{`{"region":"us-west1","query":"SELECT 1"}`, []string{"region"}, `"us-west1"`, true, nil},
		{` { "region" : 42 } `, []string{"region"}, `42`, true, nil},
		{`{"query":"SELECT 1"}`, []string{"region"}, ``, false, nil},
		{`{"region":null}`, []string{"region"}, ``, false, nil},
		{`{}`, []string{"region"}, ``, false, nil},
		{``, []string{"region"}, ``, false, nil},
		{`null`, []string{"region"}, ``, false, nil},
		{`"region"`, []string{"region"}, ``, false, nil},
		{`{"region":"a","region":"b"}`, []string{"region"}, `"b"`, true, nil}, // last wins, as in encoding/json
		{`{"\u0072egion":"a"}`, []string{"region"}, `"a"`, true, nil},
		{`{"target":{"region":"eu"}}`, []string{"target", "region"}, `"eu"`, true, nil},
		{`{"target":{"zone":"eu"}}`, []string{"target", "region"}, ``, false, nil},
		{`{"target":"eu"}`, []string{"target", "region"}, ``, false, nil},
		{`{"target":null}`, []string{"target", "region"}, ``, false, nil},
		{`{"region":"a","Region":"b"}`, []string{"region"}, ``, false, ErrAmbiguousArgument},
		{`{"REGION":"b"}`, []string{"region"}, ``, false, ErrAmbiguousArgument},
		{`{"\u0052egion":"b"}`, []string{"region"}, ``, false, ErrAmbiguousArgument},
		{`{"\u212aey":"b"}`, []string{"key"}, ``, false, ErrAmbiguousArgument}, // KELVIN SIGN folds to k
		{`{"target":{"Region":"eu"}}`, []string{"target", "region"}, ``, false, ErrAmbiguousArgument},
		{`{"regions":"a"}`, []string{"region"}, ``, false, nil},
		{`{"region":`, []string{"region"}, ``, false, jsonscan.ErrSyntax},
	}
	for _, c := range cases {
		raw, present, err := ArgumentAt(json.RawMessage(c.args), c.path)
		if string(raw) != c.want || present != c.wantPresent || !errors.Is(err, c.wantErr) || (err == nil) != (c.wantErr == nil) {
			t.Errorf("ArgumentAt(%s, %q) = %s, %v, %v; want %s, %v, %v", c.args, c.path, raw, present, err, c.want, c.wantPresent, c.wantErr)
		}
	}
}

func TestMatchArgumentAllocs(t *testing.T) {
	args := json.RawMessage(`{"region":"us-west1","count":42,"flag":true,"query":"SELECT 1"}`)
	for _, c := range []struct {
		path   string
		header string
	}{{"region", "us-west1"}, {"count", "42"}, {"flag", "true"}} {
		path := []string{c.path}
		n := testing.AllocsPerRun(100, func() {
			raw, present, err := ArgumentAt(args, path)
			if err != nil || !present {
				t.Fatal(err)
			}
			if err := MatchArgument("Mcp-Param-X", c.header, true, raw); err != nil {
				t.Fatal(err)
			}
		})
		if n != 0 {
			t.Errorf("ArgumentAt+MatchArgument(%s) allocates %v times, want 0", c.path, n)
		}
	}
}

// TestDecimalEqual compares parseDecimal's equality with math/big on
// numbers written in many ways.
func TestDecimalEqual(t *testing.T) {
	nums := []string{"0", "-0", "0.0", "0e5", "1", "1.0", "10", "1e1", "10e-1", "100e-2", "0.1e1",
		"42", "42.0", "4.2e1", "420e-1", "0.42E+2", "-42", "-4.2e1", "43", "4.3e1", "0.001", "1e-3",
		"10.000", "1E1", "123456789012345678901234567890", "1.23456789012345678901234567890e29",
		"1.5", "15e-1", "0.15e1", "2"}
	for _, a := range nums {
		for _, b := range nums {
			da, ok1 := parseDecimal(a)
			db, ok2 := parseDecimal(b)
			if !ok1 || !ok2 {
				t.Fatalf("parseDecimal(%q)/(%q) failed", a, b)
			}
			ra, _ := new(big.Rat).SetString(a)
			rb, _ := new(big.Rat).SetString(b)
			if got, want := da.equal(&db), ra.Cmp(rb) == 0; got != want {
				t.Errorf("equal(%s, %s) = %v, want %v", a, b, got, want)
			}
		}
	}
	for _, bad := range []string{"", "-", "+1", "01", "1.", ".5", "1e", "1e+", "0x1", "1 ", " 1", "NaN", "Infinity", "1e2147483648"} {
		if _, ok := parseDecimal(bad); ok {
			t.Errorf("parseDecimal(%q) succeeded", bad)
		}
	}
}

func TestErrorMessagesClipLongValues(t *testing.T) {
	long := strings.Repeat("9", 200)
	err := MatchArgument("Mcp-Param-N", "1", true, json.RawMessage(long))
	want := "Header mismatch: Mcp-Param-N header cannot carry body value " + strings.Repeat("9", 128) +
		"...: integers must lie within -(2^53-1) and 2^53-1"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
	err = MatchArgument("Mcp-Param-S", strings.Repeat("a", 200), true, json.RawMessage(`"b"`))
	want = "Header mismatch: Mcp-Param-S header value '" + strings.Repeat("a", 128) + "...' does not match body value 'b'"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
	// A cut never splits a rune, and control characters stay visible.
	err = MatchArgument("Mcp-Param-S", "=?base64?"+base64.StdEncoding.EncodeToString([]byte("a"+strings.Repeat("é", 100)))+"?=", true, json.RawMessage(`"b\n"`))
	want = "Header mismatch: Mcp-Param-S header value \"a" + strings.Repeat("é", 63) + "\"... does not match body value \"b\\n\""
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
}

// FuzzEncodeMatch checks on arbitrary JSON values that the server accepts
// exactly what the client sends, and that neither half panics.
func FuzzEncodeMatch(f *testing.F) {
	for _, s := range []string{`"us-west1"`, `"Hello, 世界"`, `42`, `4.2e1`, `-0`, `3.5`, `true`, `null`, `{}`, `[1]`, `"\u0000"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if !jsonscan.Valid([]byte(raw)) {
			return
		}
		v, ok := EncodeArgument(json.RawMessage(raw))
		err := MatchArgument("Mcp-Param-X", v, ok, json.RawMessage(raw))
		kind := jsonscan.KindOf(trimJSON([]byte(raw)))
		if (ok || kind == jsonscan.Null) != (err == nil) {
			t.Fatalf("%s: EncodeArgument = %q, %v; MatchArgument = %v", raw, v, ok, err)
		}
	})
}
