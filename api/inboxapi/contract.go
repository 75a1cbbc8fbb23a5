package inboxapi

import (
	"tempmail/api/family"
	"tempmail/api/openapi"
)

// Contract is family A's part of the OpenAPI document (api/openapi.json):
// the operations Routes serves, family A's parameters and error answers
// (which the admin's and the inbound webhook's operations, on family A's
// paths, name too), and the shapes of its bodies (schemas.go).
func Contract() openapi.Contract {
	return openapi.Contract{
		Operations: []openapi.Operation{{
			Method: "GET", Path: "/api/domains/",
			ID:      "listDomains",
			Tags:    []string{"Family A"},
			Summary: "List the active domains",
			Description: "The active domains by `id`. A domain keeps its `id` forever, also when the configuration " +
				"is reordered. A private domain (added with a `tenant_id`) is listed to its tenant's keys " +
				"and the admin alone.",
			Security: anyoneOrKey,
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "The active domains.",
					Content:     openapi.JSON(openapi.ArrayOf(openapi.Ref("Domain"))),
				},
			}),
		}, {
			Method: "GET", Path: "/api/inboxes/",
			ID:      "findInboxesByAddress",
			Tags:    []string{"Family A"},
			Summary: "Find the live inbox of an address, or list a tenant's inboxes",
			Description: "The live inboxes with this address, whichever family made them: at most one, in an array " +
				"so that none is `[]`. It is how the operator finds an inbox a catch-all domain made for " +
				"its first mail (`--catch-all-domains`), whose id and token nobody was given; it always " +
				"takes the API token, even without `--require-token`. Without `email`, with a tenant's API " +
				"key: that tenant's live inboxes, newest first, paged (`X-Total-Count` holds the total), " +
				"filtered by `address` (a part of it) and `created_after`.",
			Security: []openapi.Security{{"apiToken"}, {"apiKey"}},
			Params: []openapi.Param{{
				Name: "email",
				In:   "query",
				Description: "With the API token: the address, in any case; a `+tag` is part of it (mail to `name+tag@` " +
					"goes to `name@`'s inbox). Without it, a key's tenant's inboxes are listed.",
				Schema:  &openapi.Schema{Type: "string", MinLength: openapi.N(3), MaxLength: openapi.N(318)},
				Example: "signup-7@catch.example.com",
			}, {Ref: "Limit"}, {Ref: "Offset"}, {
				Name:        "address",
				In:          "query",
				Description: "With a key: only the inboxes whose address holds this, in any case.",
				Schema:      &openapi.Schema{Type: "string", MaxLength: openapi.N(256)},
			}, {
				Name:        "created_after",
				In:          "query",
				Description: "With a key: only the inboxes made after this time.",
				Schema:      &openapi.Schema{Type: "string", Format: "date-time"},
			}, {
				Name:        "tenant",
				In:          "query",
				Description: "The admin's: the tenant to ask about, by id (a key asks about its own tenant: `403`).",
				Schema:      &openapi.Schema{Type: "string", Format: "uuid"},
			}},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "With `email`: the live inboxes with the address, none or one. Without: a page of the " +
						"key's tenant's live inboxes.",
					Headers: map[string]openapi.Header{
						"X-Total-Count": {Ref: "X-Total-Count"},
					},
					Content: openapi.JSON(&openapi.Schema{
						AnyOf: []openapi.Schema{
							{Type: "array", MaxItems: openapi.N(1), Items: openapi.Ref("InboxByAddressA")},
							{Type: "array", Items: openapi.Ref("TenantInboxA")},
						},
					}),
				},
				"400": {Ref: "BadRequestA"},
				"404": {Ref: "NotFoundA"},
			}),
		}, {
			Method: "POST", Path: "/api/inboxes/create_inbox/",
			ID:      "createInboxA",
			Tags:    []string{"Family A"},
			Summary: "Create an inbox on a domain",
			Description: "The local part is 10 random `[a-z0-9]`. `ttl` is whole seconds, default 3600, between " +
				"`--min-inbox-ttl` (default 60) and `--max-inbox-ttl` (default 604800).",
			Security: anyoneOrKey,
			Body:     &openapi.Body{Content: openapi.JSON(openapi.Ref("CreateInboxARequest"))},
			Responses: answers(map[string]openapi.Response{
				"201": {Description: "The new inbox.", Content: openapi.JSON(openapi.Ref("InboxA"))},
				"400": {Ref: "BadRequestA"},
				"404": {
					Description: "`domain_id` names no active domain: `{\"error\": \"Domain not found or inactive\"}`.",
					Content:     openapi.JSON(openapi.Ref("Error")),
				},
				"413": {Ref: "PayloadTooLargeA"},
				"415": {Ref: "UnsupportedMediaTypeA"},
				"429": {Ref: "TooManyA"},
				"507": {Ref: "FullA"},
			}),
		}, {
			Method: "GET", Path: "/api/inboxes/{id}/",
			ID:       "getInboxA",
			Tags:     []string{"Family A"},
			Summary:  "Get an inbox",
			Security: anyoneOrKey,
			Params:   []openapi.Param{{Ref: "InboxID"}},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "The inbox and how many messages it holds.",
					Content:     openapi.JSON(openapi.Ref("InboxADetail")),
				},
				"404": {Ref: "NotFoundA"},
			}),
		}, {
			Method: "DELETE", Path: "/api/inboxes/{id}/",
			ID:          "deleteInboxA",
			Tags:        []string{"Family A"},
			Summary:     "Delete an inbox and all its mail",
			Description: "The inbox and all its mail are gone for good, raw sources and attachments included.",
			Security:    anyoneOrKey,
			Params:      []openapi.Param{{Ref: "InboxID"}},
			Responses: answers(map[string]openapi.Response{
				"204": {Description: "Deleted."},
				"404": {Ref: "NotFoundA"},
			}),
		}, {
			Method: "GET", Path: "/api/inboxes/{id}/emails/",
			ID:      "listEmailsA",
			Tags:    []string{"Family A"},
			Summary: "List an inbox's emails, newest first",
			Description: "One page of summaries; bodies are only in the detail. The filters are optional, ANDed, " +
				"case-insensitive substrings.",
			Security: anyoneOrKey,
			Params:   []openapi.Param{{Ref: "InboxID"}, {Ref: "Limit"}, {Ref: "Offset"}, {Ref: "FromFilter"}, {Ref: "ToFilter"}, {Ref: "SubjectFilter"}},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "A page of email summaries.",
					Headers: map[string]openapi.Header{
						"X-Total-Count": {Ref: "X-Total-Count"},
					},
					Content: openapi.JSON(openapi.ArrayOf(openapi.Ref("EmailSummaryA"))),
				},
				"400": {Ref: "BadRequestA"},
				"404": {Ref: "NotFoundA"},
			}),
		}, {
			Method: "GET", Path: "/api/inboxes/{id}/events/",
			ID:          "streamEventsA",
			Tags:        []string{"Family A"},
			Summary:     "Follow an inbox's changes (Server-Sent Events)",
			Description: "See `EventStream`. `message` events carry family A's email summary (`EmailSummaryA`).",
			Security:    anyoneOrKey,
			Params:      []openapi.Param{{Ref: "InboxID"}, {Ref: "LastEventID"}},
			Responses: answers(map[string]openapi.Response{
				"200": family.EventStreamAnswer("EmailSummaryA"),
				"400": {Ref: "BadRequestA"},
				"404": {Ref: "NotFoundA"},
				"429": {Ref: "TooManyA"},
			}),
		}, {
			Method: "GET", Path: "/api/emails/{id}/",
			ID:          "getEmailA",
			Tags:        []string{"Family A"},
			Summary:     "Get an email",
			Description: "Reading does not mark it read.",
			Security:    anyoneOrKey,
			Params:      []openapi.Param{{Ref: "EmailID"}},
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "The email.", Content: openapi.JSON(openapi.Ref("EmailA"))},
				"404": {Ref: "NotFoundA"},
			}),
		}, {
			Method: "DELETE", Path: "/api/emails/{id}/",
			ID:       "deleteEmailA",
			Tags:     []string{"Family A"},
			Summary:  "Delete an email",
			Security: anyoneOrKey,
			Params:   []openapi.Param{{Ref: "EmailID"}},
			Responses: answers(map[string]openapi.Response{
				"204": {Description: "Deleted."},
				"404": {Ref: "NotFoundA"},
			}),
		}, {
			Method: "POST", Path: "/api/emails/{id}/mark_as_read/",
			ID:          "markEmailReadA",
			Tags:        []string{"Family A"},
			Summary:     "Mark an email read",
			Description: "Idempotent.",
			Security:    anyoneOrKey,
			Params:      []openapi.Param{{Ref: "EmailID"}},
			Body:        &openapi.Body{Content: openapi.JSON(openapi.Ref("EmptyRequest"))},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "The email, with `is_read: true`.",
					Content:     openapi.JSON(openapi.Ref("EmailA")),
				},
				"400": {Ref: "BadRequestA"},
				"404": {Ref: "NotFoundA"},
				"413": {Ref: "PayloadTooLargeA"},
				"415": {Ref: "UnsupportedMediaTypeA"},
			}),
		}, {
			Method: "GET", Path: "/api/emails/{id}/raw/",
			ID:          "getRawEmailA",
			Tags:        []string{"Family A"},
			Summary:     "Get an email's source",
			Description: "The message exactly as received, with the service's own `Received:` header on top.",
			Security:    anyoneOrKey,
			Params:      []openapi.Param{{Ref: "EmailID"}},
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
				"404": {Ref: "NotFoundA"},
			}),
		}, {
			Method: "GET", Path: "/api/attachments/{id}/download/",
			ID:       "downloadAttachmentA",
			Tags:     []string{"Family A"},
			Summary:  "Download an attachment",
			Security: anyoneOrKey,
			Params:   []openapi.Param{{Ref: "AttachmentID"}},
			Responses: answers(map[string]openapi.Response{
				"200": {Ref: "Attachment"},
				"404": {Ref: "NotFoundA"},
			}),
		}, {
			Method: "POST", Path: "/api/webhooks/",
			ID:          "createWebhookA",
			Tags:        []string{"Webhooks"},
			Summary:     "Subscribe to every inbox, or one",
			Description: "Always needs the API token. With `inbox_id`, the subscription follows that inbox and ends with it.",
			Security:    apiTokenOnly,
			Body:        &openapi.Body{Required: false, Content: openapi.JSON(openapi.Ref("SubscribeRequestA"))},
			Responses: answers(map[string]openapi.Response{
				"201": {
					Description: "The subscription, with its signing secret.",
					Content:     openapi.JSON(openapi.Ref("SubscriptionWithSecret")),
				},
				"400": {Ref: "BadRequestA"},
				"404": {
					Description: "`Inbox not found or expired`: `inbox_id` names no live inbox.",
					Content:     openapi.JSON(openapi.Ref("Error")),
				},
				"409": {Ref: "ConflictWebhooks"},
				"413": {Ref: "PayloadTooLargeA"},
				"415": {Ref: "UnsupportedMediaTypeA"},
				"429": {Ref: "TooManyA"},
				"507": {Ref: "FullA"},
			}),
		}, {
			Method: "GET", Path: "/api/webhooks/",
			ID:          "listWebhooksA",
			Tags:        []string{"Webhooks"},
			Summary:     "List subscriptions",
			Description: "The subscriptions to every inbox; with `inbox_id`, those of that inbox instead.",
			Security:    apiTokenOnly,
			Params: []openapi.Param{{
				Name:        "inbox_id",
				In:          "query",
				Description: "List this inbox's subscriptions.",
				Schema:      &openapi.Schema{Type: "string", Format: "uuid"},
			}},
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "Oldest first.", Content: openapi.JSON(openapi.Ref("Subscriptions"))},
				"404": {Description: "`Inbox not found or expired`.", Content: openapi.JSON(openapi.Ref("Error"))},
			}),
		}, {
			Method: "GET", Path: "/api/webhooks/{webhook}/",
			ID:       "getWebhookA",
			Tags:     []string{"Webhooks"},
			Summary:  "Get any subscription",
			Security: apiTokenOnly,
			Params:   []openapi.Param{{Ref: "WebhookID"}},
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "The subscription.", Content: openapi.JSON(openapi.Ref("Subscription"))},
				"404": {Ref: "NotFoundA"},
			}),
		}, {
			Method: "DELETE", Path: "/api/webhooks/{webhook}/",
			ID:       "deleteWebhookA",
			Tags:     []string{"Webhooks"},
			Summary:  "End a subscription",
			Security: apiTokenOnly,
			Params:   []openapi.Param{{Ref: "WebhookID"}},
			Responses: answers(map[string]openapi.Response{
				"204": {Description: "Ended; its pending deliveries are dropped and its delivery log forgotten."},
				"404": {Ref: "NotFoundA"},
			}),
		}, {
			Method: "GET", Path: "/api/webhooks/{webhook}/deliveries/",
			ID:       "listDeliveriesA",
			Tags:     []string{"Webhooks"},
			Summary:  "Recent delivery attempts",
			Security: apiTokenOnly,
			Params:   []openapi.Param{{Ref: "WebhookID"}},
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "Newest first.", Content: openapi.JSON(openapi.Ref("DeliveryAttempts"))},
				"404": {Ref: "NotFoundA"},
			}),
		}, {
			Method: "POST", Path: "/api/webhooks/{webhook}/rotate-secret/",
			ID:      "rotateWebhookSecretA",
			Tags:    []string{"Webhooks"},
			Summary: "Replace a subscription's signing secret",
			Description: "Any subscription, an inbox's included; always needs the API token. The new secret is in " +
				"this answer and nowhere else later; the old one stops signing at once, and deliveries " +
				"from now on (retries of earlier ones included) are signed with the new one.",
			Security: apiTokenOnly,
			Params:   []openapi.Param{{Ref: "WebhookID"}},
			Body:     &openapi.Body{Content: openapi.JSON(openapi.Ref("EmptyRequest"))},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "The subscription, with its new signing secret.",
					Content:     openapi.JSON(openapi.Ref("SubscriptionWithSecret")),
				},
				"400": {Ref: "BadRequestA"},
				"404": {Ref: "NotFoundA"},
				"409": {Ref: "ConflictRotation"},
				"413": {Ref: "PayloadTooLargeA"},
				"415": {Ref: "UnsupportedMediaTypeA"},
			}),
		}, {
			Method: "GET", Path: "/api/usage/",
			ID:      "getUsage",
			Tags:    []string{"Tenants"},
			Summary: "A key's tenant's usage of its quota",
			Description: "`inboxes.limit` is the quota, or 5000 (the most any tenant may have) when it is 0 or " +
				"more. The admin asks about any tenant with `tenant=<id>`.",
			Security: []openapi.Security{{"apiKey"}},
			Params: []openapi.Param{{
				Name:        "tenant",
				In:          "query",
				Description: "The admin's: the tenant to ask about, by id (a key asks about its own tenant: `403`).",
				Schema:      &openapi.Schema{Type: "string", Format: "uuid"},
			}},
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "The usage.", Content: openapi.JSON(openapi.Ref("Usage"))},
				"400": {Ref: "BadRequestA"},
				"404": {Ref: "NotFoundA"},
			}),
		},
		},
		Parameters: map[string]openapi.Param{
			"InboxID": {
				Name:        "id",
				In:          "path",
				Required:    true,
				Description: "The inbox's id. An unknown or malformed id, or an expired inbox's, is answered 404.",
				Schema:      &openapi.Schema{Type: "string", Format: "uuid"},
			},
			"EmailID": {
				Name:        "id",
				In:          "path",
				Required:    true,
				Description: "The email's id.",
				Schema:      &openapi.Schema{Type: "string", Format: "uuid"},
			},
			"AttachmentID": {
				Name:        "id",
				In:          "path",
				Required:    true,
				Description: "The attachment's id, as in the email's `attachments`: the email's id and the attachment's position.",
				Schema:      openapi.Ref("AttachmentIDA"),
			},
		},
		Responses: map[string]openapi.Response{
			"BadRequestA": {
				Description: "A field, query parameter or header has a value the endpoint cannot take, or the body is " +
					"not valid JSON; `error` says what to fix.",
				Content: openapi.JSON(openapi.Ref("Error")),
			},
			"ForbiddenA": {
				Description: "The API key lacks the scope the request needs: `admin` for the tenants' endpoints and " +
					"whatever else takes the API token; `inboxes` to make or delete inboxes and messages; " +
					"`read` or `inboxes` to read. Or a tenant's inbox quota is reached: `quota exceeded: " +
					"inboxes 10 of 10`.",
				Content: openapi.JSON(openapi.Ref("Error")),
			},
			"FullA": {
				Description: "The disk of the service's data directory is nearly full (below `--min-free-disk`): " +
					"nothing new is made until room is made. Deletions still work; try again later.",
				Content: openapi.JSON(openapi.Ref("Error")),
			},
			"InternalErrorA": {
				Description: "Something failed inside the service; the details are logged.",
				Content:     openapi.JSON(openapi.Ref("Error")),
			},
			"NotFoundA": {
				Description: "`{\"detail\": \"Not found.\"}`: unknown or malformed id, or an expired inbox.",
				Content:     openapi.JSON(openapi.Ref("ErrorDetail")),
			},
			"PayloadTooLargeA": {
				Description: "The body is larger than the endpoint takes.",
				Content:     openapi.JSON(openapi.Ref("Error")),
			},
			"TooManyA": {
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
			"UnauthorizedA": {
				Description: "No token (`{\"detail\": \"Authentication credentials were not provided.\"}`) or a wrong one " +
					"(`{\"detail\": \"Invalid token.\"}`); or an API key (`tm_...`, in `Token` or `Bearer`) that " +
					"is unknown, revoked or expired (`{\"detail\": \"Invalid key: unknown, revoked or " +
					"expired.\"}`).",
				Headers: map[string]openapi.Header{
					"WWW-Authenticate": {Ref: "WWW-Authenticate"},
				},
				Content: openapi.JSON(openapi.Ref("ErrorDetail")),
			},
			"UnavailableA": {
				Description: "The event store cannot be reached now, or too many requests are held open (event " +
					"streams); try again after `Retry-After` seconds.",
				Headers: map[string]openapi.Header{
					"Retry-After": {Ref: "Retry-After"},
				},
				Content: openapi.JSON(openapi.Ref("Error")),
			},
			"UnsupportedMediaTypeA": {
				Description: "A non-empty body with a `Content-Type` the endpoint does not take.",
				Content:     openapi.JSON(openapi.Ref("ErrorDetail")),
			},
		},
		Schemas: schemas(),
	}
}

// answers returns an operation's own answers with the errors any operation
// of family A may give, for the statuses it does not answer itself: a
// credential unknown (401) or without the right (403), a failure inside
// (500), the event store out of reach (503).
func answers(own map[string]openapi.Response) map[string]openapi.Response {
	return openapi.WithAnswers(own, map[string]openapi.Response{
		"401": {Ref: "UnauthorizedA"},
		"403": {Ref: "ForbiddenA"},
		"500": {Ref: "InternalErrorA"},
		"503": {Ref: "UnavailableA"},
	})
}

// anyoneOrKey is the security of most operations of family A: no
// credential (unless --require-token), the API token, or a key.
var anyoneOrKey = []openapi.Security{{}, {"apiToken"}, {"apiKey"}}

// apiTokenOnly is the security of the webhook operations, which always
// need the API token.
var apiTokenOnly = []openapi.Security{{"apiToken"}}
