package mailosaur

import (
	"tempmail/api/openapi"
)

// schemas are the Mailosaur family's shapes as the document names them:
// the types of dto.go and the handlers', described where reflection
// cannot tell (openapi.Component).
func schemas() map[string]openapi.Component {
	return map[string]openapi.Component{
		"MailosaurError": {
			Of: mailosaurError{},
			Fields: map[string]openapi.Schema{
				"type": {
					Description: "The kind of error: `ValidationError`, `AuthenticationError`, `PermissionError`, " +
						"`NotFoundError`, `RateLimitError` or `ApiError`.",
				},
				"errors.field":              {Description: "The field at fault, or `request`."},
				"errors.detail.description": {Description: "What went wrong, and what to fix."},
			},
			Schema: openapi.Schema{
				Description: "The Mailosaur family's error shape; for a 400 the SDK reports `(field) description` of " +
					"each of `errors`.",
			},
		},
		"MailosaurServer": {
			Of: mailosaurServer{},
			Fields: map[string]openapi.Schema{
				"id": {
					Description: "The server's id: the first label of its domain, `<id>.<first domain>`.",
					Pattern:     "^[a-z0-9]{8}$",
				},
				"name":  {Description: "The name it was given."},
				"users": {Description: "Always empty: servers have no users here."},
				"messages": {
					Description: "The messages its inboxes hold (of its newest 500 inboxes).",
					Minimum:     openapi.N(0),
				},
			},
			Schema: openapi.Schema{Description: "A Mailosaur server: a private catch-all subdomain of the key's tenant."},
		},
		"MailosaurServerList": {
			Of: mailosaurServerList{},
			Fields: map[string]openapi.Schema{
				"items": {Description: "By name."},
			},
		},
		"MailosaurServerRequest": {
			Of:      mailosaurServerBody{},
			Request: true,
			Fields: map[string]openapi.Schema{
				"name": {
					Description: "The server's name: 1 to 200 characters, none a control character.",
					MinLength:   openapi.N(1),
				},
			},
			Schema: openapi.Schema{
				Description: "What creates or renames a server: its name (update sends the whole server back; the rest " +
					"is ignored).",
				Required: []string{"name"},
			},
		},
		"MailosaurAddress": {Of: mailosaurAddress{}},
		"MailosaurMessageSummary": {
			Of: mailosaurSummary{},
			Fields: map[string]openapi.Schema{
				"id":          {Format: "uuid"},
				"type":        {Type: "string", Const: "Email"},
				"server":      {Description: "The server's id; empty for an inbox on no server."},
				"bcc":         {Description: "Always empty."},
				"received":    {Type: "string", Format: "date-time"},
				"summary":     {Description: "The start of what the message says."},
				"attachments": {Description: "How many attachments it has.", Minimum: openapi.N(0)},
			},
		},
		"MailosaurMessageList": {Of: mailosaurSummaries{}},
		"MailosaurContent": {
			Of: mailosaurContent{},
			Fields: map[string]openapi.Schema{
				"body":  {Description: "The body; empty when the message has no such part."},
				"links": {Description: "Its http and https links, in order."},
				"codes": {
					Description: "Its six-digit codes, each once, at most 10 (in the HTML, of the text it shows).",
				},
			},
		},
		"MailosaurMessage": {
			Of: mailosaurMessage{},
			Fields: map[string]openapi.Schema{
				"id":                 {Format: "uuid"},
				"type":               {Type: "string", Const: "Email"},
				"bcc":                {Description: "Always empty."},
				"received":           {Type: "string", Format: "date-time"},
				"attachments.length": {Minimum: openapi.N(0)},
				"metadata.mailFrom":  {Description: "The SMTP envelope's sender."},
				"metadata.rcptTo":    {Description: "The inbox's address."},
			},
			Schema: openapi.Schema{Description: "A message as the SDK's Message model reads it; no spam analysis."},
		},
		"MailosaurSearchCriteria": {
			Of:      mailosaurCriteria{},
			Request: true,
			Fields: map[string]openapi.Schema{
				"sentFrom": {Description: "The sender's address, whole (any case).", MaxLength: openapi.N(256)},
				"sentTo": {
					Description: "A recipient's address, whole (any case): the inbox's, or one in To or Cc.",
					MaxLength:   openapi.N(256),
				},
				"subject": {Description: "Part of the subject (any case).", MaxLength: openapi.N(256)},
				"body": {
					Description: "Part of the text or HTML body (any case); at most 200 bodies are read by one search.",
					MaxLength:   openapi.N(256),
				},
				"match": {
					Description: "`ALL` (the default): every criterion given; `ANY`: one of them.",
					Type:        "string",
					Enum:        []any{"ALL", "ANY", "all", "any"},
				},
			},
		},
		"MailosaurUsageLimit": {
			Of: mailosaurLimit{},
			Fields: map[string]openapi.Schema{
				"limit":   {Description: "0: no limit.", Minimum: openapi.N(0)},
				"current": {Minimum: openapi.N(0)},
			},
		},
		"MailosaurUsageLimits": {
			Of: mailosaurLimits{},
			Schema: openapi.Schema{
				Description: "servers: the tenant's servers, of at most 100; email: its mail today against its messages " +
					"a day; it has no users or SMS (0).",
			},
		},
		"MailosaurOTPRequest": {
			Of:      mailosaurOTPRequest{},
			Request: true,
			Fields: map[string]openapi.Schema{
				"sharedSecret": {
					Description: "The base32 secret an authenticator app is given (A-Z, 2-7; any case, spaces, " +
						"dashes and padding allowed).",
					MinLength: openapi.N(1), MaxLength: openapi.N(2 * maxSecretLen),
				},
			},
		},
		"MailosaurOTP": {
			Of: mailosaurOTP{},
			Fields: map[string]openapi.Schema{
				"code":    {Description: "Six digits.", Pattern: "^[0-9]{6}$"},
				"expires": {Description: "When the next code begins."},
			},
		},
		"MailosaurDevice": {
			Of: mailosaurDevice{},
			Fields: map[string]openapi.Schema{
				"id":   {Description: "The device's id.", Format: "uuid"},
				"name": {Description: "The name it was given."},
			},
			Schema: openapi.Schema{Description: "A virtual security device of the key's tenant (never its secret)."},
		},
		"MailosaurDeviceList": {
			Of: mailosaurDeviceList{},
			Fields: map[string]openapi.Schema{
				"items": {Description: "In the order they were made; at most 100."},
			},
		},
		"MailosaurDeviceRequest": {
			Of:      mailosaurDeviceBody{},
			Request: true,
			Fields: map[string]openapi.Schema{
				"name": {
					Description: "The device's name: 1 to 200 characters, none a control character.",
					MinLength:   openapi.N(1),
				},
				"sharedSecret": {
					Description: "The base32 secret an authenticator app is given (A-Z, 2-7; any case, spaces, " +
						"dashes and padding allowed).",
					MinLength: openapi.N(1), MaxLength: openapi.N(2 * maxSecretLen),
				},
			},
			Schema: openapi.Schema{
				Description: "What creates a device: its name and its shared secret.",
				Required:    []string{"name", "sharedSecret"},
			},
		},
		"MailosaurTransactions": {
			Of: mailosaurTransactions{},
			Fields: map[string]openapi.Schema{
				"items.timestamp": {Description: "The day's start (UTC)."},
				"items.email":     {Description: "The tenant's messages that day.", Minimum: openapi.N(0)},
				"items.sms":       {Description: "Always 0: the service receives no SMS."},
			},
		},
	}
}
