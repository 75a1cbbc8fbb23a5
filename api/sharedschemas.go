package api

import (
	"maps"

	"tempmail/api/family"
	"tempmail/api/openapi"
	"tempmail/wire"
)

// sharedSchemas are the shapes several families share, as the document
// names them: timestamps, a message's authentication results and links,
// event streams, and outbound webhooks (their subscriptions, the attempts
// and what a delivery carries, which package webhooks writes), described
// where reflection cannot tell (openapi.Component).
func sharedSchemas() map[string]openapi.Component {
	shared := map[string]openapi.Component{
		"Timestamp": {
			Of: wire.Time{},
			Schema: openapi.Schema{
				Description: "RFC 3339, UTC, microseconds.",
				Examples:    []any{"2026-11-21T19:00:00.123456Z"},
				Pattern:     "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}Z$",
			},
		},
		"Error": {Schema: openapi.Schema{
			Description: "The error shape of family C, of family A's validation errors and of everything outside the families.",
			Type:        "object",
			Required:    []string{"error"},
			Properties: []openapi.Property{
				{Name: "error", Schema: openapi.Schema{Description: "What went wrong, and what to fix.", Type: "string"}},
			},
		}},
		"EmptyRequest": {Schema: openapi.Schema{Description: "`{}`; an empty body counts as `{}`.", Type: "object"}},
		"RawMessage": {Schema: openapi.Schema{
			Description:      "An RFC 5322 message, as bytes.",
			Type:             "string",
			ContentMediaType: "message/rfc822",
		}},
		"Authentication": {
			Of: wire.Auth{},
			Fields: map[string]openapi.Schema{
				"spf": {
					Description: "The SMTP client's address checked against the SPF record of the `MAIL FROM` domain, or of " +
						"the HELO name for a null sender. `none` with an empty domain for mail from the inbound " +
						"webhook, which has no SMTP client.",
				},
				"spf.result": {Ref: "AuthenticationResult"},
				"spf.domain": {
					Description: "The domain checked (an internationalized one as A-labels); empty when there was none to check.",
				},
				"dkim": {
					Description: "One result per DKIM signature, in header order: the first 5 are checked, further ones are " +
						"neither checked nor listed. [] when the message is unsigned.",
					MaxItems: openapi.N(5),
				},
				"dkim.result": {Ref: "AuthenticationResult"},
				"dkim.reason": {
					Description: "Why the signature is not `pass`, when the service decided it: `d= or s= not a domain " +
						"name`, `b= longer or shorter than any accepted key's signature`, `bh= not a SHA-256 " +
						"hash`, `h= names more than 64 fields`, `signature field longer than 16 KiB`, `signed " +
						"header fields too large to check`, `signs a DKIM-Signature not checked` (each " +
						"`permerror`, the signature not checked further), `key record longer than 4096 bytes`, " +
						"`key larger than 4096 bits`, `key exponent neither 3 nor 65537` (each `permerror`, the " +
						"key not used), `l= leaves part of the body unsigned` (`policy`), `checks ran out of time` " +
						"(`temperror`); empty otherwise, and for messages checked before reasons were kept.",
				},
				"dkim.domain":   {Description: "The signing domain (`d=`); empty when it is not a domain name."},
				"dkim.selector": {Description: "The selector (`s=`); empty when it is not a domain name."},
				"dmarc": {
					Description: "The `From` domain's DMARC policy applied to the SPF and DKIM results aligned with it. " +
						"`none` when the domain has no DMARC record (or the message no `From` domain).",
				},
				"dmarc.result": {Ref: "AuthenticationResult"},
				"dmarc.domain": {Description: "The `From` header's domain; empty when it has none."},
				"dmarc.policy": {
					Description: "What the domain's record asks for mail that fails (its `sp=` for a subdomain when the " +
						"record is the organizational domain's); empty without a record. The service itself takes " +
						"all mail and only reports.",
					Type: "string",
					Enum: []any{"", "none", "quarantine", "reject"},
				},
			},
			Schema: openapi.Schema{
				Description: "What SPF, DKIM and DMARC said when the message was received (RFC 8601 result words); the " +
					"raw source carries the same as an `Authentication-Results` header under the service's " +
					"`Received:`. null when the message was not checked: with `--auth-checks=false`, or stored " +
					"before the service checked mail. A check that DNS did not answer within its bound (2 s " +
					"for the whole message) is `temperror`.",
				Nullable: true,
			},
		},
		"AuthenticationResult": {Schema: openapi.Schema{
			Description: "An RFC 8601 result word. `policy` is DKIM's alone: a signature the service does not " +
				"accept whatever its bytes say (one with `l=`, which leaves part of the body unsigned).",
			Type: "string",
			Enum: []any{"pass", "fail", "softfail", "neutral", "none", "temperror", "permerror", "policy"},
		}},
		"Link": {
			Of: family.MessageLink{},
			Fields: map[string]openapi.Schema{
				"url": {
					Description: "An absolute http or https URL, entities decoded, as a browser would open it. Characters " +
						"that cannot be seen (bidirectional controls such as U+202E, zero-width and other " +
						"invisible characters, spaces other than ASCII's) are percent-encoded, so that the URL " +
						"reads as it leads.",
					MaxLength: openapi.N(2048),
				},
				"url_ascii": {
					Description: "The same URL with its host as a browser looks it up: an internationalized name as its " +
						"A-labels (punycode, `xn--`), so that a look-alike host shows as what it is; equal to " +
						"`url` when the host is ASCII; empty when the host is no valid domain name (a browser " +
						"opens nothing).",
				},
				"text": {
					Description: "The text the link was written on in the HTML (at most 200 characters), or the alt of its " +
						"image; empty for a URL found in the text part.",
					MaxLength: openapi.N(200),
				},
			},
		},
		"Links": {
			Of: []family.MessageLink(nil),
			Schema: openapi.Schema{
				Description: "The message's http and https links: the HTML's `<a href>` in document order, then the " +
					"URLs in the text part not already listed; each URL once. At most 100 links, URLs of at " +
					"most 2 KiB (longer ones are left out), texts of at most 200 characters, 32 KiB in all.",
				MaxItems: openapi.N(100),
			},
		},
		"EventStream": {Schema: openapi.Schema{
			Description: "Server-Sent Events (`text/event-stream`). First `retry: 2000`; then one event per change " +
				"of the inbox, each with an `id:` (the stream sequence of the change), an `event:` name " +
				"and one `data:` line of JSON: `message` (a new message: the family's list element), " +
				"`read` and `deleted` (`StreamChange`), `expired` (`StreamEnd`; the inbox ended, by its " +
				"time or deleted, and the stream then ends), and `reset` (`StreamReset`; sent to a client " +
				"that resumed with a `Last-Event-ID` from before the oldest deletion the server still " +
				"remembers: it may hold messages deleted since, and should load the list afresh; the " +
				"stream then goes on). A comment line every 15 s keeps proxies from closing an idle " +
				"stream. The media type's `x-events` names each event's data schema; `$defs` holds those " +
				"that are the stream's own.",
			Type: "string",
			Defs: map[string]openapi.Schema{
				"change": {Ref: "StreamChange"},
				"end":    {Ref: "StreamEnd"},
				"reset":  {Ref: "StreamReset"},
			},
		}},
		"StreamChange": {Schema: openapi.Schema{
			Description: "The data of `read` and `deleted` events.",
			Type:        "object",
			Required:    []string{"id"},
			Properties: []openapi.Property{
				{Name: "id", Schema: openapi.Schema{Description: "The message's id.", Type: "string", Format: "uuid"}},
			},
		}},
		"StreamEnd": {Schema: openapi.Schema{
			Description: "The data of the `expired` event, the stream's last.",
			Type:        "object",
			Required:    []string{"id", "address", "reason"},
			Properties: []openapi.Property{
				{Name: "id", Schema: openapi.Schema{Description: "The inbox's id.", Type: "string", Format: "uuid"}},
				{Name: "address", Schema: openapi.Schema{Description: "The inbox's address.", Type: "string"}},
				{Name: "reason", Schema: openapi.Schema{Enum: []any{"expired", "deleted"}}},
			},
		}},
		"WebhookEventKind": {Schema: openapi.Schema{
			Description: "A kind of change a subscription can ask for.",
			Enum:        []any{"message.received", "message.read", "message.deleted", "inbox.expired", "inbox.deleted"},
		}},
		"WebhookKinds": {Schema: openapi.Schema{
			Description: "The kinds of change to deliver; default `[\"message.received\"]`.",
			Type:        "array",
			MinItems:    openapi.N(1),
			Items:       openapi.Ref("WebhookEventKind"),
		}},
		"WebhookURL": {Schema: openapi.Schema{
			Description: "Where deliveries are POSTed: `http://` or `https://`, at most 2048 bytes, without " +
				"credentials. A host that resolves to a loopback, private, link-local or unspecified " +
				"address is refused (400) unless the service runs with `--webhook-allow-private`. A host " +
				"that does not resolve is refused (400); one that cannot be looked up now (a DNS timeout " +
				"or failure) is answered 503: try again.",
			Type:      "string",
			Format:    "uri",
			MaxLength: openapi.N(2048),
		}},
		"Subscription": {
			Of: family.Subscription{},
			Fields: map[string]openapi.Schema{
				"id":       {Format: "uuid"},
				"events":   {Items: openapi.Ref("WebhookEventKind")},
				"inbox_id": {Description: "The inbox it follows; null: every inbox.", Format: "uuid"},
				"secret": {
					Description: "The signing secret, `whsec_` and the base64 of its key (Standard Webhooks). Shown only in " +
						"the answer that makes the subscription and in the one that rotates its secret (`POST " +
						"…/rotate-secret/`); reads and lists never show it.",
					Pattern: "^whsec_[A-Za-z0-9+/=]+$",
				},
				"failing": {
					Description: "A delivery to it was given up after the whole retry schedule, and none has succeeded since.",
				},
			},
			Schema: openapi.Schema{Description: "An outbound webhook subscription."},
		},
		"SubscriptionWithSecret": {
			Of:      family.Subscription{},
			Extends: "Subscription",
			Schema: openapi.Schema{
				Description: "A subscription as the answer that makes it, or rotates its secret, shows it: with its " +
					"signing secret, shown this once.",
				Required: []string{"secret"},
			},
		},
		"Subscriptions": {Of: []family.Subscription(nil)},
		"DeliveryAttempt": {
			Of: family.Attempt{},
			Fields: map[string]openapi.Schema{
				"webhook_event_id": {Description: "The delivery's `webhook-id` header, the same for all its attempts."},
				"event_type":       {Ref: "WebhookEventKind"},
				"attempt":          {Minimum: openapi.N(1)},
				"status_code":      {Description: "The receiver's status; 0 when no answer came."},
				"error": {
					Description: "Why the attempt failed, in a few words (at most about 200 characters); empty on success.",
				},
				"duration_ms": {Minimum: openapi.N(0)},
				"response": {
					Description: "The first 1 KiB of the receiver's answer when it took the delivery (a `2xx`); empty " +
						"otherwise, so that the log never shows what a server that refused said.",
				},
				"gave_up":         {Description: "This was the last attempt of a delivery that never succeeded."},
				"next_attempt_at": {Description: "When the delivery is tried again; null when it is not."},
			},
			Schema: openapi.Schema{Description: "One attempt at a delivery."},
		},
		"DeliveryAttempts": {
			Of:     []family.Attempt(nil),
			Schema: openapi.Schema{Description: "The most recent attempts (at most 50, from the last week), newest first."},
		},
		"StreamReset": {Schema: openapi.Schema{
			Description: "The data of the `reset` event: an empty object.",
			Type:        "object",
			Closed:      true,
			Properties:  []openapi.Property{},
		}},
		"Delivery": {Schema: openapi.Schema{
			Description: "The body of every delivery: one shape per `type`, which names it (the discriminator).",
			OneOf: []openapi.Schema{
				{Ref: "DeliveryMessageReceived"},
				{Ref: "DeliveryMessageRead"},
				{Ref: "DeliveryMessageDeleted"},
				{Ref: "DeliveryInboxExpired"},
				{Ref: "DeliveryInboxDeleted"},
			},
			Discriminator: &openapi.Discriminator{PropertyName: "type", Mapping: map[string]string{
				"message.received": "DeliveryMessageReceived",
				"message.read":     "DeliveryMessageRead",
				"message.deleted":  "DeliveryMessageDeleted",
				"inbox.expired":    "DeliveryInboxExpired",
				"inbox.deleted":    "DeliveryInboxDeleted",
			}},
		}},
		"DeliveryMessageReceived": {Schema: openapi.Schema{
			Description: "A message arrived.",
			Type:        "object",
			Required:    []string{"type", "timestamp", "data"},
			Closed:      true,
			Properties: []openapi.Property{
				{Name: "type", Schema: openapi.Schema{Const: "message.received"}},
				{Name: "timestamp", Schema: openapi.Schema{Description: "When the change happened.", Ref: "Timestamp"}},
				{Name: "data", Schema: openapi.Schema{Ref: "MessageReceivedData"}},
			},
		}},
		"DeliveryMessageRead": {Schema: openapi.Schema{
			Description: "A message was marked read, through any family.",
			Type:        "object",
			Required:    []string{"type", "timestamp", "data"},
			Closed:      true,
			Properties: []openapi.Property{
				{Name: "type", Schema: openapi.Schema{Const: "message.read"}},
				{Name: "timestamp", Schema: openapi.Schema{Description: "When the change happened.", Ref: "Timestamp"}},
				{Name: "data", Schema: openapi.Schema{Ref: "MessageReadData"}},
			},
		}},
		"DeliveryMessageDeleted": {Schema: openapi.Schema{
			Description: "A message was deleted: by a client, to make room under the per-inbox cap, or by family " +
				"B's retention.",
			Type:     "object",
			Required: []string{"type", "timestamp", "data"},
			Closed:   true,
			Properties: []openapi.Property{
				{Name: "type", Schema: openapi.Schema{Const: "message.deleted"}},
				{Name: "timestamp", Schema: openapi.Schema{Description: "When the change happened.", Ref: "Timestamp"}},
				{Name: "data", Schema: openapi.Schema{Ref: "MessageDeletedData"}},
			},
		}},
		"DeliveryInboxExpired": {Schema: openapi.Schema{
			Description: "The inbox's lifetime ran out.",
			Type:        "object",
			Required:    []string{"type", "timestamp", "data"},
			Closed:      true,
			Properties: []openapi.Property{
				{Name: "type", Schema: openapi.Schema{Const: "inbox.expired"}},
				{Name: "timestamp", Schema: openapi.Schema{Description: "When the change happened.", Ref: "Timestamp"}},
				{Name: "data", Schema: openapi.Schema{Ref: "InboxEndData"}},
			},
		}},
		"DeliveryInboxDeleted": {Schema: openapi.Schema{
			Description: "The inbox was deleted.",
			Type:        "object",
			Required:    []string{"type", "timestamp", "data"},
			Closed:      true,
			Properties: []openapi.Property{
				{Name: "type", Schema: openapi.Schema{Const: "inbox.deleted"}},
				{Name: "timestamp", Schema: openapi.Schema{Description: "When the change happened.", Ref: "Timestamp"}},
				{Name: "data", Schema: openapi.Schema{Ref: "InboxEndData"}},
			},
		}},
		"MessageReceivedData": {Schema: openapi.Schema{
			Description: "Family A's email summary with the inbox, as the message is when the delivery is made. A " +
				"message deleted before then is told by `id`, `inbox_id`, `address`, `received_at` and " +
				"`size` alone.",
			Type:     "object",
			Required: []string{"id", "inbox_id", "address", "received_at", "size"},
			Closed:   true,
			Properties: []openapi.Property{
				{Name: "id", Schema: openapi.Schema{Type: "string", Format: "uuid"}},
				{Name: "inbox_id", Schema: openapi.Schema{Type: "string", Format: "uuid"}},
				{Name: "address", Schema: openapi.Schema{Type: "string"}},
				{Name: "from_email", Schema: openapi.Schema{Type: "string"}},
				{Name: "from_name", Schema: openapi.Schema{Type: "string"}},
				{Name: "subject", Schema: openapi.Schema{Type: "string"}},
				{Name: "received_at", Schema: openapi.Schema{Ref: "Timestamp"}},
				{Name: "is_read", Schema: openapi.Schema{Type: "boolean"}},
				{Name: "size", Schema: openapi.Schema{Type: "integer"}},
				{Name: "has_attachments", Schema: openapi.Schema{Type: "boolean"}},
				{Name: "preview", Schema: openapi.Schema{Type: "string"}},
				{Name: "authentication", Schema: openapi.Schema{Ref: "Authentication"}},
			},
		}},
		"MessageReadData": {Schema: openapi.Schema{
			Type:     "object",
			Required: []string{"id", "inbox_id", "address"},
			Closed:   true,
			Properties: []openapi.Property{
				{Name: "id", Schema: openapi.Schema{Description: "The message's id.", Type: "string", Format: "uuid"}},
				{Name: "inbox_id", Schema: openapi.Schema{Type: "string", Format: "uuid"}},
				{Name: "address", Schema: openapi.Schema{Type: "string"}},
			},
		}},
		"MessageDeletedData": {Schema: openapi.Schema{
			Type:     "object",
			Required: []string{"id", "inbox_id", "address", "reason"},
			Closed:   true,
			Properties: []openapi.Property{
				{Name: "id", Schema: openapi.Schema{Description: "The message's id.", Type: "string", Format: "uuid"}},
				{Name: "inbox_id", Schema: openapi.Schema{Type: "string", Format: "uuid"}},
				{Name: "address", Schema: openapi.Schema{Type: "string"}},
				{Name: "reason", Schema: openapi.Schema{
					Description: "Why it went: empty for a person's deletion (through any family), `cap` when a newer " +
						"message took its place under `--max-messages-per-inbox`, `retention` when it outlived " +
						"family B's `--message-retention`.",
					Enum: []any{"", "cap", "retention"},
				}},
			},
		}},
		"InboxEndData": {Schema: openapi.Schema{
			Type:     "object",
			Required: []string{"inbox_id", "address"},
			Closed:   true,
			Properties: []openapi.Property{
				{Name: "inbox_id", Schema: openapi.Schema{Type: "string", Format: "uuid"}},
				{Name: "address", Schema: openapi.Schema{Type: "string"}},
			},
		}},
	}
	maps.Copy(shared, faultSchemas())
	return shared
}
