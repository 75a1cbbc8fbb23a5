package mailosaur

import (
	"tempmail/api/openapi"
)

// Contract is the Mailosaur family's part of the OpenAPI document
// (api/openapi.json): the operations its routes serve under its prefix,
// its credential, parameters and error answers, and the shapes of its
// bodies (schemas.go).
func Contract() openapi.Contract {
	return openapi.Contract{
		Operations: append([]openapi.Operation{{
			Method: "GET", Path: "/compat/mailosaur/api/servers",
			ID:          "mailosaurListServers",
			Tags:        []string{"Compat: Mailosaur"},
			Summary:     "List the tenant's servers",
			Description: "The key's tenant's servers, by name.",
			Security:    basicAuth,
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "The servers.", Content: openapi.JSON(openapi.Ref("MailosaurServerList"))},
			}),
		}, {
			Method: "POST", Path: "/compat/mailosaur/api/servers",
			ID:      "mailosaurCreateServer",
			Tags:    []string{"Compat: Mailosaur"},
			Summary: "Create a server",
			Description: "Adds the private catch-all domain `<id>.<first domain>` to the key's tenant, named " +
				"`name`: mail to any address there makes the address's inbox, the tenant's, for an hour. " +
				"Needs the `inboxes` scope; counts as a creation of the client's.",
			Security: basicAuth,
			Body:     &openapi.Body{Required: true, Content: openapi.JSON(openapi.Ref("MailosaurServerRequest"))},
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "The new server.", Content: openapi.JSON(openapi.Ref("MailosaurServer"))},
				"400": {Ref: "MailosaurBadRequest"},
				"409": {Ref: "MailosaurConflict"},
				"413": {Ref: "MailosaurPayloadTooLarge"},
				"415": {Ref: "MailosaurUnsupportedMediaType"},
				"429": {Ref: "MailosaurTooMany"},
			}),
		}, {
			Method: "GET", Path: "/compat/mailosaur/api/servers/{serverID}",
			ID:          "mailosaurGetServer",
			Tags:        []string{"Compat: Mailosaur"},
			Summary:     "Get a server",
			Description: "One of the tenant's servers.",
			Security:    basicAuth,
			Params:      []openapi.Param{{Ref: "MailosaurServerID"}},
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "The server.", Content: openapi.JSON(openapi.Ref("MailosaurServer"))},
				"404": {Ref: "MailosaurNotFound"},
			}),
		}, {
			Method: "PUT", Path: "/compat/mailosaur/api/servers/{serverID}",
			ID:          "mailosaurUpdateServer",
			Tags:        []string{"Compat: Mailosaur"},
			Summary:     "Rename a server",
			Description: "Its name is all that changes. Needs the `inboxes` scope.",
			Security:    basicAuth,
			Params:      []openapi.Param{{Ref: "MailosaurServerID"}},
			Body:        &openapi.Body{Required: true, Content: openapi.JSON(openapi.Ref("MailosaurServerRequest"))},
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "The server renamed.", Content: openapi.JSON(openapi.Ref("MailosaurServer"))},
				"400": {Ref: "MailosaurBadRequest"},
				"404": {Ref: "MailosaurNotFound"},
				"409": {Ref: "MailosaurConflict"},
				"413": {Ref: "MailosaurPayloadTooLarge"},
				"415": {Ref: "MailosaurUnsupportedMediaType"},
			}),
		}, {
			Method: "DELETE", Path: "/compat/mailosaur/api/servers/{serverID}",
			ID:      "mailosaurDeleteServer",
			Tags:    []string{"Compat: Mailosaur"},
			Summary: "Delete a server",
			Description: "Removes its domain (mail to it is refused from then on), then deletes its inboxes and " +
				"their mail. Needs the `inboxes` scope.",
			Security: basicAuth,
			Params:   []openapi.Param{{Ref: "MailosaurServerID"}},
			Responses: answers(map[string]openapi.Response{
				"204": {Description: "Deleted."},
				"404": {Ref: "MailosaurNotFound"},
				"409": {Ref: "MailosaurConflict"},
			}),
		}, {
			Method: "GET", Path: "/compat/mailosaur/api/messages",
			ID:          "mailosaurListMessages",
			Tags:        []string{"Compat: Mailosaur"},
			Summary:     "List a server's messages",
			Description: "Newest first, across the newest 500 inboxes of the server, the newest 100 messages of each.",
			Security:    basicAuth,
			Params:      []openapi.Param{{Ref: "MailosaurServer"}, {Ref: "MailosaurPage"}, {Ref: "MailosaurItemsPerPage"}, {Ref: "MailosaurReceivedAfter"}, {Ref: "MailosaurDir"}},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "A page of messages.",
					Content:     openapi.JSON(openapi.Ref("MailosaurMessageList")),
					Headers: map[string]openapi.Header{
						"X-Ms-Delay": {Ref: "X-Ms-Delay"},
					},
				},
				"400": {Ref: "MailosaurBadRequest"},
				"404": {Ref: "MailosaurNotFound"},
			}),
		}, {
			Method: "DELETE", Path: "/compat/mailosaur/api/messages",
			ID:      "mailosaurDeleteAllMessages",
			Tags:    []string{"Compat: Mailosaur"},
			Summary: "Delete all of a server's messages",
			Description: "Deletes the server's inboxes, which the next mail to their addresses makes again. Needs " +
				"the `inboxes` scope.",
			Security: basicAuth,
			Params:   []openapi.Param{{Ref: "MailosaurServer"}},
			Responses: answers(map[string]openapi.Response{
				"204": {Description: "Deleted."},
				"400": {Ref: "MailosaurBadRequest"},
				"404": {Ref: "MailosaurNotFound"},
			}),
		}, {
			Method: "POST", Path: "/compat/mailosaur/api/messages/search",
			ID:      "mailosaurSearchMessages",
			Tags:    []string{"Compat: Mailosaur"},
			Summary: "Search a server's messages",
			Description: "The messages the criteria select, as a list does. The SDK waits for a message by searching " +
				"again after the delay of `X-Ms-Delay`: a search that finds nothing is answered at once with a delay of 1 " +
				"ms, and the same search asked again within 10 seconds (by the same key) is held until a message it " +
				"may match is stored, or for a second, so that a waiting client learns of a match as soon as it is " +
				"stored. Its timeout, which the SDK does not send, is passed by a second at most.",
			Security: basicAuth,
			Params:   []openapi.Param{{Ref: "MailosaurServer"}, {Ref: "MailosaurPage"}, {Ref: "MailosaurItemsPerPage"}, {Ref: "MailosaurReceivedAfter"}, {Ref: "MailosaurDir"}},
			Body:     &openapi.Body{Required: false, Content: openapi.JSON(openapi.Ref("MailosaurSearchCriteria"))},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "A page of the messages found.",
					Content:     openapi.JSON(openapi.Ref("MailosaurMessageList")),
					Headers: map[string]openapi.Header{
						"X-Ms-Delay": {Ref: "X-Ms-Delay"},
					},
				},
				"400": {Ref: "MailosaurBadRequest"},
				"404": {Ref: "MailosaurNotFound"},
				"413": {Ref: "MailosaurPayloadTooLarge"},
				"415": {Ref: "MailosaurUnsupportedMediaType"},
				"429": {Ref: "MailosaurTooManyHeld"},
			}),
		}, {
			Method: "GET", Path: "/compat/mailosaur/api/messages/{id}",
			ID:      "mailosaurGetMessage",
			Tags:    []string{"Compat: Mailosaur"},
			Summary: "Get a message",
			Description: "One message of the tenant's inboxes, whole: its bodies with their links and codes, " +
				"attachments and headers.",
			Security: basicAuth,
			Params:   []openapi.Param{{Ref: "MailosaurMessageID"}},
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "The message.", Content: openapi.JSON(openapi.Ref("MailosaurMessage"))},
				"404": {Ref: "MailosaurNotFound"},
			}),
		}, {
			Method: "DELETE", Path: "/compat/mailosaur/api/messages/{id}",
			ID:          "mailosaurDeleteMessage",
			Tags:        []string{"Compat: Mailosaur"},
			Summary:     "Delete a message",
			Description: "Needs the `inboxes` scope.",
			Security:    basicAuth,
			Params:      []openapi.Param{{Ref: "MailosaurMessageID"}},
			Responses: answers(map[string]openapi.Response{
				"204": {Description: "Deleted."},
				"404": {Ref: "MailosaurNotFound"},
				"409": {Ref: "MailosaurConflict"},
			}),
		}, {
			Method: "GET", Path: "/compat/mailosaur/api/usage/limits",
			ID:          "mailosaurUsageLimits",
			Tags:        []string{"Compat: Mailosaur"},
			Summary:     "The tenant's usage limits",
			Description: "Its servers and its mail today, from its quota.",
			Security:    basicAuth,
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "The limits.", Content: openapi.JSON(openapi.Ref("MailosaurUsageLimits"))},
			}),
		}}, callOperations()...),
		Parameters: map[string]openapi.Param{
			"MailosaurServerID": {
				Name:        "serverID",
				In:          "path",
				Required:    true,
				Description: "The server's id.",
				Schema:      &openapi.Schema{Type: "string"},
			},
			"MailosaurMessageID": {
				Name:        "id",
				In:          "path",
				Required:    true,
				Description: "The message's id.",
				Schema:      &openapi.Schema{Type: "string"},
			},
			"MailosaurDeviceID": {
				Name:        "id",
				In:          "path",
				Required:    true,
				Description: "The device's id, a UUID.",
				Schema:      &openapi.Schema{Type: "string"},
			},
			"MailosaurServer": {
				Name:        "server",
				In:          "query",
				Required:    true,
				Description: "The server's id.",
				Schema:      &openapi.Schema{Type: "string"},
			},
			"MailosaurPage": {
				Name:        "page",
				In:          "query",
				Description: "The page, from 0.",
				Schema:      &openapi.Schema{Type: "integer", Default: 0, Minimum: openapi.N(0)},
			},
			"MailosaurItemsPerPage": {
				Name:        "itemsPerPage",
				In:          "query",
				Description: "Messages a page.",
				Schema:      &openapi.Schema{Type: "integer", Default: 50, Minimum: openapi.N(1), Maximum: openapi.N(1000)},
			},
			"MailosaurReceivedAfter": {
				Name:        "receivedAfter",
				In:          "query",
				Description: "Only messages received after this time.",
				Schema:      &openapi.Schema{Type: "string", Format: "date-time"},
			},
			"MailosaurDir": {
				Name:        "dir",
				In:          "query",
				Description: "Newest first (`desc`, the default) or oldest first (`asc`).",
				Schema: &openapi.Schema{
					Type: "string",
					Enum: []any{"asc", "desc", "ascending", "descending", "Ascending", "Descending"},
				},
			},
		},
		Headers: map[string]openapi.Header{
			"X-Ms-Delay": {
				Description: "Milliseconds, comma-separated: how long the SDK waits before each next search while " +
					"nothing matches (the last one repeated).",
				Required: true,
				Schema:   &openapi.Schema{Type: "string"},
			},
		},
		Responses: map[string]openapi.Response{
			"MailosaurBadRequest": {
				Description: "A parameter or the body is invalid; `errors[0].field` names it.",
				Content:     openapi.JSON(openapi.Ref("MailosaurError")),
			},
			"MailosaurUnauthorized": {
				Description: "No HTTP Basic credentials with a live tenant key as the user name.",
				Content:     openapi.JSON(openapi.Ref("MailosaurError")),
				Headers: map[string]openapi.Header{
					"WWW-Authenticate": {
						Description: "`Basic realm=\"tempmail\"`.",
						Required:    true,
						Schema:      &openapi.Schema{Type: "string"},
					},
				},
			},
			"MailosaurForbidden": {
				Description: "The key lacks the scope (`read` reads; `inboxes` changes), or the tenant has its 100 servers, or its 100 devices.",
				Content:     openapi.JSON(openapi.Ref("MailosaurError")),
			},
			"MailosaurNotFound": {
				Description: "No such server, message or device of the key's tenant (another tenant's are not found either).",
				Content:     openapi.JSON(openapi.Ref("MailosaurError")),
			},
			"MailosaurTooManyHeld": {
				Description: "The client holds its share of requests held open (`--max-waiters-per-client`, or " +
					"the service its `--max-waiters`): a search asked again, which would be held, is refused; try " +
					"again after `Retry-After` seconds.",
				Content: openapi.JSON(openapi.Ref("MailosaurError")),
				Headers: map[string]openapi.Header{
					"Retry-After": {Ref: "Retry-After"},
				},
			},
			"MailosaurTooMany": {
				Description: "The client used its share of creations (`--create-rate-per-client`); try again after " +
					"`Retry-After` seconds.",
				Content: openapi.JSON(openapi.Ref("MailosaurError")),
				Headers: map[string]openapi.Header{
					"Retry-After": {Ref: "Retry-After"},
				},
			},
			"MailosaurUnsupportedMediaType": {
				Description: "The body is not JSON.",
				Content:     openapi.JSON(openapi.Ref("MailosaurError")),
			},
			"MailosaurPayloadTooLarge": {
				Description: "The body is larger than 1 MiB.",
				Content:     openapi.JSON(openapi.Ref("MailosaurError")),
			},
			"MailosaurInternalError": {
				Description: "Internal error (logged).",
				Content:     openapi.JSON(openapi.Ref("MailosaurError")),
			},
			"MailosaurUnavailable": {
				Description: "The store is unavailable for a moment; try again after `Retry-After` seconds.",
				Content:     openapi.JSON(openapi.Ref("MailosaurError")),
				Headers: map[string]openapi.Header{
					"Retry-After": {Ref: "Retry-After"},
				},
			},
			"MailosaurConflict": {
				Description: "The change lost its race with another; try again.",
				Content:     openapi.JSON(openapi.Ref("MailosaurError")),
			},
		},
		SecuritySchemes: map[string]openapi.SecurityScheme{
			"mailosaurBasic": {
				Type:   "http",
				Scheme: "basic",
				Description: "The Mailosaur family: HTTP Basic with a tenant's API key as the user name (the password " +
					"is not looked at). Anything else, the API token included, is answered 401.",
			},
		},
		Schemas: schemas(),
	}
}

// answers returns an operation's own answers with the errors any operation
// of the family may give, for the statuses it does not answer itself: no
// live key (401) or one without the scope (403), a failure inside (500),
// the event store out of reach (503).
func answers(own map[string]openapi.Response) map[string]openapi.Response {
	return openapi.WithAnswers(own, map[string]openapi.Response{
		"401": {Ref: "MailosaurUnauthorized"},
		"403": {Ref: "MailosaurForbidden"},
		"500": {Ref: "MailosaurInternalError"},
		"503": {Ref: "MailosaurUnavailable"},
	})
}

// basicAuth is how every operation of the family is asked: HTTP Basic,
// a tenant's key as the user name.
var basicAuth = []openapi.Security{{"mailosaurBasic"}}
