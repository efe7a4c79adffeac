package auth

import "github.com/mcpkit/mcpkit/internal/wwwauth"

// The WWW-Authenticate parser lives in internal/wwwauth, so that package
// mcphttp can use it without importing this package (which builds on
// mcphttp). These names re-export it unchanged.

// Challenge is one challenge of a WWW-Authenticate header
// (RFC 9110 section 11.6.1): an authentication scheme (Scheme, compare it
// with strings.EqualFold) and either parameters (Params, by lower-cased
// name, quoted strings unquoted; Param looks one up case-insensitively)
// or a token68 (Token68). It is the type of mcphttp.AuthError.Challenges.
type Challenge = wwwauth.Challenge

// ErrMalformedChallenge is returned (wrapped) by ParseChallenges for a
// header that does not follow the grammar of RFC 9110 section 11.6.1.
var ErrMalformedChallenge = wwwauth.ErrMalformedChallenge

// ParseChallenges parses the values of one or more WWW-Authenticate
// headers (RFC 9110 section 11.6.1). It is strict: a value that does not
// follow the grammar, an unterminated quoted string, or a parameter
// named twice in one challenge is an error wrapping
// ErrMalformedChallenge, and nothing is returned.
func ParseChallenges(values []string) ([]Challenge, error) {
	return wwwauth.ParseChallenges(values)
}

// FindChallenge returns the first challenge with the given scheme
// (case-insensitive).
func FindChallenge(cs []Challenge, scheme string) (Challenge, bool) {
	return wwwauth.FindChallenge(cs, scheme)
}
