package inboxapi

import (
	"tempmail/api/family"
	"tempmail/api/openapi"
	"tempmail/wire"
)

// schemas are family A's shapes as the document names them: the types of
// dto.go (and wire's email summary), described where reflection cannot
// tell (openapi.Component), and the request bodies its handlers read
// field by field.
func schemas() map[string]openapi.Component {
	return map[string]openapi.Component{
		"ErrorDetail": {Schema: openapi.Schema{
			Description: "Family A's error shape for 401, 404, 405 and 415 (as Django REST framework writes them).",
			Type:        "object",
			Required:    []string{"detail"},
			Properties: []openapi.Property{
				{Name: "detail", Schema: openapi.Schema{Type: "string"}},
			},
		}},
		"Domain": {
			Of: Domain{},
			Fields: map[string]openapi.Schema{
				"id":        {Description: "Kept forever; `domain_id` when creating an inbox.", Minimum: openapi.N(1)},
				"is_active": {Description: "Always true: only active domains are listed."},
				"catch_all": {
					Description: "Mail to any address on this domain is taken, and its first message makes its inbox " +
						"(`--catch-all-domains`, or `catch_all` when the domain was added); find such inboxes with " +
						"`GET /api/inboxes/?email=`.",
				},
				"tenant_id": {
					Description: "A private domain's tenant: only its keys make inboxes there, and only they and the admin " +
						"see it listed.",
					Format: "uuid",
				},
			},
		},
		"CreateInboxARequest": {Schema: openapi.Schema{
			Type:     "object",
			Required: []string{"domain_id"},
			Properties: []openapi.Property{
				{Name: "domain_id", Schema: openapi.Schema{Description: "The `id` of an active domain.", Type: "integer"}},
				{Name: "ttl", Schema: openapi.Schema{
					Description: "Lifetime in whole seconds, between `--min-inbox-ttl` and `--max-inbox-ttl`. Optional: " +
						"without it (or `null`) the inbox lives 3600 s.",
					Type:     "integer",
					Nullable: true,
				}},
			},
		}},
		"InboxA": {
			Of:   Inbox{},
			Omit: []string{"email_count"},
			Fields: map[string]openapi.Schema{
				"id":           {Format: "uuid"},
				"email":        {Format: "email"},
				"expires_at":   {Description: "null for an inbox that never expires (family B's).", Nullable: true},
				"ttl":          {Description: "Lifetime in seconds; null for an inbox that never expires."},
				"access_token": {Description: "The inbox's token: family C's credential for it."},
			},
		},
		"InboxADetail": {
			Of:      Inbox{},
			Extends: "InboxA",
			Fields: map[string]openapi.Schema{
				"email_count": {Minimum: openapi.N(0)},
			},
			Schema: openapi.Schema{Required: []string{"email_count"}},
		},
		"InboxByAddressA": {
			Of:      InboxByAddress{},
			Extends: "InboxA",
			Fields: map[string]openapi.Schema{
				"email_count": {Minimum: openapi.N(0)},
				"token": {
					Description: "The inbox's token: families B and C, `/address/latest/` and the page read the inbox by it " +
						"(the same as `access_token`).",
				},
			},
			Schema: openapi.Schema{Required: []string{"email_count", "token"}},
		},
		"EmailSummaryA": {
			Of: wire.EmailSummaryA{},
			Fields: map[string]openapi.Schema{
				"id":   {Format: "uuid"},
				"size": {Description: "Bytes of the raw message.", Minimum: openapi.N(0)},
			},
			Schema: openapi.Schema{
				Description: "An email as family A lists it; `preview` is the first 200 characters of what it says in " +
					"plain words: its text part, or the words of its HTML when it has none (without the marks " +
					"of the HTML as `text` shows it).",
			},
		},
		"AttachmentIDA": {Schema: openapi.Schema{
			Description: "`<email id>-<position from 1>`.",
			Type:        "string",
			Pattern:     "^[0-9a-fA-F-]{36}-[1-9][0-9]*$",
		}},
		"AttachmentA": {
			Of: Attachment{},
			Fields: map[string]openapi.Schema{
				"id":        {Ref: "AttachmentIDA"},
				"file_size": {Minimum: openapi.N(0)},
			},
		},
		"EmailA": {
			Of: Email{},
			Fields: map[string]openapi.Schema{
				"id":         {Format: "uuid"},
				"inbox_id":   {Format: "uuid"},
				"message_id": {Description: "The message's `Message-ID` header."},
				"size":       {Minimum: openapi.N(0)},
			},
		},
		"SubscribeRequestA": {
			Of:      family.SubscribeRequest{},
			Request: true,
			Fields: map[string]openapi.Schema{
				"url":    {Ref: "WebhookURL"},
				"events": {Ref: "WebhookKinds"},
				"inbox_id": {
					Description: "Follow this inbox alone (the subscription ends with it); absent or null: every inbox.",
					Nullable:    true,
					Format:      "uuid",
				},
			},
			Schema: openapi.Schema{Required: []string{"url"}},
		},
		"TenantInboxA": {
			Of:      Inbox{},
			Extends: "InboxA",
			Fields: map[string]openapi.Schema{
				"email_count": {Minimum: openapi.N(0)},
			},
			Schema: openapi.Schema{
				Description: "An inbox of a tenant as its list shows it.",
				Required:    []string{"email_count"},
			},
		},
		"UsageOf": {
			Of: usageOf{},
			Fields: map[string]openapi.Schema{
				"current": {Format: "int64", Minimum: openapi.N(0)},
				"limit":   {Description: "0: unlimited.", Format: "int64", Minimum: openapi.N(0)},
			},
		},
		"Usage": {
			Of: usage{},
			Schema: openapi.Schema{
				Description: "A tenant's use of its quota: inboxes live now, messages stored in its inboxes since " +
					"midnight UTC, the bytes they hold, and the subscriptions to them.",
			},
		},
	}
}
