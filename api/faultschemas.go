package api

import (
	"tempmail/api/openapi"
	"tempmail/wire"
)

// faultSchemas are the shapes of SMTP fault rules and attempt logs, which
// the token API (an inbox's) and the admin (the service's) share.
func faultSchemas() map[string]openapi.Component {
	return map[string]openapi.Component{
		"FaultRequest":        {Schema: faultRequest(false)},
		"ServiceFaultRequest": {Schema: faultRequest(true)},
		"FaultRule": {
			Of: wire.FaultRule{},
			Fields: map[string]openapi.Schema{
				"command":  {Enum: faultCommands(true)},
				"reply":    {Description: "The reply given: a 4xx or 5xx code, an optional enhanced code and a text; absent when the rule closes the connection."},
				"delay":    {Description: "Waited before the reply, as Go writes a duration (\"5s\")."},
				"matched":  {Description: "Attempts it matched so far."},
				"fired":    {Description: "Attempts it acted on so far."},
				"fraction": {Minimum: openapi.N(0), Maximum: openapi.N(1)},
			},
		},
		"FaultRules": {Of: []wire.FaultRule(nil)},
		"Attempt": {
			Of: wire.Attempt{},
			Fields: map[string]openapi.Schema{
				"client":     {Description: "The SMTP client's address.", Nullable: true},
				"command":    {Description: "The command that ended the attempt: `CONNECT`, `EHLO`, `MAIL`, `RCPT`, `DATA` or `AFTER_DATA`."},
				"to":         {Description: "The recipient, in the service's log."},
				"code":       {Description: "The reply's code: 250 when stored; 0 when a rule closed the connection."},
				"rule_id":    {Description: "The rule that acted; null when none did.", Nullable: true},
				"message_id": {Description: "The message stored; null when none was.", Nullable: true},
			},
		},
		"Attempts": {Of: []wire.Attempt(nil)},
	}
}

// faultCommands are the commands a rule acts at: the service's at any, an
// inbox's from RCPT on.
func faultCommands(service bool) []any {
	if service {
		return []any{"CONNECT", "EHLO", "MAIL", "RCPT", "DATA", "AFTER_DATA"}
	}
	return []any{"RCPT", "DATA", "AFTER_DATA"}
}

// faultRequest is the body of a new fault rule (faults.Request): the
// service's (the admin's) takes what an inbox's does and more.
func faultRequest(service bool) openapi.Schema {
	s := openapi.Schema{
		Type:     "object",
		Required: []string{"command"},
		Properties: []openapi.Property{
			{Name: "command", Schema: openapi.Schema{Type: "string", Enum: faultCommands(service),
				Description: "Where the rule acts: `RCPT` refuses this recipient (the others stand); `DATA` acts while " +
					"the message comes (`close` drops the connection mid-message, `delay` stalls it); `AFTER_DATA` " +
					"answers the end of the data in place of the 250, and nothing of the message is stored."}},
			{Name: "reply", Schema: openapi.Schema{Type: "string", MaxLength: openapi.N(220),
				Description: "A 4xx or 5xx code, an optional enhanced code of the same class and a text, such as " +
					"`451 4.7.1 try again later`. Required unless `close`; not at `DATA`. After a `421` the " +
					"connection is closed."}},
			{Name: "times", Schema: openapi.Schema{Type: "integer", Minimum: openapi.N(1), Maximum: openapi.N(1000),
				Description: "Act at the first this many matching attempts, then let them pass."}},
			{Name: "every", Schema: openapi.Schema{Type: "integer", Minimum: openapi.N(1), Maximum: openapi.N(1000),
				Description: "Act at every this-many-th matching attempt."}},
			{Name: "fraction", Schema: openapi.Schema{Type: "number", Minimum: openapi.N(0), Maximum: openapi.N(1),
				Description: "Act at this fraction of matching attempts, chosen by `seed` and the attempt's number: " +
					"the same attempts each run."}},
			{Name: "seed", Schema: openapi.Schema{Type: "integer", Minimum: openapi.N(0), Description: "With `fraction`."}},
			{Name: "delay", Schema: openapi.Schema{Type: "string", Description: "Wait this long first, at most `60s`."}},
			{Name: "close", Schema: openapi.Schema{Type: "boolean", Description: "Close the connection instead of replying."}},
			{Name: "from", Schema: openapi.Schema{Type: "string", MaxLength: openapi.N(254),
				Description: "Only for senders that match: an address, or a pattern where `*` stands for any run of characters."}},
			{Name: "expires_in", Schema: openapi.Schema{Type: "string",
				Description: "How long the rule lives, such as `10m`; `1h` when not given; never past the inbox's end."}},
		},
	}
	if service {
		s.Properties = append(s.Properties,
			openapi.Property{Name: "to", Schema: openapi.Schema{Type: "string", MaxLength: openapi.N(254),
				Description: "Only for recipients that match, from RCPT on: an address or a pattern with `*`."}},
			openapi.Property{Name: "client", Schema: openapi.Schema{Type: "string",
				Description: "Only for clients in this prefix (`192.0.2.0/24`) or at this address."}},
			openapi.Property{Name: "greylist", Schema: openapi.Schema{Type: "string",
				Description: "At RCPT: refuse the first attempt of each client, sender and recipient (`451 4.7.1` unless " +
					"`reply` says otherwise), and its retries until this long after it, such as `30s`; at most `1h`."}},
			openapi.Property{Name: "rate", Schema: openapi.Schema{Type: "integer", Minimum: openapi.N(1), Maximum: openapi.N(100000),
				Description: "At CONNECT or MAIL: each client may pass this many a minute (per node); beyond, the reply " +
					"(`421 4.7.0` unless `reply` says otherwise)."}},
			openapi.Property{Name: "priority", Schema: openapi.Schema{Type: "integer", Minimum: openapi.N(-1000), Maximum: openapi.N(1000),
				Description: "Rules with a higher one are asked first; then the oldest."}},
		)
	} else {
		s.Properties = append(s.Properties, openapi.Property{Name: "greylist", Schema: openapi.Schema{Type: "string",
			Description: "At RCPT: refuse the first attempt of each client and sender (`451 4.7.1` unless `reply` says " +
				"otherwise), and its retries until this long after it, such as `30s`; at most `1h`."}},
			openapi.Property{Name: "priority", Schema: openapi.Schema{Type: "integer", Minimum: openapi.N(-1000), Maximum: openapi.N(1000),
				Description: "Rules with a higher one are asked first; then the oldest."}})
	}
	return s
}
