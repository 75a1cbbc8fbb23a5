package apitest

import "encoding/base64"

// PDF is the attachment MultipartMail carries: a few bytes that are not
// text, as a file's would be.
const PDF = "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n"

// MultipartMail is a message with RFC 2047 words, text and HTML bodies and
// a binary attachment: what the cross-family tests read back field by field.
func MultipartMail(to string) string {
	return "From: =?UTF-8?Q?J=C3=B6rg?= <joerg@example.com>\r\n" +
		"To: " + to + "\r\nCc: cc@example.org\r\n" +
		"Subject: =?UTF-8?B?UHLDvGZ1bmcg4pyT?=\r\n" +
		"Message-ID: <cross-1@example.com>\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/mixed; boundary=\"M\"\r\n\r\n" +
		"--M\r\nContent-Type: multipart/alternative; boundary=\"A\"\r\n\r\n" +
		"--A\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\nGrüße, code 739201\r\n" +
		"--A\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>Grüße, code <b>739201</b></p>\r\n--A--\r\n" +
		"--M\r\nContent-Type: application/pdf\r\nContent-Disposition: attachment; filename=\"report.pdf\"\r\n" +
		"Content-Transfer-Encoding: base64\r\n\r\n" + base64.StdEncoding.EncodeToString([]byte(PDF)) + "\r\n--M--\r\n"
}
