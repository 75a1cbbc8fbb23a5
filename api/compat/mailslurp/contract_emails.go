package mailslurp

import (
	"tempmail/api/openapi"
)

// emailOperations are the operations of emails.go and content.go, the
// counting waits of waits.go and emptying an inbox: reading an email,
// its codes, matches, lines, links and attachments.
func emailOperations() []openapi.Operation {
	return []openapi.Operation{{
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
	}}
}
