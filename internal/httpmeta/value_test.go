package httpmeta

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// The spec's encoding table, then the edge cases SEP-2243 lists.
var encodeCases = []struct {
	in, want string
}{
	{"us-west1", "us-west1"},
	{"Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="},
	{" padded ", "=?base64?IHBhZGRlZCA=?="},
	{"line1\nline2", "=?base64?bGluZTEKbGluZTI=?="},
	{"=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="},
	{" us-west1", "=?base64?IHVzLXdlc3Qx?="},
	{"us-west1 ", "=?base64?dXMtd2VzdDEg?="},
	{" us-west1 ", "=?base64?IHVzLXdlc3QxIA==?="},
	{"us west 1", "us west 1"},
	{"日本語", "=?base64?5pel5pys6Kqe?="},
	{"line1\r\nline2", "=?base64?bGluZTENCmxpbmUy?="},
	{"\tindented", "=?base64?CWluZGVudGVk?="},
	{"", ""},
	// Beyond the tables.
	{"get_weather", "get_weather"},
	{"file:///projects/myapp/config.json", "file:///projects/myapp/config.json"},
	{"a\tb", "=?base64?YQli?="},               // an inner tab is a control character
	{"trailing\t", "=?base64?dHJhaWxpbmcJ?="}, // trailing tab
	{"del\x7f", "=?base64?ZGVsfw==?="},
	{"=?base64?=", "=?base64?PT9iYXNlNjQ/PQ==?="},  // prefix and suffix overlap
	{"=?base64??=", "=?base64?PT9iYXNlNjQ/Pz0=?="}, // empty payload look-alike
	{"=?base64?SGVsbG8=", "=?base64?SGVsbG8="},     // no suffix: not the sentinel
	{"SGVsbG8=?=", "SGVsbG8=?="},                   // no prefix
	{"=?BASE64?SGVsbG8=?=", "=?BASE64?SGVsbG8=?="}, // markers are case-sensitive
	{"'quoted' \"text\" ~!@#$%^&*()", "'quoted' \"text\" ~!@#$%^&*()"},
}

func TestEncodeValue(t *testing.T) {
	for _, c := range encodeCases {
		if got := EncodeValue(c.in); got != c.want {
			t.Errorf("EncodeValue(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestEncodeValueLong(t *testing.T) {
	// Longer than EncodeValue's stack buffer.
	s := strings.Repeat("é", 300)
	enc := EncodeValue(s)
	if want := "=?base64?" + strings.Repeat("w6nDqcOp", 100) + "?="; enc != want {
		t.Fatalf("EncodeValue(300×é) = %q, want %q", enc, want)
	}
	dec, err := DecodeValue(enc)
	if err != nil || dec != s {
		t.Fatalf("DecodeValue(EncodeValue(300×é)) = %q, %v; want the input, nil", dec, err)
	}
}

func TestDecodeValue(t *testing.T) {
	cases := []struct {
		in      string
		want    string
		wantErr error
	}{
		// What the conformance suite sends (http-custom-header-server-validation).
		{"=?base64?SGVsbG8=?=", "Hello", nil},
		{"SGVsbG8=", "SGVsbG8=", nil},
		{"=?base64?SGVsbG8=", "=?base64?SGVsbG8=", nil},
		{"=?base64?SGVsbG8?=", "", ErrInvalidBase64},
		{"=?base64?SGVs!!!bG8=?=", "", ErrInvalidBase64},
		// SEP-2243's server table.
		{"=?BASE64?SGVsbG8=?=", "=?BASE64?SGVsbG8=?=", nil},
		// Optional white space (http-header-validation sends "  <tool>  ").
		{"  test_simple_text  ", "test_simple_text", nil},
		{"\t us-west1 \t", "us-west1", nil},
		{"  =?base64?SGVsbG8=?=  ", "Hello", nil},
		{"us west 1", "us west 1", nil},
		{"a\tb", "a\tb", nil}, // HTAB is allowed inside a field value
		{"", "", nil},
		{"   ", "", nil},
		// Invalid characters in the raw value.
		{"line1\nline2", "", ErrInvalidCharacter},
		{"line1\r\nline2", "", ErrInvalidCharacter},
		{"nul\x00", "", ErrInvalidCharacter},
		{"del\x7f", "", ErrInvalidCharacter},
		{"café", "", ErrInvalidCharacter},
		{"\xff", "", ErrInvalidCharacter},
		// The sentinel, strictly.
		{"=?base64??=", "", nil},
		{"=?base64?=", "", ErrInvalidBase64},
		{"=?base64?SGVsbG9=?=", "", ErrInvalidBase64},   // non-zero trailing bits
		{"=?base64?SGVs bG8=?=", "", ErrInvalidBase64},  // space inside the payload
		{"=?base64?SGVsbG8=?=?=", "", ErrInvalidBase64}, // "?=" inside the payload
		{"=?base64?SGVsbG8-?=", "", ErrInvalidBase64},   // URL alphabet
		{"=?base64?/w==?=", "", ErrInvalidBase64},       // 0xFF is not UTF-8
		{"=?base64?IA==?=", " ", nil},
	}
	for _, c := range cases {
		got, err := DecodeValue(c.in)
		if got != c.want || err != c.wantErr {
			t.Errorf("DecodeValue(%q) = %q, %v; want %q, %v", c.in, got, err, c.want, c.wantErr)
		}
	}
	// Every encoded example decodes back.
	for _, c := range encodeCases {
		got, err := DecodeValue(c.want)
		if got != c.in || err != nil {
			t.Errorf("DecodeValue(%q) = %q, %v; want %q, nil", c.want, got, err, c.in)
		}
	}
}

func TestDecodeValueErrorText(t *testing.T) {
	_, err := DecodeValue("=?base64?SGVsbG8?=")
	if want := "value is not valid Base64 inside the =?base64?...?= sentinel"; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
	_, err = DecodeValue("a\nb")
	if want := "value contains invalid characters (only visible ASCII, space and tab are allowed)"; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
}

func TestEncodeValueAllocs(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { _ = EncodeValue("us-west1") }); n != 0 {
		t.Errorf("EncodeValue(plain) allocates %v times, want 0", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = EncodeValue("Hello, 世界") }); n != 1 {
		t.Errorf("EncodeValue(non-ASCII) allocates %v times, want 1", n)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = DecodeValue("  us-west1 ") }); n != 0 {
		t.Errorf("DecodeValue(plain) allocates %v times, want 0", n)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = DecodeValue("=?base64?SGVsbG8sIOS4lueVjA==?=") }); n != 1 {
		t.Errorf("DecodeValue(base64) allocates %v times, want 1", n)
	}
}

// FuzzEncodeDecode checks that any valid UTF-8 string survives
// EncodeValue then DecodeValue, and that what EncodeValue produces is a
// header value net/http will carry unchanged: visible ASCII and inner
// spaces only.
func FuzzEncodeDecode(f *testing.F) {
	for _, c := range encodeCases {
		f.Add(c.in)
	}
	f.Add("=?base64?SGVsbG8=?=")
	f.Add("\x00\r\n\t ")
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			t.Skip()
		}
		enc := EncodeValue(s)
		for i := 0; i < len(enc); i++ {
			if c := enc[i]; c < 0x20 || c > 0x7e {
				t.Fatalf("EncodeValue(%q) = %q holds byte %#x", s, enc, c)
			}
		}
		if enc != strings.Trim(enc, " \t") {
			t.Fatalf("EncodeValue(%q) = %q has leading or trailing white space", s, enc)
		}
		dec, err := DecodeValue(enc)
		if err != nil || dec != s {
			t.Fatalf("DecodeValue(EncodeValue(%q) = %q) = %q, %v", s, enc, dec, err)
		}
	})
}

// FuzzDecodeValue checks that DecodeValue never panics and that whatever
// it accepts re-encodes to a value that decodes the same.
func FuzzDecodeValue(f *testing.F) {
	f.Add("=?base64?SGVsbG8=?=")
	f.Add("=?base64?SGVsbG8?=")
	f.Add("  x  ")
	f.Fuzz(func(t *testing.T, h string) {
		s, err := DecodeValue(h)
		if err != nil {
			if !errors.Is(err, ErrInvalidBase64) && !errors.Is(err, ErrInvalidCharacter) {
				t.Fatalf("DecodeValue(%q) error %v is neither sentinel", h, err)
			}
			return
		}
		if again, err := DecodeValue(EncodeValue(s)); err != nil || again != s {
			t.Fatalf("round trip of %q: %q, %v", s, again, err)
		}
	})
}
