package mailtm

import (
	"tempmail/api/openapi"
)

// schemas are the mail.tm family's shapes as the document names them: the
// types of dto.go and the handlers', described where reflection cannot
// tell (openapi.Component), and the collections written piece by piece.
func schemas() map[string]openapi.Component {
	return map[string]openapi.Component{
		"MailTMDomain": {
			Of: mailtmDomainOut{},
			Fields: map[string]openapi.Schema{
				"@context":  {Description: "JSON-LD only: the object's context (an answer's top-level object)."},
				"@id":       {Description: "JSON-LD only: the object's IRI, under `/compat/mailtm`."},
				"@type":     {Description: "JSON-LD only: the object's type."},
				"id":        {Description: "The domain's id (a number, as a string)."},
				"isPrivate": {Description: "A private domain of the key's tenant."},
			},
			Schema: openapi.Schema{Description: "A domain accounts may be made on. Domains carry no dates here."},
		},
		"MailTMAccount": {
			Of: mailtmAccountOut{},
			Fields: map[string]openapi.Schema{
				"@context": {Description: "JSON-LD only: the object's context (an answer's top-level object)."},
				"@id":      {Description: "JSON-LD only: the object's IRI, under `/compat/mailtm`."},
				"@type":    {Description: "JSON-LD only: the object's type."},
				"id":       {Description: "The account's id: its inbox's.", Format: "uuid"},
				"quota": {
					Description: "The most the account may hold, in bytes (`--max-message-bytes` times " +
						"`--max-messages-per-inbox`); 0: no bound.",
				},
				"used":      {Description: "Bytes held, counted for a tenant's account (0 for others)."},
				"createdAt": {Type: "string", Format: "date-time"},
				"updatedAt": {Type: "string", Format: "date-time"},
			},
			Schema: openapi.Schema{Description: "An account."},
		},
		"MailTMCredentials": {
			Of:      mailtmCredentials{},
			Request: true,
			Fields: map[string]openapi.Schema{
				"address": {
					Description: "`name@domain`: family C's rules for the name, a domain of `GET /domains`.",
					Type:        "string",
					MaxLength:   openapi.N(254),
				},
				"password": {
					Description: "1 to 128 bytes of UTF-8; kept as a slow salted hash, never as given.",
					Type:        "string",
					MinLength:   openapi.N(1),
					MaxLength:   openapi.N(128),
				},
			},
			Schema: openapi.Schema{
				Description: "An account's address and password.",
				Required:    []string{"address", "password"},
			},
		},
		"MailTMToken": {
			Of: mailtmToken{},
			Fields: map[string]openapi.Schema{
				"id": {Description: "The account's id.", Format: "uuid"},
				"token": {
					Description: "The account's token, for `Authorization: Bearer` (its inbox's token: opaque to clients).",
				},
			},
		},
		"MailTMAddress": {Of: mailtmAddress{}},
		"MailTMMessageChanged": {
			Of: mailtmChanged{},
			Fields: map[string]openapi.Schema{
				"@id":       {Description: "The message's IRI, under `/compat/mailtm`."},
				"@type":     {Description: "`Message`."},
				"id":        {Format: "uuid"},
				"accountId": {Format: "uuid"},
				"seen":      {Description: "True when the message was read."},
				"isDeleted": {Description: "True when it was deleted."},
			},
			Schema: openapi.Schema{Description: "A message read or deleted, on the Mercure hub: its id, and which."},
		},
		"MailTMEventStream": {
			Schema: openapi.Schema{
				Description: "The Mercure hub's event stream: an inbox's event stream (`EventStream`) whose message " +
					"events, new, read or deleted, are all unnamed (`message`), as mail.tm's hub sends them; `$defs` " +
					"holds their data's schema.",
				Type: "string",
				Defs: map[string]openapi.Schema{"message": {Ref: "MailTMHubMessage"}},
			},
		},
		"MailTMHubMessage": {
			Schema: openapi.Schema{
				Description: "A message event of the Mercure hub: a new message, or one read or deleted.",
				AnyOf:       []openapi.Schema{{Ref: "MailTMMessageSummary"}, {Ref: "MailTMMessageChanged"}},
			},
		},
		"MailTMMessageSummary": {
			Of: mailtmSummaryOut{},
			Fields: map[string]openapi.Schema{
				"@context":    {Description: "JSON-LD only: the object's context (an answer's top-level object)."},
				"@id":         {Description: "JSON-LD only: the object's IRI, under `/compat/mailtm`."},
				"@type":       {Description: "JSON-LD only: the object's type."},
				"id":          {Format: "uuid"},
				"accountId":   {Format: "uuid"},
				"msgid":       {Description: "The Message-ID header (empty in lists)."},
				"downloadUrl": {Description: "Where its source downloads: `/compat/mailtm/messages/{id}/download`."},
				"createdAt":   {Type: "string", Format: "date-time"},
				"updatedAt":   {Type: "string", Format: "date-time"},
				"intro":       {Description: "The start of its text."},
			},
			Schema: openapi.Schema{Description: "A message as lists show it."},
		},
		"MailTMAttachment": {
			Of: mailtmAttachmentOut{},
			Fields: map[string]openapi.Schema{
				"id":   {Description: "`ATTACH` and its place among the message's attachments, from 000001."},
				"size": {Description: "In bytes."},
			},
		},
		"MailTMMessage": {
			Of: mailtmMessageOut{},
			Fields: map[string]openapi.Schema{
				"@context":    {Description: "JSON-LD only: the object's context (an answer's top-level object)."},
				"@id":         {Description: "JSON-LD only: the object's IRI, under `/compat/mailtm`."},
				"@type":       {Description: "JSON-LD only: the object's type."},
				"id":          {Format: "uuid"},
				"accountId":   {Format: "uuid"},
				"msgid":       {Description: "The Message-ID header (empty in lists)."},
				"downloadUrl": {Description: "Where its source downloads: `/compat/mailtm/messages/{id}/download`."},
				"createdAt":   {Type: "string", Format: "date-time"},
				"updatedAt":   {Type: "string", Format: "date-time"},
				"retention":   {Description: "The account expires."},
				"retentionDate": {
					Description: "When the account expires; null: never.",
					Type:        "string",
					Format:      "date-time",
				},
				"html": {Description: "Its HTML body, as one part; none: empty."},
			},
			Schema: openapi.Schema{Description: "A message whole."},
		},
		"MailTMSeen": {Schema: openapi.Schema{
			Type: "object",
			Properties: []openapi.Property{
				{Name: "seen", Schema: openapi.Schema{
					Description: "true marks the message seen; false is refused (422) for a message already seen: this " +
						"server keeps no unread mark.",
					Type: "boolean",
				}},
			},
		}},
		"MailTMSource": {
			Of: mailtmSourceOut{},
			Fields: map[string]openapi.Schema{
				"@context": {Description: "JSON-LD only: the object's context (an answer's top-level object)."},
				"@id":      {Description: "JSON-LD only: the object's IRI, under `/compat/mailtm`."},
				"@type":    {Description: "JSON-LD only: the object's type."},
				"id":       {Format: "uuid"},
				"data":     {Description: "The message exactly as received."},
			},
			Schema: openapi.Schema{Description: "A message's source."},
		},
		"MailTMDomainCollection": {Schema: openapi.Schema{
			Description: "A hydra collection (JSON-LD).",
			Type:        "object",
			Required:    []string{"@context", "@id", "@type", "hydra:member", "hydra:totalItems"},
			Properties: []openapi.Property{
				{Name: "@context", Schema: openapi.Schema{Type: "string"}},
				{Name: "@id", Schema: openapi.Schema{Type: "string"}},
				{Name: "@type", Schema: openapi.Schema{Type: "string", Const: "hydra:Collection"}},
				{Name: "hydra:member", Schema: openapi.Schema{Type: "array", Items: openapi.Ref("MailTMDomain")}},
				{Name: "hydra:totalItems", Schema: openapi.Schema{Description: "How many there are on every page.", Type: "integer"}},
				{Name: "hydra:view", Schema: openapi.Schema{
					Description: "The pages, when there are more than one.",
					Type:        "object",
					Properties: []openapi.Property{
						{Name: "@id", Schema: openapi.Schema{Type: "string"}},
						{Name: "@type", Schema: openapi.Schema{Type: "string"}},
						{Name: "hydra:first", Schema: openapi.Schema{Type: "string"}},
						{Name: "hydra:last", Schema: openapi.Schema{Type: "string"}},
						{Name: "hydra:previous", Schema: openapi.Schema{Type: "string"}},
						{Name: "hydra:next", Schema: openapi.Schema{Type: "string"}},
					},
				}},
			},
		}},
		"MailTMMessageCollection": {Schema: openapi.Schema{
			Description: "A hydra collection (JSON-LD).",
			Type:        "object",
			Required:    []string{"@context", "@id", "@type", "hydra:member", "hydra:totalItems"},
			Properties: []openapi.Property{
				{Name: "@context", Schema: openapi.Schema{Type: "string"}},
				{Name: "@id", Schema: openapi.Schema{Type: "string"}},
				{Name: "@type", Schema: openapi.Schema{Type: "string", Const: "hydra:Collection"}},
				{Name: "hydra:member", Schema: openapi.Schema{Type: "array", Items: openapi.Ref("MailTMMessageSummary")}},
				{Name: "hydra:totalItems", Schema: openapi.Schema{Description: "How many there are on every page.", Type: "integer"}},
				{Name: "hydra:view", Schema: openapi.Schema{
					Description: "The pages, when there are more than one.",
					Type:        "object",
					Properties: []openapi.Property{
						{Name: "@id", Schema: openapi.Schema{Type: "string"}},
						{Name: "@type", Schema: openapi.Schema{Type: "string"}},
						{Name: "hydra:first", Schema: openapi.Schema{Type: "string"}},
						{Name: "hydra:last", Schema: openapi.Schema{Type: "string"}},
						{Name: "hydra:previous", Schema: openapi.Schema{Type: "string"}},
						{Name: "hydra:next", Schema: openapi.Schema{Type: "string"}},
					},
				}},
			},
		}},
		"MailTMViolation": {Of: mailtmViolation{}},
		"MailTMError": {
			Of: mailtmError{},
			Schema: openapi.Schema{
				Description: "An error: in JSON-LD a `hydra:Error` (or a `ConstraintViolationList`, with its " +
					"violations), in JSON a problem (`type`, `title`); `detail` says what went wrong in both.",
			},
		},
		"MailTMAuthError": {
			Of: mailtmAuthError{},
			Fields: map[string]openapi.Schema{
				"code": {Type: "integer", Const: 401},
			},
			Schema: openapi.Schema{Description: "A 401, as mail.tm's JWT layer words it."},
		},
		"MailTMDomainList":  {Of: []mailtmDomainOut(nil)},
		"MailTMMessageList": {Of: []mailtmSummaryOut(nil)},
	}
}
