// Package config turns command-line flags and their TEMPMAIL_* environment
// twins into a validated Config. It owns the defaults, which
// command takes which flag, the usage each command prints (as users type the
// flags: --flag value), and the one-line messages that stop start-up on a bad
// value. It does no I/O beyond reading the arguments and environment it is
// given and writing the usage it is asked for: files the flags name are read
// by the command (cmd/tempmail), before it creates anything.
//
// config.go has the Config, parsing and the checks that relate flags;
// usage.go the usages (serve -h, and through WriteFlags the client
// commands'); reference.go the same flags as the Markdown table of
// docs/configuration.md, which a test holds equal. Each area's flags, with their defaults, usages and checks, are in
// a file of their own: store.go (the store and NATS), http.go (HTTP and
// its clients), smtp.go (SMTP and the checks of received mail), mail.go
// (inboxes and their mail), webhooks.go and logging.go. values.go reads
// the kinds of value flags share: counts, addresses, durations, sizes and
// rates.
package config
