package mailslurp

import (
	"tempmail/api/openapi"
)

// callOperations are the operations of lists.go, bodies.go, attachments.go
// and markAsRead: the calls of the SDK beyond making inboxes, waiting for
// mail and finding things in it.
func callOperations() []openapi.Operation {
	ops := append(listOperations(), attachmentOperations()...)
	return append(ops, []openapi.Operation{{
		Method: "PATCH", Path: "/compat/mailslurp/emails/{emailId}/read",
		ID:      "mailslurpMarkAsRead",
		Tags:    []string{"Compat: MailSlurp"},
		Summary: "Mark an email read",
		Description: "markAsRead: the email, now read. tempmail keeps an email read once it is: `read=false` is " +
			"refused (400). Takes the `inboxes` scope.",
		Security: apiKey,
		Params: []openapi.Param{paramEmailID, {
			Name:        "read",
			In:          "query",
			Description: "`true` (the default); `false` is not supported.",
			Schema:      &openapi.Schema{Type: "boolean", Default: true},
		}},
		Responses: answers(map[string]openapi.Response{
			"200": {Description: "The email, read.", Content: openapi.JSON(openapi.Ref("MailSlurpEmailPreview"))},
			"400": {Ref: "MailSlurpBadRequest"},
			"404": {Ref: "MailSlurpNotFound"},
		}),
	}, {
		Method: "GET", Path: "/compat/mailslurp/emails/{emailId}/html",
		ID:      "mailslurpGetEmailHTML",
		Tags:    []string{"Compat: MailSlurp"},
		Summary: "An email's HTML",
		Description: "getEmailHTML: the email's HTML as sent (a text email's text, as `getEmail`'s `body`), under a " +
			"Content-Security-Policy that gives it no origin and lets it run and load nothing. It is not marked " +
			"read.",
		Security: apiKey,
		Params:   []openapi.Param{paramEmailID, paramReplaceCid},
		Responses: answers(map[string]openapi.Response{
			"200": {
				Description: "The HTML.",
				Headers:     map[string]openapi.Header{"Content-Security-Policy": {Ref: "Content-Security-Policy"}},
				Content:     map[string]openapi.MediaType{"text/html": {Schema: &openapi.Schema{Type: "string"}}},
			},
			"400": {Ref: "MailSlurpBadRequest"},
			"404": {Ref: "MailSlurpNotFound"},
		}),
	}, {
		Method: "GET", Path: "/compat/mailslurp/emails/{emailId}/html/json",
		ID:          "mailslurpGetEmailHTMLJson",
		Tags:        []string{"Compat: MailSlurp"},
		Summary:     "An email's HTML in JSON",
		Description: "getEmailHTMLJson: the body of `getEmailHTML`, with the subject. It is not marked read.",
		Security:    apiKey,
		Params:      []openapi.Param{paramEmailID, paramReplaceCid},
		Responses: answers(map[string]openapi.Response{
			"200": {Description: "The HTML.", Content: openapi.JSON(openapi.Ref("MailSlurpEmailHTML"))},
			"400": {Ref: "MailSlurpBadRequest"},
			"404": {Ref: "MailSlurpNotFound"},
		}),
	}, {
		Method: "GET", Path: "/compat/mailslurp/emails/{emailId}/htmlQuery",
		ID:      "mailslurpGetEmailHTMLQuery",
		Tags:    []string{"Compat: MailSlurp"},
		Summary: "Query an email's HTML",
		Description: "getEmailHTMLQuery: the text of each element of the HTML that `htmlSelector` finds, in order " +
			"(as jsoup's `eachText`: blank ones left out; at most 1000, and 1 MiB), with the HTML as `body`. " +
			"The selector is CSS: tag, `*`, `#id`, `.class`, `[attr]`, `[attr=value]` (and `~=`, `^=`, `$=`, " +
			"`*=`), joined by spaces and `>`, alternatives by commas; anything else is 400.",
		Security: apiKey,
		Params: []openapi.Param{paramEmailID, {
			Name:        "htmlSelector",
			In:          "query",
			Required:    true,
			Description: "The selector: printable ASCII, at most 32 steps.",
			Schema:      &openapi.Schema{Type: "string", MinLength: openapi.N(1), MaxLength: openapi.N(256)},
		}},
		Responses: answers(map[string]openapi.Response{
			"200": {Description: "What the selector found.", Content: openapi.JSON(openapi.Ref("MailSlurpTextLines"))},
			"400": {Ref: "MailSlurpBadRequest"},
			"404": {Ref: "MailSlurpNotFound"},
		}),
	}, {
		Method: "GET", Path: "/compat/mailslurp/emails/{emailId}/raw",
		ID:      "mailslurpGetRawEmailContents",
		Tags:    []string{"Compat: MailSlurp"},
		Summary: "An email's source",
		Description: "getRawEmailContents: the email exactly as received, under the service's `Received:` field " +
			"(and `Authentication-Results:`, with checks on). The SDK's call returns nothing of it; its Raw form " +
			"(`getRawEmailContentsRaw(...).raw`) has it.",
		Security: apiKey,
		Params:   []openapi.Param{paramEmailID},
		Responses: answers(map[string]openapi.Response{
			"200": {
				Description: "The email as received.",
				Headers:     map[string]openapi.Header{"Content-Disposition": {Ref: "RawDisposition"}},
				Content:     map[string]openapi.MediaType{"message/rfc822": {Schema: openapi.Ref("RawMessage")}},
			},
			"400": {Ref: "MailSlurpBadRequest"},
			"404": {Ref: "MailSlurpNotFound"},
		}),
	}, {
		Method: "GET", Path: "/compat/mailslurp/emails/{emailId}/raw/json",
		ID:      "mailslurpGetRawEmailJson",
		Tags:    []string{"Compat: MailSlurp"},
		Summary: "An email's source in JSON",
		Description: "getRawEmailJson: the source of `getRawEmailContents` as a string: bytes that are not UTF-8 " +
			"are U+FFFD there.",
		Security: apiKey,
		Params:   []openapi.Param{paramEmailID},
		Responses: answers(map[string]openapi.Response{
			"200": {Description: "The source.", Content: openapi.JSON(openapi.Ref("MailSlurpRawEmail"))},
			"400": {Ref: "MailSlurpBadRequest"},
			"404": {Ref: "MailSlurpNotFound"},
		}),
	}}...)
}

// paramReplaceCid is getEmailHTML's replaceCidImages, which changes
// nothing.
var paramReplaceCid = openapi.Param{
	Name:        "replaceCidImages",
	In:          "query",
	Description: "Taken, not heeded: `cid:` references stay as sent.",
	Schema:      &openapi.Schema{Type: "boolean"},
}

// attachmentOperations are attachments.go's: by an email and the
// attachment's id (emailController), or by the id alone
// (attachmentController).
func attachmentOperations() []openapi.Operation {
	byEmail := "/compat/mailslurp/emails/{emailId}/attachments/{attachmentId}"
	byID := "/compat/mailslurp/attachments/{attachmentId}"
	ops := []openapi.Operation{{
		Method: "GET", Path: byID,
		ID:          "mailslurpGetAttachment",
		Tags:        []string{"Compat: MailSlurp"},
		Summary:     "An attachment, by its id",
		Description: "getAttachment: what the attachment is, and whose; made when its email came.",
		Security:    apiKey,
		Params:      []openapi.Param{paramAttachmentID},
		Responses: answers(map[string]openapi.Response{
			"200": {Description: "The attachment.", Content: openapi.JSON(openapi.Ref("MailSlurpAttachmentEntity"))},
			"400": {Ref: "MailSlurpBadRequest"},
			"404": {Ref: "MailSlurpNotFound"},
		}),
	}, {
		Method: "GET", Path: byID + "/bytes",
		ID:      "mailslurpDownloadAttachmentAsBytes",
		Tags:    []string{"Compat: MailSlurp"},
		Summary: "Download an attachment, by its id",
		Description: "downloadAttachmentAsBytes: the attachment's decoded bytes, exactly. The SDK reads them as " +
			"text (UTF-8); its Raw form (`downloadAttachmentAsBytesRaw(...).raw`) has them as sent.",
		Security: apiKey,
		Params:   []openapi.Param{paramAttachmentID},
		Responses: answers(map[string]openapi.Response{
			"200": {Ref: "Attachment"},
			"400": {Ref: "MailSlurpBadRequest"},
			"404": {Ref: "MailSlurpNotFound"},
		}),
	}}
	base64 := " the attachment's decoded bytes in base64, its content type and size."
	metadata := " the attachment's name, content type and size in bytes."
	for _, c := range []struct {
		path, id, summary, description, schema string
		params                                 []openapi.Param
	}{
		{byEmail + "/base64", "mailslurpDownloadAttachmentBase64", "Download an attachment in base64",
			"downloadAttachmentBase64:" + base64, "MailSlurpAttachmentBase64", []openapi.Param{paramEmailID, paramAttachmentID}},
		{byID + "/base64", "mailslurpDownloadAttachmentAsBase64Encoded", "Download an attachment in base64, by its id",
			"downloadAttachmentAsBase64Encoded:" + base64, "MailSlurpAttachmentBase64", []openapi.Param{paramAttachmentID}},
		{byEmail + "/metadata", "mailslurpGetAttachmentMetaData", "What an attachment is",
			"getAttachmentMetaData:" + metadata, "MailSlurpAttachment", []openapi.Param{paramEmailID, paramAttachmentID}},
		{byID + "/metadata", "mailslurpGetAttachmentInfo", "What an attachment is, by its id",
			"getAttachmentInfo:" + metadata, "MailSlurpAttachment", []openapi.Param{paramAttachmentID}},
	} {
		ops = append(ops, openapi.Operation{
			Method: "GET", Path: c.path, ID: c.id, Tags: []string{"Compat: MailSlurp"}, Summary: c.summary,
			Description: c.description, Security: apiKey, Params: c.params,
			Responses: answers(map[string]openapi.Response{
				"200": {Description: "The attachment.", Content: openapi.JSON(openapi.Ref(c.schema))},
				"400": {Ref: "MailSlurpBadRequest"},
				"404": {Ref: "MailSlurpNotFound"},
			}),
		})
	}
	return ops
}
