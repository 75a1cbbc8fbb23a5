package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"slices"
	"strings"
	"time"
)

// Config is the whole configuration of a tempmail process.
type Config struct {
	DataDir  string // where the embedded NATS server keeps its store, and the generated API token
	HTTPAddr string // listener for the three API families and /healthz
	// HTTPSAddr serves what HTTPAddr serves over TLS (empty: nothing), with
	// the PEM files HTTPSCert and HTTPSKey, or, neither given, a
	// self-signed certificate for localhost kept in DataDir (service).
	HTTPSAddr, HTTPSCert, HTTPSKey string
	SMTPAddr                       string // listener for inbound SMTP
	Domains                        []string
	NATSURL                        string // empty: run NATS embedded in this process

	// An external NATS (NATSURL set): credentials and TLS for its connection.
	NATSCreds                          string // .creds file (JWT and NKey seed)
	NATSTLSCA, NATSTLSCert, NATSTLSKey string // PEM files; CA alone verifies the server, cert+key authenticate us

	// An embedded cluster node (ClusterName set): the node joins its peers by
	// routes, and its client listener is open so that other tempmail
	// processes and tools can connect (nats-server cannot route without it).
	ServerName       string   // unique per node; default: the host name
	ClusterName      string   // empty: a single node
	ClusterAddr      string   // route listener, host:port
	ClusterAdvertise string   // what the other nodes dial to reach it, when not ClusterAddr
	Routes           []string // every node's route URL, this node's included
	NATSListen       string   // the embedded server's client listener, host:port; empty: none
	Replicas         int      // copies of every stream, KV bucket and object store: 1 or 3

	// SyncInterval is how often the embedded NATS puts its writes on
	// disk; 0 (--sync always): every write is on disk before it is
	// acknowledged, so a 250 or a 201 survives a power cut.
	SyncInterval time.Duration

	APIToken     string // family A token; empty: generated on first start and kept in DataDir
	ReadKey      string // family C read key; empty: reads need no key
	RequireToken bool   // every family A endpoint needs the token, not only the webhook
	// AnonymousOff (--anonymous off) refuses inboxes to clients without a
	// tenant's key or the API token.
	AnonymousOff bool
	// AnonymousQuota is what keyless clients share (--anonymous-quota);
	// nil: no quota.
	AnonymousQuota *Quota

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
	LoginRatePerClient  Rate           // mail.tm logins one client may try; Parse and Default never give zero (loginRate)
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
	// Compat names the compatible families served, each under
	// /compat/<name>/ (CompatFamilies); empty: none.
	Compat []string
	// MCPRatePerClient bounds the requests one client sends to /mcp; zero:
	// unlimited.
	MCPRatePerClient Rate
}

// Default returns the configuration that docs/configuration.md describes.
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

// defaultFor is the option's default for command: its own (what Default
// gives), unless the command has another.
func (o option) defaultFor(command string) string {
	if def, ok := commandDefaults[command][o.name]; ok {
		return def
	}
	return o.def
}

// commandDefaults are the defaults a command has of its own. A rebuild
// holds a bounded working set, not caches that follow a write rate: under
// a soft limit of 192 MiB its collector keeps what the embedded server
// read and the replay's garbage down (about 5% more CPU at 1,000,000
// events), where under serve's 1 GiB its peak followed the log read
// (docs/BENCHMARKS.md, "Rebuild").
var commandDefaults = map[string]map[string]string{
	"rebuild": {"memory-limit": "192MiB"},
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

// options is every flag, in the order usages list them. Each area's file
// has its own (store.go, http.go, smtp.go, mail.go, webhooks.go,
// logging.go); a flag missing from usageOrder, or named there without an
// option, is a mistake that stops every use of the package at once.
func options() []option {
	byName := map[string]option{}
	for _, area := range [][]option{storeOptions(), httpOptions(), smtpOptions(), mailOptions(), webhookOptions(), logOptions()} {
		for _, o := range area {
			byName[o.name] = o
		}
	}
	out := make([]option, 0, len(byName))
	for _, name := range usageOrder() {
		o, ok := byName[name]
		if !ok {
			panic("config: usageOrder names --" + name + ", which no area defines")
		}
		delete(byName, name)
		out = append(out, o)
	}
	for name := range byName {
		panic("config: --" + name + " is missing from usageOrder")
	}
	return out
}

// usageOrder is the order in which usages (serve -h) list the flags: the
// order they have always had, which operators and docs/DEPLOY.md know, and
// which the areas need not follow. Each flag is named once.
func usageOrder() []string {
	return []string{
		"data-dir", "sync", "http-addr", "https-addr", "https-cert", "https-key", "smtp-addr", "domains",
		"nats-url", "nats-creds", "nats-tls-ca", "nats-tls-cert", "nats-tls-key",
		"server-name", "cluster-name", "cluster-addr", "cluster-advertise", "routes", "nats-listen",
		"replicas", "api-token", "read-key", "require-token", "anonymous", "anonymous-quota", "min-inbox-ttl",
		"max-inbox-ttl", "token-inbox-ttl", "message-retention", "max-message-bytes", "max-messages-per-inbox",
		"smtp-max-conns", "smtp-max-conns-per-ip", "smtp-max-inflight-bytes", "smtp-bytes-per-client", "max-waiters",
		"max-waiters-per-client", "max-stream-age", "create-rate-per-client", "login-rate-per-client", "trusted-proxies", "reserved-names",
		"webhook-retry-schedule", "catch-all-domains", "plus-addressing", "webhook-allow-private", "smtp-rate-per-ip",
		"tls-cert", "tls-key", "hostname", "auth-checks", "dns-resolver",
		"memory-limit", "min-free-disk", "log-level", "log-format", "access-log",
		"mcp", "mcp-rate-per-client", "compat", "cors-origins",
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
			def := o.defaultFor(command)
			raw[o.name] = &rawValue{s: def, isBool: def == "false" || def == "true"}
			fs.Var(raw[o.name], o.name, o.usage)
		}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			Usage(out, command)
			return Config{}, err
		}
		return Config{}, FlagError(fs, err)
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("unexpected argument %q (flags look like --data-dir ./data)", fs.Arg(0))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })

	var c Config
	for _, o := range opts {
		v, from := o.defaultFor(command), "--"+o.name
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
			"server-name", "cluster-name", "cluster-addr", "cluster-advertise", "routes", "nats-listen", "replicas",
			"memory-limit", "log-level", "log-format", "max-messages-per-inbox":
			return true
		}
	case "healthcheck":
		return name == "http-addr"
	}
	return false
}

// check validates what no single flag can: relations between flags.
func (c Config) check() error {
	if c.MinInboxTTL > c.MaxInboxTTL {
		return fmt.Errorf("invalid --min-inbox-ttl %s: must not exceed --max-inbox-ttl %s", c.MinInboxTTL, c.MaxInboxTTL)
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return errors.New("invalid --tls-cert/--tls-key: give both files, or neither")
	}
	if (c.HTTPSCert == "") != (c.HTTPSKey == "") {
		return errors.New("invalid --https-cert/--https-key: give both files, or neither (a self-signed certificate for localhost)")
	}
	if c.HTTPSAddr == "" && c.HTTPSCert != "" {
		return errors.New("invalid --https-cert: no --https-addr to serve it on")
	}
	for _, d := range c.CatchAllDomains {
		if !slices.Contains(c.Domains, d) {
			return fmt.Errorf("invalid --catch-all-domains: %s is not in --domains (%s); a catch-all domain must be served", d, strings.Join(c.Domains, ","))
		}
	}
	return c.checkNATS()
}

// Quota is a tenant's quota as a flag gives it; each 0 is unlimited.
type Quota struct {
	Inboxes        int64
	MessagesPerDay int64
	StorageBytes   int64
	Webhooks       int64
}
