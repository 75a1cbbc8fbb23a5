package alpha

import (
	"net/mail"
)

// Names that exist: alpha.go, beta/beta.go, ../beta/beta.go, notes.md,
// beta.T.Field, beta.T.Method, beta.Outer.Method (promoted), beta.New, T.Field.
// Not the repository's files: https://example.com/x/gone.go, github.com/x/gone.go, nats.go; stale: gone.go, beta/gone.go,
// MISSING.md.
//
// Not this module's: mail.Header and mail.Gone (net/mail's, which this
// package imports, not package mail of the module); cfg.Gone (a
// variable); beta.Ext.Unknowable (a member of a type from elsewhere).
// Stale: beta.Gone,
// beta.T.gone,
// beta.Outer.Gone,
// T.Gone.
//
// Doc links that exist: [T], [T.Field], [beta.T.Method], [mail.Gone]
// (net/mail's). Prose is not checked: JetStream, KiB, Ts. Stale links:
// [Gone], [beta.T.Gone].
func F(h mail.Header) {}

// T is a type.
type T struct{ Field int }
