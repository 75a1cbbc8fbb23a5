package api_test

import (
	"fmt"
	"testing"

	"tempmail/config"
	"tempmail/service/apitest"
)

// TestRoleNamesAreRefusedInEveryFamily: the names a certificate authority
// or a mail system trusts to reach the domain's operator (CA/B Forum BR
// 3.2.2.4.4, RFC 2142), and those the operator adds, are refused with the
// same 400 wherever a name can be chosen (family C's is the page's).
func TestRoleNamesAreRefusedInEveryFamily(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, func(c *config.Config) { c.ReservedNames = []string{"billing"} })
	names := []string{"admin", "administrator", "webmaster", "hostmaster", "postmaster", "abuse", "noc",
		"security", "usenet", "news", "www", "uucp", "ftp", "root", "mailer-daemon", "billing"}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := h.As(t)
			h.Expect(h.Do("POST", "/api/create-temp-email/", fmt.Sprintf(`{"email_name":%q}`, name), "Content-Type", apitest.JSONType),
				400, fmt.Sprintf(`{"success":false,"error":"Invalid email_name: '%s' is reserved"}`, name))
			for _, domain := range []string{"", "other.test"} {
				h.Expect(h.Do("POST", "/inboxes/", fmt.Sprintf(`{"name":%q,"domain":%q}`, name, domain), "Content-Type", apitest.JSONType),
					400, fmt.Sprintf(`{"error":"Invalid name: '%s' is reserved"}`, name))
			}
		})
	}
	// In any case, and only the whole name.
	h.Expect(h.Do("POST", "/inboxes/", `{"name":"Administrator"}`, "Content-Type", apitest.JSONType), 400, `{"error":"Invalid name: 'administrator' is reserved"}`)
	h.Expect(h.Do("POST", "/inboxes/", `{"name":"admin.team"}`, "Content-Type", apitest.JSONType), 201, "")
}
