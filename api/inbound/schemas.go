package inbound

import (
	"tempmail/api/openapi"
)

// schemas are the inbound webhook's shapes as the document names them:
// the two forms of the JSON body (read.go reads both into one type), and
// the answer.
func schemas() map[string]openapi.Component {
	return map[string]openapi.Component{
		"WebhookMessage": {Schema: openapi.Schema{
			Description: "A message to build from fields.",
			Type:        "object",
			Required:    []string{"to", "from", "subject", "text"},
			Properties: []openapi.Property{
				{Name: "to", Schema: openapi.Schema{Ref: "Recipients"}},
				{Name: "from", Schema: openapi.Schema{Description: "The sender, e.g. `Ann <ann@example.com>`.", Type: "string"}},
				{Name: "subject", Schema: openapi.Schema{Type: "string"}},
				{Name: "text", Schema: openapi.Schema{Type: "string"}},
				{Name: "html", Schema: openapi.Schema{Type: "string"}},
				{Name: "attachments", Schema: openapi.Schema{
					Type: "array",
					Items: &openapi.Schema{
						Type:     "object",
						Required: []string{"data"},
						Properties: []openapi.Property{
							{Name: "filename", Schema: openapi.Schema{Type: "string"}},
							{Name: "content_type", Schema: openapi.Schema{Type: "string", Default: "application/octet-stream"}},
							{Name: "data", Schema: openapi.Schema{Type: "string", ContentEncoding: "base64"}},
						},
					},
				}},
			},
		}},
		"WebhookRawMessage": {Schema: openapi.Schema{
			Description: "A whole message in base64; when `raw` is there, the other fields are not used.",
			Type:        "object",
			Required:    []string{"to", "raw"},
			Properties: []openapi.Property{
				{Name: "to", Schema: openapi.Schema{Ref: "Recipients"}},
				{Name: "raw", Schema: openapi.Schema{Type: "string", ContentEncoding: "base64", ContentMediaType: "message/rfc822"}},
			},
		}},
		"Recipients": {Schema: openapi.Schema{
			Description: "An address, or an array of them (at most 100).",
			OneOf: []openapi.Schema{
				{Type: "string"},
				{Type: "array", MinItems: openapi.N(1), Items: &openapi.Schema{Type: "string"}},
			},
		}},
		"WebhookResult": {
			Of: inboundResult{},
			Fields: map[string]openapi.Schema{
				"success":    {Const: true},
				"message_id": {Description: "The message's `Message-ID` header."},
				"email_id":   {Description: "The id of the first recipient's copy.", Format: "uuid"},
			},
		},
	}
}
