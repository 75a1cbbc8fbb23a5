package config

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// mailOptions are the flags of inboxes and their mail: the domains, how
// long inboxes and messages live, how large a message may be and how many
// an inbox keeps, the names no inbox may have, catch-all domains and plus
// addressing.
func mailOptions() []option {
	return []option{
		{"domains", "tempmail.test", "comma-separated mail domains; the first is family B's and family C's default", func(c *Config, v string) error {
			d, err := domains(v)
			c.Domains = d
			return err
		}},
		{"min-inbox-ttl", "60s", "smallest family A inbox ttl", func(c *Config, v string) error {
			return duration(&c.MinInboxTTL, v)
		}},
		{"max-inbox-ttl", "168h", "largest family A inbox ttl", func(c *Config, v string) error {
			return duration(&c.MaxInboxTTL, v)
		}},
		{"token-inbox-ttl", "24h", "lifetime of family C inboxes", func(c *Config, v string) error {
			return duration(&c.TokenInboxTTL, v)
		}},
		{"message-retention", "2160h", "age at which family B messages are deleted", func(c *Config, v string) error {
			return duration(&c.MessageRetention, v)
		}},
		{"max-message-bytes", "25MiB", "largest accepted message, a size: " + sizeUnits, func(c *Config, v string) error {
			n, err := byteSize(v)
			if err != nil || n < 1<<10 || n > 1<<30 {
				return errors.New("must be a size from 1KiB to 1GiB, such as 26214400, 25MiB or 25MB: " + sizeUnits)
			}
			c.MaxMessageBytes = n
			return nil
		}},
		{"max-messages-per-inbox", "1000", "messages kept per inbox; the oldest is deleted beyond", func(c *Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 100000 {
				return errors.New("must be a whole number from 1 to 100000")
			}
			c.MaxMessagesPerInbox = n
			return nil
		}},
		{"reserved-names", "", "names no inbox may have, beyond the role names always refused (admin, postmaster, ...), separated by commas", func(c *Config, v string) error {
			n, err := names(v)
			c.ReservedNames = n
			return err
		}},
		{"catch-all-domains", "", "domains, each also in --domains, where mail to any address is taken: the first message makes its inbox (family A, 1 hour); empty: none", func(c *Config, v string) error {
			c.CatchAllDomains = nil
			if strings.TrimSpace(v) == "" {
				return nil
			}
			d, err := domains(v)
			c.CatchAllDomains = d
			return err
		}},
		{"plus-addressing", "true", "deliver mail to local+tag@domain to the inbox of local@domain; false: such addresses are unknown (550)", func(c *Config, v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return errors.New("must be true or false")
			}
			c.PlusAddressing = b
			return nil
		}},
	}
}

func domains(v string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, d := range strings.Split(v, ",") {
		d = strings.ToLower(strings.TrimSpace(d))
		if d == "" {
			continue
		}
		if !isHostname(d) {
			return nil, fmt.Errorf("%q is not a domain name; must be domain names such as mail.example.com, separated by commas", d)
		}
		if seen[d] {
			return nil, fmt.Errorf("%q is listed twice", d)
		}
		seen[d] = true
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil, errors.New("must list at least one domain, such as tempmail.test")
	}
	return out, nil
}

// names parses --reserved-names: names as an inbox could have them (the
// rules of a chosen name), stored in lower case.
func names(v string) ([]string, error) {
	var out []string
	for _, n := range strings.Split(v, ",") {
		n = strings.ToLower(strings.TrimSpace(n))
		if n == "" {
			continue
		}
		if len(n) > 64 || strings.Trim(n, "abcdefghijklmnopqrstuvwxyz0123456789._-") != "" {
			return nil, fmt.Errorf("%q is not a name; must be names of up to 64 characters of a-z, 0-9, '.', '_' and '-', such as billing,support, separated by commas", n)
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}
