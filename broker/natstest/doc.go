// Package natstest starts real NATS JetStream servers for tests: embedded
// in-process (StartNode), or listening on loopback as an external NATS would
// (StartServer), with a Proxy to put between a client and a server that
// drops answers, cuts connections or sends protocol errors on demand. It has
// no fakes: every package's tests run against the same server the service
// embeds, with its store in a temporary directory.
package natstest
