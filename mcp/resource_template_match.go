package mcp

// This file matches resource URIs against RFC 6570 URI templates in time
// linear in the URI's length. The template is compiled once into a Go
// regular expression (RE2: linear time, no backtracking) with one group per
// expression; the text each group captured is then split into the values
// of the expression's variables. docs/design.md says why
// this replaced yosida95/uritemplate's Template.Match.

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// templateOp is the operator of a template expression
// (RFC 6570, section 3.2.1, table of Appendix A).
type templateOp struct {
	first    string // prefix of a non-empty expansion
	sep      string // between the values of the expression
	named    bool   // name=value pairs (; ? &)
	reserved bool   // reserved characters pass unencoded (+ #)
}

var templateOps = map[byte]templateOp{
	'+': {first: "", sep: ",", reserved: true},
	'#': {first: "#", sep: ",", reserved: true},
	'.': {first: ".", sep: "."},
	'/': {first: "/", sep: "/"},
	';': {first: ";", sep: ";", named: true},
	'?': {first: "?", sep: "&", named: true},
	'&': {first: "&", sep: "&", named: true},
}

// templateVar is one varspec of an expression.
type templateVar struct {
	name    string
	explode bool
}

// templateExpr is one {expression} of a template.
type templateExpr struct {
	op   templateOp
	vars []templateVar
}

// uriMatcher matches URIs against one template.
type uriMatcher struct {
	re    *regexp.Regexp
	exprs []templateExpr // in the order of re's groups
}

// Character classes of RFC 3986 (section 2), as regexp class bodies.
const (
	reUnreservedChars = `A-Za-z0-9\-._~`
	reReservedChars   = `:/?#\[\]@!$&'()*+,;=`
)

// newURIMatcher compiles a template that uritemplate.New accepted.
func newURIMatcher(tmpl string) (*uriMatcher, error) {
	m := &uriMatcher{}
	var b strings.Builder
	b.WriteString(`^`)
	for len(tmpl) > 0 {
		open := strings.IndexByte(tmpl, '{')
		if open < 0 {
			b.WriteString(regexp.QuoteMeta(tmpl))
			break
		}
		b.WriteString(regexp.QuoteMeta(tmpl[:open]))
		end := strings.IndexByte(tmpl[open:], '}')
		if end < 0 {
			return nil, fmt.Errorf("mcp: unclosed expression in URI template")
		}
		body := tmpl[open+1 : open+end]
		tmpl = tmpl[open+end+1:]
		var e templateExpr
		if len(body) > 0 {
			if op, ok := templateOps[body[0]]; ok {
				e.op = op
				body = body[1:]
			} else {
				e.op = templateOp{sep: ","}
			}
		}
		for spec := range strings.SplitSeq(body, ",") {
			v := templateVar{name: spec}
			if n, ok := strings.CutSuffix(spec, "*"); ok {
				v = templateVar{name: n, explode: true}
			} else if i := strings.IndexByte(spec, ':'); i >= 0 {
				v.name = spec[:i] // a prefix modifier limits expansion only
			}
			if v.name == "" {
				return nil, fmt.Errorf("mcp: empty variable name in URI template")
			}
			e.vars = append(e.vars, v)
		}
		m.exprs = append(m.exprs, e)
		// The characters an expansion may hold: allowed ones, the
		// separators and, for named expressions, '='; a value's own
		// structure is checked when it is split.
		class := reUnreservedChars + `,` + regexp.QuoteMeta(e.op.sep)
		if e.op.reserved {
			class = reUnreservedChars + reReservedChars
		}
		if e.op.named {
			class += `=`
		}
		fmt.Fprintf(&b, `(?:%s((?:[%s]|%%[0-9A-Fa-f]{2})*))?`, regexp.QuoteMeta(e.op.first), class)
	}
	b.WriteString(`$`)
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("mcp: compiling URI template: %w", err)
	}
	m.re = re
	return m, nil
}

// match reports whether uri is an expansion of the template, and the values
// of its variables: a list (a list value, or an exploded variable's
// elements) is joined with commas. A variable the URI leaves out is absent.
func (m *uriMatcher) match(uri string) (map[string]string, bool) {
	idx := m.re.FindStringSubmatchIndex(uri)
	if idx == nil {
		return nil, false
	}
	vars := make(map[string]string)
	for i, e := range m.exprs {
		lo, hi := idx[2*i+2], idx[2*i+3]
		if lo < 0 {
			continue // the expression expanded to nothing
		}
		if !e.split(uri[lo:hi], vars) {
			return nil, false
		}
	}
	return vars, true
}

// split assigns the expansion s of e (after its first character) to e's
// variables in vars. It reports false if s cannot be an expansion of e.
func (e *templateExpr) split(s string, vars map[string]string) bool {
	if !e.op.named {
		if len(e.vars) == 1 {
			v := e.vars[0]
			if v.explode && e.op.sep != "," {
				return setVar(vars, v.name, strings.ReplaceAll(s, e.op.sep, ","))
			}
			if e.op.sep == "/" && strings.Contains(s, "/") {
				return false // one path segment, not several
			}
			return setVar(vars, v.name, s)
		}
		// Several variables: their values, in order, between separators.
		// A value may not be a list here: its commas would be ambiguous.
		parts := strings.Split(s, e.op.sep)
		if len(parts) > len(e.vars) {
			return false
		}
		for i, p := range parts {
			if !setVar(vars, e.vars[i].name, p) {
				return false
			}
		}
		return true
	}
	// name=value pairs, in the template's order; an exploded variable may
	// repeat, its values forming a list.
	next := 0
	for pair := range strings.SplitSeq(s, e.op.sep) {
		name, value, _ := strings.Cut(pair, "=")
		i := next
		for i < len(e.vars) && e.vars[i].name != name {
			i++
		}
		if i == len(e.vars) {
			return false
		}
		if prev, ok := vars[name]; ok && e.vars[i].explode {
			dec, err := url.PathUnescape(value)
			if err != nil {
				return false
			}
			vars[name] = prev + "," + dec
		} else if !setVar(vars, name, value) {
			return false
		}
		next = i
		if !e.vars[i].explode {
			next++
		}
	}
	return true
}

// setVar sets vars[name] to the percent-decoded value.
func setVar(vars map[string]string, name, value string) bool {
	dec, err := url.PathUnescape(value)
	if err != nil {
		return false
	}
	vars[name] = dec
	return true
}
