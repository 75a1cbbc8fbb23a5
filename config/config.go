package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Config is the whole configuration of a tempmail process.
type Config struct {
	DataDir  string // where the embedded NATS server keeps its store, and the generated API token
	HTTPAddr string // listener for the three API families and /healthz
	SMTPAddr string // listener for inbound SMTP
	Domains  []string
	NATSURL  string // empty: run NATS embedded in this process

	// An external NATS (NATSURL set): credentials and TLS for its connection.
	NATSCreds                          string // .creds file (JWT and NKey seed)
	NATSTLSCA, NATSTLSCert, NATSTLSKey string // PEM files; CA alone verifies the server, cert+key authenticate us

	// An embedded cluster node (ClusterName set): the node joins its peers by
	// routes, and its client listener is open so that other tempmail
	// processes and tools can connect (nats-server cannot route without it).
	ServerName  string   // unique per node; default: the host name
	ClusterName string   // empty: a single node
	ClusterAddr string   // route listener, host:port
	Routes      []string // every node's route URL, this node's included
	NATSListen  string   // the embedded server's client listener, host:port; empty: none
	Replicas    int      // copies of every stream, KV bucket and object store: 1 or 3

	// SyncInterval is how often the embedded NATS puts its writes on
	// disk; 0 (--sync always): every write is on disk before it is
	// acknowledged, so a 250 or a 201 survives a power cut.
	SyncInterval time.Duration

	APIToken     string // family A token; empty: generated on first start and kept in DataDir
	ReadKey      string // family C read key; empty: reads need no key
	RequireToken bool   // every family A endpoint needs the token, not only the webhook

	MinInboxTTL      time.Duration
	MaxInboxTTL      time.Duration
	TokenInboxTTL    time.Duration // lifetime of family C inboxes
	MessageRetention time.Duration // age at which family B messages are deleted

	MaxMessageBytes     int64
	MaxMessagesPerInbox int

	SMTPMaxConns         int   // SMTP connections in all; 0: unlimited
	SMTPMaxConnsPerIP    int   // 0: unlimited
	SMTPRatePerIP        int   // messages per minute per client IP; 0: unlimited
	SMTPMaxInflightBytes int64 // message bytes held in memory by all SMTP sessions at once; 0: unlimited
	// SMTPBytesPerClient bounds what one SMTP client (an IPv6 one by its
	// /64) makes the service store: each message's size times its
	// recipients; zero: unlimited.
	SMTPBytesPerClient ByteRate
	MaxWaiters         int // held long-polls and event streams at once; 0: unlimited

	// Fair shares per client (a client is its IP, or with TrustedProxies
	// the right-most X-Forwarded-For address outside them).
	MaxWaitersPerClient int            // held long-polls and event streams of one client; 0: unlimited
	MaxStreamAge        time.Duration  // an event stream ends after this, and the client resumes
	CreateRatePerClient Rate           // inboxes and webhook subscriptions one client may create; zero: unlimited
	TrustedProxies      []netip.Prefix // reverse proxies whose X-Forwarded-For is believed; empty: none
	// ReservedNames are names no inbox may have beyond the built-in role
	// names (postmaster, admin, ...): the operator's own.
	ReservedNames []string

	// Outbound webhooks: when a failed delivery is tried again (after the
	// first attempt; its length is the number of retries), and whether
	// targets on private, loopback and link-local addresses are allowed.
	WebhookRetrySchedule []time.Duration
	WebhookAllowPrivate  bool
	PlusAddressing       bool // local+tag@domain is delivered to local@domain
	// CatchAllDomains are domains (each one of Domains) where mail to any
	// address is taken: its inbox is made by the first message.
	CatchAllDomains []string

	TLSCert, TLSKey string // PEM files; both set: SMTP offers STARTTLS

	// Hostname names the service: in the SMTP greeting, its Received
	// header and as the authserv-id of Authentication-Results; empty: the
	// machine's host name.
	Hostname string
	// AuthChecks checks SPF, DKIM and DMARC of every received message,
	// asking DNSResolver (host:port; empty: the system's resolver).
	AuthChecks  bool
	DNSResolver string

	// MemoryLimit is the soft limit of the serving process's memory (Go
	// heap, embedded NATS included); 0: none. Under it the garbage collector
	// works harder instead of letting caches grow with the write rate.
	MemoryLimit int64
	// MinFreeDisk is the room kept free on the data directory's disk:
	// below it, new mail and new inboxes are refused (embedded NATS only).
	MinFreeDisk int64

	LogLevel  slog.Level
	LogFormat string // "text" or "json": the handler of every log line
	AccessLog bool   // one log line per HTTP request

	// CORSOrigins are the browser origins (scheme://host[:port]) allowed to
	// call the API from their pages; "*" alone allows any; empty allows none.
	CORSOrigins []string

	// MCP serves the MCP tools for AI agents at /mcp (package mcpserver).
	MCP bool
	// MCPRatePerClient bounds the requests one client sends to /mcp; zero:
	// unlimited.
	MCPRatePerClient Rate
}

// Default returns the configuration that API.md and README.md describe.
func Default() Config {
	var c Config
	for _, o := range options() {
		if err := o.set(&c, o.def); err != nil {
			panic("config: bad default for --" + o.name + ": " + err.Error())
		}
	}
	return c
}

// EnvName is the environment twin of a flag: --data-dir -> TEMPMAIL_DATA_DIR.
func EnvName(flagName string) string {
	return "TEMPMAIL_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

type option struct {
	name  string
	def   string
	usage string
	set   func(c *Config, v string) error // the error says what is allowed
}

// rawValue holds a flag's text until every source has been looked at; only
// then is it parsed, so that errors read the same for flags and variables.
type rawValue struct {
	s      string
	isBool bool // --flag alone means true
}

func (v *rawValue) String() string     { return v.s }
func (v *rawValue) Set(s string) error { v.s = s; return nil }
func (v *rawValue) IsBoolFlag() bool   { return v.isBool }

func options() []option {
	return []option{
		{"data-dir", "./data", "directory for the event store and views", func(c *Config, v string) error {
			if strings.TrimSpace(v) == "" {
				return errors.New("must be a directory path")
			}
			c.DataDir = v
			return nil
		}},
		{"sync", "always", "when the embedded NATS puts writes on disk: always (before any 250 or 201 is answered), or a duration such as 2m (faster; a power cut or OS crash loses what was acknowledged in the last moments)", func(c *Config, v string) error {
			if v == "always" {
				c.SyncInterval = 0
				return nil
			}
			d, err := time.ParseDuration(v)
			if err != nil || d < 100*time.Millisecond || d > time.Hour {
				return errors.New("must be always, or a duration from 100ms to 1h such as 2m")
			}
			c.SyncInterval = d
			return nil
		}},
		{"http-addr", "127.0.0.1:8080", "HTTP listen address (host:port)", func(c *Config, v string) error {
			return hostPort(&c.HTTPAddr, v)
		}},
		{"smtp-addr", "127.0.0.1:2525", "SMTP listen address (host:port)", func(c *Config, v string) error {
			return hostPort(&c.SMTPAddr, v)
		}},
		{"domains", "tempmail.test", "comma-separated mail domains; the first is family B's and family C's default", func(c *Config, v string) error {
			d, err := domains(v)
			c.Domains = d
			return err
		}},
		{"nats-url", "", "NATS server URL(s); empty runs NATS embedded with data in --data-dir", func(c *Config, v string) error {
			for _, u := range strings.Split(v, ",") {
				if u = strings.TrimSpace(u); u != "" && !strings.Contains(u, "://") {
					return errors.New("must be empty or URLs such as nats://host:4222, separated by commas")
				}
			}
			c.NATSURL = strings.TrimSpace(v)
			return nil
		}},
		{"nats-creds", "", "credentials file for --nats-url", func(c *Config, v string) error {
			c.NATSCreds = v
			return nil
		}},
		{"nats-tls-ca", "", "PEM CA bundle that signs the --nats-url servers' certificates", func(c *Config, v string) error {
			c.NATSTLSCA = v
			return nil
		}},
		{"nats-tls-cert", "", "PEM client certificate for --nats-url (with --nats-tls-key)", func(c *Config, v string) error {
			c.NATSTLSCert = v
			return nil
		}},
		{"nats-tls-key", "", "PEM client key for --nats-url (with --nats-tls-cert)", func(c *Config, v string) error {
			c.NATSTLSKey = v
			return nil
		}},
		{"server-name", "", "this node's name in an embedded cluster; default: the host name", func(c *Config, v string) error {
			if strings.ContainsAny(v, " \t.*>") {
				return errors.New("must be a name without spaces, dots, * or >, such as tempmail-1")
			}
			c.ServerName = v
			return nil
		}},
		{"cluster-name", "", "embedded JetStream cluster name; empty: a single node", func(c *Config, v string) error {
			if strings.ContainsAny(v, " \t.*>") {
				return errors.New("must be a name without spaces, dots, * or >, such as tempmail")
			}
			c.ClusterName = v
			return nil
		}},
		{"cluster-addr", "", "route listener of an embedded cluster node (host:port)", func(c *Config, v string) error {
			if v == "" {
				return nil
			}
			return dialablePort(&c.ClusterAddr, v)
		}},
		{"routes", "", "route URLs of every cluster node, this one included, separated by commas", func(c *Config, v string) error {
			c.Routes = nil
			for _, u := range strings.Split(v, ",") {
				if u = strings.TrimSpace(u); u == "" {
					continue
				}
				if !strings.HasPrefix(u, "nats://") && !strings.HasPrefix(u, "nats-route://") && !strings.HasPrefix(u, "tls://") {
					return errors.New("must be URLs such as nats://tempmail-1:6222, separated by commas")
				}
				c.Routes = append(c.Routes, u)
			}
			return nil
		}},
		{"nats-listen", "", "client listener of the embedded NATS server (host:port), for the nats CLI and other processes; empty: none; required in a cluster", func(c *Config, v string) error {
			if v == "" {
				return nil
			}
			return dialablePort(&c.NATSListen, v)
		}},
		{"replicas", "1", "copies of each stream, KV bucket and object store: 1, or 3 in a cluster", func(c *Config, v string) error {
			switch v {
			case "1":
				c.Replicas = 1
			case "3":
				c.Replicas = 3
			default:
				return errors.New("must be 1 or 3")
			}
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
		{"trusted-proxies", "", "reverse proxies (CIDRs or addresses, separated by commas) whose X-Forwarded-For names the client; empty: the header is ignored", func(c *Config, v string) error {
			p, err := prefixes(v)
			c.TrustedProxies = p
			return err
		}},
		{"reserved-names", "", "names no inbox may have, beyond the role names always refused (admin, postmaster, ...), separated by commas", func(c *Config, v string) error {
			n, err := names(v)
			c.ReservedNames = n
			return err
		}},
		{"webhook-retry-schedule", "5s,5m,30m,2h,5h,10h,10h", "waits before each retry of a failed webhook delivery, separated by commas; none: no retries", func(c *Config, v string) error {
			c.WebhookRetrySchedule = nil
			if strings.TrimSpace(v) == "none" {
				return nil
			}
			for _, f := range strings.Split(v, ",") {
				d, err := time.ParseDuration(strings.TrimSpace(f))
				if err != nil || d < time.Second || d > 7*24*time.Hour {
					return errors.New("must be durations from 1s to 168h separated by commas, such as 5s,5m,30m, or none")
				}
				c.WebhookRetrySchedule = append(c.WebhookRetrySchedule, d)
			}
			if len(c.WebhookRetrySchedule) > 20 {
				return errors.New("must have at most 20 retries")
			}
			return nil
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
		{"webhook-allow-private", "false", "let webhooks target loopback, private and link-local addresses", func(c *Config, v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return errors.New("must be true or false")
			}
			c.WebhookAllowPrivate = b
			return nil
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
		{"hostname", "", "the service's host name: SMTP greeting, Received and Authentication-Results headers; empty: the machine's", func(c *Config, v string) error {
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
		{"memory-limit", "1GiB", "soft memory limit of the process, a size: " + sizeUnits + "; 0: none", func(c *Config, v string) error {
			n, err := byteSize(v)
			if err != nil || (n != 0 && n < 64<<20) {
				return errors.New("must be 0 (no limit) or a size of at least 64MiB, such as 512MiB or 2GiB: " + sizeUnits)
			}
			c.MemoryLimit = n
			return nil
		}},
		{"min-free-disk", "256MiB", "room kept free on the data directory's disk (embedded NATS): below it new mail gets 452 4.3.1 and new inboxes 507, while deletions go on; a size: " + sizeUnits + "; 0: none", func(c *Config, v string) error {
			n, err := byteSize(v)
			if err != nil {
				return errors.New("must be a size such as 256MiB, or 0 for none: " + sizeUnits)
			}
			c.MinFreeDisk = n
			return nil
		}},
		{"log-level", "info", "debug, info, warn or error", func(c *Config, v string) error {
			switch strings.ToLower(v) {
			case "debug":
				c.LogLevel = slog.LevelDebug
			case "info":
				c.LogLevel = slog.LevelInfo
			case "warn", "warning":
				c.LogLevel = slog.LevelWarn
			case "error":
				c.LogLevel = slog.LevelError
			default:
				return errors.New("must be debug, info, warn or error")
			}
			return nil
		}},
		{"log-format", "text", "text or json", func(c *Config, v string) error {
			switch strings.ToLower(v) {
			case "text", "json":
				c.LogFormat = strings.ToLower(v)
				return nil
			}
			return errors.New("must be text or json")
		}},
		{"access-log", "false", "log one line per HTTP request (method, route, status, bytes, duration, client IP)", func(c *Config, v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return errors.New("must be true or false")
			}
			c.AccessLog = b
			return nil
		}},
		{"mcp", "true", "serve the MCP tools for AI agents (streamable HTTP) at /mcp", func(c *Config, v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return errors.New("must be true or false")
			}
			c.MCP = b
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

// Parse reads the flags command takes (Takes) from args, falling back to
// the TEMPMAIL_* variables that getenv returns and then to the defaults; the
// Config's other fields keep their defaults. A flag given on the command
// line wins over its environment twin. With -h or --help it writes the
// command's usage to out and returns flag.ErrHelp. The error names the
// flag (and the variable, when the value came from there) and what is
// allowed, on one line.
func Parse(command string, args []string, getenv func(string) string, out io.Writer) (Config, error) {
	fs := flag.NewFlagSet("tempmail "+command, flag.ContinueOnError)
	// Errors are returned, and the usage is written by Usage: the flag
	// package would show flags as -flag, where users type --flag.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	opts := options()
	raw := make(map[string]*rawValue, len(opts))
	for _, o := range opts {
		if Takes(command, o.name) {
			raw[o.name] = &rawValue{s: o.def, isBool: o.def == "false" || o.def == "true"}
			fs.Var(raw[o.name], o.name, o.usage)
		}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			Usage(out, command)
			return Config{}, err
		}
		return Config{}, flagError(command, err)
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("unexpected argument %q (flags look like --data-dir ./data)", fs.Arg(0))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })

	var c Config
	for _, o := range opts {
		v, from := o.def, "--"+o.name
		if r, ok := raw[o.name]; ok {
			v = r.s
			if !given[o.name] {
				if ev := getenv(EnvName(o.name)); ev != "" {
					v, from = ev, EnvName(o.name)+" (--"+o.name+")"
				}
			}
		}
		if err := o.set(&c, v); err != nil {
			return Config{}, fmt.Errorf("invalid %s %q: %v", from, v, err)
		}
	}
	return c, c.check()
}

// flagError says what was wrong with the command line in the terms users
// type (--flag), and where the flags are listed.
func flagError(command string, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		msg = "unknown flag --" + strings.TrimPrefix(name, "-")
	} else if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		msg = "--" + strings.TrimPrefix(name, "-") + " needs a value"
	}
	return fmt.Errorf("%s ('tempmail %s -h' lists its flags)", msg, command)
}

// Takes reports whether command takes the flag name: serve takes every
// flag; rebuild those that say where the store is and how to log;
// healthcheck where the service listens.
func Takes(command, name string) bool {
	switch command {
	case "serve":
		return true
	case "rebuild":
		switch name {
		case "data-dir", "sync", "nats-url", "nats-creds", "nats-tls-ca", "nats-tls-cert", "nats-tls-key",
			"server-name", "cluster-name", "cluster-addr", "routes", "nats-listen", "replicas",
			"memory-limit", "log-level", "log-format", "max-messages-per-inbox":
			return true
		}
	case "healthcheck":
		return name == "http-addr"
	}
	return false
}

// Usage writes command's usage: the flags it takes as users type them
// (--flag value), each with its default and its environment twin.
func Usage(w io.Writer, command string) {
	fmt.Fprintf(w, "usage: tempmail %s [flags]\n\n%s\n", command, summary(command))
	fmt.Fprintf(w, "\nFlags (each also read from its TEMPMAIL_* variable; a flag given wins):\n")
	for _, o := range options() {
		if !Takes(command, o.name) {
			continue
		}
		arg := placeholder(o)
		if arg != "" {
			arg = " " + arg
		}
		def := ""
		if o.def != "" && o.def != "false" {
			def = "default " + o.def + "; "
		}
		fmt.Fprintf(w, "  --%s%s\n        %s (%senv %s)\n", o.name, arg, o.usage, def, EnvName(o.name))
	}
}

func summary(command string) string {
	switch command {
	case "serve":
		return "Runs the service: HTTP, SMTP and NATS (embedded, or --nats-url)."
	case "rebuild":
		return "Replays the event log into a fresh generation of views, and switches to it when complete.\n" +
			"On a single node, the server must be stopped first."
	case "healthcheck":
		return "Exits 0 when the service at --http-addr answers GET /readyz with 200, else 1."
	}
	return ""
}

// placeholder names the value a flag takes in its usage; "" for a boolean.
func placeholder(o option) string {
	switch {
	case o.def == "false":
		return ""
	case o.name == "data-dir":
		return "dir"
	case strings.HasSuffix(o.name, "-addr") || o.name == "nats-listen":
		return "host:port"
	case o.name == "nats-url":
		return "urls"
	case o.name == "sync":
		return "always|duration"
	case strings.HasPrefix(o.name, "tls-") || o.name == "nats-creds" || strings.HasPrefix(o.name, "nats-tls-"):
		return "file"
	case strings.HasSuffix(o.name, "-ttl") || o.name == "message-retention":
		return "duration"
	case strings.HasSuffix(o.name, "-bytes") || o.name == "memory-limit":
		return "size"
	case o.name == "domains" || o.name == "catch-all-domains" || o.name == "routes" || o.name == "cors-origins" || o.name == "webhook-retry-schedule":
		return "list"
	}
	if _, err := strconv.Atoi(o.def); err == nil {
		return "n"
	}
	return "value"
}

// check validates what no single flag can: relations between flags.
func (c Config) check() error {
	if c.MinInboxTTL > c.MaxInboxTTL {
		return fmt.Errorf("invalid --min-inbox-ttl %s: must not exceed --max-inbox-ttl %s", c.MinInboxTTL, c.MaxInboxTTL)
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return errors.New("invalid --tls-cert/--tls-key: give both files, or neither")
	}
	for _, d := range c.CatchAllDomains {
		if !slices.Contains(c.Domains, d) {
			return fmt.Errorf("invalid --catch-all-domains: %s is not in --domains (%s); a catch-all domain must be served", d, strings.Join(c.Domains, ","))
		}
	}
	return c.checkNATS()
}

// checkNATS validates the choice between an embedded single node, an
// embedded cluster node and an external NATS.
func (c Config) checkNATS() error {
	external := c.NATSURL != ""
	if !external && (c.NATSCreds != "" || c.NATSTLSCA != "" || c.NATSTLSCert != "" || c.NATSTLSKey != "") {
		return errors.New("invalid --nats-creds/--nats-tls-*: they configure the connection to --nats-url, which is not set")
	}
	if (c.NATSTLSCert == "") != (c.NATSTLSKey == "") {
		return errors.New("invalid --nats-tls-cert/--nats-tls-key: give both files, or neither")
	}
	cluster := c.ClusterName != ""
	if external && (cluster || c.ClusterAddr != "" || len(c.Routes) > 0 || c.NATSListen != "") {
		return errors.New("invalid --nats-url with --cluster-name/--cluster-addr/--routes/--nats-listen: use an external NATS or run one embedded, not both")
	}
	if !cluster && (c.ClusterAddr != "" || len(c.Routes) > 0) {
		return errors.New("invalid --cluster-addr/--routes: they need --cluster-name")
	}
	if cluster {
		switch {
		case c.ClusterAddr == "":
			return errors.New("invalid --cluster-name without --cluster-addr: a cluster node needs a route listener, such as 0.0.0.0:6222")
		case len(c.Routes) == 0:
			return errors.New("invalid --cluster-name without --routes: list every node's route URL, this node's included")
		case c.NATSListen == "":
			return errors.New("invalid --cluster-name without --nats-listen: a cluster node needs a client listener, such as 127.0.0.1:4222")
		}
	}
	if c.Replicas > 1 && !cluster && !external {
		return fmt.Errorf("invalid --replicas %d: a single embedded node keeps one copy; replicas need --cluster-name or --nats-url", c.Replicas)
	}
	return nil
}

func count(dst *int, v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 1_000_000 {
		return errors.New("must be a whole number from 0 (unlimited) to 1000000")
	}
	*dst = n
	return nil
}

func hostPort(dst *string, v string) error {
	host, port, err := net.SplitHostPort(v)
	if err == nil {
		var p int
		p, err = strconv.Atoi(port)
		if err == nil && (p < 0 || p > 65535) {
			err = errors.New("port out of range")
		}
	}
	if err != nil || strings.ContainsAny(host, " /") {
		return errors.New("must be host:port, such as 127.0.0.1:8080 or :8080")
	}
	*dst = v
	return nil
}

// dialablePort is hostPort for a listener others dial by its port, which
// must therefore be a fixed one.
func dialablePort(dst *string, v string) error {
	if err := hostPort(dst, v); err != nil {
		return err
	}
	if _, port, _ := net.SplitHostPort(v); port == "" || strings.Trim(port, "0") == "" {
		*dst = ""
		return errors.New("must be host:port with a port from 1 to 65535, such as 0.0.0.0:6222: other processes dial it")
	}
	return nil
}

func secret(dst *string, v string) error {
	if strings.ContainsAny(v, " \t\r\n") {
		return errors.New("must not contain white space")
	}
	*dst = v
	return nil
}

// duration accepts Go durations (90s, 10m, 24h) and whole days (90d).
func duration(dst *time.Duration, v string) error {
	d, err := time.ParseDuration(v)
	if err != nil && strings.HasSuffix(v, "d") {
		var n int
		n, err = strconv.Atoi(strings.TrimSuffix(v, "d"))
		d = time.Duration(n) * 24 * time.Hour
	}
	if err != nil || d < time.Second || d > 100*365*24*time.Hour {
		return errors.New("must be a duration of at least 1s, such as 90s, 10m, 24h or 90d")
	}
	*dst = d
	return nil
}

// sizeUnits is how every size flag is written, for usages and errors.
const sizeUnits = "bytes, or a whole number with KB, MB or GB (powers of 1000) or KiB, MiB or GiB (powers of 1024)"

// byteSize reads a size: a whole number of bytes, with no unit or B, or
// with one of KB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of
// 1024), exactly so written. Anything else is refused rather than guessed
// at: 25mb and 25M could mean either.
func byteSize(v string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(v, u.suffix) {
			v, mult = strings.TrimSuffix(v, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return 0, errors.New("not a size")
	}
	return n * mult, nil
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

func isHostname(s string) bool {
	if len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if len(label) == 0 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	return true
}

// Rate is a number of things allowed per period: a bucket of N, refilled
// evenly over Per. The zero Rate allows everything.
type Rate struct {
	N   int
	Per time.Duration
}

// Unlimited reports whether r allows everything.
func (r Rate) Unlimited() bool { return r.N == 0 }

func (r Rate) String() string {
	if r.Unlimited() {
		return "0"
	}
	unit := map[time.Duration]string{time.Second: "s", time.Minute: "m", time.Hour: "h"}[r.Per]
	return strconv.Itoa(r.N) + "/" + unit
}

// ParseRate reads a Rate written N/s, N/m or N/h, or 0 for none.
func ParseRate(v string) (Rate, error) {
	v = strings.TrimSpace(v)
	if v == "0" {
		return Rate{}, nil
	}
	bad := errors.New("must be 0 (unlimited) or a count per second, minute or hour, such as 120/m, 5/s or 1000/h")
	n, unit, ok := strings.Cut(v, "/")
	per := map[string]time.Duration{"s": time.Second, "m": time.Minute, "h": time.Hour}[unit]
	count, err := strconv.Atoi(n)
	if !ok || per == 0 || err != nil || count < 1 || count > 1_000_000 {
		return Rate{}, bad
	}
	return Rate{N: count, Per: per}, nil
}

// ByteRate is a number of bytes allowed per period: a bucket of Bytes,
// refilled evenly over Per. The zero ByteRate allows everything.
type ByteRate struct {
	Bytes int64
	Per   time.Duration
}

// Unlimited reports whether r allows everything.
func (r ByteRate) Unlimited() bool { return r.Bytes == 0 }

// Rate is r as a Rate of bytes, for the limiters that count in whole
// units.
func (r ByteRate) Rate() Rate { return Rate{N: int(min(r.Bytes, math.MaxInt)), Per: r.Per} }

func (r ByteRate) String() string {
	if r.Unlimited() {
		return "0"
	}
	unit := map[time.Duration]string{time.Second: "s", time.Minute: "m", time.Hour: "h"}[r.Per]
	return sizeText(r.Bytes) + "/" + unit
}

// sizeText writes a size as byteSize reads it, in the largest power of
// 1024 that divides it.
func sizeText(n int64) string {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// ParseByteRate reads a ByteRate written <size>/s, /m or /h, the size as
// every size flag takes it (1GiB/h, 500MB/m), or 0 for none.
func ParseByteRate(v string) (ByteRate, error) {
	v = strings.TrimSpace(v)
	if v == "0" {
		return ByteRate{}, nil
	}
	bad := errors.New("must be 0 (unlimited) or a size per second, minute or hour, such as 1GiB/h or 50MiB/m, of at least 1MiB and at most 1TiB; sizes: " + sizeUnits)
	size, unit, ok := strings.Cut(v, "/")
	per := map[string]time.Duration{"s": time.Second, "m": time.Minute, "h": time.Hour}[unit]
	n, err := byteSize(size)
	if !ok || per == 0 || err != nil || n < 1<<20 || n > 1<<40 {
		return ByteRate{}, bad
	}
	return ByteRate{Bytes: n, Per: per}, nil
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
