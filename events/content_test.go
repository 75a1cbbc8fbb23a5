package events

import (
	"reflect"
	"testing"
	"time"
)

func TestContentRecordKeepsEveryFieldAndReadsVersion2(t *testing.T) {
	c := Content{Raw: []byte("Subject: x\r\n\r\nline\n\x00\xff\r\n"), MailFrom: "bounce@example.com",
		From: "a@example.com", FromName: "Ä", To: []string{"b@tempmail.test"}, Subject: "x\ny",
		Date: time.Unix(1700000000, 0).UTC(), Text: "text\nwith \"quotes\" and \\ and \xe2\x82", HTML: "<p>\n</p>",
		Headers: map[string]string{"X-A": "1"}, Attachments: []Attachment{{ID: "m-1", Filename: "a.txt", Size: 3}}}
	m, err := contentMsg("content.p0.x", c)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeContent(m.Data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, c) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, c)
	}
	for _, tc := range []struct{ name, data string }{
		{"no raw part", `{"v":3}`},
		{"bodies longer than the record", "{\"v\":3,\"text_len\":10}\nshort"},
		{"a future version", "{\"v\":4}\n"},
	} {
		if _, err := DecodeContent([]byte(tc.data)); err == nil {
			t.Errorf("%s: decoded without an error", tc.name)
		}
	}

	// Stores written before bodies left the JSON are read as they were.
	v2 := "{\"v\":2,\"from\":\"a@example.com\",\"subject\":\"old\",\"text\":\"old text\\n\",\"html\":\"<b>old</b>\"}\nRAW BYTES"
	old, err := DecodeContent([]byte(v2))
	if err != nil {
		t.Fatal(err)
	}
	if old.Text != "old text\n" || old.HTML != "<b>old</b>" || string(old.Raw) != "RAW BYTES" || old.Subject != "old" {
		t.Errorf("version 2: %+v", old)
	}
}
