// Package wire holds the JSON shapes that more than one package writes to
// the world, so that each has one definition: the timestamp every answer
// and webhook carries (Time), and family A's email summary, which family A
// lists and outbound message.received webhooks carry (EmailSummaryA).
// Shapes one package alone writes stay with it (api's families, the
// webhook envelope).
package wire
