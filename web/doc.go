// Package web is tempmail's page for people: an address at once, its mail
// arriving live, each message readable safely, and every address the
// browser made kept to switch back to until it expires. It is plain HTML,
// CSS and ES modules embedded in the binary (go:embed), served at / and
// under /ui/, with no build step and no request to anything but the
// service.
//
// The page uses only what an inbox's token authorizes (family C and its
// event stream), so it works when --read-key or --require-token guard the
// rest. Where the server makes no inbox without an API key (--anonymous
// off), the page asks for one, keeps it in the browser, and sends it only
// to make an inbox and to read its configuration (the domains the key
// may use). Everything it serves carries a strict
// Content-Security-Policy; a mail's HTML is never rendered by this package
// but by the api package's body endpoint, inside a sandboxed frame.
//
// This package never reads views or publishes events.
package web
