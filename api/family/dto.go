package family

import (
	"tempmail/wire"
)

// OrEmpty is list, or [] for none: an array, never null, in an answer.
func OrEmpty(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// MessageLink is one link of a message as the details show it
// (wire.LinksOf).
type MessageLink = wire.Link
