package httpmeta

import "strconv"

// maxSafeInteger is 2^53-1, the largest integer an IEEE 754 double holds
// exactly. x-mcp-header integers MUST lie within ±maxSafeInteger.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#schema-extension
const maxSafeInteger = 1<<53 - 1

// maxExponent bounds the exponents decimal accepts, so that the arithmetic
// on them cannot overflow; larger numbers are not comparable.
const maxExponent = 1 << 30

// decimal is a JSON number read exactly, without rounding: its value is
// ±0.d₁d₂…dₙ × 10^exp, where d₁…dₙ are the significant digits (from the
// first to the last non-zero digit of the mantissa, which is the integer
// digits followed by the fraction digits). Zero has n = 0. Two decimals are
// numerically equal exactly when their canonical forms are equal, so 42,
// 42.0, 4.2e1 and 420e-1 compare equal without float64's rounding.
type decimal struct {
	neg        bool
	intDigits  string // digits before the point
	fracDigits string // digits after the point
	first      int    // index of the first significant digit in intDigits+fracDigits
	n          int    // number of significant digits; 0 for zero
	exp        int64
}

// digit returns digit k of intDigits+fracDigits.
func (d *decimal) digit(k int) byte {
	if k < len(d.intDigits) {
		return d.intDigits[k]
	}
	return d.fracDigits[k-len(d.intDigits)]
}

// parseDecimal reads s as a JSON number (RFC 8259 grammar: no leading '+',
// no leading zeros, no bare '.', no hexadecimal). A header value that is
// not written this way is not a number: "042" could be read as octal by an
// intermediary, so it never equals 42.
func parseDecimal(s string) (decimal, bool) {
	var d decimal
	i := 0
	if i < len(s) && s[i] == '-' {
		d.neg = true
		i++
	}
	start := i
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return d, false
	}
	d.intDigits = s[start:i]
	if i < len(s) && s[i] == '.' {
		i++
		start = i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return d, false
		}
		d.fracDigits = s[start:i]
	}
	var e int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		start = i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			if e = e*10 + int64(s[i]-'0'); e > maxExponent {
				return d, false
			}
			i++
		}
		if i == start {
			return d, false
		}
		if eneg {
			e = -e
		}
	}
	if i != len(s) {
		return d, false
	}
	total := len(d.intDigits) + len(d.fracDigits)
	if total > maxExponent {
		return d, false
	}
	first, last := -1, -1
	for k := 0; k < total; k++ {
		if d.digit(k) != '0' {
			if first < 0 {
				first = k
			}
			last = k
		}
	}
	if first < 0 {
		d.neg = false // -0 is 0
		return d, true
	}
	d.first, d.n = first, last-first+1
	d.exp = int64(len(d.intDigits)-first) + e
	return d, true
}

// equal reports whether d and o are the same number.
func (d *decimal) equal(o *decimal) bool {
	if d.n != o.n || d.neg != o.neg || d.exp != o.exp {
		return false
	}
	for k := 0; k < d.n; k++ {
		if d.digit(d.first+k) != o.digit(o.first+k) {
			return false
		}
	}
	return true
}

// isInteger reports whether d has no fractional part.
func (d *decimal) isInteger() bool { return d.n == 0 || d.exp >= int64(d.n) }

// safeInt returns d as an int64 when it is an integer within
// ±maxSafeInteger.
func (d *decimal) safeInt() (int64, bool) {
	if !d.isInteger() {
		return 0, false
	}
	if d.n == 0 {
		return 0, true
	}
	if d.exp > 16 { // at least 10^16 > maxSafeInteger
		return 0, false
	}
	var v int64
	for k := 0; k < d.n; k++ {
		v = v*10 + int64(d.digit(d.first+k)-'0')
	}
	for k := int64(d.n); k < d.exp; k++ {
		v *= 10
	}
	if v > maxSafeInteger {
		return 0, false
	}
	if d.neg {
		v = -v
	}
	return v, true
}

// formatInt returns v in decimal, as the spec's type conversion writes
// integers ("42", "-7").
func formatInt(v int64) string { return strconv.FormatInt(v, 10) }
