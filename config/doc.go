// Package config turns command-line flags and their TEMPMAIL_* environment
// twins into a validated Config. It owns the defaults (those of API.md) and the
// one-line messages that stop start-up on a bad value. It does no I/O beyond
// reading the arguments and environment it is given.
package config
