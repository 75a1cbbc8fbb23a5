// Command tmbench measures tempmail against the performance targets of
// docs/BENCHMARKS.md (make bench, make bench-quick). Every scenario starts a fresh
// `tempmail serve` as a child process on loopback, loads it from this
// process, and compares it with a reference measured in the same run by the
// same load generator: a go-smtp server that discards every message, and a
// minimal net/http handler returning a fixed JSON document (both started by
// this binary as child processes: tmbench discard-smtp, tmbench fixed-http).
// It ends with one summary table: target, measured, ratio, pass or miss.
package main
