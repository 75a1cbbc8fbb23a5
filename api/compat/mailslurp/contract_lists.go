package mailslurp

import (
	"tempmail/api/openapi"
)

// listOperations are lists.go's: pages of inboxes and emails, an inbox by
// its address, an inbox's count and latest email.
func listOperations() []openapi.Operation {
	return []openapi.Operation{{
		Method: "GET", Path: "/compat/mailslurp/inboxes/paginated",
		ID:      "mailslurpGetAllInboxes",
		Tags:    []string{"Compat: MailSlurp"},
		Summary: "A page of the tenant's inboxes",
		Description: "getAllInboxes: the key's tenant's live inboxes made `since` and `before`, whose id or " +
			"address holds `search`, by `createdAt`, in Spring's page shape. tempmail's inboxes are no " +
			"favourites, have no tags, are `HTTP_INBOX`es of no function and no MailSlurp domain: `favourite=true`, " +
			"`tag`, `inboxType=SMTP_INBOX`, `inboxFunction` and `domainId` select none. The API token owns none (400).",
		Security: apiKey,
		Params: append(pageParams(), []openapi.Param{{
			Name: "favourite", In: "query", Description: "Favourites alone: there are none.",
			Schema: &openapi.Schema{Type: "boolean", Default: false},
		}, {
			Name: "search", In: "query", Description: "Part of the id or the address, in any case.",
			Schema: &openapi.Schema{Type: "string", MaxLength: openapi.N(256)},
		}, {
			Name: "tag", In: "query", Description: "Tagged so: none is.",
			Schema: &openapi.Schema{Type: "string", MaxLength: openapi.N(256)},
		}, {
			Name: "teamAccess", In: "query", Description: "Taken, not heeded: a tenant's inboxes are its team's.",
			Schema: &openapi.Schema{Type: "boolean"},
		}, {
			Name: "since", In: "query", Description: "Made at or after this time.",
			Schema: &openapi.Schema{Type: "string", Format: "date-time"},
		}, {
			Name: "before", In: "query", Description: "Made before this time.",
			Schema: &openapi.Schema{Type: "string", Format: "date-time"},
		}, {
			Name: "inboxType", In: "query", Description: "Every inbox is an `HTTP_INBOX`.",
			Schema: &openapi.Schema{Type: "string", Enum: []any{"HTTP_INBOX", "SMTP_INBOX"}},
		}, {
			Name: "inboxFunction", In: "query", Description: "No inbox has a function.",
			Schema: &openapi.Schema{Type: "string", Enum: []any{"ALIAS", "THREAD", "CATCH_ALL", "CONNECTOR", "ACCOUNT",
				"GUEST", "OAUTH_CONNECTION_GMAIL"}},
		}, {
			Name: "domainId", In: "query", Description: "No inbox has a MailSlurp domain id.",
			Schema: &openapi.Schema{Type: "string", Format: "uuid"},
		}}...),
		Responses: answers(map[string]openapi.Response{
			"200": {Description: "The page.", Content: openapi.JSON(openapi.Ref("MailSlurpPageInbox"))},
			"400": {Ref: "MailSlurpBadRequest"},
		}),
	}, {
		Method: "GET", Path: "/compat/mailslurp/inboxes/byEmailAddress",
		ID:      "mailslurpGetInboxByEmailAddress",
		Tags:    []string{"Compat: MailSlurp"},
		Summary: "Find an inbox by its address",
		Description: "getInboxByEmailAddress: whether a live inbox the key may see has the address (in any case), " +
			"and its id. Another tenant's inbox is none.",
		Security: apiKey,
		Params: []openapi.Param{{
			Name: "emailAddress", In: "query", Required: true, Description: "The address.",
			Schema: &openapi.Schema{Type: "string", MinLength: openapi.N(1), MaxLength: openapi.N(318)},
		}},
		Responses: answers(map[string]openapi.Response{
			"200": {Description: "Whether it is an inbox.", Content: openapi.JSON(openapi.Ref("MailSlurpInboxByAddress"))},
			"400": {Ref: "MailSlurpBadRequest"},
		}),
	}, {
		Method: "GET", Path: "/compat/mailslurp/inboxes/{inboxId}/emails/paginated",
		ID:      "mailslurpGetInboxEmailsPaginated",
		Tags:    []string{"Compat: MailSlurp"},
		Summary: "A page of an inbox's emails",
		Description: "getInboxEmailsPaginated: the inbox's emails received `since` and `before`, by `createdAt`, " +
			"in Spring's page shape (none is marked read). `syncConnectors` is taken, not heeded.",
		Security: apiKey,
		Params: append(append([]openapi.Param{paramInboxID}, pageParams()...), paramSince, paramBefore, openapi.Param{
			Name: "syncConnectors", In: "query", Description: "Taken, not heeded: there are no connectors.",
			Schema: &openapi.Schema{Type: "boolean"},
		}),
		Responses: answers(map[string]openapi.Response{
			"200": {Description: "The page.", Content: openapi.JSON(openapi.Ref("MailSlurpPageEmailPreview"))},
			"400": {Ref: "MailSlurpBadRequest"},
			"404": {Ref: "MailSlurpNotFound"},
		}),
	}, {
		Method: "GET", Path: "/compat/mailslurp/inboxes/{inboxId}/emails/count",
		ID:          "mailslurpGetInboxEmailCount",
		Tags:        []string{"Compat: MailSlurp"},
		Summary:     "How many emails an inbox holds",
		Description: "getInboxEmailCount.",
		Security:    apiKey,
		Params:      []openapi.Param{paramInboxID},
		Responses: answers(map[string]openapi.Response{
			"200": {Description: "The count.", Content: openapi.JSON(openapi.Ref("MailSlurpCount"))},
			"400": {Ref: "MailSlurpBadRequest"},
			"404": {Ref: "MailSlurpNotFound"},
		}),
	}, {
		Method: "GET", Path: "/compat/mailslurp/emails/latestIn",
		ID:      "mailslurpGetLatestEmailInInbox",
		Tags:    []string{"Compat: MailSlurp"},
		Summary: "An inbox's latest email",
		Description: "getLatestEmailInInbox1: the inbox's newest email, whole; it is marked read. None is 404 " +
			"(waitForLatestEmail waits for one).",
		Security: apiKey,
		Params: []openapi.Param{{
			Name: "inboxId", In: "query", Required: true, Description: "The inbox.",
			Schema: &openapi.Schema{Type: "string", Format: "uuid"},
		}},
		Responses: answers(map[string]openapi.Response{
			"200": {Description: "The email (now read).", Content: openapi.JSON(openapi.Ref("MailSlurpEmail"))},
			"400": {Ref: "MailSlurpBadRequest"},
			"404": {Ref: "MailSlurpNotFound"},
		}),
	}}
}

// pageParams are the parameters of a page (pages.go).
func pageParams() []openapi.Param {
	return []openapi.Param{{
		Name: "page", In: "query", Description: "The page, from 0.",
		Schema: &openapi.Schema{Type: "integer", Default: 0, Minimum: openapi.N(0), Maximum: openapi.N(maxPage)},
	}, {
		Name: "size", In: "query", Description: "How many on a page.",
		Schema: &openapi.Schema{Type: "integer", Default: defaultPageSize, Minimum: openapi.N(1), Maximum: openapi.N(200)},
	}, {
		Name: "sort", In: "query", Description: "By `createdAt`, oldest or newest first.",
		Schema: &openapi.Schema{Type: "string", Enum: []any{"ASC", "DESC"}, Default: "ASC"},
	}}
}
