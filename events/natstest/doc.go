// Package natstest starts real embedded NATS JetStream servers for tests. It
// has no fakes: every package's tests run against the same server the service
// embeds, with its store in a temporary directory.
package natstest
