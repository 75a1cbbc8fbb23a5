package config

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// httpOptions are the flags of HTTP and its clients: the listener, the API
// token and the read key, what one client may hold open and create, the
// proxies believed, MCP, and the browsers' origins.
func httpOptions() []option {
	return []option{
		{"http-addr", "127.0.0.1:8080", "HTTP listen address (host:port)", func(c *Config, v string) error {
			return hostPort(&c.HTTPAddr, v)
		}},
		{"https-addr", "", "HTTPS listen address (host:port), serving what --http-addr serves over TLS, such as :443 for Mailosaur's SDK, which speaks HTTPS on 443 alone; empty: no HTTPS", func(c *Config, v string) error {
			if v == "" {
				c.HTTPSAddr = ""
				return nil
			}
			return hostPort(&c.HTTPSAddr, v)
		}},
		{"https-cert", "", "PEM certificate (chain) for --https-addr, with --https-key; neither: a self-signed certificate for localhost, made once and kept as https-cert.pem in --data-dir, which clients trust with NODE_EXTRA_CA_CERTS or the like", func(c *Config, v string) error {
			c.HTTPSCert = v
			return nil
		}},
		{"https-key", "", "PEM private key for --https-addr, with --https-cert", func(c *Config, v string) error {
			c.HTTPSKey = v
			return nil
		}},
		{"api-token", "", "family A API token; empty: generated on first start and kept in --data-dir", func(c *Config, v string) error {
			return secret(&c.APIToken, v)
		}},
		{"read-key", "", "family C read key for latest, otp, link and address/latest; empty: no key needed", func(c *Config, v string) error {
			return secret(&c.ReadKey, v)
		}},
		{"require-token", "false", "require the API token on every family A endpoint", func(c *Config, v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return errors.New("must be true or false")
			}
			c.RequireToken = b
			return nil
		}},
		{"anonymous", "on", "whether clients without a key may make inboxes: on (anyone, as a public site), off (every create needs a tenant's key or the API token; the page asks for a key)", func(c *Config, v string) error {
			switch v {
			case "on", "true":
				c.AnonymousOff = false
			case "off", "false":
				c.AnonymousOff = true
			default:
				return errors.New("must be on or off")
			}
			return nil
		}},
		{"anonymous-quota", "", "what clients without a key share, all together: inboxes=N,messages_per_day=N,storage_bytes=SIZE,webhooks=N (each optional, 0: unlimited); empty: no quota", func(c *Config, v string) error {
			q, err := parseQuota(v)
			c.AnonymousQuota = q
			return err
		}},
		{"max-waiters", "10000", "long-polls and event streams held at once; beyond, 503; 0: unlimited", func(c *Config, v string) error {
			return count(&c.MaxWaiters, v)
		}},
		{"max-waiters-per-client", "100", "long-polls and event streams one client may hold at once; beyond, 429; 0: unlimited", func(c *Config, v string) error {
			return count(&c.MaxWaitersPerClient, v)
		}},
		{"max-stream-age", "30m", "an event stream ends after this long, and EventSource resumes it", func(c *Config, v string) error {
			return duration(&c.MaxStreamAge, v)
		}},
		{"create-rate-per-client", "120/m", "inboxes and webhook subscriptions one client may create: N/s, N/m or N/h (a bucket of N, refilled over the period); beyond, 429; 0: unlimited", func(c *Config, v string) error {
			r, err := ParseRate(v)
			c.CreateRatePerClient = r
			return err
		}},
		{"login-rate-per-client", "10/m", "mail.tm logins (POST /compat/mailtm/token) one client may try, a share of its own: N/s, N/m or N/h (a bucket of N, refilled over the period); beyond, 429; 0 is not allowed", func(c *Config, v string) error {
			return loginRate(&c.LoginRatePerClient, v)
		}},
		{"trusted-proxies", "", "reverse proxies (CIDRs or addresses, separated by commas) whose X-Forwarded-For names the client; empty: the header is ignored", func(c *Config, v string) error {
			p, err := prefixes(v)
			c.TrustedProxies = p
			return err
		}},
		{"mcp", "true", "serve the MCP tools for AI agents (streamable HTTP) at /mcp", func(c *Config, v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return errors.New("must be true or false")
			}
			c.MCP = b
			return nil
		}},
		{"compat", "mailosaur,mailslurp,mailtm", "the families for other services' clients to serve, separated by commas, each under /compat/<name>/: mailosaur, mailslurp, mailtm; empty or none: no family", func(c *Config, v string) error {
			c.Compat = nil
			if v == "" || v == "none" {
				return nil
			}
			for _, name := range strings.Split(v, ",") {
				name = strings.TrimSpace(name)
				if !slices.Contains(CompatFamilies(), name) {
					return fmt.Errorf("%q is not one of mailosaur, mailslurp and mailtm", name)
				}
				if !slices.Contains(c.Compat, name) {
					c.Compat = append(c.Compat, name)
				}
			}
			return nil
		}},
		{"mcp-rate-per-client", "600/m", "requests one client may send to /mcp: N/s, N/m or N/h (a bucket of N, refilled over the period); beyond, 429; 0: unlimited", func(c *Config, v string) error {
			r, err := ParseRate(v)
			c.MCPRatePerClient = r
			return err
		}},
		{"cors-origins", "", "browser origins allowed to call the API, such as https://app.example.com, separated by commas, or * for any; empty: none", func(c *Config, v string) error {
			o, err := origins(v)
			c.CORSOrigins = o
			return err
		}},
	}
}

// loginRate parses --login-rate-per-client: a Rate, but never 0. A login
// is where a password is guessed, so no setting lifts the bound by
// accident (as --create-rate-per-client 0, what load tests set, once did);
// an operator who wants no bound in practice writes a high one.
func loginRate(dst *Rate, v string) error {
	r, err := ParseRate(v)
	switch {
	case err != nil:
		return errors.New("must be a count per second, minute or hour, from 1 to 1000000, such as 10/m, 5/s or 1000/h")
	case r.Unlimited():
		return errors.New("must not be 0: logins are where passwords are guessed; a high rate such as 1000/s lifts the bound")
	}
	*dst = r
	return nil
}

func secret(dst *string, v string) error {
	if strings.ContainsAny(v, " \t\r\n") {
		return errors.New("must not contain white space")
	}
	*dst = v
	return nil
}

// origins parses --cors-origins: "*" alone, or origins as a browser sends
// them in its Origin header (scheme://host[:port], lower case, no path),
// which the API then compares exactly.
func origins(v string) ([]string, error) {
	var out []string
	for _, o := range strings.Split(v, ",") {
		if o = strings.TrimSpace(o); o == "" {
			continue
		}
		if o == "*" {
			out = append(out, o)
			continue
		}
		u, err := url.Parse(o)
		if err != nil || u.Scheme == "" || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.Fragment != "" ||
			u.User != nil || u.Opaque != "" || strings.HasSuffix(o, "?") || strings.HasSuffix(o, "#") {
			return nil, fmt.Errorf("%q is not an origin; must be origins such as https://app.example.com or http://localhost:3000 (scheme://host[:port], no path), separated by commas, or *", o)
		}
		if p := u.Port(); p != "" {
			if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
				return nil, fmt.Errorf("%q has a port out of range (1 to 65535)", o)
			}
		}
		out = append(out, strings.ToLower(u.Scheme)+"://"+strings.ToLower(u.Host))
	}
	if len(out) > 1 && slices.Contains(out, "*") {
		return nil, errors.New("* allows every origin and must stand alone")
	}
	return out, nil
}

// prefixes parses --trusted-proxies: CIDRs, or addresses standing for
// themselves alone.
func prefixes(v string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			a, aerr := netip.ParseAddr(f)
			if aerr != nil {
				return nil, fmt.Errorf("%q is not a CIDR or an address; must be such as 10.0.0.0/8, 127.0.0.1 or fd00::/8, separated by commas", f)
			}
			p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		if p.Addr().Is4In6() {
			p = netip.PrefixFrom(p.Addr().Unmap(), max(p.Bits()-96, 0))
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// maxAnonymousInboxes is the most live inboxes --anonymous-quota may give
// keyless clients (they are counted as one tenant's are): as the admin's
// API bounds a tenant's quota.
const maxAnonymousInboxes = 1_000_000_000

// parseQuota reads --anonymous-quota: name=value pairs separated by commas,
// each name once; storage_bytes takes a size. An empty value is no quota.
func parseQuota(v string) (*Quota, error) {
	if v == "" {
		return nil, nil
	}
	q := &Quota{}
	fields := map[string]struct {
		dst *int64
		max int64
	}{
		"inboxes":          {&q.Inboxes, maxAnonymousInboxes},
		"messages_per_day": {&q.MessagesPerDay, 1_000_000_000},
		"storage_bytes":    {&q.StorageBytes, 1 << 50},
		"webhooks":         {&q.Webhooks, 100_000},
	}
	seen := map[string]bool{}
	for _, pair := range strings.Split(v, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
		f, known := fields[name]
		switch {
		case !ok || !known:
			return nil, fmt.Errorf("%q is not name=value with a name of inboxes, messages_per_day, storage_bytes or webhooks", pair)
		case seen[name]:
			return nil, fmt.Errorf("%s is given twice", name)
		}
		seen[name] = true
		var n int64
		var err error
		if name == "storage_bytes" {
			n, err = byteSize(value)
		} else {
			n, err = strconv.ParseInt(value, 10, 64)
		}
		if err != nil || n < 0 || n > f.max {
			return nil, fmt.Errorf("%s must be from 0 (unlimited) to %d", name, f.max)
		}
		*f.dst = n
	}
	return q, nil
}

// CompatFamilies names the families --compat may serve: drop-in front
// doors for the clients of Mailosaur, MailSlurp and mail.tm.
func CompatFamilies() []string { return []string{"mailosaur", "mailslurp", "mailtm"} }
