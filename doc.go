// Package tempmail holds the few things every part of the service shares:
// the error kinds that the api maps to HTTP statuses and SMTP replies, and
// address normalisation. It has no dependencies on the rest of the module and
// must stay that way; the packages below it own everything else (README.md,
// "How it is built", says what each owns, from the command line down to
// wire's JSON shapes).
//
// Its tests hold the repository's doc check too (docnames_test.go): no
// comment names a file or a symbol that does not exist.
package tempmail
