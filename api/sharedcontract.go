package api

import "tempmail/api/openapi"

// sharedContract is the OpenAPI document's parts that several families
// share (api/openapi.json): the credentials (the API token, a tenant's key,
// the read key), the parameters of lists, waits and subscriptions, the
// headers and answers they have in common, and the outbound webhooks'
// delivery, with the shapes of their bodies (sharedschemas.go).
func sharedContract() openapi.Contract {
	return openapi.Contract{
		Operations: []openapi.Operation{{
			Webhook: "delivery", Method: "POST",
			ID:      "delivery",
			Summary: "What tempmail POSTs to a subscription's URL",
			Description: "Signed per the Standard Webhooks specification. A 2xx answer within 10 s is success; " +
				"anything else is retried on `--webhook-retry-schedule`, then given up. Redirects are not " +
				"followed. Delivery is at least once.",
			Security: []openapi.Security{},
			Params: []openapi.Param{{
				Name:        "webhook-id",
				In:          "header",
				Required:    true,
				Description: "The delivery's id, the same for every attempt: drop one you have handled.",
				Schema:      &openapi.Schema{Type: "string"},
			}, {
				Name:        "webhook-timestamp",
				In:          "header",
				Required:    true,
				Description: "When this attempt was sent, in Unix seconds.",
				Schema:      &openapi.Schema{Type: "string", Pattern: "^[0-9]+$"},
			}, {
				Name:     "webhook-signature",
				In:       "header",
				Required: true,
				Description: "`v1,` and the base64 HMAC-SHA256, keyed with the secret's key, of " +
					"`<webhook-id>.<webhook-timestamp>.<body>`.",
				Schema: &openapi.Schema{Type: "string"},
			}},
			Body: &openapi.Body{Required: true, Content: openapi.JSON(openapi.Ref("Delivery"))},
			Responses: map[string]openapi.Response{
				"2XX":     {Description: "Delivered."},
				"default": {Description: "Failed: tried again later."},
			},
		},
		},
		Parameters: map[string]openapi.Param{
			"Limit": {
				Name:        "limit",
				In:          "query",
				Description: "Page size.",
				Schema:      &openapi.Schema{Type: "integer", Default: 50, Minimum: openapi.N(1), Maximum: openapi.N(200)},
			},
			"Offset": {
				Name:        "offset",
				In:          "query",
				Description: "How many messages (newest first) the page skips.",
				Schema:      &openapi.Schema{Type: "integer", Default: 0, Minimum: openapi.N(0), Maximum: openapi.N(1000000)},
			},
			"FromFilter": {
				Name:        "from",
				In:          "query",
				Description: "Only messages whose sender contains this, case-insensitively; at most 256 bytes.",
				Schema:      &openapi.Schema{Type: "string", MaxLength: openapi.N(256)},
			},
			"ToFilter": {
				Name:        "to",
				In:          "query",
				Description: "Only messages whose recipients contain this, case-insensitively; at most 256 bytes.",
				Schema:      &openapi.Schema{Type: "string", MaxLength: openapi.N(256)},
			},
			"SubjectFilter": {
				Name:        "subject",
				In:          "query",
				Description: "Only messages whose subject contains this, case-insensitively; at most 256 bytes.",
				Schema:      &openapi.Schema{Type: "string", MaxLength: openapi.N(256)},
			},
			"LastEventID": {
				Name: "Last-Event-ID",
				In:   "header",
				Description: "The `id` of the last event a reconnecting client saw: it gets what it missed (within what " +
					"the inbox still holds). Browsers' EventSource sends it by itself.",
				Schema: &openapi.Schema{Type: "string", Pattern: "^[0-9]+$"},
			},
			"WebhookID": {
				Name:        "webhook",
				In:          "path",
				Required:    true,
				Description: "The subscription's id. An unknown or malformed id is answered 404.",
				Schema:      &openapi.Schema{Type: "string", Format: "uuid"},
			},
		},
		Headers: map[string]openapi.Header{
			"X-Total-Count": {
				Description: "How many messages pass the filters, all pages together.",
				Required:    true,
				Schema:      &openapi.Schema{Type: "integer", Minimum: openapi.N(0)},
			},
			"Retry-After": {
				Description: "Seconds to wait before trying again.",
				Required:    true,
				Schema:      &openapi.Schema{Type: "integer", Minimum: openapi.N(0)},
			},
			"WWW-Authenticate": {
				Description: "`Token`.",
				Required:    true,
				Schema:      &openapi.Schema{Type: "string", Const: "Token"},
			},
			"RawDisposition": {
				Description: "`inline` (or with `download=1`, `attachment`) with `filename=\"<id>.eml\"`.",
				Required:    true,
				Schema:      &openapi.Schema{Type: "string"},
			},
			"AttachmentDisposition": {
				Description: "`attachment; filename=\"...\"` (RFC 2231 `filename*=` for names that are not plain ASCII).",
				Required:    true,
				Schema:      &openapi.Schema{Type: "string", Pattern: "^attachment"},
			},
			"Content-Security-Policy": {
				Description: "What the content may do in a browser: nothing but show itself.",
				Required:    true,
				Schema:      &openapi.Schema{Type: "string"},
			},
			"NoCache": {Description: "`no-cache`.", Schema: &openapi.Schema{Type: "string"}},
		},
		Responses: map[string]openapi.Response{
			"Attachment": {
				Description: "The attachment's decoded bytes, with its `Content-Type`.",
				Headers: map[string]openapi.Header{
					"Content-Disposition":     {Ref: "AttachmentDisposition"},
					"Content-Security-Policy": {Ref: "Content-Security-Policy"},
				},
				Content: map[string]openapi.MediaType{
					"*/*": {Schema: &openapi.Schema{Type: "string", ContentEncoding: "binary"}},
				},
			},
			"ConflictRotation": {
				Description: "The subscription changed while its secret was being replaced (deleted, or rotated by " +
					"another request): read it and try again.",
				Content: openapi.JSON(openapi.Ref("Error")),
			},
			"ConflictWebhooks": {
				Description: "The caps: at most 10 subscriptions to one inbox, 100 to every inbox.",
				Content:     openapi.JSON(openapi.Ref("Error")),
			},
			"InternalError": {
				Description: "Something failed inside the service; the details are logged.",
				Content:     openapi.JSON(openapi.Ref("Error")),
			},
		},
		SecuritySchemes: map[string]openapi.SecurityScheme{
			"apiToken": {
				Type: "apiKey",
				In:   "header",
				Name: "Authorization",
				Description: "Family A: `Authorization: Token <API_TOKEN>` (or `Bearer`). Always needed by the webhook " +
					"and the tenants' endpoints; by every other family A endpoint only with `--require-token`. " +
					"A key with the `admin` scope may stand in for it. Without a configured token the server " +
					"makes one on first start, keeps it in the data directory and logs it once.",
			},
			"apiKey": {
				Type:   "http",
				Scheme: "bearer",
				Description: "A tenant's API key, `tm_` and 32 base32 characters, in `Authorization: Bearer <key>` on " +
					"every family (family A also takes `Token <key>`). An unknown, revoked or expired key is " +
					"answered 401 on every path.",
			},
		},
		Schemas: sharedSchemas(),
	}
}
