// Package eventstest opens the event store for tests, on a node that
// package natstest (tempmail/broker/natstest) starts: what a single node's
// service opens, with its store in a temporary directory.
//
// eventstest.go holds it: OpenStore.
package eventstest
