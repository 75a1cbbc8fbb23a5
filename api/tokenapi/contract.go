package tokenapi

import (
	"tempmail/api/family"
	"tempmail/api/openapi"
)

// Contract is family C's part of the OpenAPI document (api/openapi.json):
// the operations Routes serves, family C's parameters and error answers,
// and the shapes of its bodies (schemas.go).
func Contract() openapi.Contract {
	return openapi.Contract{
		Operations: []openapi.Operation{{
			Method: "POST", Path: "/inboxes/",
			ID:      "createInboxC",
			Tags:    []string{"Family C"},
			Summary: "Create an inbox",
			Description: "A random name (10 `[a-z0-9]`) on the default (first configured) domain, or the `name` and " +
				"`domain` asked for; names follow family B's rules. The inbox lives `--token-inbox-ttl` " +
				"(default 24h).",
			Security: tokenOrKey,
			Body:     &openapi.Body{Content: openapi.JSON(openapi.Ref("CreateInboxCRequest"))},
			Responses: answers(map[string]openapi.Response{
				"201": {
					Description: "The new inbox; keep its token.",
					Content:     openapi.JSON(openapi.Ref("InboxC")),
				},
				"400": {Ref: "BadRequestC"},
				"409": {Ref: "ConflictC"},
				"413": {Ref: "PayloadTooLargeC"},
				"415": {Ref: "UnsupportedMediaTypeC"},
				"429": {Ref: "TooManyC"},
				"507": {Ref: "FullC"},
			}),
		}, {
			Method: "GET", Path: "/inboxes/{token}/",
			ID:       "getInboxC",
			Tags:     []string{"Family C"},
			Summary:  "Get an inbox",
			Security: tokenOrKey,
			Params:   []openapi.Param{{Ref: "Token"}},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "The inbox and how many messages it holds.",
					Content:     openapi.JSON(openapi.Ref("InboxCDetail")),
				},
				"404": {Ref: "NotFoundC"},
			}),
		}, {
			Method: "DELETE", Path: "/inboxes/{token}/",
			ID:       "deleteInboxC",
			Tags:     []string{"Family C"},
			Summary:  "Delete an inbox and all its mail",
			Security: tokenOrKey,
			Params:   []openapi.Param{{Ref: "Token"}},
			Responses: answers(map[string]openapi.Response{
				"204": {Description: "Deleted."},
				"404": {Ref: "NotFoundC"},
			}),
		}, {
			Method: "GET", Path: "/inboxes/{token}/messages/",
			ID:          "listMessagesC",
			Tags:        []string{"Family C"},
			Summary:     "List an inbox's messages, newest first",
			Description: "One page of list elements: messages without `text`, `html`, `cc` and `headers`, with `preview`.",
			Security:    tokenOrKey,
			Params:      []openapi.Param{{Ref: "Token"}, {Ref: "Limit"}, {Ref: "Offset"}, {Ref: "FromFilter"}, {Ref: "ToFilter"}, {Ref: "SubjectFilter"}},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "A page of messages.",
					Headers: map[string]openapi.Header{
						"X-Total-Count": {Ref: "X-Total-Count"},
					},
					Content: openapi.JSON(openapi.ArrayOf(openapi.Ref("MessageSummaryC"))),
				},
				"400": {Ref: "BadRequestC"},
				"404": {Ref: "NotFoundC"},
			}),
		}, {
			Method: "GET", Path: "/inboxes/{token}/events/",
			ID:          "streamEventsC",
			Tags:        []string{"Family C"},
			Summary:     "Follow an inbox's changes (Server-Sent Events)",
			Description: "See `EventStream`. `message` events carry family C's list element (`MessageSummaryC`).",
			Security:    tokenOrKey,
			Params:      []openapi.Param{{Ref: "Token"}, {Ref: "LastEventID"}},
			Responses: answers(map[string]openapi.Response{
				"200": family.EventStreamAnswer("MessageSummaryC"),
				"400": {Ref: "BadRequestC"},
				"404": {Ref: "NotFoundC"},
				"429": {Ref: "TooManyC"},
			}),
		}, {
			Method: "GET", Path: "/inboxes/{token}/messages/{id}/",
			ID:          "getMessageC",
			Tags:        []string{"Family C"},
			Summary:     "Get a message",
			Description: "Reading does not mark it read. Each attachment carries the `url` that downloads it.",
			Security:    tokenOrKey,
			Params:      []openapi.Param{{Ref: "Token"}, {Ref: "MessageID"}},
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "The message.", Content: openapi.JSON(openapi.Ref("MessageC"))},
				"404": {Ref: "NotFoundC"},
			}),
		}, {
			Method: "DELETE", Path: "/inboxes/{token}/messages/{id}/",
			ID:       "deleteMessageC",
			Tags:     []string{"Family C"},
			Summary:  "Delete a message",
			Security: tokenOrKey,
			Params:   []openapi.Param{{Ref: "Token"}, {Ref: "MessageID"}},
			Responses: answers(map[string]openapi.Response{
				"204": {Description: "Deleted."},
				"404": {Ref: "NotFoundC"},
			}),
		}, {
			Method: "POST", Path: "/inboxes/{token}/messages/{id}/read/",
			ID:          "markMessageReadC",
			Tags:        []string{"Family C"},
			Summary:     "Mark a message read",
			Description: "Idempotent.",
			Security:    tokenOrKey,
			Params:      []openapi.Param{{Ref: "Token"}, {Ref: "MessageID"}},
			Body:        &openapi.Body{Content: openapi.JSON(openapi.Ref("EmptyRequest"))},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "The message, with `is_read: true`.",
					Content:     openapi.JSON(openapi.Ref("MessageC")),
				},
				"400": {Ref: "BadRequestC"},
				"404": {Ref: "NotFoundC"},
				"413": {Ref: "PayloadTooLargeC"},
				"415": {Ref: "UnsupportedMediaTypeC"},
			}),
		}, {
			Method: "GET", Path: "/inboxes/{token}/messages/{id}/raw/",
			ID:          "getRawMessageC",
			Tags:        []string{"Family C"},
			Summary:     "Get a message's source",
			Description: "The message exactly as received, with the service's own `Received:` header on top.",
			Security:    tokenOrKey,
			Params: []openapi.Param{{Ref: "Token"}, {Ref: "MessageID"}, {
				Name:        "download",
				In:          "query",
				Description: "`1`: served as an attachment (`<id>.eml`), so that a browser saves it rather than shows it.",
				Schema:      &openapi.Schema{Type: "string", Enum: []any{"1"}},
			}},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "The raw message.",
					Headers: map[string]openapi.Header{
						"Content-Disposition": {Ref: "RawDisposition"},
					},
					Content: map[string]openapi.MediaType{
						"message/rfc822": {Schema: openapi.Ref("RawMessage")},
					},
				},
				"404": {Ref: "NotFoundC"},
			}),
		}, {
			Method: "GET", Path: "/inboxes/{token}/messages/{id}/body.html",
			ID:      "getMessageBodyHTML",
			Tags:    []string{"Family C"},
			Summary: "Get a message's HTML body, for a sandboxed frame",
			Description: "The HTML body (or the text body in a `<pre>`), less `<meta http-equiv=refresh>`, under a " +
				"Content-Security-Policy that runs no script, submits no form and loads nothing from " +
				"elsewhere unless `remote=1`; meant for a sandboxed `<iframe>` of the service's own origin.",
			Security: tokenOrKey,
			Params: []openapi.Param{{Ref: "Token"}, {Ref: "MessageID"}, {
				Name:        "remote",
				In:          "query",
				Description: "`1`: the policy lets remote images, styles and fonts load (tracking pixels too).",
				Schema:      &openapi.Schema{Type: "string", Enum: []any{"1"}},
			}},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "The body as an HTML document.",
					Headers: map[string]openapi.Header{
						"Content-Security-Policy": {Ref: "Content-Security-Policy"},
						"Referrer-Policy":         {Ref: "Referrer-Policy"},
						"X-Frame-Options":         {Description: "`SAMEORIGIN`.", Schema: &openapi.Schema{Type: "string"}},
						"Cache-Control":           {Description: "`private, no-store`.", Schema: &openapi.Schema{Type: "string"}},
					},
					Content: map[string]openapi.MediaType{
						"text/html": {Schema: &openapi.Schema{Type: "string"}},
					},
				},
				"404": {Ref: "NotFoundC"},
			}),
		}, {
			Method: "GET", Path: "/inboxes/{token}/messages/{id}/attachments/{n}/",
			ID:       "downloadAttachmentC",
			Tags:     []string{"Family C"},
			Summary:  "Download an attachment",
			Security: tokenOrKey,
			Params: []openapi.Param{{Ref: "Token"}, {Ref: "MessageID"}, {
				Name:        "n",
				In:          "path",
				Required:    true,
				Description: "The attachment's position in the message's `attachments`, from 1.",
				Schema:      &openapi.Schema{Type: "integer", Minimum: openapi.N(1)},
			}},
			Responses: answers(map[string]openapi.Response{
				"200": {Ref: "Attachment"},
				"404": {Ref: "NotFoundC"},
			}),
		}, {
			Method: "POST", Path: "/inboxes/{token}/webhooks/",
			ID:          "createWebhookC",
			Tags:        []string{"Webhooks"},
			Summary:     "Subscribe to this inbox",
			Description: "The token is the credential. The subscription ends with the inbox.",
			Security:    tokenOrKey,
			Params:      []openapi.Param{{Ref: "Token"}},
			Body:        &openapi.Body{Required: false, Content: openapi.JSON(openapi.Ref("SubscribeRequestC"))},
			Responses: answers(map[string]openapi.Response{
				"201": {
					Description: "The subscription, with its signing secret.",
					Content:     openapi.JSON(openapi.Ref("SubscriptionWithSecret")),
				},
				"400": {Ref: "BadRequestC"},
				"404": {Ref: "NotFoundC"},
				"409": {Ref: "ConflictWebhooks"},
				"413": {Ref: "PayloadTooLargeC"},
				"415": {Ref: "UnsupportedMediaTypeC"},
				"429": {Ref: "TooManyC"},
				"507": {Ref: "FullC"},
			}),
		}, {
			Method: "GET", Path: "/inboxes/{token}/webhooks/",
			ID:       "listWebhooksC",
			Tags:     []string{"Webhooks"},
			Summary:  "This inbox's subscriptions",
			Security: tokenOrKey,
			Params:   []openapi.Param{{Ref: "Token"}},
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "Oldest first.", Content: openapi.JSON(openapi.Ref("Subscriptions"))},
				"404": {Ref: "NotFoundC"},
			}),
		}, {
			Method: "GET", Path: "/inboxes/{token}/webhooks/{webhook}/",
			ID:       "getWebhookC",
			Tags:     []string{"Webhooks"},
			Summary:  "Get one of this inbox's subscriptions",
			Security: tokenOrKey,
			Params:   []openapi.Param{{Ref: "Token"}, {Ref: "WebhookID"}},
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "The subscription.", Content: openapi.JSON(openapi.Ref("Subscription"))},
				"404": webhookNotFound,
			}),
		}, {
			Method: "DELETE", Path: "/inboxes/{token}/webhooks/{webhook}/",
			ID:       "deleteWebhookC",
			Tags:     []string{"Webhooks"},
			Summary:  "End one of this inbox's subscriptions",
			Security: tokenOrKey,
			Params:   []openapi.Param{{Ref: "Token"}, {Ref: "WebhookID"}},
			Responses: answers(map[string]openapi.Response{
				"204": {Description: "Ended."},
				"404": webhookNotFound,
			}),
		}, {
			Method: "GET", Path: "/inboxes/{token}/webhooks/{webhook}/deliveries/",
			ID:       "listDeliveriesC",
			Tags:     []string{"Webhooks"},
			Summary:  "Recent delivery attempts",
			Security: tokenOrKey,
			Params:   []openapi.Param{{Ref: "Token"}, {Ref: "WebhookID"}},
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "Newest first.", Content: openapi.JSON(openapi.Ref("DeliveryAttempts"))},
				"404": webhookNotFound,
			}),
		}, {
			Method: "POST", Path: "/inboxes/{token}/webhooks/{webhook}/rotate-secret/",
			ID:      "rotateWebhookSecretC",
			Tags:    []string{"Webhooks"},
			Summary: "Replace a subscription's signing secret",
			Description: "One of the inbox's own subscriptions, with its token. The new secret is in this answer " +
				"and nowhere else later; the old one stops signing at once.",
			Security: tokenOrKey,
			Params:   []openapi.Param{{Ref: "Token"}, {Ref: "WebhookID"}},
			Body:     &openapi.Body{Content: openapi.JSON(openapi.Ref("EmptyRequest"))},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "The subscription, with its new signing secret.",
					Content:     openapi.JSON(openapi.Ref("SubscriptionWithSecret")),
				},
				"400": {Ref: "BadRequestC"},
				"404": webhookNotFound,
				"409": {Ref: "ConflictRotation"},
				"413": {Ref: "PayloadTooLargeC"},
				"415": {Ref: "UnsupportedMediaTypeC"},
			}),
		}, {
			Method: "POST", Path: "/inboxes/{token}/faults/",
			ID:      "createFaultC",
			Tags:    []string{"Failing on purpose"},
			Summary: "Make this inbox's SMTP server fail on purpose",
			Description: "A fault rule: at its SMTP command (`RCPT`, during `DATA`, or `AFTER_DATA`), for deliveries to " +
				"this inbox, a reply, a delay or a closed connection, for the first `times` attempts, every `every`-th, " +
				"or a seeded `fraction`. The token is the credential. At most 10 live rules; a rule expires after " +
				"`expires_in` (1 hour when not given) or with the inbox. A rule only ever refuses, delays or drops.",
			Security: tokenOrKey,
			Params:   []openapi.Param{{Ref: "Token"}},
			Body:     &openapi.Body{Required: true, Content: openapi.JSON(openapi.Ref("FaultRequest"))},
			Responses: answers(map[string]openapi.Response{
				"201": {Description: "The rule.", Content: openapi.JSON(openapi.Ref("FaultRule"))},
				"400": {Ref: "BadRequestC"},
				"404": {Ref: "NotFoundC"},
				"413": {Ref: "PayloadTooLargeC"},
				"415": {Ref: "UnsupportedMediaTypeC"},
				"429": {Ref: "TooManyC"},
			}),
		}, {
			Method: "GET", Path: "/inboxes/{token}/faults/",
			ID:       "listFaultsC",
			Tags:     []string{"Failing on purpose"},
			Summary:  "This inbox's live fault rules",
			Security: tokenOrKey,
			Params:   []openapi.Param{{Ref: "Token"}},
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "Oldest first.", Content: openapi.JSON(openapi.Ref("FaultRules"))},
				"404": {Ref: "NotFoundC"},
			}),
		}, {
			Method: "DELETE", Path: "/inboxes/{token}/faults/{fault}/",
			ID:       "deleteFaultC",
			Tags:     []string{"Failing on purpose"},
			Summary:  "End one of this inbox's fault rules",
			Security: tokenOrKey,
			Params: []openapi.Param{{Ref: "Token"}, {
				Name:        "fault",
				In:          "path",
				Required:    true,
				Description: "The rule's id. An unknown or malformed id is answered 404.",
				Schema:      &openapi.Schema{Type: "string", Format: "uuid"},
			}},
			Responses: answers(map[string]openapi.Response{
				"204": {Description: "Ended."},
				"404": {Description: "`Inbox not found` or `fault rule not found`.", Content: openapi.JSON(openapi.Ref("Error"))},
			}),
		}, {
			Method: "GET", Path: "/inboxes/{token}/attempts/",
			ID:      "listAttemptsC",
			Tags:    []string{"Failing on purpose"},
			Summary: "SMTP attempts at this inbox",
			Description: "Kept from the inbox's first fault rule on: each attempt a rule acted on, and each message " +
				"stored, newest first, at most 50.",
			Security: tokenOrKey,
			Params:   []openapi.Param{{Ref: "Token"}},
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "Newest first.", Content: openapi.JSON(openapi.Ref("Attempts"))},
				"404": {Ref: "NotFoundC"},
			}),
		}, {
			Method: "GET", Path: "/inboxes/{token}/latest/",
			ID:      "getLatestMessage",
			Tags:    []string{"Family C"},
			Summary: "Get the newest message",
			Description: "The newest message (that passes the filters, newer than `after`). With `wait`, a request " +
				"that finds none is held until one arrives or the time is up.",
			Security: readKeyOrKey,
			Params:   append([]openapi.Param{{Ref: "Token"}}, waiting...),
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "The message (its attachments without `url`).",
					Content:     openapi.JSON(openapi.Ref("MessageC")),
				},
				"400": {Ref: "BadRequestC"},
				"401": {Ref: "ReadKeyRequired"},
				"403": {Ref: "ReadKeyInvalid"},
				"404": noneFound("No messages"),
				"429": {Ref: "TooManyC"},
			}),
		}, {
			Method: "GET", Path: "/inboxes/{token}/otp/",
			ID:      "getOTP",
			Tags:    []string{"Family C"},
			Summary: "Find the newest one-time code",
			Description: "The newest message (that passes the filters, newer than `after`) whose subject or text " +
				"body (the HTML as text when there is no text part) matches `pattern`; within a message " +
				"the subject is tried first. The code is the pattern's first capturing group if it has " +
				"one, else the whole match. With `wait`, a request that finds none is held until one " +
				"arrives or the time is up.",
			Security: readKeyOrKey,
			Params:   append([]openapi.Param{{Ref: "Token"}, {Ref: "Pattern"}}, waiting...),
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "The code and the message it was found in.",
					Content:     openapi.JSON(openapi.Ref("OTP")),
				},
				"400": {Ref: "BadRequestC"},
				"401": {Ref: "ReadKeyRequired"},
				"403": {Ref: "ReadKeyInvalid"},
				"404": noneFound("No code found"),
				"429": {Ref: "TooManyC"},
			}),
		}, {
			Method: "GET", Path: "/inboxes/{token}/link/",
			ID:      "getLink",
			Tags:    []string{"Family C"},
			Summary: "Find the newest link",
			Description: "The first link of the newest message (among the newest 200 that pass the filters and are " +
				"newer than `after`) that has a link whose URL matches `pattern` (any link without it). A " +
				"message's links are its HTML's `<a href>` in document order, entities decoded, then the " +
				"URLs in its text part; http and https only. With `wait`, a request that finds none is " +
				"held until one arrives or the time is up.",
			Security: readKeyOrKey,
			Params:   append([]openapi.Param{{Ref: "Token"}, {Ref: "LinkPattern"}}, waiting...),
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "The link and the message it was found in.",
					Content:     openapi.JSON(openapi.Ref("LinkFound")),
				},
				"400": {Ref: "BadRequestC"},
				"401": {Ref: "ReadKeyRequired"},
				"403": {Ref: "ReadKeyInvalid"},
				"404": noneFound("No link"),
			}),
		}, {
			Method: "GET", Path: "/address/latest/",
			ID:      "getLatestByAddress",
			Tags:    []string{"Family C"},
			Summary: "Get the newest message of an address",
			Description: "As `GET /inboxes/{token}/latest/`, for the live inbox with this address. An inbox of a " +
				"catch-all domain (`--catch-all-domains`: made by mail to an address anyone may guess) is " +
				"read by address only with `Authorization: Token <API_TOKEN>` or `Authorization: Token " +
				"<its own token>`; without either it is answered `404 {\"error\": \"Inbox not found\"}` at " +
				"once, whatever `wait` says, as an address no inbox has.",
			Security: []openapi.Security{{}, {"readKey"}, {"apiToken"}, {"apiToken", "readKey"}, {"apiKey"}},
			Params: append([]openapi.Param{{
				Name:        "address",
				In:          "query",
				Required:    true,
				Description: "The inbox's full address; compared case-insensitively.",
				Schema:      &openapi.Schema{Type: "string"},
			}}, waiting...),
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "The message (its attachments without `url`).",
					Content:     openapi.JSON(openapi.Ref("MessageC")),
				},
				"400": {Ref: "BadRequestC"},
				"401": {Ref: "ReadKeyRequired"},
				"403": {Ref: "ReadKeyInvalid"},
				"404": {
					Description: "`{\"error\": \"No messages\"}` when none matches (within `wait`), or `{\"error\": \"Inbox not " +
						"found\"}` for an address no live inbox has, and for a catch-all domain's inbox asked for " +
						"without the API token or its own.",
					Content: openapi.JSON(openapi.Ref("Error")),
				},
				"429": {Ref: "TooManyC"},
			}),
		},
		},
		Parameters: map[string]openapi.Param{
			"Token": {
				Name:     "token",
				In:       "path",
				Required: true,
				Description: "The inbox's access token: the credential of everything under it. Unknown or expired: 404 " +
					"`{\"error\": \"Inbox not found\"}`.",
				Schema: &openapi.Schema{Type: "string", Pattern: "^[A-Za-z0-9_-]{1,64}$"},
			},
			"MessageID": {
				Name:        "id",
				In:          "path",
				Required:    true,
				Description: "The message's id.",
				Schema:      &openapi.Schema{Type: "string", Format: "uuid"},
			},
			"Wait": {
				Name: "wait",
				In:   "query",
				Description: "Seconds to hold the request while nothing (newer than `after`, passing the filters) " +
					"matches; it is answered 200 as soon as something does, else as without `wait` when the " +
					"time is up. Held requests count against `--max-waiters` (503 with `Retry-After` beyond).",
				Schema: &openapi.Schema{Type: "integer", Default: 0, Minimum: openapi.N(0), Maximum: openapi.N(60)},
			},
			"After": {
				Name:        "after",
				In:          "query",
				Description: "Only messages newer than this message id (ids sort by arrival).",
				Schema:      &openapi.Schema{Type: "string", Format: "uuid"},
			},
			"Pattern": {
				Name: "pattern",
				In:   "query",
				Description: "A Go RE2 regular expression of at most 512 bytes; a pattern that does not compile is " +
					"answered 400 `{\"error\": \"invalid pattern: ...\"}`.",
				Schema: &openapi.Schema{Type: "string", Default: "\\b\\d{6}\\b", MaxLength: openapi.N(512)},
			},
			"LinkPattern": {
				Name: "pattern",
				In:   "query",
				Description: "A Go RE2 regular expression of at most 512 bytes, matched against each link's URL; " +
					"without it, any link. A pattern that does not compile is answered 400 `{\"error\": \"invalid " +
					"pattern: ...\"}`.",
				Schema: &openapi.Schema{Type: "string", MaxLength: openapi.N(512)},
			},
		},
		Headers: map[string]openapi.Header{
			"Referrer-Policy": {Description: "`no-referrer`.", Schema: &openapi.Schema{Type: "string"}},
		},
		Responses: map[string]openapi.Response{
			"BadRequestC": {
				Description: "A field, query parameter or header has a value the endpoint cannot take, or the body is " +
					"not valid JSON; `error` says what to fix.",
				Content: openapi.JSON(openapi.Ref("Error")),
			},
			"ConflictC": {Description: "`Email name already taken`.", Content: openapi.JSON(openapi.Ref("Error"))},
			"ForbiddenC": {
				Description: "The API key lacks the scope the request needs (`inboxes` to make or delete; `read` or " +
					"`inboxes` to read; `webhooks` for subscriptions). Or a tenant's inbox quota is reached: " +
					"`quota exceeded: inboxes 10 of 10`.",
				Content: openapi.JSON(openapi.Ref("Error")),
			},
			"FullC": {
				Description: "The disk of the service's data directory is nearly full (below `--min-free-disk`): " +
					"nothing new is made until room is made. Deletions still work; try again later.",
				Content: openapi.JSON(openapi.Ref("Error")),
			},
			"InternalErrorC": {
				Description: "Something failed inside the service; the details are logged.",
				Content:     openapi.JSON(openapi.Ref("Error")),
			},
			"NotFoundC": {
				Description: "`Inbox not found` (unknown or expired token), `Message not found` or `Attachment not found`.",
				Content:     openapi.JSON(openapi.Ref("Error")),
			},
			"PayloadTooLargeC": {
				Description: "The body is larger than 1 MiB.",
				Content:     openapi.JSON(openapi.Ref("Error")),
			},
			"ReadKeyInvalid": {
				Description: "`X-Read-Key` is not the read key: `{\"error\": \"invalid read key\"}`. Or an API key that " +
					"lacks the `read` and `inboxes` scopes.",
				Content: openapi.JSON(openapi.Ref("Error")),
			},
			"ReadKeyRequired": {
				Description: "`--read-key` is set and the request has no `X-Read-Key`: `{\"error\": \"read key " +
					"required\"}`. Also an API key in `Authorization: Bearer` that is unknown, revoked or " +
					"expired.",
				Content: openapi.JSON(openapi.Ref("Error")),
			},
			"TooManyC": {
				Description: "The client used its share: of creations (`--create-rate-per-client`, inboxes and webhook " +
					"subscriptions together), or of requests held open (`--max-waiters-per-client`, waits and " +
					"event streams together). Try again after `Retry-After` seconds. A client is its address, " +
					"or behind a reverse proxy named by `--trusted-proxies` the address that proxy saw; an " +
					"IPv6 client is its /64.",
				Headers: map[string]openapi.Header{
					"Retry-After": {Ref: "Retry-After"},
				},
				Content: openapi.JSON(openapi.Ref("Error")),
			},
			"UnauthorizedC": {
				Description: "An API key in `Authorization: Bearer` that is unknown, revoked or expired: `{\"error\": " +
					"\"Invalid key: unknown, revoked or expired.\"}`.",
				Content: openapi.JSON(openapi.Ref("Error")),
			},
			"UnavailableC": {
				Description: "The event store cannot be reached now, or too many requests are held open (`wait`, event " +
					"streams); try again after `Retry-After` seconds.",
				Headers: map[string]openapi.Header{
					"Retry-After": {Ref: "Retry-After"},
				},
				Content: openapi.JSON(openapi.Ref("Error")),
			},
			"UnsupportedMediaTypeC": {
				Description: "A non-empty body with a non-JSON `Content-Type`.",
				Content:     openapi.JSON(openapi.Ref("Error")),
			},
		},
		SecuritySchemes: map[string]openapi.SecurityScheme{
			"readKey": {
				Type: "apiKey",
				In:   "header",
				Name: "X-Read-Key",
				Description: "Family C: with `--read-key` set, `latest`, `otp`, `link` and `address/latest` need " +
					"`X-Read-Key: <key>` (401 without it, 403 with another).",
			},
		},
		Schemas: schemas(),
	}
}

// Most operations of family C are asked with the inbox's token alone, or
// with an API key besides; those that find the newest message, with the
// read key instead when --read-key is set.
var (
	tokenOrKey   = []openapi.Security{{}, {"apiKey"}}
	readKeyOrKey = []openapi.Security{{}, {"readKey"}, {"apiKey"}}
)

// waiting are the parameters of the operations that find the newest
// message: how long to wait for one, newer than which, and the filters.
var waiting = []openapi.Param{{Ref: "Wait"}, {Ref: "After"}, {Ref: "FromFilter"}, {Ref: "ToFilter"}, {Ref: "SubjectFilter"}}

// webhookNotFound is the 404 of an operation on one of an inbox's
// subscriptions: either may be unknown.
var webhookNotFound = openapi.Response{
	Description: "`Inbox not found` or `Webhook not found`.",
	Content:     openapi.JSON(openapi.Ref("Error")),
}

// noneFound is the 404 of an operation that finds the newest message (or
// what is in it): err when nothing matches, or an unknown inbox.
func noneFound(err string) openapi.Response {
	return openapi.Response{
		Description: "`{\"error\": \"" + err + "\"}` when none matches (within `wait`), or `{\"error\": \"Inbox not found\"}`.",
		Content:     openapi.JSON(openapi.Ref("Error")),
	}
}

// answers returns an operation's own answers with the errors any
// operation of family C may give, for the statuses it does not answer
// itself: an API key unknown (401) or without the scope (403), a failure
// inside (500), the event store out of reach (503). The operations that
// take the read key answer 401 and 403 their own way.
func answers(own map[string]openapi.Response) map[string]openapi.Response {
	return openapi.WithAnswers(own, map[string]openapi.Response{
		"401": {Ref: "UnauthorizedC"},
		"403": {Ref: "ForbiddenC"},
		"500": {Ref: "InternalErrorC"},
		"503": {Ref: "UnavailableC"},
	})
}
