// Package sealed owns what a message says, sealed: the record of a
// message's content (its summary in this package's own stored shape, its
// bodies, its raw source), compressed and encrypted under a key of its
// own, and the keys, kept apart from the log and erased when the message
// is deleted. Erasing the key is what makes a deletion final: every copy of
// the sealed record, in whatever block, replica or backup it lies, opens
// for no one (seal.go says why erasing the records themselves is not the
// way).
//
// It knows nothing of events, subjects or the log. Package events stores
// what Seal returns after a MailReceived's JSON, and a raw source too
// large for its event as NewReader yields it in its object store; it opens
// them again (Open, OpenReader) with the key the event names. So events
// imports this package and never the reverse: the key stream's publish is
// handed in (OpenStreamKeys), as a function that returns the sequence.
//
// Where things are: seal.go seals and opens bytes (one piece, or a raw
// source as a stream of frames); content.go lays out a content record and
// seals it (Seal, Open), in the stored shapes of storedcontent.go, which do
// not follow mailbox.Content's JSON; preview.go makes the previews of records
// stored earlier again; keys.go keeps the keys, in a single node's key file
// (FileKeys) or in the KEYS stream of a cluster or an external NATS
// (StreamKeys), and says when one is gone (ErrErased); cache.go keeps
// opened contents in memory, and opens one once for the readers who ask
// for it at once (Cache.Open).
package sealed
