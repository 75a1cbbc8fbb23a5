package mailbox

import "strings"

// Filter selects messages by what they say: each set field must occur,
// ignoring case, in the sender (address or name), a recipient (To, Cc or
// the inbox's own address) or the subject. The zero Filter selects all.
type Filter struct {
	From, To, Subject string
}

// Empty reports whether f selects every message.
func (f Filter) Empty() bool { return f.From == "" && f.To == "" && f.Subject == "" }

// Match reports whether a message to address, of which a list shows h,
// passes f.
func (f Filter) Match(h *Head, address string) bool {
	return (f.From == "" || containsFold(h.From, f.From) || containsFold(h.FromName, f.From)) &&
		(f.Subject == "" || containsFold(h.Subject, f.Subject)) &&
		(f.To == "" || containsFold(address, f.To) || anyContainsFold(h.To, f.To) || anyContainsFold(h.Cc, f.To))
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

func anyContainsFold(list []string, sub string) bool {
	for _, s := range list {
		if containsFold(s, sub) {
			return true
		}
	}
	return false
}

// Query asks for a page of an inbox's messages, newest first.
type Query struct {
	Offset, Limit int // Limit 0: all from Offset on
	Filter        Filter
}
