package family

import (
	"tempmail/mail"
	"tempmail/mailbox"
	"tempmail/wire"
)

// Shapes every family's message detail shares: its authentication
// results and its links.

// Authentication is a message's check results as every family shows
// them: null when it was not checked (--auth-checks off, or stored before
// checks were made), and dkim an array, [] when unsigned.
func Authentication(a *mail.Auth) *mail.Auth {
	if a == nil || a.DKIM != nil {
		return a
	}
	c := *a // the stored content is shared: never changed
	c.DKIM = []mail.DKIM{}
	return &c
}

func OrEmpty(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// MessageLink is one link of a message as the details show it: its URL,
// and the same with the host as a browser looks it up (punycode for an
// internationalized name; "" when the host is no valid name).
type MessageLink = wire.Link

// StoredLinks are a message's links, each URL with its invisible
// characters percent-encoded (mail.EncodeInvisible: ingest has done so
// since issue 29; links kept before are encoded as they are read).
// Content stored before links were kept has none (nil, not empty): they
// are found in its bodies now, which costs what ingest would have spent,
// once per read.
func StoredLinks(m *mailbox.Message) []mail.Link {
	if m.Links == nil {
		return mail.Extract(m.Text, m.HTML)
	}
	out := m.Links
	for i, l := range m.Links {
		if u := mail.EncodeInvisible(l.URL); u != l.URL {
			if &out[0] == &m.Links[0] {
				out = append([]mail.Link(nil), m.Links...) // the stored content is shared: never changed
			}
			out[i].URL = u
		}
	}
	return out
}

// LinksOf is a message's links for its details; never null.
func LinksOf(m *mailbox.Message) []MessageLink {
	list := StoredLinks(m)
	out := make([]MessageLink, 0, len(list))
	for _, l := range list {
		out = append(out, MessageLink{URL: l.URL, URLASCII: mail.ASCII(l.URL), Text: l.Text})
	}
	return out
}
