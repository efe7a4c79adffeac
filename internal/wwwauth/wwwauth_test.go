package wwwauth

import (
	"errors"
	"reflect"
	"testing"
)

func TestParseChallenges(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []Challenge
	}{
		{[]string{`Bearer`}, []Challenge{{Scheme: "Bearer"}}},
		{[]string{`Bearer realm="mcp", error="insufficient_scope", scope="a b"`},
			[]Challenge{{Scheme: "Bearer", Params: map[string]string{"realm": "mcp", "error": "insufficient_scope", "scope": "a b"}}}},
		{[]string{`Bearer Error=invalid_token ,  Scope = "x\"y"`},
			[]Challenge{{Scheme: "Bearer", Params: map[string]string{"error": "invalid_token", "scope": `x"y`}}}},
		{[]string{`Basic realm="a, b", DPoP algs="ES256", Bearer resource_metadata="https://h/.well-known/oauth-protected-resource"`},
			[]Challenge{
				{Scheme: "Basic", Params: map[string]string{"realm": "a, b"}},
				{Scheme: "DPoP", Params: map[string]string{"algs": "ES256"}},
				{Scheme: "Bearer", Params: map[string]string{"resource_metadata": "https://h/.well-known/oauth-protected-resource"}},
			}},
		{[]string{`Negotiate abc+/==`, `Bearer`}, []Challenge{{Scheme: "Negotiate", Token68: "abc+/=="}, {Scheme: "Bearer"}}},
		{[]string{`, Bearer ,`}, []Challenge{{Scheme: "Bearer"}}},
		{[]string{``}, nil},
	} {
		got, err := ParseChallenges(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseChallenges(%q) = %#v, %v; want %#v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{
		`Bearer scope="unterminated`,
		`Bearer scope="a", scope="b"`,
		`Bearer a=b=c`,
		`Bearer scope="a" junk`,
		`="x"`,
		`Bearer, scope="orphan"x`,
		"Bearer realm=\"a\x01\"",
		`Bearer scope="a\`,
	} {
		if got, err := ParseChallenges([]string{in}); !errors.Is(err, ErrMalformedChallenge) || got != nil {
			t.Errorf("ParseChallenges(%q) = %#v, %v; want ErrMalformedChallenge", in, got, err)
		}
	}
}
