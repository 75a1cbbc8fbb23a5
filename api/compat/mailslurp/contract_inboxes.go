package mailslurp

import (
	"tempmail/api/openapi"
)

// inboxOperations are the operations of inboxes.go and the first waits
// of waits.go: making, reading and deleting inboxes, listing their
// emails, waiting for the latest, the nth and the first that matches.
func inboxOperations() []openapi.Operation {
	return []openapi.Operation{{
		Method: "POST", Path: "/compat/mailslurp/inboxes",
		ID:      "mailslurpCreateInbox",
		Tags:    []string{"Compat: MailSlurp"},
		Summary: "Create an inbox",
		Description: "createInbox: a random address on the default domain, `domainName`'s, or `emailAddress` " +
			"whole. It lives `--token-inbox-ttl` unless `expiresIn` or `expiresAt` say otherwise " +
			"(within `--min-inbox-ttl` and `--max-inbox-ttl`); it is the key's tenant's, within its " +
			"quota. The other options are taken and not kept.",
		Security: apiKey,
		Params: []openapi.Param{{
			Name:        "emailAddress",
			In:          "query",
			Description: "The whole address wanted.",
			Schema:      &openapi.Schema{Type: "string", MaxLength: openapi.N(318)},
		}, {
			Name:        "domainName",
			In:          "query",
			Description: "A domain of the server (or a private one of the tenant) for a random name.",
			Schema:      &openapi.Schema{Type: "string"},
		}, {
			Name:        "expiresIn",
			In:          "query",
			Description: "Milliseconds the inbox lives.",
			Schema:      &openapi.Schema{Type: "integer", Minimum: openapi.N(0)},
		}, {
			Name:        "expiresAt",
			In:          "query",
			Description: "When the inbox ends.",
			Schema:      &openapi.Schema{Type: "string", Format: "date-time"},
		}},
		Responses: answers(map[string]openapi.Response{
			"201": {Description: "The inbox.", Content: openapi.JSON(openapi.Ref("MailSlurpInbox"))},
			"400": {Ref: "MailSlurpBadRequest"},
			"409": {Ref: "MailSlurpConflict"},
			"413": {Ref: "MailSlurpPayloadTooLarge"},
			"415": {Ref: "MailSlurpUnsupportedMediaType"},
			"429": {Ref: "MailSlurpTooMany"},
			"507": {Ref: "MailSlurpFull"},
		}),
	}, {
		Method: "GET", Path: "/compat/mailslurp/inboxes",
		ID:      "mailslurpGetInboxes",
		Tags:    []string{"Compat: MailSlurp"},
		Summary: "List the tenant's inboxes",
		Description: "getInboxes: the key's tenant's live inboxes, newest first, at most `size`. The API token " +
			"owns none (400).",
		Security: apiKey,
		Params:   []openapi.Param{paramSize},
		Responses: answers(map[string]openapi.Response{
			"200": {
				Description: "The inboxes.",
				Content:     openapi.JSON(openapi.ArrayOf(openapi.Ref("MailSlurpInbox"))),
			},
			"400": {Ref: "MailSlurpBadRequest"},
		}),
	}, {
		Method: "POST", Path: "/compat/mailslurp/inboxes/withOptions",
		ID:          "mailslurpCreateInboxWithOptions",
		Tags:        []string{"Compat: MailSlurp"},
		Summary:     "Create an inbox with options",
		Description: "createInboxWithOptions: as createInbox, its options in the body.",
		Security:    apiKey,
		Body: &openapi.Body{
			Description: "The options.",
			Required:    false,
			Content:     openapi.JSON(openapi.Ref("MailSlurpInboxOptions")),
		},
		Responses: answers(map[string]openapi.Response{
			"201": {Description: "The inbox.", Content: openapi.JSON(openapi.Ref("MailSlurpInbox"))},
			"400": {Ref: "MailSlurpBadRequest"},
			"409": {Ref: "MailSlurpConflict"},
			"413": {Ref: "MailSlurpPayloadTooLarge"},
			"415": {Ref: "MailSlurpUnsupportedMediaType"},
			"429": {Ref: "MailSlurpTooMany"},
			"507": {Ref: "MailSlurpFull"},
		}),
	}, {
		Method: "POST", Path: "/compat/mailslurp/inboxes/withDefaults",
		ID:          "mailslurpCreateInboxWithDefaults",
		Tags:        []string{"Compat: MailSlurp"},
		Summary:     "Create an inbox with the defaults",
		Description: "createInboxWithDefaults: a random address on the default domain.",
		Security:    apiKey,
		Responses: answers(map[string]openapi.Response{
			"201": {Description: "The inbox.", Content: openapi.JSON(openapi.Ref("MailSlurpInbox"))},
			"400": {Ref: "MailSlurpBadRequest"},
			"409": {Ref: "MailSlurpConflict"},
			"413": {Ref: "MailSlurpPayloadTooLarge"},
			"415": {Ref: "MailSlurpUnsupportedMediaType"},
			"429": {Ref: "MailSlurpTooMany"},
			"507": {Ref: "MailSlurpFull"},
		}),
	}, {
		Method: "GET", Path: "/compat/mailslurp/inboxes/{inboxId}",
		ID:          "mailslurpGetInbox",
		Tags:        []string{"Compat: MailSlurp"},
		Summary:     "Get an inbox",
		Description: "getInbox.",
		Security:    apiKey,
		Params:      []openapi.Param{paramInboxID},
		Responses: answers(map[string]openapi.Response{
			"200": {Description: "The inbox.", Content: openapi.JSON(openapi.Ref("MailSlurpInbox"))},
			"400": {Ref: "MailSlurpBadRequest"},
			"404": {Ref: "MailSlurpNotFound"},
		}),
	}, {
		Method: "DELETE", Path: "/compat/mailslurp/inboxes/{inboxId}",
		ID:          "mailslurpDeleteInbox",
		Tags:        []string{"Compat: MailSlurp"},
		Summary:     "Delete an inbox and all its mail",
		Description: "deleteInbox.",
		Security:    apiKey,
		Params:      []openapi.Param{paramInboxID},
		Responses: answers(map[string]openapi.Response{
			"204": {Description: "Deleted."},
			"400": {Ref: "MailSlurpBadRequest"},
			"404": {Ref: "MailSlurpNotFound"},
		}),
	}, {
		Method: "GET", Path: "/compat/mailslurp/inboxes/{inboxId}/emails",
		ID:      "mailslurpGetEmails",
		Tags:    []string{"Compat: MailSlurp"},
		Summary: "List an inbox's emails",
		Description: "getEmails: oldest first (`sort=DESC`: newest first), at most `limit` or `size`. With " +
			"`minCount`, the request is held until the inbox holds that many, for at most " +
			"`retryTimeout` (held to 60 s; then 408).",
		Security: apiKey,
		Params: []openapi.Param{paramInboxID, paramSize, {
			Name:        "limit",
			In:          "query",
			Description: "How many at most (over `size`).",
			Schema:      &openapi.Schema{Type: "integer", Minimum: openapi.N(1), Maximum: openapi.N(200)},
		}, {
			Name:        "sort",
			In:          "query",
			Description: "Oldest or newest first.",
			Schema:      &openapi.Schema{Type: "string", Enum: []any{"ASC", "DESC"}, Default: "ASC"},
		}, {
			Name:        "minCount",
			In:          "query",
			Description: "How many emails to wait for.",
			Schema:      &openapi.Schema{Type: "integer", Minimum: openapi.N(0)},
		}, {
			Name:        "retryTimeout",
			In:          "query",
			Description: "Milliseconds to wait for `minCount`, held to 60000 (the default).",
			Schema:      &openapi.Schema{Type: "integer", Minimum: openapi.N(0)},
		}, paramUnreadOnly, paramSince, paramBefore},
		Responses: answers(map[string]openapi.Response{
			"200": {
				Description: "The emails.",
				Content:     openapi.JSON(openapi.ArrayOf(openapi.Ref("MailSlurpEmailPreview"))),
			},
			"400": {Ref: "MailSlurpBadRequest"},
			"404": {Ref: "MailSlurpNotFound"},
			"408": {Ref: "MailSlurpTimeout"},
			"429": {Ref: "MailSlurpTooMany"},
		}),
	}, {
		Method: "GET", Path: "/compat/mailslurp/waitForLatestEmail",
		ID:      "mailslurpWaitForLatestEmail",
		Tags:    []string{"Compat: MailSlurp"},
		Summary: "Wait for the newest email",
		Description: "waitForLatestEmail: the inbox's newest email (of those `unreadOnly`, `since` and `before` " +
			"select), at once if there is one, else the first to arrive within `timeout`. A held " +
			"request counts against `--max-waiters`.",
		Security: apiKey,
		Params:   []openapi.Param{paramWaitInbox, paramTimeout, paramUnreadOnly, paramSince, paramBefore, paramSort, paramDelay},
		Responses: answers(map[string]openapi.Response{
			"200": {
				Description: "The email (now read).",
				Content:     openapi.JSON(openapi.Ref("MailSlurpEmail")),
			},
			"400": {Ref: "MailSlurpBadRequest"},
			"404": {Ref: "MailSlurpNotFound"},
			"408": {Ref: "MailSlurpTimeout"},
			"429": {Ref: "MailSlurpTooMany"},
		}),
	}, {
		Method: "GET", Path: "/compat/mailslurp/waitForNthEmail",
		ID:      "mailslurpWaitForNthEmail",
		Tags:    []string{"Compat: MailSlurp"},
		Summary: "Wait for the nth email",
		Description: "waitForNthEmail: the `index`-th email (from 0, oldest first) of those selected, at once " +
			"if the inbox holds it, else when it arrives within `timeout`.",
		Security: apiKey,
		Params: []openapi.Param{paramWaitInbox, {
			Name:        "index",
			In:          "query",
			Description: "Which email, from 0, oldest first.",
			Schema:      &openapi.Schema{Type: "integer", Default: 0, Minimum: openapi.N(0)},
		}, paramTimeout, paramUnreadOnly, paramSince, paramBefore, paramSort, paramDelay},
		Responses: answers(map[string]openapi.Response{
			"200": {
				Description: "The email (now read).",
				Content:     openapi.JSON(openapi.Ref("MailSlurpEmail")),
			},
			"400": {Ref: "MailSlurpBadRequest"},
			"404": {Ref: "MailSlurpNotFound"},
			"408": {Ref: "MailSlurpTimeout"},
			"429": {Ref: "MailSlurpTooMany"},
		}),
	}, {
		Method: "POST", Path: "/compat/mailslurp/waitForMatchingFirstEmail",
		ID:      "mailslurpWaitForMatchingFirstEmail",
		Tags:    []string{"Compat: MailSlurp"},
		Summary: "Wait for the first matching email",
		Description: "waitForMatchingFirstEmail: the oldest email of those selected that every match holds for " +
			"(SUBJECT compared as it is, addresses in any case), at once or when it arrives within " +
			"`timeout`.",
		Security: apiKey,
		Params:   []openapi.Param{paramWaitInbox, paramTimeout, paramUnreadOnly, paramSince, paramBefore, paramSort, paramDelay},
		Body: &openapi.Body{
			Description: "What the email must match.",
			Required:    true,
			Content:     openapi.JSON(openapi.Ref("MailSlurpMatchOptions")),
		},
		Responses: answers(map[string]openapi.Response{
			"200": {
				Description: "The email (now read).",
				Content:     openapi.JSON(openapi.Ref("MailSlurpEmail")),
			},
			"400": {Ref: "MailSlurpBadRequest"},
			"404": {Ref: "MailSlurpNotFound"},
			"408": {Ref: "MailSlurpTimeout"},
			"413": {Ref: "MailSlurpPayloadTooLarge"},
			"415": {Ref: "MailSlurpUnsupportedMediaType"},
			"429": {Ref: "MailSlurpTooMany"},
		}),
	}}
}
