package tokenapi

import (
	"tempmail/api/openapi"
	"tempmail/wire"
)

// schemas are family C's shapes as the document names them: the types of
// package wire that dto.go names, described where reflection cannot tell
// (openapi.Component), and the request bodies its handlers read field by
// field.
func schemas() map[string]openapi.Component {
	return map[string]openapi.Component{
		"FaultRequest": {Schema: faultRequest},
		"FaultRule": {
			Of: wire.FaultRule{},
			Fields: map[string]openapi.Schema{
				"command":  {Enum: []any{"RCPT", "DATA", "AFTER_DATA"}},
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
				"command":    {Description: "The command that ended the attempt: `RCPT`, `DATA` or `AFTER_DATA`."},
				"code":       {Description: "The reply's code: 250 when stored; 0 when a rule closed the connection."},
				"rule_id":    {Description: "The rule that acted; null when none did.", Nullable: true},
				"message_id": {Description: "The message stored; null when none was.", Nullable: true},
			},
		},
		"Attempts": {Of: []wire.Attempt(nil)},
		"CreateInboxCRequest": {Schema: openapi.Schema{
			Type: "object",
			Properties: []openapi.Property{
				{Name: "name", Schema: openapi.Schema{
					Description: "The wanted local part, by family B's rules; missing or empty: 10 random `[a-z0-9]`.",
					Type:        "string",
					Nullable:    true,
					MaxLength:   openapi.N(64),
				}},
				{Name: "domain", Schema: openapi.Schema{
					Description: "An active domain; missing or empty: the default domain.",
					Type:        "string",
					Nullable:    true,
				}},
			},
		}},
		"InboxC": {
			Of: wire.Inbox{},
			Fields: map[string]openapi.Schema{
				"token":      {Description: "The inbox's credential: keep it."},
				"address":    {Format: "email"},
				"expires_at": {Description: "null for an inbox that never expires (family B's).", Nullable: true},
			},
		},
		"InboxCDetail": {
			Of:      wire.InboxDetail{},
			Extends: "InboxC",
			Fields: map[string]openapi.Schema{
				"count": {Description: "How many messages the inbox holds.", Minimum: openapi.N(0)},
			},
			Schema: openapi.Schema{Required: []string{"count"}},
		},
		"AttachmentC": {
			Of: wire.Attachment{},
			Fields: map[string]openapi.Schema{
				"size": {Minimum: openapi.N(0)},
				"url":  {Description: "Where it downloads with the inbox's token; in a message's detail only."},
			},
		},
		"MessageSummaryC": {
			Of: wire.Summary{},
			Fields: map[string]openapi.Schema{
				"id":   {Format: "uuid"},
				"to":   {Description: "The inbox's address."},
				"size": {Minimum: openapi.N(0)},
			},
			Schema: openapi.Schema{
				Description: "A message as family C lists it; `preview` is the first 200 characters of what it says in " +
					"plain words: its text part, or the words of its HTML when it has none (without the marks " +
					"of the HTML as `text` shows it).",
			},
		},
		"MessageC": {
			Of: wire.Message{},
			Fields: map[string]openapi.Schema{
				"id":      {Format: "uuid"},
				"to":      {Description: "The inbox's address."},
				"text":    {Description: "The text body."},
				"html":    {Description: "The HTML body, as sent: show it only sandboxed (see `body.html`)."},
				"size":    {Minimum: openapi.N(0)},
				"headers": {Description: "Header name (as in the message) to the value of its first occurrence."},
			},
		},
		"OTP": {
			Of: wire.Code{},
			Fields: map[string]openapi.Schema{
				"message_id": {Format: "uuid"},
			},
		},
		"LinkFound": {
			Of: wire.FoundLink{},
			Fields: map[string]openapi.Schema{
				"link": {
					Description: "The URL, entities decoded, invisible characters percent-encoded (as a message's `links[].url`).",
				},
				"link_ascii": {
					Description: "The URL with its host in ASCII (punycode for an internationalized name), as a message's " +
						"`links[].url_ascii`.",
				},
				"text":       {Description: "The link's text in the HTML; empty for a URL found in the text part."},
				"message_id": {Format: "uuid"},
			},
		},
		"SubscribeRequestC": {Schema: openapi.Schema{
			Type:     "object",
			Required: []string{"url"},
			Properties: []openapi.Property{
				{Name: "url", Schema: openapi.Schema{Ref: "WebhookURL"}},
				{Name: "events", Schema: openapi.Schema{Ref: "WebhookKinds"}},
			},
		}},
	}
}

// faultRequest is the body of a new fault rule (faults.Request).
var faultRequest = openapi.Schema{
	Type:     "object",
	Required: []string{"command"},
	Properties: []openapi.Property{
		{Name: "command", Schema: openapi.Schema{Type: "string", Enum: []any{"RCPT", "DATA", "AFTER_DATA"},
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
