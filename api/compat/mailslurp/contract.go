package mailslurp

import (
	"slices"

	"tempmail/api/openapi"
)

// Contract is the MailSlurp family's part of the OpenAPI document
// (api/openapi.json): the operations its routes serve under its prefix
// (contract_inboxes.go, contract_emails.go, contract_calls.go,
// contract_lists.go), its credential and error answers, and the shapes
// of its bodies (schemas.go).
func Contract() openapi.Contract {
	return openapi.Contract{
		Operations: slices.Concat(inboxOperations(), emailOperations(), callOperations(), []openapi.Operation{
			unsupported("GET", "mailslurpUnsupportedGet"),
			unsupported("POST", "mailslurpUnsupportedPost"),
			unsupported("PUT", "mailslurpUnsupportedPut"),
			unsupported("PATCH", "mailslurpUnsupportedPatch"),
			unsupported("DELETE", "mailslurpUnsupportedDelete"),
		}),
		Responses: map[string]openapi.Response{
			"MailSlurpBadRequest": {
				Description: "A parameter or the body is not what the endpoint takes: what to fix.",
				Content:     openapi.JSON(openapi.Ref("MailSlurpError")),
			},
			"MailSlurpUnauthorized": {
				Description: "No `x-api-key`, or an unknown, revoked or expired key.",
				Content:     openapi.JSON(openapi.Ref("MailSlurpError")),
			},
			"MailSlurpForbidden": {
				Description: "The key has no scope for this (`read` reads, `inboxes` makes and deletes).",
				Content:     openapi.JSON(openapi.Ref("MailSlurpError")),
			},
			"MailSlurpNotFound": {
				Description: "No such inbox, email or attachment that the key may see: another tenant's is none.",
				Content:     openapi.JSON(openapi.Ref("MailSlurpError")),
			},
			"MailSlurpTimeout": {
				Description: "The wait ended (the `timeout`, held to 60 s) with nothing that matched: `Failed to " +
					"satisfy email query for inbox ...`.",
				Content: openapi.JSON(openapi.Ref("MailSlurpError")),
			},
			"MailSlurpTooMany": {
				Description: "The client used its share of creations or of requests held open; try again after " +
					"`Retry-After` seconds.",
				Content: openapi.JSON(openapi.Ref("MailSlurpError")),
				Headers: map[string]openapi.Header{
					"Retry-After": {Ref: "Retry-After"},
				},
			},
			"MailSlurpConflict": {
				Description: "The address asked for is taken.",
				Content:     openapi.JSON(openapi.Ref("MailSlurpError")),
			},
			"MailSlurpPayloadTooLarge": {
				Description: "The body is over 1 MiB.",
				Content:     openapi.JSON(openapi.Ref("MailSlurpError")),
			},
			"MailSlurpUnsupportedMediaType": {
				Description: "The body is not JSON.",
				Content:     openapi.JSON(openapi.Ref("MailSlurpError")),
			},
			"MailSlurpInternalError": {
				Description: "An internal error; its details are logged, not sent.",
				Content:     openapi.JSON(openapi.Ref("MailSlurpError")),
			},
			"MailSlurpUnavailable": {
				Description: "The event store cannot be reached now, or too many requests are held open; try again " +
					"after `Retry-After` seconds.",
				Content: openapi.JSON(openapi.Ref("MailSlurpError")),
				Headers: map[string]openapi.Header{
					"Retry-After": {Ref: "Retry-After"},
				},
			},
			"MailSlurpFull": {
				Description: "The disk has too little room left for a new inbox.",
				Content:     openapi.JSON(openapi.Ref("MailSlurpError")),
			},
			"MailSlurpNotImplemented": {
				Description: "`<METHOD> <path> is not supported by tempmail's MailSlurp family`.",
				Content:     openapi.JSON(openapi.Ref("MailSlurpError")),
			},
		},
		SecuritySchemes: map[string]openapi.SecurityScheme{
			"mailslurpApiKey": {
				Type: "apiKey",
				In:   "header",
				Name: "x-api-key",
				Description: "The MailSlurp family: `x-api-key: <key>`, a tenant's API key (`tm_...`; reads with the " +
					"`read` or `inboxes` scope, makes and deletes with `inboxes`) or the API token (the " +
					"admin). Without one, or with an unknown, revoked or expired one, every path of the family " +
					"answers 401.",
			},
		},
		Schemas: schemas(),
	}
}

// apiKey is how every operation of the family is asked: with the tenant's
// API key in the header the SDK sends.
var apiKey = []openapi.Security{{"mailslurpApiKey"}}

// The parameters several operations take, as the SDK names them.
var (
	paramInboxID = openapi.Param{
		Name:        "inboxId",
		In:          "path",
		Required:    true,
		Description: "The inbox's id.",
		Schema:      &openapi.Schema{Type: "string", Format: "uuid"},
	}
	paramEmailID = openapi.Param{
		Name:        "emailId",
		In:          "path",
		Required:    true,
		Description: "The email's id.",
		Schema:      &openapi.Schema{Type: "string", Format: "uuid"},
	}
	paramAttachmentID = openapi.Param{
		Name:        "attachmentId",
		In:          "path",
		Required:    true,
		Description: "The attachment's id, as the email lists it: the email's id, `-`, and its number from 1.",
		Schema:      &openapi.Schema{Type: "string", MaxLength: openapi.N(41), Pattern: "^[0-9a-fA-F-]+$"},
	}
	paramSize = openapi.Param{
		Name:        "size",
		In:          "query",
		Description: "How many at most.",
		Schema:      &openapi.Schema{Type: "integer", Default: 100, Minimum: openapi.N(1), Maximum: openapi.N(200)},
	}
)

// The parameters of the operations that wait for emails: the inbox, how
// long, which emails count, and those the SDK sends that change nothing.
var (
	paramWaitInbox = openapi.Param{
		Name:        "inboxId",
		In:          "query",
		Description: "The inbox to wait on.",
		Schema:      &openapi.Schema{Type: "string", Format: "uuid"},
		Required:    true,
	}
	paramCount = openapi.Param{
		Name:        "count",
		In:          "query",
		Required:    true,
		Description: "How many emails to wait for.",
		Schema:      &openapi.Schema{Type: "integer", Minimum: openapi.N(1), Maximum: openapi.N(200)},
	}
	paramTimeout = openapi.Param{
		Name:        "timeout",
		In:          "query",
		Description: "Milliseconds to wait while nothing matches, held to 60000 (the default); then 408.",
		Schema:      &openapi.Schema{Type: "integer", Minimum: openapi.N(0)},
	}
	paramUnreadOnly = openapi.Param{
		Name:        "unreadOnly",
		In:          "query",
		Description: "Unread emails alone (an email answered whole is read).",
		Schema:      &openapi.Schema{Type: "boolean", Default: false},
	}
	paramSince = openapi.Param{
		Name:        "since",
		In:          "query",
		Description: "Emails received at or after this time alone.",
		Schema:      &openapi.Schema{Type: "string", Format: "date-time"},
	}
	paramBefore = openapi.Param{
		Name:        "before",
		In:          "query",
		Description: "Emails received before this time alone.",
		Schema:      &openapi.Schema{Type: "string", Format: "date-time"},
	}
	paramSort = openapi.Param{
		Name:        "sort",
		In:          "query",
		Description: "Taken, not heeded.",
		Schema:      &openapi.Schema{Type: "string", Enum: []any{"ASC", "DESC"}},
	}
	paramDelay = openapi.Param{
		Name:        "delay",
		In:          "query",
		Description: "Taken, not heeded.",
		Schema:      &openapi.Schema{Type: "integer"},
	}
)

// answers returns an operation's own answers with the errors any
// operation of the family may give, for the statuses it does not answer
// itself: a key unknown (401) or without the scope (403), a failure
// inside (500), the event store out of reach (503).
func answers(own map[string]openapi.Response) map[string]openapi.Response {
	return openapi.WithAnswers(own, map[string]openapi.Response{
		"401": {Ref: "MailSlurpUnauthorized"},
		"403": {Ref: "MailSlurpForbidden"},
		"500": {Ref: "MailSlurpInternalError"},
		"503": {Ref: "MailSlurpUnavailable"},
	})
}

// unsupported is the operation that answers, for one method, every path
// under the prefix that no other serves: 501 naming the endpoint, once
// the key is checked.
func unsupported(method, id string) openapi.Operation {
	return openapi.Operation{
		Method: method, Path: "/compat/mailslurp/{endpoint}",
		ID:      id,
		Tags:    []string{"Compat: MailSlurp"},
		Summary: "Any other endpoint: not supported",
		Description: "Every other path the SDK knows (aliases, sending, SMS, webhooks, domains, ...) answers " +
			"501, naming the endpoint, once the key is checked.",
		Security: apiKey,
		Params: []openapi.Param{{
			Name:        "endpoint",
			In:          "path",
			Required:    true,
			Description: "Any path under the prefix that no operation above serves, of one segment or more.",
			Schema:      &openapi.Schema{Type: "string"},
		}},
		Responses: map[string]openapi.Response{
			"401":     {Ref: "MailSlurpUnauthorized"},
			"default": {Ref: "MailSlurpNotImplemented"},
		},
	}
}
