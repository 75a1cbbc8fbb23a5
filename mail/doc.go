// Package mail is the model of a received message, which every other
// package takes from here: what it says (Message), its attachments, its
// links and its authentication results (Auth). It is a leaf: it imports
// nothing of tempmail's but the root package, so that ingest, events,
// projections, api and webhooks all speak of one Message without
// importing one another.
//
// Where things are: message.go holds the model.
package mail
