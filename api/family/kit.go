package family

import (
	"log/slog"
	"time"

	"tempmail"
	"tempmail/command"
	"tempmail/config"
	"tempmail/events"
	"tempmail/fairshare"
	"tempmail/projections"
	"tempmail/webhooks"
)

// Kit is what every family's handlers are given: the service's parts, and
// the bounds every request shares. Its fields are set once by api.New, and
// every family shares the one Kit.
type Kit struct {
	Config  config.Config
	Store   *events.Store
	Views   *projections.Reader
	Hooks   *webhooks.Webhooks
	Log     *slog.Logger
	Waiters Waiters
	// Commands change what the service holds; Names says which names an
	// inbox may have.
	Commands *command.Commands
	Names    *tempmail.Names
	// Creates limits each client's creations (nil: unlimited), logins its
	// logins (mail.tm's POST /token), each at its own rate (creates.go).
	Creates, Logins *fairshare.Limiter
	// Downloads bounds the memory attachment downloads hold (downloads.go).
	Downloads Downloads
	// KeepAlive is how often an idle event stream sends a comment
	// (DefaultKeepAlive unless a test says otherwise).
	KeepAlive time.Duration
	Closing   chan struct{} // closed when the server begins to stop
}
