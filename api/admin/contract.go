package admin

import (
	"tempmail/api/openapi"
)

// Contract is the admin's part of the OpenAPI document (api/openapi.json):
// the operations Routes serves, and the shapes of their bodies
// (schemas.go); their errors are family A's (package inboxapi).
func Contract() openapi.Contract {
	return openapi.Contract{
		Operations: []openapi.Operation{{
			Method: "POST", Path: "/api/domains/",
			ID:      "addDomain",
			Tags:    []string{"Tenants"},
			Summary: "Add a domain at runtime",
			Description: "The admin's: adds a domain without a restart (`--domains` still seeds them). Every node " +
				"takes mail for it once this returns. With `tenant_id` the domain is private: only that " +
				"tenant's keys make inboxes there and see it listed; to anyone else it is as if it did not " +
				"exist. With `catch_all` the first mail to an address makes its inbox. Publish the " +
				"answer's `mx` as the domain's MX record.",
			Security: tokenOrKey,
			Body:     &openapi.Body{Required: true, Content: openapi.JSON(openapi.Ref("DomainRequest"))},
			Responses: answers(map[string]openapi.Response{
				"201": {
					Description: "The domain, and the MX record to publish.",
					Content:     openapi.JSON(openapi.Ref("DomainAdded")),
				},
				"400": {Ref: "BadRequestA"},
				"404": {Ref: "NotFoundA"},
				"409": {Ref: "ConflictDomain"},
				"413": {Ref: "PayloadTooLargeA"},
				"415": {Ref: "UnsupportedMediaTypeA"},
			}),
		}, {
			Method: "POST", Path: "/api/faults/",
			ID:      "createServiceFault",
			Tags:    []string{"Failing on purpose"},
			Summary: "Make the SMTP server fail on purpose, for everyone it matches",
			Description: "With a tenant's key that has the `faults` scope: a rule of the tenant's, on the mail of its " +
				"inboxes, at `RCPT`, during `DATA` or `AFTER_DATA` (at most 10 live). " +
				"With the admin's credential: a rule of the service's, at any SMTP command (`CONNECT` in place of the greeting, `EHLO`, " +
				"`MAIL`, `RCPT`, during `DATA`, `AFTER_DATA`), for the clients, senders and recipients it matches: " +
				"a reply, a delay or a closed connection, greylisting, or a rate per client. " +
				"`{\"command\": \"CONNECT\", \"reply\": \"421 4.3.2 paused\"}` pauses intake until it is deleted " +
				"or expires. It is in force on every node once this answers. At most 50 live rules.",
			Security: tokenOrKey,
			Body:     &openapi.Body{Required: true, Content: openapi.JSON(openapi.Ref("ServiceFaultRequest"))},
			Responses: answers(map[string]openapi.Response{
				"201": {Description: "The rule.", Content: openapi.JSON(openapi.Ref("FaultRule"))},
				"400": {Ref: "BadRequestA"},
				"413": {Ref: "PayloadTooLargeA"},
				"415": {Ref: "UnsupportedMediaTypeA"},
			}),
		}, {
			Method: "GET", Path: "/api/faults/",
			ID:       "listServiceFaults",
			Tags:     []string{"Failing on purpose"},
			Summary:  "The live fault rules: the service's, or the tenant's for a tenant's key",
			Security: tokenOrKey,
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "Oldest first.", Content: openapi.JSON(openapi.Ref("FaultRules"))},
			}),
		}, {
			Method: "DELETE", Path: "/api/faults/{fault}/",
			ID:       "deleteServiceFault",
			Tags:     []string{"Failing on purpose"},
			Summary:  "End a fault rule: the service's, or the tenant's for a tenant's key",
			Security: tokenOrKey,
			Params: []openapi.Param{{
				Name:        "fault",
				In:          "path",
				Required:    true,
				Description: "The rule's id. An unknown or malformed id is answered 404.",
				Schema:      &openapi.Schema{Type: "string", Format: "uuid"},
			}},
			Responses: answers(map[string]openapi.Response{
				"204": {Description: "Ended."},
				"404": {Ref: "NotFoundA"},
			}),
		}, {
			Method: "GET", Path: "/api/attempts/",
			ID:      "listAttempts",
			Tags:    []string{"Failing on purpose"},
			Summary: "SMTP attempts the fault rules saw",
			Description: "Newest first: the attempts the service's rules acted on (at most 200; a tenant's key: its " +
				"rules', at most 100), and with `rcpt` those at that address alone, with its inbox's own log when " +
				"it has one (and the key sees the inbox).",
			Security: tokenOrKey,
			Params: []openapi.Param{{
				Name: "rcpt", In: "query",
				Description: "An address: its attempts alone.",
				Schema:      &openapi.Schema{Type: "string", MaxLength: openapi.N(254)},
			}, {
				Name: "since", In: "query",
				Description: "RFC 3339: the attempts at or after it.",
				Schema:      &openapi.Schema{Type: "string", Format: "date-time"},
			}},
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "Newest first.", Content: openapi.JSON(openapi.Ref("Attempts"))},
				"400": {Ref: "BadRequestA"},
			}),
		}, {
			Method: "GET", Path: "/api/tenants/",
			ID:      "listTenants",
			Tags:    []string{"Tenants"},
			Summary: "List the tenants",
			Description: "Every tenant, oldest first, paged (`X-Total-Count` holds the total); `name` keeps those " +
				"of that name (names need not be unique). The anonymous tenant (id " +
				"00000000-0000-0000-0000-000000000000) is among them while `--anonymous-quota` is set.",
			Security: tokenOrKey,
			Params: []openapi.Param{{Ref: "Limit"}, {Ref: "Offset"}, {
				Name:        "name",
				In:          "query",
				Description: "Only the tenants of this name.",
				Schema:      &openapi.Schema{Type: "string", MaxLength: openapi.N(64)},
			}},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "A page of the tenants.",
					Headers: map[string]openapi.Header{
						"X-Total-Count": {Ref: "X-Total-Count"},
					},
					Content: openapi.JSON(openapi.ArrayOf(openapi.Ref("Tenant"))),
				},
				"400": {Ref: "BadRequestA"},
			}),
		}, {
			Method: "POST", Path: "/api/tenants/",
			ID:       "createTenant",
			Tags:     []string{"Tenants"},
			Summary:  "Make a tenant",
			Security: tokenOrKey,
			Body: &openapi.Body{
				Required: true,
				Content: openapi.JSON(&openapi.Schema{
					Description: "A new tenant: it needs a name, which a PATCH (the same fields) does not.",
					Required:    []string{"name"},
					AllOf: []openapi.Schema{
						{Ref: "TenantRequest"},
					},
				}),
			},
			Responses: answers(map[string]openapi.Response{
				"201": {Description: "The tenant.", Content: openapi.JSON(openapi.Ref("Tenant"))},
				"400": {Ref: "BadRequestA"},
				"409": {Ref: "ConflictTenantDomain"},
				"413": {Ref: "PayloadTooLargeA"},
				"415": {Ref: "UnsupportedMediaTypeA"},
			}),
		}, {
			Method: "GET", Path: "/api/tenants/{tenant}/",
			ID:       "getTenant",
			Tags:     []string{"Tenants"},
			Summary:  "Get a tenant",
			Security: tokenOrKey,
			Params:   []openapi.Param{{Ref: "TenantID"}},
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "The tenant.", Content: openapi.JSON(openapi.Ref("Tenant"))},
				"404": {Ref: "NotFoundA"},
			}),
		}, {
			Method: "PATCH", Path: "/api/tenants/{tenant}/",
			ID:          "changeTenant",
			Tags:        []string{"Tenants"},
			Summary:     "Change a tenant's name or quota",
			Description: "Fields left out stay as they are.",
			Security:    tokenOrKey,
			Params:      []openapi.Param{{Ref: "TenantID"}},
			Body:        &openapi.Body{Required: true, Content: openapi.JSON(openapi.Ref("TenantRequest"))},
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "The tenant as it now is.", Content: openapi.JSON(openapi.Ref("Tenant"))},
				"400": {Ref: "BadRequestA"},
				"404": {Ref: "NotFoundA"},
				"409": {Ref: "ConflictAnonymous"},
				"413": {Ref: "PayloadTooLargeA"},
				"415": {Ref: "UnsupportedMediaTypeA"},
			}),
		}, {
			Method: "DELETE", Path: "/api/tenants/{tenant}/",
			ID:      "deleteTenant",
			Tags:    []string{"Tenants"},
			Summary: "Delete a tenant",
			Description: "Its keys are refused once this answers, its inboxes are ended with their mail, and its " +
				"private domains are deactivated. A deletion that got no answer may be sent again: it " +
				"finishes what was left (204), and is 404 once nothing is.",
			Security: tokenOrKey,
			Params:   []openapi.Param{{Ref: "TenantID"}},
			Responses: answers(map[string]openapi.Response{
				"204": {Description: "Deleted."},
				"404": {Ref: "NotFoundA"},
				"409": {Ref: "ConflictAnonymous"},
			}),
		}, {
			Method: "POST", Path: "/api/tenants/{tenant}/keys/",
			ID:      "createKey",
			Tags:    []string{"Tenants"},
			Summary: "Make a key of a tenant",
			Description: "The answer holds the key, `tm_` and 32 base32 characters, the only time it is shown: " +
				"tempmail keeps its SHA-256 hash.",
			Security: tokenOrKey,
			Params:   []openapi.Param{{Ref: "TenantID"}},
			Body:     &openapi.Body{Required: true, Content: openapi.JSON(openapi.Ref("KeyRequest"))},
			Responses: answers(map[string]openapi.Response{
				"201": {
					Description: "The key, with the key itself.",
					Content:     openapi.JSON(openapi.Ref("KeyWithSecret")),
				},
				"400": {Ref: "BadRequestA"},
				"404": {Ref: "NotFoundA"},
				"409": {Ref: "ConflictKeys"},
				"413": {Ref: "PayloadTooLargeA"},
				"415": {Ref: "UnsupportedMediaTypeA"},
			}),
		}, {
			Method: "GET", Path: "/api/tenants/{tenant}/keys/",
			ID:          "listKeys",
			Tags:        []string{"Tenants"},
			Summary:     "List a tenant's live keys",
			Description: "Oldest first; never the keys themselves.",
			Security:    tokenOrKey,
			Params:      []openapi.Param{{Ref: "TenantID"}},
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "The keys.", Content: openapi.JSON(openapi.ArrayOf(openapi.Ref("Key")))},
				"404": {Ref: "NotFoundA"},
			}),
		}, {
			Method: "DELETE", Path: "/api/keys/{key}/",
			ID:          "revokeKey",
			Tags:        []string{"Tenants"},
			Summary:     "Revoke a key",
			Description: "Once this answers, the key is refused (401) on every node.",
			Security:    tokenOrKey,
			Params:      []openapi.Param{{Ref: "KeyID"}},
			Responses: answers(map[string]openapi.Response{
				"204": {Description: "Revoked."},
				"404": {Ref: "NotFoundA"},
				"409": {Ref: "ConflictKeys"},
			}),
		},
		},
		Parameters: map[string]openapi.Param{
			"TenantID": {
				Name:        "tenant",
				In:          "path",
				Required:    true,
				Description: "The tenant's id. An unknown or malformed id is answered 404.",
				Schema:      &openapi.Schema{Type: "string", Format: "uuid"},
			},
			"KeyID": {
				Name:        "key",
				In:          "path",
				Required:    true,
				Description: "The key's id (not the key). An unknown, revoked or malformed id is answered 404.",
				Schema:      &openapi.Schema{Type: "string", Format: "uuid"},
			},
		},
		Responses: map[string]openapi.Response{
			"ConflictAnonymous": {
				Description: "The anonymous tenant (id 00000000-0000-0000-0000-000000000000), which `--anonymous-quota` " +
					"alone sets: it cannot be changed, deleted, nor given keys or domains.",
				Content: openapi.JSON(openapi.Ref("Error")),
			},
			"ConflictDomain": {
				Description: "A domain of this name exists already. Or tenant_id names the anonymous tenant, which has no domains.",
				Content:     openapi.JSON(openapi.Ref("Error")),
			},
			"ConflictKeys": {
				Description: "The tenant has 100 live keys, the most it may have; or it changed meanwhile too many " +
					"times. Or the tenant is the anonymous one, which --anonymous-quota alone sets and which " +
					"has no keys.",
				Content: openapi.JSON(openapi.Ref("Error")),
			},
			"ConflictTenantDomain": {
				Description: "One of the domains it is to have exists already; nothing is made.",
				Content:     openapi.JSON(openapi.Ref("Error")),
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

// tokenOrKey is how every admin operation is asked: with the API token, or a
// key with the scope it needs.
var tokenOrKey = []openapi.Security{{"apiToken"}, {"apiKey"}}
