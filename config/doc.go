// Package config turns command-line flags and their TEMPMAIL_* environment
// twins into a validated Config. It owns the defaults (those of API.md), which
// command takes which flag, the usage each command prints (as users type the
// flags: --flag value), and the one-line messages that stop start-up on a bad
// value. It does no I/O beyond reading the arguments and environment it is
// given and writing the usage it is asked for: files the flags name are read
// by the command (cmd/tempmail), before it creates anything.
package config
