package admin

import (
	"tempmail/api/openapi"
)

// quotaFields describe a quota's fields, as a tenant shows it and as a
// request gives it.
func quotaFields() map[string]openapi.Schema {
	return map[string]openapi.Schema{
		"inboxes": {
			Description: "Live inboxes its keys may make, at most 5000. 0: unlimited (5000).",
			Format:      "int64",
			Minimum:     openapi.N(0),
			Maximum:     openapi.N(5000),
		},
		"messages_per_day": {
			Description: "Messages its inboxes may hold that came since midnight UTC; beyond, mail to them is " +
				"deferred (SMTP 452 4.2.2, the inbound webhook 429). 0: unlimited.",
			Format:  "int64",
			Minimum: openapi.N(0),
			Maximum: openapi.N(1000000000),
		},
		"storage_bytes": {
			Description: "Bytes of mail its inboxes may hold; at it, mail to them is deferred as for " +
				"messages_per_day. 0: unlimited.",
			Format:  "int64",
			Minimum: openapi.N(0),
			Maximum: openapi.N(1125899906842624),
		},
		"webhooks": {
			Description: "Subscriptions to its inboxes; beyond, a subscription is 403. 0: unlimited.",
			Format:      "int64",
			Minimum:     openapi.N(0),
			Maximum:     openapi.N(100000),
		},
	}
}

// schemas are the admin's shapes as the document names them: the types
// tenants.go and domains.go read and write, described where reflection
// cannot tell (openapi.Component).
func schemas() map[string]openapi.Component {
	return map[string]openapi.Component{
		"Quota": {
			Of:     quotaOut{},
			Fields: quotaFields(),
			Schema: openapi.Schema{Description: "What a tenant may hold; 0 is unlimited."},
		},
		"QuotaRequest": {
			Of:      quotaIn{},
			Request: true,
			Fields:  quotaFields(),
			Schema: openapi.Schema{
				Description: "A quota as a request gives it: a field left out is 0 for a new tenant and unchanged in a PATCH.",
			},
		},
		"Tenant": {
			Of: tenantOut{},
			Fields: map[string]openapi.Schema{
				"id": {Format: "uuid"},
				"name": {
					Pattern:   "^[A-Za-z0-9._-]([A-Za-z0-9 ._-]*[A-Za-z0-9._-])?$",
					MinLength: openapi.N(1),
					MaxLength: openapi.N(64),
				},
				"domains": {
					Description: "Its private domains: only its keys make inboxes there (POST /api/domains/ with its " +
						"tenant_id, or domains when it is made).",
				},
			},
			Schema: openapi.Schema{Description: "A tenant."},
		},
		"TenantRequest": {
			Of:      tenantRequest{},
			Request: true,
			Fields: map[string]openapi.Schema{
				"name": {
					Pattern:   "^[A-Za-z0-9._-]([A-Za-z0-9 ._-]*[A-Za-z0-9._-])?$",
					MinLength: openapi.N(1),
					MaxLength: openapi.N(64),
				},
				"domains": {
					Description: "Only when a tenant is made: domain names it gets as its private domains, as POST " +
						"/api/domains/ with its tenant_id adds one; each must not exist already (409). Deleting " +
						"the tenant deactivates them.",
					Type:     "array",
					MaxItems: openapi.N(16),
					Items:    &openapi.Schema{Type: "string", MinLength: openapi.N(1), MaxLength: openapi.N(253)},
				},
			},
			Schema: openapi.Schema{
				Description: "A tenant's fields as a request gives them: every one optional in a PATCH; a new tenant " +
					"needs `name` (createTenant's body says so).",
			},
		},
		"KeyScope": {Schema: openapi.Schema{Type: "string", Enum: []any{"inboxes", "read", "webhooks", "admin", "faults"}}},
		"Key": {
			Of:   keyOut{},
			Omit: []string{"key"},
			Fields: map[string]openapi.Schema{
				"id":        {Format: "uuid"},
				"tenant_id": {Format: "uuid"},
				"name": {
					Pattern:   "^[A-Za-z0-9._-]([A-Za-z0-9 ._-]*[A-Za-z0-9._-])?$",
					MinLength: openapi.N(1),
					MaxLength: openapi.N(64),
				},
				"scopes":     {MinItems: openapi.N(1), Items: openapi.Ref("KeyScope")},
				"expires_at": {Description: "When it stops working; null: never.", Type: "string", Format: "date-time"},
			},
			Schema: openapi.Schema{Description: "An API key of a tenant: what is kept of it, never the key itself."},
		},
		"KeyWithSecret": {
			Of:      keyOut{},
			Extends: "Key",
			Fields: map[string]openapi.Schema{
				"key": {Pattern: "^tm_[a-z2-7]{32}$"},
			},
			Schema: openapi.Schema{
				Description: "A new key, with the key itself: the only answer that shows it.",
				Required:    []string{"key"},
			},
		},
		"KeyRequest": {
			Of:      keyRequest{},
			Request: true,
			Fields: map[string]openapi.Schema{
				"name": {
					Pattern:   "^[A-Za-z0-9._-]([A-Za-z0-9 ._-]*[A-Za-z0-9._-])?$",
					MinLength: openapi.N(1),
					MaxLength: openapi.N(64),
				},
				"scopes": {
					Type:     "array",
					MinItems: openapi.N(1),
					MaxItems: openapi.N(16),
					Items:    openapi.Ref("KeyScope"),
				},
				"expires_at": {Description: "When it stops working: in the future, within 3650 days; left out: never."},
			},
			Schema: openapi.Schema{Required: []string{"name", "scopes"}},
		},
		"DomainRequest": {
			Of:      domainRequest{},
			Request: true,
			Fields: map[string]openapi.Schema{
				"name": {
					Description: "A DNS name of two labels at least; stored in lower case, an internationalized name as its " +
						"A-labels (`xn--...`).",
					Examples:  []any{"mail.example.com"},
					MaxLength: openapi.N(253),
				},
				"tenant_id": {
					Description: "Makes the domain private to this tenant (404 if there is no such tenant).",
					Nullable:    true,
					Format:      "uuid",
				},
				"catch_all": {
					Description: "The first mail to any address on the domain makes its inbox (a private domain's: its " +
						"tenant's, counted in its inbox quota).",
					Default: false,
				},
			},
			Schema: openapi.Schema{Description: "A domain to add at runtime.", Required: []string{"name"}},
		},
		"DomainAdded": {
			Of:      domainAdded{},
			Extends: "Domain",
			Fields: map[string]openapi.Schema{
				"mx": {
					Description: "The host name the domain's MX record should name: the SMTP server's `--hostname`.",
					Examples:    []any{"mx.example.com"},
				},
			},
			Schema: openapi.Schema{
				Description: "A domain just added, and the MX record to publish for it.",
				Required:    []string{"mx"},
			},
		},
	}
}
