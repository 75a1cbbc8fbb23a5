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
