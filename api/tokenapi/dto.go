package tokenapi

import (
	"tempmail/projections"
	"tempmail/wire"
)

// summaryC is a message as family C lists it (wire.SummaryOf: family C's
// shapes, and how the model fills them, are declared once in package
// wire, which the Go client and the MCP tools read them with).
func summaryC(in *projections.Inbox, m *projections.Summary) wire.Summary {
	s := m.Shown(in.Address)
	return wire.SummaryOf(&s)
}
