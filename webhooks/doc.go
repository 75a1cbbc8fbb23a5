// Package webhooks delivers outbound webhooks (docs/webhooks.md "Outbound webhooks"):
// what happened to inboxes and their mail, POSTed to the subscribers' URLs,
// signed per the Standard Webhooks specification.
//
// The event log is the outbox; there is no second write path that could
// disagree with it. The delivery path:
//
//  1. A projection worker, applying an event, asks the views which
//     subscriptions it concerns (projections/webhooks.go) and hands them,
//     a projections.Delivery each, to its projections.Outbox (here,
//     Webhooks.Enqueue) before it applies the event: one job per
//     subscription, published to the WEBHOOKS work-queue stream under a
//     Nats-Msg-Id made of the event's sequence and the subscription, so a
//     worker that crashed and dispatches again adds nothing. Partition
//     workers are pinned to one process at a time, so one process
//     dispatches each event; a rebuild never dispatches.
//  2. Every process pulls jobs from the stream's one durable consumer, so
//     each job is in one process's hands at a time. Jobs wait in a lane of
//     their subscription, which runs at most laneConcurrency attempts at
//     once and holds at most laneMax: a slow receiver fills its own lane,
//     never another's. A job beyond a full lane is put off (scheduled a
//     little later, not counted as an attempt).
//  3. An attempt reads the subscription and, for a new message, what the
//     message says (from the views, at delivery time: nothing a person
//     wrote is copied into the outbox), POSTs it within attemptTimeout,
//     follows no redirect, and records the attempt in the WEBHOOK_LOG
//     stream. 2xx is success. Otherwise the next attempt is published as a
//     message schedule (ADR-51) at the retry schedule's next wait, so a
//     pending retry costs nothing until it is due and survives restarts;
//     after the last, the delivery is given up, logged, and its
//     subscription marked failing until a delivery to it succeeds.
//  4. Only then is the job acknowledged: a process killed mid-attempt
//     leaves it to be delivered again (at once by a single node that
//     restarts, which resets the consumer; after ackWait by another
//     process otherwise). Delivery is at least once; webhook-id is the
//     same for every attempt of a delivery, so receivers can deduplicate.
//
// Targets are checked for addresses that lead back inside (private,
// loopback, link-local, unspecified, the host's own, IPv4 inside IPv6 that
// is any of these, reserved ranges) when a subscription is made and again
// on the address actually dialled (guard.go), unless AllowPrivate. The
// delivery log keeps a refused attempt's status and a short reason, never
// what the far end answered: only a 2xx answer's start is kept.
//
// This package never writes views or events; it reads views.
package webhooks
