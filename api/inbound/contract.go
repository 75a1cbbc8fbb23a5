package inbound

import (
	"tempmail/api/openapi"
)

// Contract is the inbound webhook's part of the OpenAPI document
// (api/openapi.json); its errors are family A's (package inboxapi).
func Contract() openapi.Contract {
	return openapi.Contract{
		Operations: []openapi.Operation{{
			Method: "POST", Path: "/api/webhook/email/",
			ID:      "deliverEmail",
			Tags:    []string{"Family A"},
			Summary: "Deliver one message (inbound webhook)",
			Description: "For another MTA or a mail provider: delivers one message through the same path as SMTP " +
				"(same limits, parsing and events). Three forms: the raw message as the body " +
				"(`message/rfc822` or `text/plain`) with the recipients in `?to=`; JSON fields to build a " +
				"message from (`WebhookMessage`); or JSON with the whole message in base64 " +
				"(`WebhookRawMessage`). Always needs the API token.",
			Security: []openapi.Security{{"apiToken"}},
			Params: []openapi.Param{{
				Name:        "to",
				In:          "query",
				Description: "A recipient, repeatable; required with a raw body, ignored with JSON.",
				Schema:      &openapi.Schema{Type: "array", Items: &openapi.Schema{Type: "string"}},
				Style:       "form",
				Explode:     true,
			}},
			Body: &openapi.Body{
				Required: true,
				Content: map[string]openapi.MediaType{
					"message/rfc822": {Schema: openapi.Ref("RawMessage")},
					"text/plain":     {Schema: openapi.Ref("RawMessage")},
					"application/json": {
						Schema: &openapi.Schema{
							AnyOf: []openapi.Schema{
								{Ref: "WebhookRawMessage"},
								{Ref: "WebhookMessage"},
							},
						},
					},
				},
			},
			Responses: map[string]openapi.Response{
				"201": {
					Description: "Delivered: stored, and readable through every family.",
					Content:     openapi.JSON(openapi.Ref("WebhookResult")),
				},
				"400": {Ref: "BadRequestA"},
				"401": {Ref: "UnauthorizedA"},
				"403": {Ref: "ForbiddenA"},
				"404": {
					Description: "No recipient is a live inbox: `{\"error\": \"Inbox not found or expired\"}`.",
					Content:     openapi.JSON(openapi.Ref("Error")),
				},
				"413": {Ref: "PayloadTooLargeA"},
				"415": {Ref: "UnsupportedMediaTypeA"},
				"500": {Ref: "InternalErrorA"},
				"503": {Ref: "UnavailableA"},
				"429": {
					Description: "A recipient's tenant is past its daily messages or storage: nothing is stored; try again " +
						"later (after midnight UTC, or once mail is deleted).",
					Content: openapi.JSON(openapi.Ref("Error")),
				},
				"507": {Ref: "FullA"},
			},
		},
		},
		Schemas: schemas(),
	}
}
