package config

import (
	"errors"
	"flag"
	"io"
	"log/slog"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestDefaultsAreThoseOfAPIMD(t *testing.T) {
	t.Parallel()
	c, err := Parse("serve", nil, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{DataDir: "./data", HTTPAddr: "127.0.0.1:8080", SMTPAddr: "127.0.0.1:2525",
		Domains: []string{"tempmail.test"}, MinInboxTTL: time.Minute, MaxInboxTTL: 7 * 24 * time.Hour,
		TokenInboxTTL: 24 * time.Hour, MessageRetention: 90 * 24 * time.Hour, MaxMessageBytes: 25 << 20,
		MaxMessagesPerInbox: 1000, SMTPMaxConns: 1000, SMTPMaxConnsPerIP: 50, SMTPRatePerIP: 600, SMTPMaxInflightBytes: 256 << 20,
		MaxWaiters: 10000, MaxWaitersPerClient: 100, MaxStreamAge: 30 * time.Minute,
		CreateRatePerClient: Rate{N: 120, Per: time.Minute}, LoginRatePerClient: Rate{N: 10, Per: time.Minute}, Replicas: 1, MemoryLimit: 1 << 30, MinFreeDisk: 256 << 20,
		LogLevel: slog.LevelInfo, LogFormat: "text", AuthChecks: true, PlusAddressing: true, MCP: true, Compat: []string{"mailosaur", "mailslurp", "mailtm"},
		SMTPBytesPerClient: ByteRate{Bytes: 1 << 30, Per: time.Hour}, MCPRatePerClient: Rate{N: 600, Per: time.Minute},
		WebhookRetrySchedule: []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}}
	if strings.Join(c.Domains, ",") != "tempmail.test" {
		t.Errorf("domains %v", c.Domains)
	}
	c.Domains, want.Domains = nil, nil
	if !reflect.DeepEqual(c, want) {
		t.Errorf("defaults:\n got %+v\nwant %+v", c, want)
	}
	if d := Default(); d.HTTPAddr != want.HTTPAddr || d.MaxMessageBytes != want.MaxMessageBytes {
		t.Errorf("Default() disagrees with Parse: %+v", d)
	}
}

func TestFlagsWinOverTheirEnvironmentTwins(t *testing.T) {
	t.Parallel()
	e := env(map[string]string{"TEMPMAIL_HTTP_ADDR": ":9000", "TEMPMAIL_DOMAINS": "A.test, b.test",
		"TEMPMAIL_REQUIRE_TOKEN": "true", "TEMPMAIL_MESSAGE_RETENTION": "30d", "TEMPMAIL_MAX_MESSAGE_BYTES": "10MiB"})
	c, err := Parse("serve", []string{"--http-addr", "127.0.0.1:1234", "--min-inbox-ttl=1s"}, e, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTPAddr != "127.0.0.1:1234" {
		t.Errorf("http addr %q: the flag must win", c.HTTPAddr)
	}
	if strings.Join(c.Domains, ",") != "a.test,b.test" || !c.RequireToken || c.MinInboxTTL != time.Second ||
		c.MessageRetention != 30*24*time.Hour || c.MaxMessageBytes != 10<<20 {
		t.Errorf("from the environment: %+v", c)
	}
}

func TestBadValuesStopWithOneLineNamingTheFlag(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--min-inbox-ttl", "soon"}, nil, `invalid --min-inbox-ttl "soon": must be a duration`},
		{[]string{"--min-inbox-ttl", "0s"}, nil, "at least 1s"},
		{[]string{"--http-addr", "8080"}, nil, `invalid --http-addr "8080": must be host:port`},
		{[]string{"--domains", "ex ample.test"}, nil, "is not a domain name"},
		{[]string{"--domains", "a.test,A.test"}, nil, "listed twice"},
		{[]string{"--domains", ","}, nil, "at least one domain"},
		{[]string{"--max-message-bytes", "12"}, nil, "from 1KiB to 1GiB"},
		{[]string{"--max-messages-per-inbox", "-1"}, nil, "whole number from 1"},
		{[]string{"--log-level", "loud"}, nil, "debug, info, warn or error"},
		{[]string{"--require-token=maybe"}, nil, "true or false"},
		{[]string{"--nats-url", "localhost"}, nil, "nats://host:4222"},
		{[]string{"--min-inbox-ttl", "2h", "--max-inbox-ttl", "1h"}, nil, "must not exceed --max-inbox-ttl"},
		{nil, map[string]string{"TEMPMAIL_TOKEN_INBOX_TTL": "forever"}, `invalid TEMPMAIL_TOKEN_INBOX_TTL (--token-inbox-ttl) "forever"`},
		{[]string{"stray"}, nil, `unexpected argument "stray"`},
		{[]string{"--smtp-rate-per-ip", "lots"}, nil, "from 0 (unlimited)"},
		{[]string{"--nats-listen", "127.0.0.1:0"}, nil, "a port from 1 to 65535"},
		{[]string{"--cluster-addr", ":00"}, nil, "a port from 1 to 65535"},
		{[]string{"--tls-cert", "c.pem"}, nil, "give both files"},
		{[]string{"--https-addr", ":443", "--https-key", "k.pem"}, nil, "give both files"},
		{[]string{"--https-cert", "c.pem", "--https-key", "k.pem"}, nil, "no --https-addr"},
		{[]string{"--https-addr", "443"}, nil, "must be host:port"},
		{[]string{"--webhook-retry-schedule", "5s,soon"}, nil, "durations from 1s to 168h"},
		{[]string{"--webhook-retry-schedule", "100ms"}, nil, "durations from 1s to 168h"},
		{[]string{"--webhook-allow-private=perhaps"}, nil, "true or false"},
		{[]string{"--log-format", "xml"}, nil, `invalid --log-format "xml": must be text or json`},
		{[]string{"--access-log=sometimes"}, nil, "true or false"},
		{[]string{"--cors-origins", "https://app.example.com/"}, nil, "(scheme://host[:port], no path)"},
		{[]string{"--cors-origins", "https://app.example.com/login"}, nil, "is not an origin"},
		{[]string{"--cors-origins", "app.example.com"}, nil, "is not an origin"},
		{[]string{"--cors-origins", "https://a.test,*"}, nil, "must stand alone"},
		{[]string{"--cors-origins", "http://localhost:99999"}, nil, "port out of range"},
		{[]string{"--cors-origins", "https://a.test?x=1"}, nil, "is not an origin"},
		{nil, map[string]string{"TEMPMAIL_CORS_ORIGINS": "https://u:p@a.test"}, `invalid TEMPMAIL_CORS_ORIGINS (--cors-origins)`},
		{[]string{"--max-waiters-per-client", "-1"}, nil, "from 0 (unlimited)"},
		{[]string{"--max-stream-age", "0s"}, nil, "at least 1s"},
		{[]string{"--create-rate-per-client", "120"}, nil, "such as 120/m, 5/s or 1000/h"},
		{[]string{"--create-rate-per-client", "120/d"}, nil, "such as 120/m"},
		{[]string{"--create-rate-per-client", "0/m"}, nil, "must be 0 (unlimited) or a count"},
		{[]string{"--create-rate-per-client", "-5/s"}, nil, "must be 0 (unlimited) or a count"},
		{[]string{"--mcp-rate-per-client", "fast"}, nil, "such as 120/m"},
		{[]string{"--login-rate-per-client", "0"}, nil, `invalid --login-rate-per-client "0": must not be 0: logins are where passwords are guessed`},
		{[]string{"--login-rate-per-client", "10"}, nil, "such as 10/m, 5/s or 1000/h"},
		{[]string{"--login-rate-per-client", "0/m"}, nil, "from 1 to 1000000"},
		{nil, map[string]string{"TEMPMAIL_LOGIN_RATE_PER_CLIENT": "10/d"}, `invalid TEMPMAIL_LOGIN_RATE_PER_CLIENT (--login-rate-per-client) "10/d": must be a count per second`},
		{[]string{"--smtp-bytes-per-client", "1GiB"}, nil, "such as 1GiB/h or 50MiB/m"},
		{[]string{"--smtp-bytes-per-client", "1gb/h"}, nil, "such as 1GiB/h"},
		{[]string{"--smtp-bytes-per-client", "1KiB/s"}, nil, "at least 1MiB"},
		{[]string{"--smtp-bytes-per-client", "2TiB/d"}, nil, "at most 1TiB"},
		{[]string{"--trusted-proxies", "10.0.0.0/33"}, nil, `"10.0.0.0/33" is not a CIDR or an address`},
		{[]string{"--trusted-proxies", "proxy.internal"}, nil, "such as 10.0.0.0/8"},
		{nil, map[string]string{"TEMPMAIL_RESERVED_NAMES": "billing,Sales Team"}, `invalid TEMPMAIL_RESERVED_NAMES (--reserved-names) "billing,Sales Team": "sales team" is not a name`},
	}
	for _, tc := range cases {
		_, err := Parse("serve", tc.args, env(tc.env), io.Discard)
		if err == nil {
			t.Errorf("%v %v: accepted", tc.args, tc.env)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
			t.Errorf("%v %v:\n got %q\nwant one line containing %q", tc.args, tc.env, msg, tc.want)
		}
	}
}

func TestUnknownFlagsAreRefused(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	_, err := Parse("serve", []string{"--no-such-flag"}, env(nil), &out)
	if err == nil || err.Error() != "unknown flag --no-such-flag; run 'tempmail serve --help' for usage" {
		t.Fatalf("unknown flag: %v", err)
	}
	if out.Len() != 0 {
		t.Errorf("a mistake wrote the usage to out:\n%s", out.String())
	}
	if _, err := Parse("serve", []string{"--data-dir"}, env(nil), &out); err == nil || !strings.HasPrefix(err.Error(), "--data-dir needs a value") {
		t.Errorf("a flag without its value: %v", err)
	}
}

// TestHelpListsTheCommandsOwnFlags: -h writes the usage to out, with the
// flags as users type them (--flag value), their defaults and environment
// twins; each command lists only the flags it takes.
func TestHelpListsTheCommandsOwnFlags(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		command    string
		has, lacks []string
	}{
		{"serve", []string{"--data-dir dir\n", "--http-addr host:port\n", "--max-message-bytes size\n", "--require-token\n",
			"--tls-cert file\n", "default 25MiB; env TEMPMAIL_MAX_MESSAGE_BYTES", "KB, MB or GB (powers of 1000) or KiB, MiB or GiB (powers of 1024)"}, nil},
		{"rebuild", []string{"--data-dir dir\n", "--nats-url urls\n", "--cluster-name value\n", "--log-format value\n"},
			[]string{"--http-addr", "--tls-cert", "--domains", "--max-message-bytes"}},
		{"healthcheck", []string{"--http-addr host:port\n", "env TEMPMAIL_HTTP_ADDR"}, []string{"--data-dir", "--log-level"}},
	} {
		t.Run(c.command, func(t *testing.T) {
			var out strings.Builder
			if _, err := Parse(c.command, []string{"-h"}, env(nil), &out); !errors.Is(err, flag.ErrHelp) {
				t.Fatalf("-h: %v", err)
			}
			usage := out.String()
			if !strings.HasPrefix(usage, "usage: tempmail "+c.command+" [flags]") {
				t.Errorf("usage begins %q", usage[:min(len(usage), 60)])
			}
			for _, want := range c.has {
				if !strings.Contains(usage, want) {
					t.Errorf("usage lacks %q:\n%s", want, usage)
				}
			}
			for _, flag := range c.lacks {
				if strings.Contains(usage, flag) {
					t.Errorf("usage lists %s, which %s does not take", flag, c.command)
				}
				if _, err := Parse(c.command, []string{flag, "x"}, env(nil), io.Discard); err == nil || !strings.Contains(err.Error(), "unknown flag "+flag) {
					t.Errorf("%s %s x: %v", c.command, flag, err)
				}
			}
			if regexp.MustCompile(`(?m)^\s+-[a-z]`).MatchString(usage) {
				t.Errorf("a flag shown with one dash:\n%s", usage)
			}
		})
	}
}

// TestCommandsReadOnlyTheirOwnVariables: the container's environment holds
// every serve variable; healthcheck and rebuild must not trip over those
// they do not take, and keep their defaults.
func TestCommandsReadOnlyTheirOwnVariables(t *testing.T) {
	t.Parallel()
	e := env(map[string]string{"TEMPMAIL_HTTP_ADDR": "0.0.0.0:9000", "TEMPMAIL_DATA_DIR": "/data",
		"TEMPMAIL_MAX_MESSAGE_BYTES": "lots", "TEMPMAIL_TLS_CERT": "/only-one.pem"})
	c, err := Parse("healthcheck", nil, e, io.Discard)
	if err != nil || c.HTTPAddr != "0.0.0.0:9000" || c.DataDir != "./data" || c.MaxMessageBytes != 25<<20 {
		t.Errorf("healthcheck: %v, %+v", err, c)
	}
	c, err = Parse("rebuild", nil, e, io.Discard)
	if err != nil || c.DataDir != "/data" || c.HTTPAddr != "127.0.0.1:8080" || c.TLSCert != "" {
		t.Errorf("rebuild: %v, %+v", err, c)
	}
	if _, err := Parse("serve", nil, e, io.Discard); err == nil {
		t.Error("serve took TEMPMAIL_MAX_MESSAGE_BYTES=lots")
	}
}

// TestRebuildHasItsOwnMemoryLimit: a rebuild's soft memory limit is
// 192MiB unless the flag or its variable says otherwise, and its usage
// says so; serve's stays 1GiB.
func TestRebuildHasItsOwnMemoryLimit(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		command string
		args    []string
		env     map[string]string
		want    int64
	}{
		{"rebuild", nil, nil, 192 << 20},
		{"rebuild", []string{"--memory-limit", "1GiB"}, nil, 1 << 30},
		{"rebuild", []string{"--memory-limit", "0"}, nil, 0},
		{"rebuild", nil, map[string]string{"TEMPMAIL_MEMORY_LIMIT": "512MiB"}, 512 << 20},
		{"serve", nil, nil, 1 << 30},
	} {
		cfg, err := Parse(c.command, c.args, env(c.env), io.Discard)
		if err != nil || cfg.MemoryLimit != c.want {
			t.Errorf("%s %v %v: MemoryLimit %d, %v; want %d", c.command, c.args, c.env, cfg.MemoryLimit, err, c.want)
		}
	}
	var out strings.Builder
	if _, err := Parse("rebuild", []string{"-h"}, env(nil), &out); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
	if !strings.Contains(out.String(), "default 192MiB; env TEMPMAIL_MEMORY_LIMIT") {
		t.Errorf("rebuild's usage does not give its default:\n%s", out.String())
	}
	if Default().MemoryLimit != 1<<30 {
		t.Errorf("Default().MemoryLimit = %d, want serve's 1GiB", Default().MemoryLimit)
	}
}

// TestSizes: bytes, KB/MB/GB as powers of 1000, KiB/MiB/GiB as powers of
// 1024; anything else is refused with the units it may use.
func TestSizes(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]int64{"26214400": 26214400, "25MiB": 25 << 20, "25MB": 25_000_000, "2048B": 2048,
		"64KiB": 64 << 10, "64KB": 64_000, "1GiB": 1 << 30, "1GB": 1_000_000_000, "25 MiB": 25 << 20} {
		t.Run(v, func(t *testing.T) {
			c, err := Parse("serve", []string{"--max-message-bytes", v}, env(nil), io.Discard)
			if err != nil || c.MaxMessageBytes != want {
				t.Errorf("%q: %d %v, want %d", v, c.MaxMessageBytes, err, want)
			}
		})
	}
	for _, v := range []string{"25mb", "25M", "25mib", "25 MiBs", "1.5MiB", "-1MiB", "MiB", "9223372036854775807KiB", "25MiB "} {
		t.Run(v, func(t *testing.T) {
			_, err := Parse("serve", []string{"--max-message-bytes", v}, env(nil), io.Discard)
			if err == nil || !strings.Contains(err.Error(), "KB, MB or GB (powers of 1000) or KiB, MiB or GiB (powers of 1024)") {
				t.Errorf("%q: %v", v, err)
			}
		})
	}
	if _, err := Parse("serve", []string{"--memory-limit", "512mb"}, env(nil), io.Discard); err == nil || !strings.Contains(err.Error(), "powers of 1024") {
		t.Errorf("--memory-limit 512mb: %v", err)
	}
}

func TestBooleanFlagsNeedNoValue(t *testing.T) {
	t.Parallel()
	c, err := Parse("serve", []string{"--require-token", "--log-level=debug"}, env(nil), io.Discard)
	if err != nil || !c.RequireToken || c.LogLevel != slog.LevelDebug {
		t.Fatalf("%+v %v", c, err)
	}
}

func TestClusterAndExternalNATSFlagsMustFitTogether(t *testing.T) {
	t.Parallel()
	node := []string{"--cluster-name", "tm", "--server-name", "n1", "--cluster-addr", "127.0.0.1:6222",
		"--routes", "nats://127.0.0.1:6222, nats://127.0.0.1:6223,nats://127.0.0.1:6224", "--nats-listen", "127.0.0.1:4222", "--replicas", "3"}
	c, err := Parse("serve", node, env(nil), io.Discard)
	if err != nil {
		t.Fatalf("a complete cluster node: %v", err)
	}
	if len(c.Routes) != 3 || c.Routes[1] != "nats://127.0.0.1:6223" || c.Replicas != 3 || c.ServerName != "n1" || c.ClusterAdvertise != "" {
		t.Errorf("parsed %+v", c)
	}
	c, err = Parse("serve", append([]string{"--cluster-advertise", "10.0.0.5:16222"}, node...), env(nil), io.Discard)
	if err != nil || c.ClusterAdvertise != "10.0.0.5:16222" {
		t.Errorf("a node behind NAT: %q, %v", c.ClusterAdvertise, err)
	}
	ext := []string{"--nats-url", "nats://a:4222,nats://b:4222", "--nats-creds", "/x.creds", "--nats-tls-ca", "/ca.pem", "--replicas", "3"}
	if _, err := Parse("serve", ext, env(nil), io.Discard); err != nil {
		t.Fatalf("an external cluster: %v", err)
	}
	bad := []struct {
		args []string
		want string
	}{
		{[]string{"--replicas", "3"}, "--replicas"},
		{[]string{"--replicas", "2"}, "must be 1 or 3"},
		{[]string{"--cluster-name", "tm"}, "--cluster-addr"},
		{[]string{"--cluster-name", "tm", "--cluster-addr", ":6222"}, "--routes"},
		{[]string{"--cluster-name", "tm", "--cluster-addr", ":6222", "--routes", "nats://a:6222"}, "--nats-listen"},
		{[]string{"--routes", "nats://a:6222"}, "need --cluster-name"},
		{[]string{"--cluster-advertise", "a:6222"}, "need --cluster-name"},
		{append([]string{"--cluster-advertise", "a:0"}, node...), "a port from 1 to 65535"},
		{[]string{"--routes", "a:6222", "--cluster-name", "tm"}, "must be URLs"},
		{[]string{"--cluster-name", "t.m"}, "without spaces, dots"},
		{append([]string{"--nats-url", "nats://a:4222"}, node...), "not both"},
		{[]string{"--nats-creds", "/x.creds"}, "--nats-url, which is not set"},
		{[]string{"--nats-url", "nats://a:4222", "--nats-tls-cert", "/c.pem"}, "give both"},
	}
	for _, b := range bad {
		_, err := Parse("serve", b.args, env(nil), io.Discard)
		if err == nil || !strings.Contains(err.Error(), b.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: got %v, want one line mentioning %q", b.args, err, b.want)
		}
	}
}

func TestLogAndBrowserFlags(t *testing.T) {
	t.Parallel()
	c, err := Parse("serve", []string{"--access-log", "--cors-origins", " https://App.Example.com , http://localhost:3000"},
		env(map[string]string{"TEMPMAIL_LOG_FORMAT": "JSON"}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !c.AccessLog || c.LogFormat != "json" || strings.Join(c.CORSOrigins, " ") != "https://app.example.com http://localhost:3000" {
		t.Errorf("parsed %+v", c)
	}
	c, err = Parse("serve", nil, env(map[string]string{"TEMPMAIL_CORS_ORIGINS": "*", "TEMPMAIL_ACCESS_LOG": "true"}), io.Discard)
	if err != nil || len(c.CORSOrigins) != 1 || c.CORSOrigins[0] != "*" || !c.AccessLog {
		t.Errorf("from the environment: %+v %v", c, err)
	}
}

func TestHostnameAndAuthCheckFlags(t *testing.T) {
	t.Parallel()
	c, err := Parse("serve", []string{"--hostname", "MX.Example.com.", "--auth-checks=false"},
		env(map[string]string{"TEMPMAIL_DNS_RESOLVER": "127.0.0.1:5353"}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Hostname != "mx.example.com" || c.AuthChecks || c.DNSResolver != "127.0.0.1:5353" {
		t.Errorf("parsed hostname %q, auth checks %v, resolver %q", c.Hostname, c.AuthChecks, c.DNSResolver)
	}
	if c, err := Parse("serve", []string{"--dns-resolver", "[2001:db8::53]:53"}, env(nil), io.Discard); err != nil || c.DNSResolver != "[2001:db8::53]:53" {
		t.Errorf("an IPv6 resolver: %q %v", c.DNSResolver, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--hostname", "mx example.com"}, `invalid --hostname "mx example.com": must be a host name`},
		{[]string{"--hostname", "mx.example.com;x"}, "must be a host name"},
		{[]string{"--auth-checks=sometimes"}, `invalid --auth-checks "sometimes": must be true or false`},
		{[]string{"--dns-resolver", "127.0.0.1"}, `invalid --dns-resolver "127.0.0.1": must be host:port`},
		{[]string{"--dns-resolver", ":53"}, "must be host:port"},
		{[]string{"--dns-resolver", "127.0.0.1:0"}, "must be host:port"},
		{[]string{"--domains", "a.test", "--catch-all-domains", "b.test"}, "invalid --catch-all-domains: b.test is not in --domains (a.test)"},
		{[]string{"--catch-all-domains", "not a domain"}, `"not a domain" is not a domain name`},
	} {
		_, err := Parse("serve", tc.args, env(nil), io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: got %v, want one line containing %q", tc.args, err, tc.want)
		}
	}
}

func TestCatchAllDomains(t *testing.T) {
	t.Parallel()
	c, err := Parse("serve", []string{"--domains", "a.test,Catch.test", "--catch-all-domains", " CATCH.test "}, env(nil), io.Discard)
	if err != nil || len(c.CatchAllDomains) != 1 || c.CatchAllDomains[0] != "catch.test" {
		t.Errorf("parsed %q, %v", c.CatchAllDomains, err)
	}
	if c, err := Parse("serve", nil, env(nil), io.Discard); err != nil || c.CatchAllDomains != nil {
		t.Errorf("by default: %q, %v", c.CatchAllDomains, err)
	}
}

func TestFairShareFlags(t *testing.T) {
	t.Parallel()
	c, err := Parse("serve", []string{"--create-rate-per-client", "5/s", "--trusted-proxies", " 127.0.0.1, 10.0.0.0/8 ,::ffff:192.168.0.0/112,fd00::/8",
		"--reserved-names", "Billing, support,billing", "--max-waiters-per-client", "0", "--max-stream-age", "90s"}, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var proxies []string
	for _, p := range c.TrustedProxies {
		proxies = append(proxies, p.String())
	}
	if c.CreateRatePerClient != (Rate{5, time.Second}) || c.CreateRatePerClient.String() != "5/s" ||
		strings.Join(proxies, " ") != "127.0.0.1/32 10.0.0.0/8 192.168.0.0/16 fd00::/8" ||
		strings.Join(c.ReservedNames, " ") != "billing support" || c.MaxWaitersPerClient != 0 || c.MaxStreamAge != 90*time.Second {
		t.Errorf("parsed %+v (proxies %v)", c, proxies)
	}
	for v, want := range map[string]Rate{"0": {}, "1/h": {1, time.Hour}, "120/m": {120, time.Minute}} {
		c, err := Parse("serve", nil, env(map[string]string{"TEMPMAIL_CREATE_RATE_PER_CLIENT": v}), io.Discard)
		if err != nil || c.CreateRatePerClient != want || c.CreateRatePerClient.String() != v {
			t.Errorf("%s: %+v %v", v, c.CreateRatePerClient, err)
		}
	}
}

// --login-rate-per-client is a share of its own: --create-rate-per-client
// 0, as load tests set it, leaves it as it was; its environment twin sets
// it, and the flag wins.
func TestLoginRateFlag(t *testing.T) {
	t.Parallel()
	c, err := Parse("serve", []string{"--create-rate-per-client", "0"}, env(nil), io.Discard)
	if err != nil || c.LoginRatePerClient != (Rate{10, time.Minute}) || !c.CreateRatePerClient.Unlimited() {
		t.Errorf("with creations unlimited: login rate %+v, %v", c.LoginRatePerClient, err)
	}
	for v, want := range map[string]Rate{"1/h": {1, time.Hour}, "5/s": {5, time.Second}, "1000000/m": {1_000_000, time.Minute}} {
		c, err := Parse("serve", nil, env(map[string]string{"TEMPMAIL_LOGIN_RATE_PER_CLIENT": v}), io.Discard)
		if err != nil || c.LoginRatePerClient != want || c.LoginRatePerClient.String() != v {
			t.Errorf("%s: %+v %v", v, c.LoginRatePerClient, err)
		}
	}
	c, err = Parse("serve", []string{"--login-rate-per-client=3/m"}, env(map[string]string{"TEMPMAIL_LOGIN_RATE_PER_CLIENT": "0"}), io.Discard)
	if err != nil || c.LoginRatePerClient != (Rate{3, time.Minute}) {
		t.Errorf("the flag must win over its twin: %+v %v", c.LoginRatePerClient, err)
	}
}

// --smtp-bytes-per-client reads a size per period, written as every size
// flag takes sizes, and says it back in the same form.
func TestSMTPBytesPerClient(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]ByteRate{"0": {}, "1GiB/h": {1 << 30, time.Hour}, "50MiB/m": {50 << 20, time.Minute},
		"500MB/s": {500e6, time.Second}, "1048576/h": {1 << 20, time.Hour}} {
		c, err := Parse("serve", []string{"--smtp-bytes-per-client", v}, env(nil), io.Discard)
		if err != nil || c.SMTPBytesPerClient != want {
			t.Errorf("%s: %+v %v", v, c.SMTPBytesPerClient, err)
		}
	}
	if s := (ByteRate{Bytes: 1 << 30, Per: time.Hour}).String(); s != "1GiB/h" {
		t.Errorf("String %q", s)
	}
	if r := (ByteRate{Bytes: 50 << 20, Per: time.Minute}).Rate(); r != (Rate{N: 50 << 20, Per: time.Minute}) {
		t.Errorf("Rate %+v", r)
	}
}

// --anonymous is on or off; --anonymous-quota names each quota once, a
// size for storage, and no more live inboxes than a tenant may have.
func TestAnonymousFlags(t *testing.T) {
	t.Parallel()
	c, err := Parse("serve", nil, env(nil), io.Discard)
	if err != nil || c.AnonymousOff || c.AnonymousQuota != nil {
		t.Fatalf("defaults: %+v %v", c.AnonymousQuota, err)
	}
	c, err = Parse("serve", []string{"--anonymous", "off", "--anonymous-quota", "inboxes=100, storage_bytes=1GiB,messages_per_day=5000"},
		env(nil), io.Discard)
	if want := (Quota{Inboxes: 100, StorageBytes: 1 << 30, MessagesPerDay: 5000}); err != nil || !c.AnonymousOff || c.AnonymousQuota == nil || *c.AnonymousQuota != want {
		t.Fatalf("%+v %v", c.AnonymousQuota, err)
	}
	c, err = Parse("serve", nil, env(map[string]string{"TEMPMAIL_ANONYMOUS": "on", "TEMPMAIL_ANONYMOUS_QUOTA": "webhooks=3"}), io.Discard)
	if err != nil || c.AnonymousOff || c.AnonymousQuota == nil || c.AnonymousQuota.Webhooks != 3 {
		t.Fatalf("from the environment: %+v %v", c.AnonymousQuota, err)
	}
	for v, want := range map[string]string{
		"inboxes=1000000001":    "inboxes must be from 0 (unlimited) to 1000000000",
		"inboxes=1,inboxes=2":   "inboxes is given twice",
		"mailboxes=3":           `"mailboxes=3" is not name=value`,
		"storage_bytes=1gb":     "storage_bytes must be from 0",
		"messages_per_day=-1":   "messages_per_day must be from 0",
		"inboxes":               `"inboxes" is not name=value`,
		"webhooks=100001":       "webhooks must be from 0 (unlimited) to 100000",
		"inboxes=1,,webhooks=1": `"" is not name=value`,
	} {
		if _, err := Parse("serve", []string{"--anonymous-quota", v}, env(nil), io.Discard); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", v, err, want)
		}
	}
	if _, err := Parse("serve", []string{"--anonymous", "maybe"}, env(nil), io.Discard); err == nil || !strings.Contains(err.Error(), "must be on or off") {
		t.Errorf("--anonymous maybe: %v", err)
	}
}

func TestCompatFlag(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]string{"mailtm": "mailtm", "mailtm, mailosaur,mailtm": "mailtm,mailosaur", "none": "", "": ""} {
		c, err := Parse("serve", []string{"--compat", v}, env(nil), io.Discard)
		if err != nil || strings.Join(c.Compat, ",") != want {
			t.Errorf("--compat %q: %v %v, want %q", v, c.Compat, err, want)
		}
	}
	if _, err := Parse("serve", []string{"--compat", "mailgun"}, env(nil), io.Discard); err == nil ||
		!strings.Contains(err.Error(), `"mailgun" is not one of mailosaur, mailslurp and mailtm`) {
		t.Errorf("--compat mailgun: %v", err)
	}
}
