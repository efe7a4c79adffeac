//go:build !race

package mcp

// raceEnabled reports a -race build, whose sync.Pool drops some of what
// is put back.
const raceEnabled = false
