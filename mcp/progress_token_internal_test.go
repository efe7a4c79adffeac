package mcp

import "testing"

// progressTokenOf finds the token wherever _meta has it, among other keys,
// and nothing where there is none or the params are not an object.
func TestProgressTokenOf(t *testing.T) {
	for _, c := range []struct {
		params string
		want   string
		ok     bool
	}{
		{`{"_meta":{"traceparent":"00-x","progressToken":"p1"},"name":"a"}`, `"p1"`, true},
		{`{"name":"a","_meta":{"progressToken":7}}`, `7`, true},
		{`{"_meta":{"progressToken":1},"_meta":{"progressToken":2}}`, `2`, true},
		{`{"_meta":{"traceparent":"00-x"}}`, ``, false},
		{`{"_meta":{"progressToken":true}}`, ``, false},
		{`{"_meta":[1]}`, ``, false},
		{`{"_meta":null}`, ``, false},
		{`{"name":"a"}`, ``, false},
		{`[1]`, ``, false},
		{`{"_meta":{"progressToken":"p"`, ``, false},
		{``, ``, false},
	} {
		tok, ok := progressTokenOf([]byte(c.params))
		if ok != c.ok {
			t.Errorf("%s: ok %v, want %v", c.params, ok, c.ok)
			continue
		}
		if ok {
			b, _ := tok.MarshalJSON()
			if string(b) != c.want {
				t.Errorf("%s: token %s, want %s", c.params, b, c.want)
			}
		}
	}
}
