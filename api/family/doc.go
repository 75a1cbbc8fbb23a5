// Package family is what every API family is built from: the Kit each
// family's handlers are given (the service's parts, and the bounds every
// request shares), how a family registers (a Door: the paths it serves, how
// its errors look, and, for a compatible family, how its clients say who
// they are and its routes), and the shared ways of answering.
//
// Package api assembles the families over one Kit, and serves them; every
// family writes its errors in its own shape through WriteError, which finds
// the request's Door from the request itself, so no handler names its
// family.
//
// # Where things are
//
//   - kit.go: the Kit; errors.go: Door, the one mapping from error kinds
//     to statuses, and WriteError; compat.go: the compatible families'
//     doors, under /compat/<name>/;
//   - keys.go, auth.go: who a request comes from (the API token, a
//     tenant's key: the Credential), and the guards that need one;
//   - lookup.go, domain.go, names.go: inboxes, messages and domains read
//     as a request may see them, and the names of new inboxes;
//   - list.go, answer.go, json.go, dto.go: request bodies and queries in,
//     answers out, encoded as they are written within a byte budget;
//   - waiting.go, search.go, waiters.go: held requests (wait=), the scans
//     that find codes and links, and the bound on requests held open;
//     streams.go: event streams;
//   - serve.go, downloads.go: raw messages and attachments, within the
//     room downloads share;
//   - clients.go, creates.go, requests.go: who the client is, its share
//     of creations and logins, and what the access log and metrics are
//     told of a request;
//   - contract.go: the event stream's answer, which the families that
//     have one declare in their contracts (the parts of the OpenAPI
//     document every family shares are package api's).
package family
