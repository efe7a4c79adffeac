// Package eraprobe tells, with one byte search, whether a message's params
// could name the 2026-07-28 era's protocol version in _meta
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/index#meta),
// so that session-era requests, which never do, skip the decoding that
// would tell for sure.
package eraprobe

import "bytes"

// ProtocolVersionKey is the _meta key that marks a 2026-07-28 request,
// quoted as it appears in JSON.
const ProtocolVersionKey = `"io.modelcontextprotocol/protocolVersion"`

// slash is the offset of the key's one '/', a byte rare in JSON: the
// search looks for it with bytes.IndexByte (vectorised) and compares the
// whole key around it, where bytes.Index would stop at every '"'.
const slash = len(`"io.modelcontextprotocol`)

// MentionsProtocolVersion reports whether params contains
// ProtocolVersionKey, spelled without escapes. It is
// bytes.Contains(params, ProtocolVersionKey), only faster on JSON.
func MentionsProtocolVersion(params []byte) bool {
	for off := slash; off < len(params); {
		i := bytes.IndexByte(params[off:], '/')
		if i < 0 {
			return false
		}
		start := off + i - slash
		if end := start + len(ProtocolVersionKey); end <= len(params) && string(params[start:end]) == ProtocolVersionKey {
			return true
		}
		off += i + 1
	}
	return false
}
