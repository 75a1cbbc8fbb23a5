// Package links finds the links of a message: the http and https URLs of
// its HTML's <a href> elements, in document order, then those written out
// in its text part. Extract is a pure function of the two bodies, bounded in
// what it returns (MaxLinks, MaxURLBytes, MaxTextChars, MaxTotalBytes), so
// that ingest can keep its result in a message's sealed content and the api
// can derive it for a message stored before links were kept.
//
// It never fetches, resolves or follows a link, and it returns only links a
// browser would open as http or https: no javascript:, data:, mailto: or
// relative URLs, nothing with a backslash or control character that
// browsers and parsers read differently. What cannot be seen in a URL
// (bidirectional controls such as U+202E, zero-width and other invisible
// characters) is percent-encoded, and ASCII gives a URL's host as a
// browser looks it up (punycode), to show beside its Unicode form
// (shown.go).
//
// Its work is linear in the size of the bodies: every step is counted
// (extractor.work), and the tests bound the count per byte of input.
package links
