// Package rpcindex carries, from package jsonrpc's decoder to package mcp,
// where the members of a request's params object lie, and those of its
// first _meta object: the decoder finds them while it validates the
// message, so that the stateless era's _meta parse
// (https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta)
// reads them without scanning params again.
package rpcindex

import "sync"

// MaxMembers bounds the members an Index notes, of params and of _meta
// each: params with more are not indexed, and are walked as before.
const MaxMembers = 8

// maxLen bounds the params an Index notes (its offsets are uint16).
const maxLen = 1<<16 - 1

// Span is one member: its raw key (without quotes, escapes kept) is
// params[KeyStart:KeyEnd] and its raw value params[ValueStart:ValueEnd].
type Span struct {
	KeyStart, KeyEnd, ValueStart, ValueEnd uint16
}

// Index notes the members of one valid params object, in order, and the
// members of its first member named _meta (escapes decoded), which is an
// object. The zero Index notes nothing.
type Index struct {
	params []byte
	n      uint8
	metaN  uint8
	// meta is the index in members of the first _meta, MaxMembers while
	// none was noted.
	meta    uint8
	members [MaxMembers]Span
	metas   [MaxMembers]Span
}

// Start begins noting a params object of n bytes. It reports false when
// params are too long to note.
func (ix *Index) Start(n int) bool {
	*ix = Index{meta: MaxMembers}
	return n <= maxLen
}

// Member notes a member of params (offsets from its start); meta says it
// is the first _meta. It reports false when params have more members than
// an Index notes.
func (ix *Index) Member(s Span, meta bool) bool {
	if int(ix.n) == MaxMembers {
		return false
	}
	if meta {
		ix.meta = ix.n
	}
	ix.members[ix.n] = s
	ix.n++
	return true
}

// MetaMember notes a member of the first _meta, as Member does.
func (ix *Index) MetaMember(s Span) bool {
	if int(ix.metaN) == MaxMembers {
		return false
	}
	ix.metas[ix.metaN] = s
	ix.metaN++
	return true
}

// Finish ends noting params, the object's raw value, and reports whether
// ix notes a first _meta: an Index without one is of no use.
func (ix *Index) Finish(params []byte) bool {
	ix.params = params
	return ix.meta < MaxMembers
}

// Indexes reports whether ix notes exactly params (the same bytes, not a
// copy), and so still describes them.
func (ix *Index) Indexes(params []byte) bool {
	return ix != nil && len(params) > 0 && len(ix.params) == len(params) && &ix.params[0] == &params[0]
}

// Len returns the number of members of params.
func (ix *Index) Len() int { return int(ix.n) }

// At returns member i of params, and whether it is the first _meta.
func (ix *Index) At(i int) (key, value []byte, meta bool) {
	s := ix.members[i]
	return ix.params[s.KeyStart:s.KeyEnd], ix.params[s.ValueStart:s.ValueEnd], uint8(i) == ix.meta
}

// MetaLen returns the number of members of the first _meta.
func (ix *Index) MetaLen() int { return int(ix.metaN) }

// MetaAt returns member i of the first _meta.
func (ix *Index) MetaAt(i int) (key, value []byte) {
	s := ix.metas[i]
	return ix.params[s.KeyStart:s.KeyEnd], ix.params[s.ValueStart:s.ValueEnd]
}

// Of returns the Index package jsonrpc's decoder made for the params of
// req (a *jsonrpc.Request), or nil when it made none, it was released, or
// the request's params are no longer those it indexed. Package jsonrpc
// sets it.
var Of func(req any) *Index

// Release detaches the Index of req (a *jsonrpc.Request), if any, and
// returns it to the pool: the one reader of an Index calls it once done.
// Package jsonrpc sets it.
var Release func(req any)

// pool holds Indexes for reuse: a request's index is read once, right
// after decoding, so one allocation serves request after request.
var pool = sync.Pool{New: func() any { return new(Index) }}

// Get returns an Index from the pool.
func Get() *Index { return pool.Get().(*Index) }

// Put returns ix to the pool; the caller must not use it again.
func Put(ix *Index) {
	ix.params = nil
	pool.Put(ix)
}
