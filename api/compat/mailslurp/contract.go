package mailslurp

import (
	"tempmail/api/openapi"
)

// Contract is the MailSlurp family's part of the OpenAPI document
// (api/openapi.json): the operations its routes serve under its prefix,
// its credential and error answers, and the shapes of its bodies
// (schemas.go).
func Contract() openapi.Contract {
	return openapi.Contract{
		Operations: append([]openapi.Operation{{
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
		}, {
			Method: "GET", Path: "/compat/mailslurp/emails/{emailId}",
			ID:          "mailslurpGetEmail",
			Tags:        []string{"Compat: MailSlurp"},
			Summary:     "Get an email",
			Description: "getEmail: the email whole; it is marked read.",
			Security:    apiKey,
			Params:      []openapi.Param{paramEmailID},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "The email (now read).",
					Content:     openapi.JSON(openapi.Ref("MailSlurpEmail")),
				},
				"400": {Ref: "MailSlurpBadRequest"},
				"404": {Ref: "MailSlurpNotFound"},
			}),
		}, {
			Method: "DELETE", Path: "/compat/mailslurp/emails/{emailId}",
			ID:          "mailslurpDeleteEmail",
			Tags:        []string{"Compat: MailSlurp"},
			Summary:     "Delete an email",
			Description: "deleteEmail.",
			Security:    apiKey,
			Params:      []openapi.Param{paramEmailID},
			Responses: answers(map[string]openapi.Response{
				"204": {Description: "Deleted."},
				"400": {Ref: "MailSlurpBadRequest"},
				"404": {Ref: "MailSlurpNotFound"},
			}),
		}, {
			Method: "POST", Path: "/compat/mailslurp/emails/{emailId}/codes",
			ID:      "mailslurpGetEmailCodes",
			Tags:    []string{"Compat: MailSlurp"},
			Summary: "Find codes in an email",
			Description: "getEmailCodes: one-time codes, found with patterns in the subject, then the text (as " +
				"`.../otp/` finds them).",
			Security: apiKey,
			Params:   []openapi.Param{paramEmailID},
			Body: &openapi.Body{
				Description: "How to find them.",
				Required:    false,
				Content:     openapi.JSON(openapi.Ref("MailSlurpCodeOptions")),
			},
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "What was found.", Content: openapi.JSON(openapi.Ref("MailSlurpCodes"))},
				"400": {Ref: "MailSlurpBadRequest"},
				"404": {Ref: "MailSlurpNotFound"},
				"413": {Ref: "MailSlurpPayloadTooLarge"},
				"415": {Ref: "MailSlurpUnsupportedMediaType"},
			}),
		}, {
			Method: "POST", Path: "/compat/mailslurp/emails/{emailId}/contentMatch",
			ID:      "mailslurpGetEmailContentMatch",
			Tags:    []string{"Compat: MailSlurp"},
			Summary: "Match a pattern in an email",
			Description: "getEmailContentMatch: the pattern (RE2, at most 512 bytes) matched against the email's " +
				"text, else its HTML.",
			Security: apiKey,
			Params:   []openapi.Param{paramEmailID},
			Body: &openapi.Body{
				Description: "The pattern.",
				Required:    true,
				Content: openapi.JSON(&openapi.Schema{
					Type:     "object",
					Required: []string{"pattern"},
					Properties: []openapi.Property{
						{Name: "pattern", Schema: openapi.Schema{Type: "string", MaxLength: openapi.N(512)}},
					},
				}),
			},
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "What matched.", Content: openapi.JSON(openapi.Ref("MailSlurpContentMatch"))},
				"400": {Ref: "MailSlurpBadRequest"},
				"404": {Ref: "MailSlurpNotFound"},
				"413": {Ref: "MailSlurpPayloadTooLarge"},
				"415": {Ref: "MailSlurpUnsupportedMediaType"},
			}),
		}, {
			Method: "GET", Path: "/compat/mailslurp/emails/{emailId}/textLines",
			ID:      "mailslurpGetEmailTextLines",
			Tags:    []string{"Compat: MailSlurp"},
			Summary: "An email's text lines",
			Description: "getEmailTextLines: the email's text by lines. `decodeHtmlEntities` and `lineSeparator` " +
				"are taken, not heeded.",
			Security: apiKey,
			Params: []openapi.Param{paramEmailID, {
				Name:        "decodeHtmlEntities",
				In:          "query",
				Description: "Taken, not heeded.",
				Schema:      &openapi.Schema{Type: "boolean"},
			}, {
				Name:        "lineSeparator",
				In:          "query",
				Description: "Taken, not heeded.",
				Schema:      &openapi.Schema{Type: "string"},
			}},
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "The lines.", Content: openapi.JSON(openapi.Ref("MailSlurpTextLines"))},
				"400": {Ref: "MailSlurpBadRequest"},
				"404": {Ref: "MailSlurpNotFound"},
			}),
		}, {
			Method: "GET", Path: "/compat/mailslurp/emails/{emailId}/links",
			ID:          "mailslurpGetEmailLinks",
			Tags:        []string{"Compat: MailSlurp"},
			Summary:     "An email's links",
			Description: "getEmailLinks: the email's http and https links. `selector` is taken, not heeded.",
			Security:    apiKey,
			Params: []openapi.Param{paramEmailID, {
				Name:        "selector",
				In:          "query",
				Description: "Taken, not heeded.",
				Schema:      &openapi.Schema{Type: "string"},
			}},
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "The links.", Content: openapi.JSON(openapi.Ref("MailSlurpLinks"))},
				"400": {Ref: "MailSlurpBadRequest"},
				"404": {Ref: "MailSlurpNotFound"},
			}),
		}, {
			Method: "GET", Path: "/compat/mailslurp/emails/{emailId}/attachments",
			ID:          "mailslurpGetEmailAttachments",
			Tags:        []string{"Compat: MailSlurp"},
			Summary:     "An email's attachments",
			Description: "getEmailAttachments: what each attachment is.",
			Security:    apiKey,
			Params:      []openapi.Param{paramEmailID},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "The attachments.",
					Content:     openapi.JSON(openapi.ArrayOf(openapi.Ref("MailSlurpAttachment"))),
				},
				"400": {Ref: "MailSlurpBadRequest"},
				"404": {Ref: "MailSlurpNotFound"},
			}),
		}, {
			Method: "GET", Path: "/compat/mailslurp/emails/{emailId}/attachments/{attachmentId}",
			ID:      "mailslurpDownloadAttachment",
			Tags:    []string{"Compat: MailSlurp"},
			Summary: "Download an attachment",
			Description: "downloadAttachment: the attachment's decoded bytes, exactly. The SDK reads them as " +
				"text (UTF-8); its Raw form (`downloadAttachmentRaw(...).raw`) has them as sent.",
			Security: apiKey,
			Params:   []openapi.Param{paramEmailID, paramAttachmentID},
			Responses: answers(map[string]openapi.Response{
				"200": {Ref: "Attachment"},
				"400": {Ref: "MailSlurpBadRequest"},
				"404": {Ref: "MailSlurpNotFound"},
			}),
		}, {
			Method: "GET", Path: "/compat/mailslurp/waitForEmailCount",
			ID:      "mailslurpWaitForEmailCount",
			Tags:    []string{"Compat: MailSlurp"},
			Summary: "Wait for a number of emails",
			Description: "waitForEmailCount: the oldest `count` emails of those selected, at once if the inbox " +
				"holds them, else when they have arrived within `timeout`.",
			Security: apiKey,
			Params:   []openapi.Param{paramWaitInbox, paramCount, paramTimeout, paramUnreadOnly, paramSince, paramBefore, paramSort, paramDelay},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "The oldest `count` emails of those selected (none is marked read).",
					Content:     openapi.JSON(openapi.ArrayOf(openapi.Ref("MailSlurpEmailPreview"))),
				},
				"400": {Ref: "MailSlurpBadRequest"},
				"404": {Ref: "MailSlurpNotFound"},
				"408": {Ref: "MailSlurpTimeout"},
				"429": {Ref: "MailSlurpTooMany"},
			}),
		}, {
			Method: "POST", Path: "/compat/mailslurp/waitForMatchingEmails",
			ID:      "mailslurpWaitForMatchingEmails",
			Tags:    []string{"Compat: MailSlurp"},
			Summary: "Wait for a number of matching emails",
			Description: "waitForMatchingEmails: the oldest `count` emails of those selected that every match holds " +
				"for, at once or when they have arrived within `timeout`.",
			Security: apiKey,
			Params:   []openapi.Param{paramWaitInbox, paramCount, paramTimeout, paramUnreadOnly, paramSince, paramBefore, paramSort, paramDelay},
			Body: &openapi.Body{
				Description: "What the email must match.",
				Required:    true,
				Content:     openapi.JSON(openapi.Ref("MailSlurpMatchOptions")),
			},
			Responses: answers(map[string]openapi.Response{
				"200": {
					Description: "The oldest `count` emails of those selected (none is marked read).",
					Content:     openapi.JSON(openapi.ArrayOf(openapi.Ref("MailSlurpEmailPreview"))),
				},
				"400": {Ref: "MailSlurpBadRequest"},
				"404": {Ref: "MailSlurpNotFound"},
				"408": {Ref: "MailSlurpTimeout"},
				"413": {Ref: "MailSlurpPayloadTooLarge"},
				"415": {Ref: "MailSlurpUnsupportedMediaType"},
				"429": {Ref: "MailSlurpTooMany"},
			}),
		}, {
			Method: "DELETE", Path: "/compat/mailslurp/inboxes/{inboxId}/deleteAllInboxEmails",
			ID:          "mailslurpDeleteAllInboxEmails",
			Tags:        []string{"Compat: MailSlurp"},
			Summary:     "Delete every email of an inbox",
			Description: "deleteAllInboxEmails: the inbox stays, empty.",
			Security:    apiKey,
			Params:      []openapi.Param{paramInboxID},
			Responses: answers(map[string]openapi.Response{
				"204": {Description: "Emptied."},
				"400": {Ref: "MailSlurpBadRequest"},
				"404": {Ref: "MailSlurpNotFound"},
			}),
		}, {
			Method: "DELETE", Path: "/compat/mailslurp/emptyInbox",
			ID:          "mailslurpEmptyInbox",
			Tags:        []string{"Compat: MailSlurp"},
			Summary:     "Delete every email of an inbox",
			Description: "emptyInbox: the inbox stays, empty.",
			Security:    apiKey,
			Params: []openapi.Param{{
				Name:        "inboxId",
				In:          "query",
				Required:    true,
				Description: "The inbox to empty.",
				Schema:      &openapi.Schema{Type: "string", Format: "uuid"},
			}},
			Responses: answers(map[string]openapi.Response{
				"204": {Description: "Emptied."},
				"400": {Ref: "MailSlurpBadRequest"},
				"404": {Ref: "MailSlurpNotFound"},
			}),
		},
			unsupported("GET", "mailslurpUnsupportedGet"),
			unsupported("POST", "mailslurpUnsupportedPost"),
			unsupported("PUT", "mailslurpUnsupportedPut"),
			unsupported("PATCH", "mailslurpUnsupportedPatch"),
			unsupported("DELETE", "mailslurpUnsupportedDelete"),
		}, callOperations()...),
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
