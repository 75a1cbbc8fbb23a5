package mailtm

import (
	"tempmail/api/family"
	"tempmail/api/openapi"
)

// Contract is the mail.tm family's part of the OpenAPI document
// (api/openapi.json): the operations its routes serve under its prefix,
// its credential, parameters and error answers, and the shapes of its
// bodies (schemas.go).
func Contract() openapi.Contract {
	return openapi.Contract{
		Operations: []openapi.Operation{{
			Method: "GET", Path: "/compat/mailtm/domains",
			ID:          "listDomainsMailTM",
			Tags:        []string{"Compat: mail.tm"},
			Summary:     "List the domains",
			Description: "The active domains accounts may be made on (a key's tenant's private ones too), all on page 1.",
			Security:    []openapi.Security{{}, {"apiKey"}, {"apiToken"}},
			Params:      []openapi.Param{{Ref: "MailTMPage"}},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "The domains: a hydra collection in JSON-LD, an array in JSON.",
					Content:     ldOrJSON("MailTMDomainCollection", "MailTMDomainList"),
				},
				"400": {Ref: "BadRequestMailTM"},
			}),
		}, {
			Method: "GET", Path: "/compat/mailtm/domains/{id}",
			ID:          "getDomainMailTM",
			Tags:        []string{"Compat: mail.tm"},
			Summary:     "Get a domain",
			Description: "",
			Security:    []openapi.Security{{}, {"apiKey"}, {"apiToken"}},
			Params:      []openapi.Param{{Ref: "MailTMDomainID"}},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "The domain.",
					Content:     ldOrJSON("MailTMDomain", "MailTMDomain"),
				},
				"404": {Ref: "NotFoundMailTM"},
			}),
		}, {
			Method: "POST", Path: "/compat/mailtm/accounts",
			ID:      "createAccountMailTM",
			Tags:    []string{"Compat: mail.tm"},
			Summary: "Make an account",
			Description: "An inbox with a password; a key's makes it its tenant's (`inboxes` scope). Counts against " +
				"the client's creations (`--create-rate-per-client`), the tenant's quota and `--anonymous`.",
			Security: []openapi.Security{{}, {"apiKey"}, {"apiToken"}},
			Body:     &openapi.Body{Required: true, Content: openapi.JSON(openapi.Ref("MailTMCredentials"))},
			Responses: answers(map[string]openapi.Response{
				"201": {
					Description: "The account.",
					Content:     ldOrJSON("MailTMAccount", "MailTMAccount"),
				},
				"400": {Ref: "BadRequestMailTM"},
				"403": {Ref: "ForbiddenMailTM"},
				"413": {Ref: "PayloadTooLargeMailTM"},
				"415": {Ref: "UnsupportedMailTM"},
				"422": {Ref: "UnprocessableMailTM"},
				"429": {Ref: "TooManyMailTM"},
				"507": {Ref: "FullMailTM"},
			}),
		}, {
			Method: "POST", Path: "/compat/mailtm/token",
			ID:          "tokenMailTM",
			Tags:        []string{"Compat: mail.tm"},
			Summary:     "Get an account's token",
			Description: "The token of the account with this address and password.",
			Security:    []openapi.Security{{}},
			Body:        &openapi.Body{Required: true, Content: openapi.JSON(openapi.Ref("MailTMCredentials"))},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "The account's id and token.",
					Content:     ldOrJSON("MailTMToken", "MailTMToken"),
				},
				"400": {Ref: "BadRequestMailTM"},
				"413": {Ref: "PayloadTooLargeMailTM"},
				"415": {Ref: "UnsupportedMailTM"},
				"422": {Ref: "UnprocessableMailTM"},
				"429": {Ref: "TooManyMailTM"},
			}),
		}, {
			Method: "GET", Path: "/compat/mailtm/me",
			ID:          "meMailTM",
			Tags:        []string{"Compat: mail.tm"},
			Summary:     "Get the token's account",
			Description: "",
			Security:    []openapi.Security{{"mailtmToken"}},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "The account.",
					Content:     ldOrJSON("MailTMAccount", "MailTMAccount"),
				},
			}),
		}, {
			Method: "GET", Path: "/compat/mailtm/accounts/{id}",
			ID:          "getAccountMailTM",
			Tags:        []string{"Compat: mail.tm"},
			Summary:     "Get an account",
			Description: "The token's own account, or one of the key's tenant.",
			Security:    accountOrKey,
			Params:      []openapi.Param{{Ref: "MailTMAccountID"}},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "The account.",
					Content:     ldOrJSON("MailTMAccount", "MailTMAccount"),
				},
				"403": {Ref: "ForbiddenMailTM"},
				"404": {Ref: "NotFoundMailTM"},
			}),
		}, {
			Method: "DELETE", Path: "/compat/mailtm/accounts/{id}",
			ID:          "deleteAccountMailTM",
			Tags:        []string{"Compat: mail.tm"},
			Summary:     "Delete an account",
			Description: "It ends with its messages.",
			Security:    accountOrKey,
			Params:      []openapi.Param{{Ref: "MailTMAccountID"}},
			Responses: answers(map[string]openapi.Response{
				"204": {Description: "Deleted."},
				"403": {Ref: "ForbiddenMailTM"},
				"404": {Ref: "NotFoundMailTM"},
			}),
		}, {
			Method: "GET", Path: "/compat/mailtm/messages",
			ID:          "listMessagesMailTM",
			Tags:        []string{"Compat: mail.tm"},
			Summary:     "List the account's messages",
			Description: "Newest first, 30 a page.",
			Security:    []openapi.Security{{"mailtmToken"}},
			Params:      []openapi.Param{{Ref: "MailTMPage"}},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "A page of messages: a hydra collection in JSON-LD, an array in JSON.",
					Content:     ldOrJSON("MailTMMessageCollection", "MailTMMessageList"),
				},
				"400": {Ref: "BadRequestMailTM"},
			}),
		}, {
			Method: "GET", Path: "/compat/mailtm/messages/{id}",
			ID:          "getMessageMailTM",
			Tags:        []string{"Compat: mail.tm"},
			Summary:     "Get a message",
			Description: "Reading does not mark it seen.",
			Security:    accountOrKey,
			Params:      []openapi.Param{{Ref: "MailTMMessageID"}},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "The message.",
					Content:     ldOrJSON("MailTMMessage", "MailTMMessage"),
				},
				"403": {Ref: "ForbiddenMailTM"},
				"404": {Ref: "NotFoundMailTM"},
			}),
		}, {
			Method: "PATCH", Path: "/compat/mailtm/messages/{id}",
			ID:          "markSeenMailTM",
			Tags:        []string{"Compat: mail.tm"},
			Summary:     "Mark a message seen",
			Description: "`{\"seen\": true}` (as `application/merge-patch+json` or JSON).",
			Security:    accountOrKey,
			Params:      []openapi.Param{{Ref: "MailTMMessageID"}},
			Body: &openapi.Body{
				Required: true,
				Content: map[string]openapi.MediaType{
					"application/json":             {Schema: openapi.Ref("MailTMSeen")},
					"application/merge-patch+json": {Schema: openapi.Ref("MailTMSeen")},
				},
			},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "The message.",
					Content:     ldOrJSON("MailTMMessage", "MailTMMessage"),
				},
				"400": {Ref: "BadRequestMailTM"},
				"403": {Ref: "ForbiddenMailTM"},
				"404": {Ref: "NotFoundMailTM"},
				"413": {Ref: "PayloadTooLargeMailTM"},
				"415": {Ref: "UnsupportedMailTM"},
				"422": {Ref: "UnprocessableMailTM"},
			}),
		}, {
			Method: "DELETE", Path: "/compat/mailtm/messages/{id}",
			ID:          "deleteMessageMailTM",
			Tags:        []string{"Compat: mail.tm"},
			Summary:     "Delete a message",
			Description: "",
			Security:    accountOrKey,
			Params:      []openapi.Param{{Ref: "MailTMMessageID"}},
			Responses: answers(map[string]openapi.Response{
				"204": {Description: "Deleted."},
				"403": {Ref: "ForbiddenMailTM"},
				"404": {Ref: "NotFoundMailTM"},
			}),
		}, {
			Method: "GET", Path: "/compat/mailtm/messages/{id}/download",
			ID:          "downloadMessageMailTM",
			Tags:        []string{"Compat: mail.tm"},
			Summary:     "Download a message's source",
			Description: "A message's `downloadUrl`.",
			Security:    accountOrKey,
			Params:      []openapi.Param{{Ref: "MailTMMessageID"}},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "The message exactly as received, as a file.",
					Headers: map[string]openapi.Header{
						"Content-Disposition": {Ref: "RawDisposition"},
					},
					Content: map[string]openapi.MediaType{
						"message/rfc822": {Schema: openapi.Ref("RawMessage")},
					},
				},
				"403": {Ref: "ForbiddenMailTM"},
				"404": {Ref: "NotFoundMailTM"},
			}),
		}, {
			Method: "GET", Path: "/compat/mailtm/messages/{id}/attachment/{attachment}",
			ID:          "downloadAttachmentMailTM",
			Tags:        []string{"Compat: mail.tm"},
			Summary:     "Download an attachment",
			Description: "An attachment's `downloadUrl`.",
			Security:    accountOrKey,
			Params: []openapi.Param{{Ref: "MailTMMessageID"}, {
				Name:        "attachment",
				In:          "path",
				Required:    true,
				Description: "The attachment's id (`ATTACH000001` for the first).",
				Schema:      &openapi.Schema{Type: "string", Pattern: "^ATTACH[0-9]{6}$"},
			}},
			Responses: answers(map[string]openapi.Response{
				"200": {Ref: "Attachment"},
				"403": {Ref: "ForbiddenMailTM"},
				"404": {Ref: "NotFoundMailTM"},
			}),
		}, {
			Method: "GET", Path: "/compat/mailtm/sources/{id}",
			ID:          "getSourceMailTM",
			Tags:        []string{"Compat: mail.tm"},
			Summary:     "Get a message's source",
			Description: "The message as received, in JSON (`data`).",
			Security:    accountOrKey,
			Params:      []openapi.Param{{Ref: "MailTMMessageID"}},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "The source.",
					Content:     ldOrJSON("MailTMSource", "MailTMSource"),
				},
				"403": {Ref: "ForbiddenMailTM"},
				"404": {Ref: "NotFoundMailTM"},
			}),
		}, {
			Method: "GET", Path: "/compat/mailtm/.well-known/mercure",
			ID:      "eventsMailTM",
			Tags:    []string{"Compat: mail.tm"},
			Summary: "Follow an account's changes (mail.tm's Mercure hub)",
			Description: "What mail.tm clients subscribe to for new mail (`?topic=/accounts/{id}`, the account's " +
				"token in Bearer): the account's event stream (`EventStream`). A new message is a " +
				"`message` event, which EventSource gives to `onmessage`, carrying the message as `GET " +
				"/messages` lists it (JSON-LD); a message read or deleted is a `message` event too, with its " +
				"id and `seen` or `isDeleted` true, as mail.tm's hub tells them.",
			Security: accountOrKey,
			Params: []openapi.Param{{
				Name:        "topic",
				In:          "query",
				Required:    true,
				Description: "`/accounts/{id}`: the account's.",
				Schema:      &openapi.Schema{Type: "string", MaxLength: openapi.N(128)},
			}, {Ref: "LastEventID"}},
			Responses: answers(map[string]openapi.Response{
				"200": mercureAnswer(),
				"400": {Ref: "BadRequestMailTM"},
				"403": {Ref: "ForbiddenMailTM"},
				"404": {Ref: "NotFoundMailTM"},
				"429": {Ref: "TooManyMailTM"},
			}),
		},
		},
		Parameters: map[string]openapi.Param{
			"MailTMDomainID": {
				Name:        "id",
				In:          "path",
				Required:    true,
				Description: "A domain's id.",
				Schema:      &openapi.Schema{Type: "string", Pattern: "^[0-9]{1,9}$"},
			},
			"MailTMAccountID": {
				Name:        "id",
				In:          "path",
				Required:    true,
				Description: "An account's id.",
				Schema:      &openapi.Schema{Type: "string", Format: "uuid"},
			},
			"MailTMMessageID": {
				Name:        "id",
				In:          "path",
				Required:    true,
				Description: "A message's id.",
				Schema:      &openapi.Schema{Type: "string", Format: "uuid"},
			},
			"MailTMPage": {
				Name:        "page",
				In:          "query",
				Description: "The page, from 1 (30 messages a page).",
				Schema:      &openapi.Schema{Type: "integer", Minimum: openapi.N(1), Maximum: openapi.N(33333)},
			},
		},
		Responses: map[string]openapi.Response{
			"BadRequestMailTM": {
				Description: "The request is malformed: its body is not JSON, `page` is not a whole number from 1, " +
					"`topic` is not `/accounts/{id}`, or Last-Event-ID is not a stream's id.",
				Content: ldOrJSON("MailTMError", "MailTMError"),
			},
			"UnauthorizedMailTM": {
				Description: "No token (`JWT Token not found`), a token of no live account (`Invalid JWT Token`), wrong " +
					"credentials (`Invalid credentials.`), a key on a path that is an account's, or an " +
					"unknown, revoked or expired key; under `--anonymous off`, no key to make an account with.",
				Content: ldOrJSON("MailTMAuthError", "MailTMAuthError"),
			},
			"ForbiddenMailTM": {
				Description: "The key's scopes do not cover this: making and deleting need `inboxes`, reading `read` or `inboxes`.",
				Content:     ldOrJSON("MailTMError", "MailTMError"),
			},
			"NotFoundMailTM": {
				Description: "No such thing, or one of another account (or of another tenant, for a key): the same answer.",
				Content:     ldOrJSON("MailTMError", "MailTMError"),
			},
			"UnprocessableMailTM": {
				Description: "The body's fields are wrong: `violations` says which and why (the address taken, its " +
					"domain not one of `GET /domains`, a password outside 1 to 128 bytes...).",
				Content: ldOrJSON("MailTMError", "MailTMError"),
			},
			"TooManyMailTM": {
				Description: "The client used its share: of creations (`--create-rate-per-client`), of logins " +
					"(`--login-rate-per-client`: `POST /token`), or of requests held open " +
					"(`--max-waiters-per-client`: event streams). Try again after `Retry-After` seconds.",
				Content: ldOrJSON("MailTMError", "MailTMError"),
				Headers: map[string]openapi.Header{
					"Retry-After": {Ref: "Retry-After"},
				},
			},
			"PayloadTooLargeMailTM": {
				Description: "The body is larger than 1 MiB.",
				Content:     ldOrJSON("MailTMError", "MailTMError"),
			},
			"UnsupportedMailTM": {
				Description: "The body's Content-Type is not JSON (`application/json`, `application/merge-patch+json`, " +
					"any `+json`).",
				Content: ldOrJSON("MailTMError", "MailTMError"),
			},
			"FullMailTM": {
				Description: "The tenant's quota of inboxes is used up, or the service's disk is nearly full.",
				Content:     ldOrJSON("MailTMError", "MailTMError"),
			},
			"InternalErrorMailTM": {
				Description: "Something went wrong on the server; it is logged.",
				Content:     ldOrJSON("MailTMError", "MailTMError"),
			},
			"UnavailableMailTM": {
				Description: "The service cannot answer now (its store is unreachable); try again after `Retry-After` seconds.",
				Content:     ldOrJSON("MailTMError", "MailTMError"),
				Headers: map[string]openapi.Header{
					"Retry-After": {Ref: "Retry-After"},
				},
			},
		},
		SecuritySchemes: map[string]openapi.SecurityScheme{
			"mailtmToken": {
				Type:   "http",
				Scheme: "bearer",
				Description: "mail.tm: an account's token, from `POST /compat/mailtm/token`, in `Authorization: Bearer " +
					"<token>` (it is the account's inbox token; it ends with the account).",
			},
		},
		Schemas: schemas(),
	}
}

// accountOrKey is how most operations are asked: with an account's token
// (as mail.tm has it), or an API key or the API token besides.
var accountOrKey = []openapi.Security{{"mailtmToken"}, {"apiKey"}, {"apiToken"}}

// ldOrJSON is a body as mail.tm answers it, by the Accept header: the
// component ld in JSON-LD, plain in JSON (for collections, a hydra
// collection and a bare array).
func ldOrJSON(ld, plain string) map[string]openapi.MediaType {
	return map[string]openapi.MediaType{
		"application/ld+json": {Schema: openapi.Ref(ld)},
		"application/json":    {Schema: openapi.Ref(plain)},
	}
}

// answers returns an operation's own answers with the errors any
// operation of the family may give, for the statuses it does not answer
// itself: a credential unknown or expired (401), a failure inside (500),
// the event store out of reach (503).
func answers(own map[string]openapi.Response) map[string]openapi.Response {
	return openapi.WithAnswers(own, map[string]openapi.Response{
		"401": {Ref: "UnauthorizedMailTM"},
		"500": {Ref: "InternalErrorMailTM"},
		"503": {Ref: "UnavailableMailTM"},
	})
}

// mercureAnswer is the event stream of the Mercure hub: every message
// event unnamed, a new one's data the summary, a read or deleted one's
// MailTMMessageChanged.
func mercureAnswer() openapi.Response {
	a := family.EventStreamAnswer("MailTMMessageSummary")
	stream := a.Content["text/event-stream"]
	events := map[string]openapi.Schema{}
	for name, schema := range stream.Events {
		if name != "read" && name != "deleted" {
			events[name] = schema
		}
	}
	events["message"] = openapi.Schema{Ref: "MailTMHubMessage"}
	stream.Events = events
	stream.Schema = openapi.Ref("MailTMEventStream")
	a.Content = map[string]openapi.MediaType{"text/event-stream": stream}
	return a
}
