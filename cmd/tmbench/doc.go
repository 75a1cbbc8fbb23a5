// Command tmbench measures tempmail against the performance targets of
// docs/BENCHMARKS.md (make bench, make bench-quick). Every scenario starts a fresh
// `tempmail serve` as a child process on loopback, loads it from this
// process, and compares it with a reference measured in the same run by the
// same load generator: a go-smtp server that discards every message, and a
// minimal net/http handler returning a fixed JSON document (both started by
// this binary as child processes: tmbench discard-smtp, tmbench fixed-http).
// It ends with one summary table: target, measured, ratio, pass or miss.
//
// Its files, by the scenarios they hold:
//
//   - main.go: the run, the summary, the child processes (the service and
//     the references) and the load generator's SMTP senders;
//   - mailpath.go: mail on its way: SMTP ingest, delivery end to end, event
//     streams and webhooks, and the steady-load latency they share;
//   - reads.go: reads of the API, and of an inbox with many messages;
//   - rebuild.go: rebuilding the views from a generated log;
//   - footprint.go: memory under load, disk per message, idle cost and
//     held requests;
//   - wakes.go: what open event streams cost the service when mail arrives;
//   - durability.go: ingest with every acknowledgment flushed, against
//     Mailpit and the floors;
//   - floor.go: the floors (tmbench floor-smtp): go-smtp storing each
//     message in an embedded JetStream and doing nothing else, what any
//     design on those two spends at least; floorviews.go: the same with
//     a view entry written for each message before its 250, what an
//     event-sourced one spends at least;
//   - dns.go: the resolver the SPF, DKIM and DMARC checks ask.
package main
