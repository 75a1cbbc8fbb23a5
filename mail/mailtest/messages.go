// Package mailtest holds messages for tests of what reads mail: parsing
// (package mail) and receiving it (package ingest sends them over SMTP).
package mailtest

import (
	"fmt"
	"strings"
)

// Malformed returns messages real senders produce or attackers craft, by
// name. Each must be stored and parsed as well as it can be, never failing
// the transaction. The map is new at each call, the caller's to change.
func Malformed() map[string]string {
	return map[string]string{
		"broken boundary":         "Subject: broken boundary\r\nContent-Type: multipart/mixed; boundary=\"abc\"\r\n\r\n--abd\r\nContent-Type: text/plain\r\n\r\nhello\r\n--abc\r\nnot closed",
		"no boundary param":       "Subject: no boundary\r\nContent-Type: multipart/alternative\r\n\r\nplain words\r\n",
		"unknown charset":         "Subject: =?x-klingon?Q?qapla=27?=\r\nContent-Type: text/plain; charset=x-klingon\r\n\r\nnuqneH\r\n",
		"bad base64":              "Subject: bad base64\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!not*base64@@@\r\n",
		"bad quoted-printable":    "Subject: bad qp\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nbroken =ZZ soft=\r\nbreak =\r\n",
		"no headers":              "\r\njust a body without any header\r\n",
		"no blank line":           "Subject: only headers",
		"eight-bit junk":          "Subject: \xff\xfe junk \x80\r\nFrom: \xc3\x28 <x@y.z>\r\n\r\nbody \xff\xfe\xfd\r\n",
		"very long line":          "Subject: long\r\n\r\n" + strings.Repeat("a", 300000) + "\r\n",
		"deep nesting":            deepNesting(500),
		"deep and cut short":      deepNesting(30)[:1200],
		"nested just under limit": deepNesting(10),
		"header without colon":    "Subject: ok\r\nthis is not a header\r\nX-Fine: yes\r\n\r\nbody\r\n",
		"broken from":             "From: <<<@@@>>>\r\nSubject: broken from\r\n\r\nbody\r\n",
		"bad date":                "Date: the day after tomorrow\r\nSubject: bad date\r\n\r\nbody\r\n",
		"null bytes":              "Subject: nul\x00byte\r\n\r\nbody\x00with\x00nuls\r\n",
		"many attachments":        manyAttachments(400),
		"bare LF":                 "Subject: bare lf\nContent-Type: text/plain\n\nline1\nline2\n",
		"html only":               "Subject: html only\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<html><body><p>Your code is <b>135790</b></p></body></html>\r\n",
		"empty":                   "",
	}
}

func deepNesting(depth int) string {
	var b strings.Builder
	b.WriteString("Subject: deep\r\n")
	for i := range depth {
		fmt.Fprintf(&b, "Content-Type: multipart/mixed; boundary=\"b%d\"\r\n\r\n--b%d\r\n", i, i)
	}
	b.WriteString("Content-Type: text/plain\r\n\r\nbottom\r\n")
	for i := depth - 1; i >= 0; i-- {
		fmt.Fprintf(&b, "--b%d--\r\n", i)
	}
	return b.String()
}

func manyAttachments(n int) string {
	var b strings.Builder
	b.WriteString("Subject: many\r\nContent-Type: multipart/mixed; boundary=\"m\"\r\n\r\n")
	for i := range n {
		fmt.Fprintf(&b, "--m\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=\"f%d.bin\"\r\n\r\nxx\r\n", i)
	}
	b.WriteString("--m--\r\n")
	return b.String()
}

// Multipart is mail as a mail client writes it: encoded words, nested
// parts, an attachment with a UTF-8 name.
const Multipart = "From: =?ISO-8859-1?Q?J=F6rg_M=FCller?= <Joerg@Example.com>\r\n" +
	"To: Box <box@tempmail.test>, other@example.org\r\n" +
	"Cc: cc@example.org\r\n" +
	"Subject: =?UTF-8?B?w5xiZXJwcsO8ZnVuZzog8J+TpyBjb2RlIDQyNDI0Mg==?=\r\n" +
	"Date: Sat, 21 Nov 2026 19:00:00 +0100\r\n" +
	"Message-ID: <multi-1@example.com>\r\n" +
	"MIME-Version: 1.0\r\n" +
	"Content-Type: multipart/mixed; boundary=\"outer\"\r\n" +
	"\r\n" +
	"--outer\r\n" +
	"Content-Type: multipart/alternative; boundary=\"inner\"\r\n" +
	"\r\n" +
	"--inner\r\n" +
	"Content-Type: text/plain; charset=utf-8\r\n" +
	"Content-Transfer-Encoding: quoted-printable\r\n" +
	"\r\n" +
	"Hall=C3=B6chen, your code is 424242.\r\n" +
	"--inner\r\n" +
	"Content-Type: text/html; charset=utf-8\r\n" +
	"\r\n" +
	"<p>Hall&ouml;chen, your code is <b>424242</b>.</p>\r\n" +
	"--inner--\r\n" +
	"--outer\r\n" +
	"Content-Type: application/pdf; name=\"r\xc3\xa9sum\xc3\xa9.pdf\"\r\n" +
	"Content-Disposition: attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf\r\n" +
	"Content-Transfer-Encoding: base64\r\n" +
	"\r\n" +
	"JVBERi0xLjQKJcOkw7zDtsOfCjIgMCBvYmoK\r\n" +
	"--outer--\r\n"
