package config

import (
	"errors"
	"net"
	"strconv"
	"strings"
)

// smtpOptions are the flags of SMTP: the listener and its limits, STARTTLS,
// the name the service gives, and the checks of the mail it takes (SPF,
// DKIM, DMARC).
func smtpOptions() []option {
	return []option{
		{"smtp-addr", "127.0.0.1:2525", "SMTP listen address (host:port)", func(c *Config, v string) error {
			return hostPort(&c.SMTPAddr, v)
		}},
		{"smtp-max-conns", "1000", "concurrent SMTP connections in all; 0: unlimited", func(c *Config, v string) error {
			return count(&c.SMTPMaxConns, v)
		}},
		{"smtp-max-conns-per-ip", "50", "concurrent SMTP connections per client IP (Postfix's own smtpd_client_connection_count_limit); 0: unlimited", func(c *Config, v string) error {
			return count(&c.SMTPMaxConnsPerIP, v)
		}},
		{"smtp-max-inflight-bytes", "256MiB", "message bytes all SMTP sessions may hold in memory at once, a size: " + sizeUnits + "; 0: unlimited", func(c *Config, v string) error {
			n, err := byteSize(v)
			if err != nil || (n != 0 && n < 1<<20) {
				return errors.New("must be 0 (unlimited) or a size of at least 1MiB, such as 256MiB: " + sizeUnits)
			}
			c.SMTPMaxInflightBytes = n
			return nil
		}},
		{"smtp-bytes-per-client", "1GiB/h", "bytes one SMTP client may have stored, each message's size times its recipients: a size per second, minute or hour, such as 1GiB/h or 50MiB/m (a bucket of that size, refilled over the period); beyond, 452 4.3.1 at RCPT or 451 4.3.1 after DATA; 0: unlimited", func(c *Config, v string) error {
			r, err := ParseByteRate(v)
			c.SMTPBytesPerClient = r
			return err
		}},
		{"smtp-rate-per-ip", "600", "SMTP messages per minute per client IP; 0: unlimited", func(c *Config, v string) error {
			return count(&c.SMTPRatePerIP, v)
		}},
		{"tls-cert", "", "PEM certificate for SMTP STARTTLS (with --tls-key)", func(c *Config, v string) error {
			c.TLSCert = v
			return nil
		}},
		{"tls-key", "", "PEM private key for SMTP STARTTLS (with --tls-cert)", func(c *Config, v string) error {
			c.TLSKey = v
			return nil
		}},
		{"hostname", "", "the service's host name: SMTP greeting, Received and Authentication-Results headers; empty: this machine's host name", func(c *Config, v string) error {
			v = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(v), "."))
			if v != "" && !isHostname(v) {
				return errors.New("must be a host name such as mx.example.com")
			}
			c.Hostname = v
			return nil
		}},
		{"auth-checks", "true", "check SPF, DKIM and DMARC of received mail and add an Authentication-Results header", func(c *Config, v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return errors.New("must be true or false")
			}
			c.AuthChecks = b
			return nil
		}},
		{"dns-resolver", "", "DNS resolver (host:port) for --auth-checks; empty: the system's", func(c *Config, v string) error {
			if v == "" {
				c.DNSResolver = ""
				return nil
			}
			host, port, err := net.SplitHostPort(v)
			if p, perr := strconv.Atoi(port); err != nil || perr != nil || host == "" || p < 1 || p > 65535 || strings.ContainsAny(host, " /") {
				return errors.New("must be host:port, such as 127.0.0.1:53 or [2001:db8::53]:53, or empty for the system's")
			}
			c.DNSResolver = v
			return nil
		}},
	}
}
