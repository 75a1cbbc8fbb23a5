package mailboxapi

import (
	"tempmail/api/openapi"
)

// Contract is family B's part of the OpenAPI document (api/openapi.json):
// the operations Routes serves, family B's parameters and error answers,
// and the shapes of its bodies (schemas.go).
func Contract() openapi.Contract {
	return openapi.Contract{
		Operations: []openapi.Operation{{
			Method: "POST", Path: "/api/create-temp-email/",
			ID:      "createTempEmail",
			Tags:    []string{"Family B"},
			Summary: "Create a mailbox",
			Description: "On the first configured domain. The mailbox never expires; its messages are deleted " +
				"`--message-retention` (default 90 days) after arrival. Of two concurrent requests for one " +
				"name exactly one wins.",
			Security: anyoneOrKey,
			Body:     &openapi.Body{Content: openapi.JSON(openapi.Ref("CreateTempEmailRequest"))},
			Responses: answers(map[string]openapi.Response{
				"201": {Description: "The new mailbox.", Content: openapi.JSON(openapi.Ref("TempEmailB"))},
				"400": {Ref: "BadRequestB"},
				"409": {Ref: "ConflictB"},
				"413": {Ref: "PayloadTooLargeB"},
				"415": {Ref: "UnsupportedMediaTypeB"},
				"429": {Ref: "TooManyB"},
				"507": {Ref: "FullB"},
			}),
		}, {
			Method: "GET", Path: "/api/mailstore/mailbox/{username}/",
			ID:      "getMailbox",
			Tags:    []string{"Family B"},
			Summary: "List a mailbox's messages, newest first",
			Description: "One page of whole messages; `total` counts every message of the mailbox that passes the " +
				"filters, not only the page.",
			Security: anyoneOrKey,
			Params:   []openapi.Param{{Ref: "Username"}, {Ref: "Limit"}, {Ref: "Offset"}, {Ref: "FromFilter"}, {Ref: "ToFilter"}, {Ref: "SubjectFilter"}},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "A page of the mailbox.",
					Headers: map[string]openapi.Header{
						"X-Total-Count": {Ref: "X-Total-Count"},
					},
					Content: openapi.JSON(openapi.Ref("MailboxB")),
				},
				"400": {Ref: "BadRequestB"},
				"404": {Ref: "NotFoundB"},
			}),
		}, {
			Method: "GET", Path: "/api/mailstore/mailbox/{username}/{filename}/",
			ID:          "getMailboxMessage",
			Tags:        []string{"Family B"},
			Summary:     "Get a message",
			Description: "Reading does not mark it read.",
			Security:    anyoneOrKey,
			Params:      []openapi.Param{{Ref: "Username"}, {Ref: "Filename"}},
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "The message.", Content: openapi.JSON(openapi.Ref("MessageB"))},
				"404": {Ref: "NotFoundB"},
			}),
		}, {
			Method: "POST", Path: "/api/mailstore/mailbox/{username}/{filename}/",
			ID:          "markMailboxMessageRead",
			Tags:        []string{"Family B"},
			Summary:     "Mark a message read",
			Description: "Idempotent. The body is `{}` (or empty).",
			Security:    anyoneOrKey,
			Params:      []openapi.Param{{Ref: "Username"}, {Ref: "Filename"}},
			Body:        &openapi.Body{Content: openapi.JSON(openapi.Ref("EmptyRequest"))},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "The message, with `is_read: true`.",
					Content:     openapi.JSON(openapi.Ref("MessageB")),
				},
				"400": {Ref: "BadRequestB"},
				"404": {Ref: "NotFoundB"},
				"413": {Ref: "PayloadTooLargeB"},
				"415": {Ref: "UnsupportedMediaTypeB"},
			}),
		}, {
			Method: "DELETE", Path: "/api/mailstore/mailbox/{username}/{filename}/delete/",
			ID:       "deleteMailboxMessage",
			Tags:     []string{"Family B"},
			Summary:  "Delete a message",
			Security: anyoneOrKey,
			Params:   []openapi.Param{{Ref: "Username"}, {Ref: "Filename"}},
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "Deleted.", Content: openapi.JSON(openapi.Ref("DeletedB"))},
				"404": {Ref: "NotFoundB"},
			}),
		},
		},
		Parameters: map[string]openapi.Param{
			"Username": {
				Name:        "username",
				In:          "path",
				Required:    true,
				Description: "The mailbox's local part (the address without `@` and domain); case-insensitive.",
				Schema:      &openapi.Schema{Type: "string"},
			},
			"Filename": {
				Name:        "filename",
				In:          "path",
				Required:    true,
				Description: "The message's `filename`: `<message id>.eml`.",
				Schema:      &openapi.Schema{Type: "string", Pattern: "^[0-9a-fA-F-]{36}\\.eml$"},
			},
		},
		Responses: map[string]openapi.Response{
			"BadRequestB": {
				Description: "A value the endpoint cannot take (e.g. `Invalid email_name: ...`, `No domains " +
					"available`), or a body that is not valid JSON.",
				Content: openapi.JSON(openapi.Ref("ErrorB")),
			},
			"ConflictB": {
				Description: "`Email name already taken` (also by an inbox of another family).",
				Content:     openapi.JSON(openapi.Ref("ErrorB")),
			},
			"ForbiddenB": {
				Description: "The API key lacks the scope the request needs (`inboxes` to make or delete; `read` or " +
					"`inboxes` to read). Or a tenant's inbox quota is reached: `quota exceeded: inboxes 10 of " +
					"10`.",
				Content: openapi.JSON(openapi.Ref("ErrorB")),
			},
			"FullB": {
				Description: "The disk of the service's data directory is nearly full (below `--min-free-disk`): " +
					"nothing new is made until room is made. Deletions still work; try again later.",
				Content: openapi.JSON(openapi.Ref("ErrorB")),
			},
			"InternalErrorB": {
				Description: "Something failed inside the service; the details are logged.",
				Content:     openapi.JSON(openapi.Ref("ErrorB")),
			},
			"NotFoundB": {
				Description: "`Mailbox not found` or `Email not found`.",
				Content:     openapi.JSON(openapi.Ref("ErrorB")),
			},
			"PayloadTooLargeB": {
				Description: "The body is larger than 1 MiB.",
				Content:     openapi.JSON(openapi.Ref("ErrorB")),
			},
			"TooManyB": {
				Description: "The client used its share: of creations (`--create-rate-per-client`, inboxes and webhook " +
					"subscriptions together), or of requests held open (`--max-waiters-per-client`, waits and " +
					"event streams together). Try again after `Retry-After` seconds. A client is its address, " +
					"or behind a reverse proxy named by `--trusted-proxies` the address that proxy saw; an " +
					"IPv6 client is its /64.",
				Headers: map[string]openapi.Header{
					"Retry-After": {Ref: "Retry-After"},
				},
				Content: openapi.JSON(openapi.Ref("ErrorB")),
			},
			"UnauthorizedB": {
				Description: "An API key in `Authorization: Bearer` that is unknown, revoked or expired.",
				Content:     openapi.JSON(openapi.Ref("ErrorB")),
			},
			"UnavailableB": {
				Description: "The event store cannot be reached now; try again after `Retry-After` seconds.",
				Headers: map[string]openapi.Header{
					"Retry-After": {Ref: "Retry-After"},
				},
				Content: openapi.JSON(openapi.Ref("ErrorB")),
			},
			"UnsupportedMediaTypeB": {
				Description: "A non-empty body with a non-JSON `Content-Type`.",
				Content:     openapi.JSON(openapi.Ref("ErrorB")),
			},
		},
		Schemas: schemas(),
	}
}

// answers returns an operation's own answers with the errors any operation
// of family B may give, for the statuses it does not answer itself: a
// key unknown (401) or without the scope (403), a failure inside (500),
// the event store out of reach (503).
func answers(own map[string]openapi.Response) map[string]openapi.Response {
	return openapi.WithAnswers(own, map[string]openapi.Response{
		"401": {Ref: "UnauthorizedB"},
		"403": {Ref: "ForbiddenB"},
		"500": {Ref: "InternalErrorB"},
		"503": {Ref: "UnavailableB"},
	})
}

// anyoneOrKey is how every operation of family B is asked: with no
// credential, or with an API key.
var anyoneOrKey = []openapi.Security{{}, {"apiKey"}}
