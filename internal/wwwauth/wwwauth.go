// Package wwwauth parses WWW-Authenticate headers (RFC 9110 section
// 11.6.1). It is shared by the client transport of package mcphttp, which
// must recognise a refusal for want of authorization, and by package auth,
// which acts on the challenge; it re-exports these names as auth.Challenge,
// auth.ParseChallenges, auth.FindChallenge and auth.ErrMalformedChallenge.
package wwwauth

import (
	"errors"
	"fmt"
	"strings"
)

// Challenge is one challenge of a WWW-Authenticate header
// (RFC 9110 section 11.6.1): an authentication scheme and either
// parameters or a token68.
type Challenge struct {
	// Scheme is the authentication scheme as sent, such as "Bearer" or
	// "DPoP"; compare it with strings.EqualFold.
	Scheme string
	// Params holds the auth-params by lower-cased name, with quoted
	// strings unquoted.
	Params map[string]string
	// Token68 is the token68 form of the credentials, when the challenge
	// used it instead of parameters.
	Token68 string
}

// Param returns the named parameter (case-insensitive name), or "".
func (c Challenge) Param(name string) string {
	return c.Params[strings.ToLower(name)]
}

// ErrMalformedChallenge is returned (wrapped) by ParseChallenges for a
// header that does not follow the grammar of RFC 9110 section 11.6.1. Its
// text keeps the "auth:" prefix it had when the parser lived in package
// auth, which re-exports it.
var ErrMalformedChallenge = errors.New("auth: malformed WWW-Authenticate header")

// ParseChallenges parses the values of one or more WWW-Authenticate
// headers (RFC 9110 section 11.6.1). It is strict: a value that does not
// follow the grammar, an unterminated quoted string, or a parameter
// named twice in one challenge is an error wrapping
// ErrMalformedChallenge, and nothing is returned.
func ParseChallenges(values []string) ([]Challenge, error) {
	var out []Challenge
	for _, v := range values {
		cs, err := parseChallengeList(v)
		if err != nil {
			return nil, fmt.Errorf("%w: %q: %w", ErrMalformedChallenge, v, err)
		}
		out = append(out, cs...)
	}
	return out, nil
}

// FindChallenge returns the first challenge with the given scheme
// (case-insensitive).
func FindChallenge(cs []Challenge, scheme string) (Challenge, bool) {
	for _, c := range cs {
		if strings.EqualFold(c.Scheme, scheme) {
			return c, true
		}
	}
	return Challenge{}, false
}

type challengeLexer struct {
	s string
	i int
}

func isTchar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

func isToken68char(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("-._~+/", c) >= 0
}

func (l *challengeLexer) skipOWS() {
	for l.i < len(l.s) && (l.s[l.i] == ' ' || l.s[l.i] == '\t') {
		l.i++
	}
}

func (l *challengeLexer) token() string {
	start := l.i
	for l.i < len(l.s) && isTchar(l.s[l.i]) {
		l.i++
	}
	return l.s[start:l.i]
}

func (l *challengeLexer) peek() byte {
	if l.i < len(l.s) {
		return l.s[l.i]
	}
	return 0
}

func (l *challengeLexer) atEnd() bool { return l.i >= len(l.s) }

// quoted reads a quoted-string at l.i (which is '"') and returns it
// unquoted.
func (l *challengeLexer) quoted() (string, error) {
	l.i++ // opening quote
	var b strings.Builder
	for l.i < len(l.s) {
		c := l.s[l.i]
		switch {
		case c == '"':
			l.i++
			return b.String(), nil
		case c == '\\':
			if l.i+1 >= len(l.s) {
				return "", errors.New("unterminated quoted-string")
			}
			b.WriteByte(l.s[l.i+1])
			l.i += 2
		case c == '\t' || (c >= 0x20 && c != 0x7f):
			b.WriteByte(c)
			l.i++
		default:
			return "", fmt.Errorf("control character 0x%02x in quoted-string", c)
		}
	}
	return "", errors.New("unterminated quoted-string")
}

// paramAhead reports whether an auth-param (token BWS "=" BWS value, and
// not a token68 ending in "=") starts at l.i.
func (l *challengeLexer) paramAhead() bool {
	save := l.i
	defer func() { l.i = save }()
	if l.token() == "" {
		return false
	}
	l.skipOWS()
	if l.peek() != '=' {
		return false
	}
	l.i++
	l.skipOWS()
	c := l.peek()
	return c == '"' || isTchar(c) && c != '='
}

func parseChallengeList(s string) ([]Challenge, error) {
	l := &challengeLexer{s: s}
	var out []Challenge
	for {
		// Empty list elements are allowed (RFC 9110 section 5.6.1).
		for {
			l.skipOWS()
			if l.peek() != ',' {
				break
			}
			l.i++
		}
		if l.atEnd() {
			break
		}
		scheme := l.token()
		if scheme == "" {
			return nil, fmt.Errorf("expected an auth-scheme at offset %d", l.i)
		}
		c := Challenge{Scheme: scheme}
		hadSpace := l.i < len(l.s) && l.s[l.i] == ' '
		l.skipOWS()
		if l.atEnd() || l.peek() == ',' {
			out = append(out, c)
			continue
		}
		if !hadSpace {
			return nil, fmt.Errorf("unexpected %q after the auth-scheme %q", l.peek(), scheme)
		}
		if !l.paramAhead() {
			// token68
			start := l.i
			for l.i < len(l.s) && isToken68char(l.s[l.i]) {
				l.i++
			}
			if l.i == start {
				return nil, fmt.Errorf("unexpected %q at offset %d", l.peek(), l.i)
			}
			for l.i < len(l.s) && l.s[l.i] == '=' {
				l.i++
			}
			c.Token68 = l.s[start:l.i]
			l.skipOWS()
			if !l.atEnd() && l.peek() != ',' {
				return nil, fmt.Errorf("unexpected %q after a token68", l.peek())
			}
			out = append(out, c)
			continue
		}
		c.Params = map[string]string{}
		for {
			name := strings.ToLower(l.token())
			l.skipOWS()
			l.i++ // '=', checked by paramAhead
			l.skipOWS()
			var value string
			if l.peek() == '"' {
				v, err := l.quoted()
				if err != nil {
					return nil, err
				}
				value = v
			} else {
				value = l.token()
			}
			if _, dup := c.Params[name]; dup {
				return nil, fmt.Errorf("parameter %q repeated in one challenge", name)
			}
			c.Params[name] = value
			l.skipOWS()
			if l.atEnd() {
				break
			}
			if l.peek() != ',' {
				return nil, fmt.Errorf("unexpected %q after the parameter %q", l.peek(), name)
			}
			for l.peek() == ',' {
				l.i++
				l.skipOWS()
			}
			if l.atEnd() || !l.paramAhead() {
				break // the next challenge (or the end)
			}
		}
		out = append(out, c)
	}
	return out, nil
}
