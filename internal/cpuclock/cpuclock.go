// Package cpuclock reads the process's CPU time, for benchmarks that
// report CPU per operation (steadier than wall time on a busy machine), on
// every platform mcpkit builds for.
package cpuclock
