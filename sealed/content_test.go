package sealed

import (
	"bytes"
	"reflect"
	"tempmail/mailbox"
	"testing"
	"time"
)

func TestContentRecordKeepsEveryField(t *testing.T) {
	t.Parallel()
	c := mailbox.Content{Raw: []byte("Subject: x\r\n\r\nline\n\x00\xff\r\n"), MailFrom: "bounce@example.com",
		From: "a@example.com", FromName: "Ä", To: []string{"b@tempmail.test"}, Subject: "x\ny",
		Date: time.Unix(1700000000, 0).UTC(), Text: "text\nwith \"quotes\" and \\ and \xe2\x82", HTML: "<p>\n</p>", TextFromHTML: true,
		Preview: "text with", Headers: map[string]string{"X-A": "1"}, Attachments: []mailbox.Attachment{{ID: "m-1", Filename: "a.txt", Size: 3}},
		Auth: &mailbox.Auth{SPF: mailbox.SPF{Result: "pass", Domain: "example.com"},
			DKIM:  []mailbox.DKIM{{Result: "fail", Domain: "example.com", Selector: "s"}},
			DMARC: mailbox.DMARC{Result: "pass", Domain: "example.com", Policy: "reject"}}}
	data, err := encodeContent(c)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeContent(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, c) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, c)
	}
	for _, tc := range []struct{ name, data string }{
		{"no bodies part", `{"v":4}`},
		{"bodies longer than the record", "{\"v\":4,\"text_len\":10}\nshort"},
		{"another version", "{\"v\":3}\n"},
	} {
		if _, err := decodeContent([]byte(tc.data)); err == nil {
			t.Errorf("%s: decoded without an error", tc.name)
		}
	}
}

// TestContentRecordsWrittenEarlierReadTheSame: records as builds before
// package mail wrote them (when the head was the JSON of the message model
// and of the authentication results the API shows) read into the same
// mailbox.Content, and the message is written again byte for byte as it was:
// what is stored does not follow the model's or the API's names.
func TestContentRecordsWrittenEarlierReadTheSame(t *testing.T) {
	t.Parallel()
	full := mailbox.Content{Raw: []byte("Subject: x\r\n\r\nhi\r\n"), MailFrom: "bounce@example.com",
		From: "a@example.com", FromName: "Ä", To: []string{"b@tempmail.test", "c@tempmail.test"}, Cc: []string{"d@example.org"},
		Subject: "x\ny", Date: time.Unix(1700000000, 0).UTC(), HeaderMessageID: "<m-1@example.com>", Text: "text\n",
		HTML: "<p>html</p>", TextFromHTML: true, Preview: "html", Headers: map[string]string{"X-A": "1", "Subject": "x y"},
		Attachments: []mailbox.Attachment{{ID: "m-1", Filename: "a.txt", ContentType: "text/plain", Size: 3, Part: "2"}},
		Auth: &mailbox.Auth{SPF: mailbox.SPF{Result: "pass", Domain: "example.com"},
			DKIM:  []mailbox.DKIM{{Result: "fail", Domain: "example.com", Selector: "s", Reason: "key record longer than 4096 bytes"}},
			DMARC: mailbox.DMARC{Result: "pass", Domain: "example.com", Policy: "reject"}},
		Links: []mailbox.Link{{URL: "https://a.example/", Text: "A"}, {URL: "https://b.example/"}}}
	for _, c := range []struct {
		name   string
		record string
		want   mailbox.Content
	}{
		{"every field", "{\"v\":4,\"text_len\":5,\"html_len\":11,\"preview_rule\":2,\"mail_from\":\"bounce@example.com\"," +
			"\"from\":\"a@example.com\",\"from_name\":\"Ä\",\"to\":[\"b@tempmail.test\",\"c@tempmail.test\"],\"cc\":[\"d@example.org\"]," +
			"\"subject\":\"x\\ny\",\"date\":\"2023-11-14T22:13:20Z\",\"header_message_id\":\"\\u003cm-1@example.com\\u003e\"," +
			"\"text_from_html\":true,\"preview\":\"html\",\"headers\":{\"Subject\":\"x y\",\"X-A\":\"1\"}," +
			"\"attachments\":[{\"id\":\"m-1\",\"filename\":\"a.txt\",\"content_type\":\"text/plain\",\"size\":3,\"part\":\"2\"}]," +
			"\"auth\":{\"spf\":{\"result\":\"pass\",\"domain\":\"example.com\"},\"dkim\":[{\"result\":\"fail\",\"domain\":\"example.com\"," +
			"\"selector\":\"s\",\"reason\":\"key record longer than 4096 bytes\"}],\"dmarc\":{\"result\":\"pass\",\"domain\":\"example.com\"," +
			"\"policy\":\"reject\"}},\"links\":[{\"url\":\"https://a.example/\",\"text\":\"A\"},{\"url\":\"https://b.example/\",\"text\":\"\"}]}\n" +
			"text\n<p>html</p>Subject: x\r\n\r\nhi\r\n", full},
		// Empty lists, an unsigned message's dkim and an empty result
		// keep what they were: null is not [].
		{"empty lists", "{\"v\":4,\"preview_rule\":2,\"from\":\"x@example.com\",\"auth\":{\"spf\":{\"result\":\"\",\"domain\":\"\"}," +
			"\"dkim\":null,\"dmarc\":{\"result\":\"\",\"domain\":\"\",\"policy\":\"\"}},\"links\":[]}\n",
			mailbox.Content{From: "x@example.com", Links: []mailbox.Link{}, Auth: &mailbox.Auth{}}},
		{"stored before links were kept", "{\"v\":4,\"preview_rule\":2,\"from\":\"\",\"links\":null}\n", mailbox.Content{}},
	} {
		got, err := decodeContent([]byte(c.record))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: read\n %+v\nwant\n %+v", c.name, got, c.want)
		}
		again, err := encodeContent(got)
		if err != nil || string(again) != c.record {
			t.Errorf("%s: written again as\n %q\nnot\n %q (%v)", c.name, again, c.record, err)
		}
	}
	// SPF's HELO serves the header written on receipt; it is not stored.
	helo := full
	helo.Auth = &mailbox.Auth{SPF: mailbox.SPF{Result: "pass", Domain: "mx.example.com", HELO: true}}
	if got, err := encodeContent(helo); err != nil || bytes.Contains(got, []byte("helo")) || bytes.Contains(got, []byte("HELO")) {
		t.Errorf("HELO stored: %q (%v)", got, err)
	}
}

// What Seal sealed, Open opens as it was, with its key and for its
// message only; nothing of it shows sealed.
func TestSealedContentOpensAsItWas(t *testing.T) {
	t.Parallel()
	key := randomKey()
	c := mailbox.Content{From: "a@example.com", Subject: "your code", Text: "Your code is 904512.", Preview: "Your code is 904512.",
		Raw: []byte("Subject: your code\r\n\r\nYour code is 904512.\r\n")}
	data, err := Seal(key, "m1", c)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("904512")) {
		t.Fatal("sealed content holds the plaintext")
	}
	got, err := Open(key, "m1", data)
	if err != nil || !reflect.DeepEqual(got, c) {
		t.Fatalf("opened\n %+v (%v)\nwant\n %+v", got, err, c)
	}
	if _, err := Open(key, "m2", data); err == nil {
		t.Error("opened as another message")
	}
	if _, err := Open(randomKey(), "m1", data); err == nil {
		t.Error("opened with another key")
	}
}
