// Package mail reads a received message into what the model says of it
// (mailbox.Content: its words, attachments, links and headers). It
// imports nothing of tempmail's but the root package and the model, so
// that ingest parses and everyone else reads what it parsed. How content
// is stored is package sealed's business.
//
// Parse reads a message's bytes with enmime into that bounded summary. It
// never fails and never panics: what broken MIME, unknown charsets and
// hostile nesting leave readable is kept, within bounds that keep an event
// and its view entry far below NATS's message limit; PartContent finds an
// attachment's bytes in the raw message again.
//
// A message's links (Extract) are the http and https URLs of its HTML's
// <a href> elements, in document order, then those written out in its
// text part. Extract is a pure function of the two bodies, bounded in what
// it returns (MaxLinks, MaxURLBytes, MaxLinkTextChars, MaxLinkBytes), so
// that ingest can keep its result in a message's sealed content and the
// api can derive it for a message stored before links were kept. It never
// fetches, resolves or follows a link, and it returns only links a browser
// would open as http or https: no javascript:, data:, mailto: or relative
// URLs, nothing with a backslash or control character that browsers and
// parsers read differently. What cannot be seen in a URL (bidirectional
// controls such as U+202E, zero-width and other invisible characters) is
// percent-encoded, and mailbox.ASCII gives a URL's host as a browser
// looks it up (punycode), to show beside its Unicode form. Its work is
// linear in the size of the bodies: every step is counted
// (extractor.work), and the tests bound the count per byte of input.
//
// Where things are: parse.go reads MIME (Parse, PartContent); preview.go
// says what lists show of a message (Preview); links.go finds a message's
// links (Extract, Clean); shown.go says how a link's URL is shown
// (EncodeInvisible). Tests share hostile and ordinary messages through
// package mailtest.
package mail
