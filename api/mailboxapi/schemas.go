package mailboxapi

import (
	"tempmail/api/openapi"
)

// schemas are family B's shapes as the document names them: the types of
// dto.go, described where reflection cannot tell (openapi.Component), and
// the bodies written as maps or piece by piece.
func schemas() map[string]openapi.Component {
	return map[string]openapi.Component{
		"ErrorB": {Schema: openapi.Schema{
			Description: "Family B's error shape.",
			Type:        "object",
			Required:    []string{"success", "error"},
			Properties: []openapi.Property{
				{Name: "success", Schema: openapi.Schema{Const: false}},
				{Name: "error", Schema: openapi.Schema{Type: "string"}},
			},
		}},
		"CreateTempEmailRequest": {Schema: openapi.Schema{
			Type: "object",
			Properties: []openapi.Property{
				{Name: "email_name", Schema: openapi.Schema{
					Description: "The wanted local part, lower-cased: `^[a-z0-9](?:[a-z0-9._-]{0,62}[a-z0-9])?$`, no `..`, " +
						"not a reserved name (postmaster, abuse, hostmaster, webmaster, mailer-daemon, root, " +
						"admin). Missing or empty: 12 random `[a-z0-9]`.",
					Type:      "string",
					Nullable:  true,
					MaxLength: openapi.N(64),
				}},
			},
		}},
		"TempEmailB": {
			Of: TempEmail{},
			Fields: map[string]openapi.Schema{
				"success":  {Const: true},
				"email":    {Format: "email"},
				"inbox_id": {Format: "uuid"},
				"token":    {Description: "The inbox's token: family C's credential for it."},
			},
		},
		"AttachmentB": {
			Of: Attachment{},
			Fields: map[string]openapi.Schema{
				"size": {Minimum: openapi.N(0)},
			},
		},
		"MessageB": {
			Of: Message{},
			Fields: map[string]openapi.Schema{
				"filename": {Description: "`<message id>.eml`; used in paths."},
				"from":     {Description: "The sender's address."},
				"to":       {Description: "The mailbox's address."},
				"size":     {Description: "Bytes of the raw message.", Minimum: openapi.N(0)},
				"headers":  {Description: "Header name (as in the message) to the value of its first occurrence."},
				"body":     {Description: "The text body (the HTML as text when there is no text part)."},
			},
		},
		"MailboxB": {Schema: openapi.Schema{
			Type:     "object",
			Required: []string{"emails", "total"},
			Properties: []openapi.Property{
				{Name: "emails", Schema: openapi.Schema{Type: "array", Items: openapi.Ref("MessageB")}},
				{Name: "total", Schema: openapi.Schema{
					Description: "How many messages pass the filters, all pages together.",
					Type:        "integer",
					Minimum:     openapi.N(0),
				}},
			},
		}},
		"DeletedB": {Schema: openapi.Schema{
			Type:     "object",
			Required: []string{"success", "message"},
			Properties: []openapi.Property{
				{Name: "success", Schema: openapi.Schema{Const: true}},
				{Name: "message", Schema: openapi.Schema{Type: "string", Examples: []any{"Email deleted successfully"}}},
			},
		}},
	}
}
