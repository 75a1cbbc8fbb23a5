package mailosaur

import (
	"strings"

	"tempmail/api/openapi"
)

// callOperations are the operations of files.go, devices.go, the usage
// transactions and refused.go: the calls of the SDK beyond servers and
// messages.
func callOperations() []openapi.Operation {
	ops := []openapi.Operation{{
		Method: "GET", Path: "/compat/mailosaur/api/files/email/{id}",
		ID:      "mailosaurDownloadMessage",
		Tags:    []string{"Compat: Mailosaur"},
		Summary: "Download a message's source (files.getEmail)",
		Description: "The message exactly as received. The SDK hands back any answer's body as the file, so a test " +
			"compares the source with what it sent; a refusal is the family's JSON error.",
		Security: basicAuth,
		Params:   []openapi.Param{{Ref: "MailosaurMessageID"}},
		Responses: answers(map[string]openapi.Response{
			"200": {
				Description: "The message exactly as received.",
				Headers:     map[string]openapi.Header{"Content-Disposition": {Ref: "RawDisposition"}},
				Content:     map[string]openapi.MediaType{"message/rfc822": {Schema: openapi.Ref("RawMessage")}},
			},
			"404": {Ref: "MailosaurNotFound"},
		}),
	}, {
		Method: "GET", Path: "/compat/mailosaur/api/files/attachments/{id}",
		ID:          "mailosaurDownloadAttachment",
		Tags:        []string{"Compat: Mailosaur"},
		Summary:     "Download an attachment (files.getAttachment)",
		Description: "An attachment's decoded bytes, by the `id` of the message's `attachments`.",
		Security:    basicAuth,
		Params: []openapi.Param{{
			Name: "id", In: "path", Required: true,
			Description: "The attachment's id: its message's id, `-`, and its number from 1.",
			Schema:      &openapi.Schema{Type: "string", MaxLength: openapi.N(41)},
		}},
		Responses: answers(map[string]openapi.Response{
			"200": {Ref: "Attachment"},
			"404": {Ref: "MailosaurNotFound"},
		}),
	}, {
		Method: "POST", Path: "/compat/mailosaur/api/devices/otp",
		ID:      "mailosaurDeviceOTP",
		Tags:    []string{"Compat: Mailosaur"},
		Summary: "The current one-time code of a shared secret (devices.otp)",
		Description: "The code an authenticator app shows now for the base32 `sharedSecret` (TOTP, RFC 6238: " +
			"HMAC-SHA1, six digits, 30 seconds). Nothing is stored.",
		Security: basicAuth,
		Body:     &openapi.Body{Required: true, Content: openapi.JSON(openapi.Ref("MailosaurOTPRequest"))},
		Responses: answers(map[string]openapi.Response{
			"200": {Description: "The code.", Content: openapi.JSON(openapi.Ref("MailosaurOTP"))},
			"400": {Ref: "MailosaurBadRequest"},
			"413": {Ref: "MailosaurPayloadTooLarge"},
			"415": {Ref: "MailosaurUnsupportedMediaType"},
		}),
	}, {
		Method: "GET", Path: "/compat/mailosaur/api/devices",
		ID:          "mailosaurListDevices",
		Tags:        []string{"Compat: Mailosaur"},
		Summary:     "List the tenant's devices (devices.list)",
		Description: "The key's tenant's virtual security devices, in the order they were made; never their secrets.",
		Security:    basicAuth,
		Responses: answers(map[string]openapi.Response{
			"200": {Description: "The devices.", Content: openapi.JSON(openapi.Ref("MailosaurDeviceList"))},
		}),
	}, {
		Method: "POST", Path: "/compat/mailosaur/api/devices",
		ID:      "mailosaurCreateDevice",
		Tags:    []string{"Compat: Mailosaur"},
		Summary: "Create a device (devices.create)",
		Description: "Stores a virtual security device of the key's tenant: a name and the base32 `sharedSecret` an " +
			"authenticator app would be given, whose current code `devices.otp(deviceId)` then gives. A tenant has at " +
			"most 100 (claimed as each is made: of creations at once at the cap, none passes it; beyond, 403). Needs " +
			"the `inboxes` scope; counts as a creation of the client's.",
		Security: basicAuth,
		Body:     &openapi.Body{Required: true, Content: openapi.JSON(openapi.Ref("MailosaurDeviceRequest"))},
		Responses: answers(map[string]openapi.Response{
			"200": {Description: "The new device.", Content: openapi.JSON(openapi.Ref("MailosaurDevice"))},
			"400": {Ref: "MailosaurBadRequest"},
			"409": {Ref: "MailosaurConflict"},
			"413": {Ref: "MailosaurPayloadTooLarge"},
			"415": {Ref: "MailosaurUnsupportedMediaType"},
			"429": {Ref: "MailosaurTooMany"},
		}),
	}, {
		Method: "GET", Path: "/compat/mailosaur/api/devices/{id}/otp",
		ID:          "mailosaurDeviceOTPByID",
		Tags:        []string{"Compat: Mailosaur"},
		Summary:     "The current one-time code of a device (devices.otp(deviceId))",
		Description: "The code an authenticator app shows now for the device's secret, as `POST api/devices/otp` gives it for the secret itself.",
		Security:    basicAuth,
		Params:      []openapi.Param{{Ref: "MailosaurDeviceID"}},
		Responses: answers(map[string]openapi.Response{
			"200": {Description: "The code.", Content: openapi.JSON(openapi.Ref("MailosaurOTP"))},
			"404": {Ref: "MailosaurNotFound"},
		}),
	}, {
		Method: "DELETE", Path: "/compat/mailosaur/api/devices/{id}",
		ID:          "mailosaurDeleteDevice",
		Tags:        []string{"Compat: Mailosaur"},
		Summary:     "Delete a device (devices.del)",
		Description: "The device and its secret are forgotten. Needs the `inboxes` scope.",
		Security:    basicAuth,
		Params:      []openapi.Param{{Ref: "MailosaurDeviceID"}},
		Responses: answers(map[string]openapi.Response{
			"204": {Description: "Deleted."},
			"404": {Ref: "MailosaurNotFound"},
		}),
	}, {
		Method: "GET", Path: "/compat/mailosaur/api/usage/transactions",
		ID:          "mailosaurUsageTransactions",
		Tags:        []string{"Compat: Mailosaur"},
		Summary:     "The tenant's mail by day (usage.transactions)",
		Description: "Today (a UTC day, as the quota counts it), the one day the service counts.",
		Security:    basicAuth,
		Responses: answers(map[string]openapi.Response{
			"200": {Description: "Today's count.", Content: openapi.JSON(openapi.Ref("MailosaurTransactions"))},
		}),
	}}
	for _, f := range refusals() {
		op := openapi.Operation{
			Method: f.method, Path: "/compat/mailosaur" + f.path,
			ID:      "mailosaurRefused" + operationName(f.call),
			Tags:    []string{"Compat: Mailosaur"},
			Summary: "Refused: " + f.call,
			Description: f.why + " Answered `400` with `errors[0].field` the call's name, which the SDK and " +
				"cypress-mailosaur put in the error they throw.",
			Security: basicAuth,
			// Refused whatever is asked: the refusal is its every answer
			// but the key's (a 2XX would say it can succeed).
			Responses: answers(map[string]openapi.Response{
				"default": {
					Description: "Refused: `400`, `errors[0].field` the call's name.",
					Content:     openapi.JSON(openapi.Ref("MailosaurError")),
				},
			}),
		}
		for _, name := range []string{"id", "serverID"} {
			if strings.Contains(f.path, "{"+name+"}") {
				op.Params = append(op.Params, openapi.Param{Name: name, In: "path", Required: true,
					Description: "Any value: the call is refused.", Schema: &openapi.Schema{Type: "string"}})
			}
		}
		ops = append(ops, op)
	}
	return ops
}

// operationName is an SDK call's name as an operation id's part:
// devices.otp(deviceId) is DevicesOtpDeviceId.
func operationName(call string) string {
	var b strings.Builder
	for _, word := range strings.FieldsFunc(call, func(r rune) bool { return r == '.' || r == '(' || r == ')' }) {
		b.WriteString(strings.ToUpper(word[:1]) + word[1:])
	}
	return b.String()
}
