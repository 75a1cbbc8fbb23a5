// Package natstest starts real NATS JetStream servers for tests: embedded
// in-process (StartNode), or listening on loopback as an external NATS would
// (StartServer). Two proxies misbehave on demand: a Proxy, between a client
// and a server, drops or scripts answers, cuts connections or sends
// protocol errors; a RouteProxy, in front of a cluster node's routes, cuts
// the node off from the others (their traffic dropped or refused). It has
// no fakes: every package's tests run against the same server the service
// embeds, with its store in a temporary directory.
package natstest
