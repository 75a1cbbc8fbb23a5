package wire

import "tempmail/mailbox"

// Auth is what the checks of one message concluded: its JSON is the
// "authentication" object of every API family's message detail, defined
// once in the model (package mailbox) and named here for the Go client.
type (
	Auth  = mailbox.Auth
	SPF   = mailbox.SPF
	DKIM  = mailbox.DKIM
	DMARC = mailbox.DMARC
)

// AuthOf is a message's check results as every family shows them: null
// when it was not checked (--auth-checks off, or stored before checks
// were made), and dkim an array, [] when unsigned.
func AuthOf(a *mailbox.Auth) *Auth {
	if a == nil || a.DKIM != nil {
		return a
	}
	c := *a // the stored content is shared: never changed
	c.DKIM = []DKIM{}
	return &c
}
