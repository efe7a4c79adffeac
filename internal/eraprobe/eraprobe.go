// Package eraprobe tells, with a byte search, whether a message's params
// may name the 2026-07-28 era's protocol version in _meta
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/index#meta),
// so that session-era requests, which never do, skip the decoding that
// would tell for sure.
package eraprobe

import "bytes"

// ProtocolVersionKey is the _meta key that marks a 2026-07-28 request,
// quoted as it appears in JSON when written without escapes.
const ProtocolVersionKey = `"io.modelcontextprotocol/protocolVersion"`

// slash is the offset of the key's one '/', a byte rare in JSON: the
// search looks for it with bytes.IndexByte (vectorised) and compares the
// whole key around it, where bytes.Index would stop at every '"'.
const slash = len(`"io.modelcontextprotocol`)

// MentionsProtocolVersion reports whether params may hold
// ProtocolVersionKey: it holds it as written, or it holds an escape that
// could spell one of the key's characters (`\/` or `\u`), as an encoder
// that escapes '/' or every non-ASCII character writes. It never misses a
// params that names the key; a caller decodes to be sure. For params
// without such escapes it is bytes.Contains(params, ProtocolVersionKey).
func MentionsProtocolVersion(params []byte) bool {
	for off := slash; off < len(params); {
		i := bytes.IndexByte(params[off:], '/')
		if i < 0 {
			break
		}
		start := off + i - slash
		if end := start + len(ProtocolVersionKey); end <= len(params) && string(params[start:end]) == ProtocolVersionKey {
			return true
		}
		off += i + 1
	}
	return mayEscapeKey(params)
}

// mayEscapeKey reports whether params holds `\/` or `\u`. Other escapes
// (\n, \", \\, ...) cannot spell a character of the key.
func mayEscapeKey(params []byte) bool {
	for off := 0; off < len(params); {
		i := bytes.IndexByte(params[off:], '\\')
		if i < 0 || off+i+1 >= len(params) {
			return false
		}
		switch params[off+i+1] {
		case '/', 'u':
			return true
		}
		off += i + 2 // past the escaped byte, so that `\\u` is not taken for `\u`
	}
	return false
}
