// Command tempmail is the tempmail service: `serve` runs it, `rebuild`
// replays the event log into fresh views, `version` prints the build.
//
// This package only wires the others together (Service); behaviour lives in
// events, projections, ingest and api.
package main
