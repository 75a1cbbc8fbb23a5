package mailslurp

import (
	"tempmail/api/openapi"
)

// schemas are the MailSlurp family's shapes as the document names them:
// the types of dto.go and the handlers', described where reflection
// cannot tell (openapi.Component).
func schemas() map[string]openapi.Component {
	return map[string]openapi.Component{
		"MailSlurpError": {
			Of: mailslurpError{},
			Fields: map[string]openapi.Schema{
				"status":  {Description: "The HTTP status."},
				"error":   {Description: "The status's reason phrase."},
				"message": {Description: "What went wrong, and what to fix."},
			},
			Schema: openapi.Schema{
				Description: "The MailSlurp family's error shape, as MailSlurp's service answers (the SDK throws the parsed body).",
			},
		},
		"MailSlurpInbox": {
			Of: mailslurpInboxDto{},
			Fields: map[string]openapi.Schema{
				"id":           {Format: "uuid"},
				"userId":       {Description: "The tenant's id; null for an inbox made with the API token."},
				"name":         {Type: "null"},
				"domainId":     {Type: "null"},
				"description":  {Type: "null"},
				"emailAddress": {Format: "email"},
				"expiresAt":    {Nullable: true},
				"inboxType":    {Type: "string", Enum: []any{"HTTP_INBOX"}},
			},
			Schema: openapi.Schema{
				Description: "An inbox, as the SDK's `InboxDto`. What tempmail does not keep is null (`name`, " +
					"`description`, `domainId`) or empty (`tags`).",
			},
		},
		"MailSlurpSender": {Of: mailslurpSender{}},
		"MailSlurpEmail": {
			Of: mailslurpEmail{},
			Fields: map[string]openapi.Schema{
				"id":       {Format: "uuid"},
				"inboxId":  {Format: "uuid"},
				"domainId": {Type: "null"},
			},
			Schema: openapi.Schema{
				Description: "An email whole, as the SDK's `Email`: `body` is its HTML when it has some (`isHTML`), its " +
					"text otherwise; `attachments` are the attachments' ids. Answering it marks it read.",
			},
		},
		"MailSlurpEmailPreview": {
			Of: mailslurpPreview{},
			Fields: map[string]openapi.Schema{
				"id":       {Format: "uuid"},
				"inboxId":  {Format: "uuid"},
				"domainId": {Type: "null"},
			},
			Schema: openapi.Schema{Description: "An email in a list, as the SDK's `EmailPreview`."},
		},
		"MailSlurpAttachment": {
			Of:     mailslurpAttachment{},
			Schema: openapi.Schema{Description: "An attachment, as the SDK's `AttachmentMetaData`."},
		},
		"MailSlurpAttachmentBase64": {
			Of: mailslurpDownload{},
			Fields: map[string]openapi.Schema{
				"base64FileContents": {ContentEncoding: "base64"},
			},
			Schema: openapi.Schema{Description: "An attachment's decoded bytes in base64, as the SDK's `DownloadAttachmentDto`."},
		},
		"MailSlurpAttachmentEntity": {
			Of: mailslurpAttachmentEntity{},
			Fields: map[string]openapi.Schema{
				"userId": {Description: "The tenant's id; null for an inbox made with the API token."},
			},
			Schema: openapi.Schema{
				Description: "An attachment found by its id, as the SDK's `AttachmentEntityDto`: `id` and `attachmentId` " +
					"are the one id; it was made, and last changed, when its email came.",
			},
		},
		"MailSlurpEmailHTML": {
			Of:     mailslurpHTML{},
			Schema: openapi.Schema{Description: "An email's HTML (a text email's text) and subject, as the SDK's `EmailHtmlDto`."},
		},
		"MailSlurpRawEmail": {
			Of:     mailslurpRaw{},
			Schema: openapi.Schema{Description: "An email's source as received, as the SDK's `RawEmailJson`."},
		},
		"MailSlurpCount": {
			Of:     mailslurpCount{},
			Schema: openapi.Schema{Description: "How many emails an inbox holds, as the SDK's `CountDto`."},
		},
		"MailSlurpInboxByAddress": {
			Of: mailslurpInboxByAddress{},
			Fields: map[string]openapi.Schema{
				"inboxId": {Format: "uuid"},
			},
			Schema: openapi.Schema{
				Description: "Whether an address is an inbox the key may see, as the SDK's `InboxByEmailAddressResult`; " +
					"`inboxId` is null when not.",
			},
		},
		"MailSlurpInboxPreview": {
			Of: mailslurpInboxPreview{},
			Fields: map[string]openapi.Schema{
				"id":           {Format: "uuid"},
				"domainId":     {Type: "null"},
				"name":         {Type: "null"},
				"description":  {Type: "null"},
				"emailAddress": {Format: "email"},
				"expiresAt":    {Nullable: true},
				"inboxType":    {Type: "string", Enum: []any{"HTTP_INBOX"}},
				"userId":       {Description: "The tenant's id."},
			},
			Schema: openapi.Schema{Description: "An inbox in a page, as the SDK's `InboxPreview`."},
		},
		"MailSlurpSort": {
			Of:     springSort{},
			Schema: openapi.Schema{Description: "Spring's `Sort`: a page is sorted, on `createdAt`."},
		},
		"MailSlurpPageable": {
			Of:     springPageable{},
			Schema: openapi.Schema{Description: "Spring's `Pageable`: the page asked for."},
		},
		"MailSlurpPageInbox": {
			Of:     springPage[mailslurpInboxPreview]{},
			Schema: openapi.Schema{Description: "A page of inboxes, in Spring's `Page` shape (the SDK's `PageInboxProjection`)."},
		},
		"MailSlurpPageEmailPreview": {
			Of:     springPage[mailslurpPreview]{},
			Schema: openapi.Schema{Description: "A page of emails, in Spring's `Page` shape (the SDK's `PageEmailPreview`)."},
		},
		"MailSlurpCodes": {
			Of: mailslurpCodes{},
			Fields: map[string]openapi.Schema{
				"methodUsed":        {Type: "string", Enum: []any{"PATTERN"}},
				"candidates.method": {Type: "string", Enum: []any{"PATTERN"}},
				"candidates.source": {Type: "string", Enum: []any{"SUBJECT", "TEXT"}},
			},
			Schema: openapi.Schema{
				Description: "The codes found in an email, as the SDK's `ExtractCodesResult`: `code` is the first candidate.",
			},
		},
		"MailSlurpContentMatch": {
			Of: mailslurpMatch{},
			Schema: openapi.Schema{
				Description: "What a pattern matched in an email, as the SDK's `EmailContentMatchResult`: the whole " +
					"match, then its groups; `[]` for no match.",
			},
		},
		"MailSlurpTextLines": {
			Of: mailslurpLines{},
			Schema: openapi.Schema{
				Description: "An email's text by lines, blank lines left out, as the SDK's `EmailTextLinesResult`.",
			},
		},
		"MailSlurpLinks": {
			Of:     mailslurpLinks{},
			Schema: openapi.Schema{Description: "An email's http and https links, as the SDK's `EmailLinksResult`."},
		},
		"MailSlurpInboxOptions": {
			Of:      mailslurpInboxOptions{},
			Request: true,
			Fields: map[string]openapi.Schema{
				"emailAddress": {Nullable: true},
				"domainName":   {Nullable: true},
				"expiresIn":    {Type: "integer", Nullable: true},
				"expiresAt":    {Nullable: true},
			},
			Schema: openapi.Schema{
				Description: "The SDK's `CreateInboxDto`. tempmail heeds `emailAddress` (the whole address wanted), " +
					"`domainName` (a random name on that domain), `expiresIn` (milliseconds) and `expiresAt`; " +
					"it takes the other fields and keeps nothing of them.",
			},
		},
		"MailSlurpMatchOptions": {Schema: openapi.Schema{
			Description: "The SDK's `MatchOptions`: every match must hold. `conditions` are not supported (400).",
			Type:        "object",
			Properties: []openapi.Property{
				{Name: "matches", Schema: openapi.Schema{
					Type:     "array",
					MaxItems: openapi.N(16),
					Items: &openapi.Schema{
						Type:     "object",
						Required: []string{"field", "should", "value"},
						Properties: []openapi.Property{
							{Name: "field", Schema: openapi.Schema{Type: "string", Enum: []any{"SUBJECT", "TO", "CC", "FROM"}}},
							{Name: "should", Schema: openapi.Schema{Type: "string", Enum: []any{"CONTAIN", "EQUAL"}}},
							{Name: "value", Schema: openapi.Schema{Type: "string", MaxLength: openapi.N(256)}},
						},
					},
				}},
				{Name: "conditions", Schema: openapi.Schema{Type: "array", MaxItems: openapi.N(0), Items: &openapi.Schema{}}},
			},
		}},
		"MailSlurpCodeOptions": {
			Of:      mailslurpCodeOptions{},
			Request: true,
			Fields: map[string]openapi.Schema{
				"minLength":      {Minimum: openapi.N(1), Maximum: openapi.N(32)},
				"maxLength":      {Minimum: openapi.N(1), Maximum: openapi.N(32)},
				"maxCandidates":  {Default: 5, Minimum: openapi.N(1), Maximum: openapi.N(20)},
				"customPatterns": {Nullable: true, MaxItems: openapi.N(8), Items: &openapi.Schema{MaxLength: openapi.N(512)}},
			},
			Schema: openapi.Schema{
				Description: "The SDK's `ExtractCodesOptions`. Codes are found with patterns (RE2) in the subject, then " +
					"the text: `customPatterns`, or digits of `minLength` to `maxLength` (without either, six " +
					"digits, as `.../otp/` finds). A `method` other than `PATTERN` or `AUTO` falls back to it, " +
					"with a warning.",
				Properties: []openapi.Property{
					{Name: "allowFallback", Schema: openapi.Schema{Type: "boolean"}},
				},
			},
		},
	}
}
