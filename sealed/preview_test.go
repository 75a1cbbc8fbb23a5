package sealed

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/inbucket/html2text"

	"tempmail/mail"
	"tempmail/mailbox"
)

// TestPreviewsStoredEarlierAreMadeAgain: content stored before its record
// said how its preview was made had, for mail without a text part, the
// preview of the HTML's rendering (`******* Welcome *******`, `*904512*`,
// URLs in brackets). Read now, its preview is the HTML's words; a
// message's own text part keeps the preview it had.
func TestPreviewsStoredEarlierAreMadeAgain(t *testing.T) {
	t.Parallel()
	// stored is a record as the encoder wrote it before previewRule: the
	// preview of the text, whatever the text was.
	stored := func(c mailbox.Content) []byte {
		if c.Preview == "" {
			c.Preview = mail.Preview(c.Text, c.HTML)
		}
		head, err := json.Marshal(contentRecord{Version: contentV, TextLen: len(c.Text), HTMLLen: len(c.HTML), storedContent: storedOf(&c)})
		if err != nil {
			t.Fatal(err)
		}
		return append(append(head, '\n'), c.Text+c.HTML...)
	}
	rendered := func(htm string) string {
		s, err := html2text.FromString(htm)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	welcome := "<h1>Welcome</h1><p>Your code is <b>904512</b>. <a href=\"https://shop.example/confirm\">Confirm</a> it.</p>"
	long := welcome + strings.Repeat("<p>More news from the shop, and more.</p>", 400)
	for _, c := range []struct {
		name       string
		c          mailbox.Content
		want       string
		fromHTML   bool
		wasAlready string
	}{
		{"html only", mailbox.Content{Text: rendered(welcome), HTML: welcome}, "Welcome Your code is 904512. Confirm it.", true,
			"******* Welcome ******* Your code is *904512*. Confirm ( https://shop.example/confirm ) it."},
		{"html only, longer than what is rendered to tell", mailbox.Content{Text: rendered(long), HTML: long},
			"Welcome Your code is 904512. Confirm it. More news from the shop, and more.", true, ""},
		{"text and html", mailbox.Content{Text: "Hi *Jane*, your code is 123456.", HTML: "<p>Hi <b>Jane</b>, your code is <b>123456</b>.</p>"},
			"Hi *Jane*, your code is 123456.", false, ""},
		{"text", mailbox.Content{Text: "plain *words*"}, "plain *words*", false, ""},
		// HTML without a rendering, whose preview parted its words at
		// every tag: its words, as Preview makes them now.
		{"html without text", mailbox.Content{HTML: "<p>Code: <b>904512</b>.</p>", Preview: "Code: 904512 ."}, "Code: 904512.", false, "Code: 904512 ."},
	} {
		data := stored(c.c)
		if c.wasAlready != "" {
			var rec contentRecord
			head, _, _ := strings.Cut(string(data), "\n")
			if err := json.Unmarshal([]byte(head), &rec); err != nil || rec.Preview != c.wasAlready {
				t.Fatalf("%s: the record stored earlier has the preview %q, want %q (%v)", c.name, rec.Preview, c.wasAlready, err)
			}
		}
		got, err := decodeContent(data)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(got.Preview, c.want) || got.TextFromHTML != c.fromHTML {
			t.Errorf("%s: preview %q (text from HTML %v), want %q… (%v)", c.name, got.Preview, got.TextFromHTML, c.want, c.fromHTML)
		}
		if got.Text != c.c.Text || got.HTML != c.c.HTML {
			t.Errorf("%s: the bodies changed", c.name)
		}
	}
}
