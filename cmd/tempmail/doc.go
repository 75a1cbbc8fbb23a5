// Command tempmail is the tempmail service and its clients: `serve` runs
// the service, `rebuild` replays the event log into fresh views,
// `healthcheck` asks a running service whether it is ready, `inbox`,
// `wait` and `mcp` are clients of a running service, `tenant` and `key`
// the admin's, `version` prints the build.
//
// This package reads the command line and hands over: package service
// assembles and runs the service, package client talks to one.
package main
