package mail

import (
	"fmt"
	"reflect"
	"strings"
	"tempmail/mailbox"
	"testing"
	"unicode/utf8"
)

// L is a link as the tables write it.
type L struct{ URL, Text string }

func extract(text, htm string) []L {
	links := Extract(text, htm)
	if links == nil {
		return nil // told apart from none: stored content without links is nil
	}
	out := make([]L, 0, len(links))
	for _, l := range links {
		out = append(out, L(l))
	}
	return out
}

func TestExtract(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name       string
		text, html string
		want       []L
	}{
		{name: "nothing", want: []L{}},
		{name: "html links in document order, entities decoded",
			html: `<p>Hi <a href="https://example.com/verify?a=1&amp;b=2">Verify&nbsp;your <b>address</b></a>
				or <A HREF='http://example.com/x'>this</A> <a href=https://example.com/bare>bare</a>`,
			want: []L{{"https://example.com/verify?a=1&b=2", "Verify your address"}, {"http://example.com/x", "this"},
				{"https://example.com/bare", "bare"}}},
		{name: "numeric entities in the scheme",
			html: `<a href="&#104;ttps://example.com/&#x61;">a</a>`, want: []L{{"https://example.com/a", "a"}}},
		{name: "scripts and data refused, even behind entities and white space",
			html: `<a href="javascript:alert(1)">1</a><a href="jav&#x61;script:alert(1)">2</a>` +
				`<a href="&#x09;javascript:alert(1)">3</a><a href="java&#x0A;script:alert(1)">4</a>` +
				`<a href="data:text/html,<script>alert(1)</script>">5</a><a href="vbscript:x">6</a>` +
				`<a href="mailto:a@example.com">7</a><a href="/relative">8</a><a href="#top">9</a>` +
				`<a href="ftp://example.com/">10</a><a href="https:example.com">11</a><a href="//example.com/x">12</a>` +
				`<a>13</a><a href="">14</a><a href="https://">15</a>`,
			want: []L{}},
		{name: "tabs and newlines inside dropped, spaces around trimmed, spaces inside encoded",
			html: "<a href=\" \n https://exa\tmple.com/a b\n \">x</a>", want: []L{{"https://example.com/a%20b", "x"}}},
		{name: "backslashes and control characters refused",
			html: `<a href="https://evil.example\@bank.example/">1</a><a href="https:\\evil.example">2</a>` +
				"<a href=\"https://example.com/\x01x\">3</a><a href=\"https://example.com/\u0085\">4</a>",
			want: []L{}},
		{name: "invisible and bidi characters percent-encoded in URLs, dropped from texts",
			html: "<a href=\"https://example.com/\u202egpj.exe\">in\u200bvoice\u202e</a>",
			text: "see https://pay\u200b.example/x\u2066y",
			want: []L{{"https://example.com/%E2%80%AEgpj.exe", "invoice"}, {"https://pay%E2%80%8B.example/x%E2%81%A6y", ""}}},
		{name: "unclosed tags end at the next link or the end",
			html: `<a href="https://a.example/">first <a href="https://b.example/">second<p>more`,
			want: []L{{"https://a.example/", "first"}, {"https://b.example/", "second more"}}},
		{name: "an image's alt stands in for missing text",
			html: `<a href="https://a.example/"><img src="x.png" alt="Confirm"></a><a href="https://b.example/"> </a>`,
			want: []L{{"https://a.example/", "Confirm"}, {"https://b.example/", ""}}},
		{name: "script and style text is not link text",
			html: `<a href="https://a.example/"><style>.x{}</style><script>evil()</script>Go</a>`,
			want: []L{{"https://a.example/", "Go"}}},
		{name: "text hidden in comments and attributes is not a link",
			html: `<!-- <a href="https://hidden.example/">x</a> --><img alt="https://alt.example/">` +
				`<a title="<a href='https://title.example/'>" href="https://real.example/">y</a>`,
			want: []L{{"https://real.example/", "y"}}},
		{name: "the first href counts",
			html: `<a href="https://one.example/" href="https://two.example/">x</a>`, want: []L{{"https://one.example/", "x"}}},
		{name: "link text folded, bidi and control characters dropped",
			html: "<a href=\"https://a.example/\">\n  Pay\u202e now\u0007  \n</a>", want: []L{{"https://a.example/", "Pay now"}}},
		{name: "text URLs after the html's, each once, punctuation trimmed",
			text: "Verify at https://example.com/verify?t=1. Or (see http://example.com/a_(b)). <https://example.com/c>, " +
				"\"https://example.com/d\" and https://example.com/verify?t=1 again; xhttps://no.example/ HTTPS://UPPER.example/Path!",
			html: `<a href="https://example.com/c">C</a>`,
			want: []L{{"https://example.com/c", "C"}, {"https://example.com/verify?t=1", ""}, {"http://example.com/a_(b)", ""},
				{"https://example.com/d", ""}, {"HTTPS://UPPER.example/Path", ""}}},
		{name: "a text URL takes the text of the same link in the html",
			html: `<a href="https://a.example/"><img src="x"></a><a href="https://a.example/">Now</a>`,
			want: []L{{"https://a.example/", "Now"}}},
		{name: "non-ASCII and invalid bytes in text",
			text: "İİİ https://a.example/ü \xff https://b.example/\xffc",
			want: []L{{"https://a.example/ü", ""}, {"https://b.example/", ""}}},
		{name: "bare scheme words are not links",
			text: "http:// https:// http https:x http:/x", want: []L{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := extract(c.text, c.html)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("Extract(%q, %q)\n got %q\nwant %q", c.text, c.html, got, c.want)
			}
		})
	}
}

// TestExtractBounds: whatever a message holds, what Extract returns stays
// within its bounds, and a hostile body costs time in proportion to its
// size.
func TestExtractBounds(t *testing.T) {
	t.Parallel()
	many := func(n int, f func(i int) string) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(f(i))
		}
		return b.String()
	}
	long := "https://a.example/" + strings.Repeat("x", MaxURLBytes)
	for _, c := range []struct {
		name, text, html string
		check            func(t *testing.T, got []L)
	}{
		{name: "at most MaxLinks",
			html: many(500, func(i int) string { return fmt.Sprintf(`<a href="https://a.example/%d">%d</a>`, i, i) }),
			check: func(t *testing.T, got []L) {
				if len(got) != MaxLinks || got[0].URL != "https://a.example/0" || got[MaxLinks-1].URL != fmt.Sprintf("https://a.example/%d", MaxLinks-1) {
					t.Errorf("%d links, first %v", len(got), got[0])
				}
			}},
		{name: "a URL over MaxURLBytes is left out, not cut",
			html: `<a href="` + long + `">x</a><a href="https://b.example/">y</a>`, text: long,
			check: func(t *testing.T, got []L) {
				if len(got) != 1 || got[0].URL != "https://b.example/" {
					t.Errorf("got %q", got)
				}
			}},
		{name: "a huge attribute and an unclosed one",
			html: `<a title="` + strings.Repeat("&amp;", 40000) + `" href="https://a.example/">x</a><a href="https://b.example/`,
			check: func(t *testing.T, got []L) {
				if len(got) != 1 || got[0].URL != "https://a.example/" {
					t.Errorf("got %q", got)
				}
			}},
		{name: "past a token over the tokenizer's bound, nothing more is read",
			html: `<a href="https://a.example/">x</a><p title="` + strings.Repeat("x", maxTokenBytes) + `"><a href="https://b.example/">y</a>`,
			check: func(t *testing.T, got []L) {
				if len(got) != 1 || got[0].URL != "https://a.example/" {
					t.Errorf("got %q", got)
				}
			}},
		{name: "text cut to MaxLinkTextChars characters",
			html: `<a href="https://a.example/">` + strings.Repeat("é", 5000) + `</a>`,
			check: func(t *testing.T, got []L) {
				if len(got) != 1 || utf8.RuneCountInString(got[0].Text) != MaxLinkTextChars {
					t.Errorf("text of %d characters", utf8.RuneCountInString(got[0].Text))
				}
			}},
		{name: "URLs and texts within MaxLinkBytes",
			html: many(100, func(i int) string {
				return fmt.Sprintf(`<a href="https://a.example/%d/%s">%s</a>`, i, strings.Repeat("p", 1500), strings.Repeat("t", 300))
			}),
			check: func(t *testing.T, got []L) {
				total := 0
				for _, l := range got {
					total += len(l.URL) + len(l.Text)
				}
				if total > MaxLinkBytes || len(got) < 10 {
					t.Errorf("%d links of %d bytes", len(got), total)
				}
			}},
		{name: "deeply nested and unterminated markup",
			html: strings.Repeat("<div><a href='https://a.example/'><b>", 20000) + strings.Repeat("<!--", 1000) + "<scr",
			check: func(t *testing.T, got []L) {
				if len(got) != 1 || got[0].Text != "" {
					t.Errorf("got %q", got)
				}
			}},
		{name: "a text of scheme prefixes",
			text: strings.Repeat("https://", 100000) + strings.Repeat("http ", 100000),
			check: func(t *testing.T, got []L) {
				if len(got) != 0 {
					t.Errorf("got %d links", len(got))
				}
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := extract(c.text, c.html)
			if got == nil {
				t.Fatal("nil")
			}
			for _, l := range got {
				if len(l.URL) > MaxURLBytes || utf8.RuneCountInString(l.Text) > MaxLinkTextChars {
					t.Errorf("out of bounds: %q", l)
				}
			}
			c.check(t, got)
		})
	}
}

func TestClean(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"https://example.com/a?b=c#d", "https://example.com/a?b=c#d", true},
		{"HTTP://Example.COM", "HTTP://Example.COM", true},
		{"  https://example.com/a b\"<>`  ", "https://example.com/a%20b%22%3C%3E%60", true},
		{"https://user:pw@example.com/", "https://user:pw@example.com/", true},
		{"https://example.com/%zz", "", false},
		{"https://[::1", "", false},
		{"file:///etc/passwd", "", false},
		{"https:///path", "", false},
		// Invisible and bidirectional characters are percent-encoded
		// (issue 29): the URL leads where it led, and shows what it holds.
		{"https://example.com/\u200f", "https://example.com/%E2%80%8F", true},
		{"https://example.com/\u202egpj.exe", "https://example.com/%E2%80%AEgpj.exe", true},
		{"https://exa\u200bmple.com/\u2060a\ufeff\u00ad\u3164\ufe0f\U000E0041", "https://exa%E2%80%8Bmple.com/%E2%81%A0a%EF%BB%BF%C2%AD%E3%85%A4%EF%B8%8F%F3%A0%81%81", true},
		{"https://ex\u00e4mple.com/caf\u00e9", "https://ex\u00e4mple.com/caf\u00e9", true}, // visible letters stay
		{"https://example.com/\xff", "", false},
	} {
		t.Run(c.in, func(t *testing.T) {
			t.Parallel()
			got, ok := Clean(c.in)
			if got != c.want || ok != c.ok {
				t.Errorf("Clean(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
			}
		})
	}
}

// A hostile body costs work in proportion to its bytes: each case counts
// the bytes the extractor looks at (extractor.work) and bounds them by a
// few per byte of input. Issue 29's body ("https://" and 262,000 ")")
// was quadratic: trimTrailing counted the brackets of the whole URL for
// each one it trimmed, 1.2 s of CPU per message.
func TestExtractWorkIsLinear(t *testing.T) {
	t.Parallel()
	n := 262_000
	for name, in := range map[string][2]string{
		"closing brackets":       {"https://" + strings.Repeat(")", n), ""},
		"mixed brackets":         {"https://x/" + strings.Repeat("(]}", n/3), ""},
		"opening then closing":   {"https://x/" + strings.Repeat("(", n/2) + strings.Repeat(")", n/2), ""},
		"punctuation":            {"https://x" + strings.Repeat(".,;:!?*')", n/9), ""},
		"schemes":                {strings.Repeat("https://", n/8), ""},
		"short URLs":             {strings.Repeat("http://x) ", n/10), ""},
		"brackets in html":       {"", `<a href="https://` + strings.Repeat(")", 4000) + `">x</a>` + strings.Repeat("<a href=https://a/)>)</a>", n/25)},
		"words before every URL": {strings.Repeat("xhttp://a ", n/10), ""},
	} {
		e := extractor{out: []mailbox.Link{}, at: map[string]int{}}
		e.extract(in[0], in[1])
		if size := len(in[0]) + len(in[1]); e.work > 8*size+64 {
			t.Errorf("%s: %d bytes looked at for %d bytes of input, want at most 8 per byte", name, e.work, size)
		}
	}
}

// FuzzExtract: whatever the bodies, the extractor looks at a few bytes
// per byte of input, returns links within its bounds, each one a URL
// that Clean takes as it is, and nothing invisible.
func FuzzExtract(f *testing.F) {
	for _, seed := range [][2]string{
		{"see https://example.com/a).", ""},
		{"https://" + strings.Repeat(")", 1000), ""},
		{"(https://example.com/(a)b) [http://x/]] {https://y/}}", ""},
		{"", `<a href="https://example.com/?a=1&amp;b=2">Go <b>on</b></a><a href=//x>y</a>`},
		{"https://ex\u200bample.com/\u202e", `<a href="https://\u0430pple.com/">\u202eapple</a>`},
		{"xhttps://a HTTP://B/c?d=(e) http https:// http://", "<a href='https://a'><img alt=x></a><script>https://b</script>"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, text, htm string) {
		e := extractor{out: []mailbox.Link{}, at: map[string]int{}}
		e.extract(text, htm)
		if size := len(text) + len(htm); e.work > 8*size+64 {
			t.Fatalf("%d bytes looked at for %d bytes of input", e.work, size)
		}
		total := 0
		for _, l := range e.out {
			total += len(l.URL) + len(l.Text)
			if u, ok := Clean(l.URL); !ok || u != l.URL || strings.ContainsFunc(l.URL+l.Text, invisible) {
				t.Fatalf("link %q (text %q) is not a clean URL", l.URL, l.Text)
			}
		}
		if len(e.out) > MaxLinks || total > MaxLinkBytes {
			t.Fatalf("%d links of %d bytes", len(e.out), total)
		}
	})
}

// BenchmarkExtractBrackets is issue 29's body: "https://" and 262,000
// ")" (1.2 s of CPU before trimTrailing was made linear).
func BenchmarkExtractBrackets(b *testing.B) {
	text := "https://" + strings.Repeat(")", 262_000)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Extract(text, "")
	}
}

func BenchmarkExtract4KiB(b *testing.B) {
	htm := strings.Repeat(`<p>Hello <a href="https://example.com/track?u=1&amp;v=2">click here</a> and more text.</p>`, 45)
	text := strings.Repeat("Hello, see https://example.com/track?u=1&v=2 and more text.\n", 60)
	b.SetBytes(int64(len(htm) + len(text)))
	for b.Loop() {
		Extract(text, htm)
	}
}
