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
//
// # Where things are
//
// web.go serves the embedded tree and sets the headers every answer
// carries. The page is in static/, one job a file:
//
//   - index.html, style.css and icon.svg: the page's markup and look;
//   - app.js: the entry point, and the wiring of the rest: which inbox is
//     shown, how the page gets one (a link's, this browser's last, or a
//     new one), and what happens when it goes;
//   - view.js: what the page shows of where it is (an address being got,
//     shown or gone, none, or the service out of reach), the notice, the
//     connection and the tab's title;
//   - api.js: the HTTP calls; saved.js: what this browser keeps (its
//     addresses, and the API key); link.js: links to an inbox (/#token=);
//   - mailbox.js: one inbox's messages, kept live; list.js: the message
//     list; reader.js: one message; undo.js: deleting a message, with undo;
//   - keyform.js: asking for the API key; chooser.js: choosing the
//     address's name and domain; switcher.js: switching between this
//     browser's addresses; countdown.js: the address's lifetime;
//   - format.js and dom.js: helpers.
//
// The tests drive the page in headless Chromium against the whole service
// (browser_test.go has the harness); screenshots_test.go makes the
// pictures of it in docs/img.
package web
