package events

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"tempmail/mail"
)

func TestContentRecordKeepsEveryField(t *testing.T) {
	t.Parallel()
	c := mail.Message{Raw: []byte("Subject: x\r\n\r\nline\n\x00\xff\r\n"), MailFrom: "bounce@example.com",
		From: "a@example.com", FromName: "Ä", To: []string{"b@tempmail.test"}, Subject: "x\ny",
		Date: time.Unix(1700000000, 0).UTC(), Text: "text\nwith \"quotes\" and \\ and \xe2\x82", HTML: "<p>\n</p>", TextFromHTML: true,
		Preview: "text with", Headers: map[string]string{"X-A": "1"}, Attachments: []mail.Attachment{{ID: "m-1", Filename: "a.txt", Size: 3}},
		Auth: &mail.Auth{SPF: mail.SPF{Result: "pass", Domain: "example.com"},
			DKIM:  []mail.DKIM{{Result: "fail", Domain: "example.com", Selector: "s"}},
			DMARC: mail.DMARC{Result: "pass", Domain: "example.com", Policy: "reject"}}}
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
// mail.Message, and the message is written again byte for byte as it was:
// what is stored does not follow the model's or the API's names.
func TestContentRecordsWrittenEarlierReadTheSame(t *testing.T) {
	t.Parallel()
	full := mail.Message{Raw: []byte("Subject: x\r\n\r\nhi\r\n"), MailFrom: "bounce@example.com",
		From: "a@example.com", FromName: "Ä", To: []string{"b@tempmail.test", "c@tempmail.test"}, Cc: []string{"d@example.org"},
		Subject: "x\ny", Date: time.Unix(1700000000, 0).UTC(), HeaderMessageID: "<m-1@example.com>", Text: "text\n",
		HTML: "<p>html</p>", TextFromHTML: true, Preview: "html", Headers: map[string]string{"X-A": "1", "Subject": "x y"},
		Attachments: []mail.Attachment{{ID: "m-1", Filename: "a.txt", ContentType: "text/plain", Size: 3, Part: "2"}},
		Auth: &mail.Auth{SPF: mail.SPF{Result: "pass", Domain: "example.com"},
			DKIM:  []mail.DKIM{{Result: "fail", Domain: "example.com", Selector: "s", Reason: "key record longer than 4096 bytes"}},
			DMARC: mail.DMARC{Result: "pass", Domain: "example.com", Policy: "reject"}},
		Links: []mail.Link{{URL: "https://a.example/", Text: "A"}, {URL: "https://b.example/"}}}
	for _, c := range []struct {
		name   string
		record string
		want   mail.Message
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
			mail.Message{From: "x@example.com", Links: []mail.Link{}, Auth: &mail.Auth{}}},
		{"stored before links were kept", "{\"v\":4,\"preview_rule\":2,\"from\":\"\",\"links\":null}\n", mail.Message{}},
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
	helo.Auth = &mail.Auth{SPF: mail.SPF{Result: "pass", Domain: "mx.example.com", HELO: true}}
	if got, err := encodeContent(helo); err != nil || bytes.Contains(got, []byte("helo")) || bytes.Contains(got, []byte("HELO")) {
		t.Errorf("HELO stored: %q (%v)", got, err)
	}
}

func TestSealOpensOnlyWithItsKeyAndMessage(t *testing.T) {
	t.Parallel()
	key, other := randomKey(), randomKey()
	plain := bytes.Repeat([]byte("the quick brown fox "), 500)
	sealed := seal(key, "m1", plain)
	if bytes.Contains(sealed, []byte("quick brown")) {
		t.Fatal("sealed content holds the plaintext")
	}
	if got, err := unseal(key, "m1", sealed); err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("unseal: %v", err)
	}
	if _, err := unseal(other, "m1", sealed); err == nil {
		t.Error("opened with another key")
	}
	if _, err := unseal(key, "m2", sealed); err == nil {
		t.Error("opened as another message")
	}
	sealed[len(sealed)/2] ^= 1
	if _, err := unseal(key, "m1", sealed); err == nil {
		t.Error("opened after tampering")
	}
}

func TestSealedRawStreamsInFrames(t *testing.T) {
	t.Parallel()
	key := randomKey()
	for _, size := range []int{0, 1, rawFrame - 1, rawFrame, rawFrame + 1, 5*rawFrame + 17} {
		plain := make([]byte, size)
		_, _ = rand.Read(plain)
		sealed, _ := io.ReadAll(newSealedReader(key, "m", plain))
		if int64(len(sealed)) != sealedSize(int64(size)) {
			t.Errorf("%d bytes sealed to %d, want %d", size, len(sealed), sealedSize(int64(size)))
		}
		got, err := io.ReadAll(newOpenedReader(key, "m", bytes.NewReader(sealed)))
		if err != nil || !bytes.Equal(got, plain) {
			t.Fatalf("%d bytes: %v", size, err)
		}
		if size > rawFrame {
			// Cut after the first frame: the stream must not pass as whole.
			cut := sealed[:4+rawFrame+16]
			if _, err := io.ReadAll(newOpenedReader(key, "m", bytes.NewReader(cut))); err == nil {
				t.Errorf("%d bytes cut short opened without an error", size)
			}
		}
	}
}

func randomKey() []byte {
	k := make([]byte, keySize)
	_, _ = rand.Read(k)
	return k
}

// TestKeysKeepAndErase runs both key stores through what the service asks
// of them: a key is found by its reference and message, an erased one
// never again, a reference reused after an erasure does not open the
// erased message, and keys outlive a restart.
func TestKeysKeepAndErase(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"file", "stream"} {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			dir := t.TempDir()
			open := func() Keys {
				if kind == "file" {
					k, err := openFileKeys(dir, nil)
					if err != nil {
						t.Fatal(err)
					}
					return k
				}
				js := embeddedJS(t, dir)
				s := &Store{js: js, attemptTimeout: time.Second}
				k, err := openStreamKeys(ctx, js, 1, s.publish)
				if err != nil {
					t.Fatal(err)
				}
				s.stream = k.stream
				return k
			}
			keys := open()
			a, b := uuid.NewString(), uuid.NewString()
			refA, keyA, err := keys.New(ctx, a)
			if err != nil {
				t.Fatal(err)
			}
			refB, keyB, err := keys.New(ctx, b)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := keys.Get(ctx, refA, a); err != nil || !bytes.Equal(got, keyA) {
				t.Fatalf("get a: %v", err)
			}
			if _, err := keys.Get(ctx, refA, b); !errors.Is(err, ErrErased) {
				t.Errorf("a's reference opened b: %v", err)
			}
			if err := keys.Erase(ctx, refA, a); err != nil {
				t.Fatal(err)
			}
			if err := keys.Erase(ctx, refA, a); err != nil {
				t.Errorf("erasing twice: %v", err)
			}
			if _, err := keys.Get(ctx, refA, a); !errors.Is(err, ErrErased) {
				t.Errorf("get after erase: %v, want ErrErased", err)
			}
			c := uuid.NewString()
			refC, _, err := keys.New(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := keys.Get(ctx, refC, a); !errors.Is(err, ErrErased) {
				t.Errorf("a reused reference opened the erased message: %v", err)
			}
			if err := keys.Erase(ctx, refC, a); err != nil {
				t.Fatal(err)
			}
			if _, err := keys.Get(ctx, refC, c); err != nil {
				t.Errorf("erasing an erased message took the reference's new key: %v", err)
			}
			if kind == "file" {
				keys.Close()
				keys = open()
			}
			if got, err := keys.Get(ctx, refB, b); err != nil || !bytes.Equal(got, keyB) {
				t.Errorf("b after reopening: %v", err)
			}
			keys.Close()
		})
	}
}

// embeddedJS is a bare embedded server, for tests inside this package
// (natstest imports it).
func embeddedJS(t testing.TB, dir string) jetstream.JetStream {
	ns, err := server.NewServer(&server.Options{DontListen: true, JetStream: true, StoreDir: dir, NoSigs: true, NoLog: true})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("server not ready")
	}
	nc, err := nats.Connect("", nats.InProcessServer(ns))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close(); ns.Shutdown() })
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// TestKeyFileShrinksAsKeysAreErased: the key file follows what is live:
// erasing the keys of the last slots cuts them off, erasing them all
// empties it, and slots freed and cut off are never handed out twice.
func TestKeyFileShrinksAsKeysAreErased(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	k, err := openFileKeys(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	size := func() int64 {
		info, err := os.Stat(filepath.Join(dir, keysFile))
		if err != nil {
			t.Fatal(err)
		}
		return info.Size()
	}
	type live struct {
		ref uint64
		key []byte
	}
	keys := map[string]live{}
	add := func() {
		id := uuid.NewString()
		ref, key, err := k.New(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		keys[id] = live{ref, key}
	}
	erase := func(id string) {
		if err := k.Erase(ctx, keys[id].ref, id); err != nil {
			t.Fatal(err)
		}
		delete(keys, id)
	}
	check := func() {
		t.Helper()
		refs := map[uint64]bool{}
		for id, l := range keys {
			if refs[l.ref] {
				t.Fatalf("slot %d handed out twice", l.ref)
			}
			refs[l.ref] = true
			if got, err := k.Get(ctx, l.ref, id); err != nil || !bytes.Equal(got, l.key) {
				t.Fatalf("key of %s: %v", id, err)
			}
		}
	}
	for range 100 {
		add()
	}
	if size() != 100*slotSize {
		t.Fatalf("100 keys: %d bytes", size())
	}
	// Churn: erase at random, add, in many rounds.
	rng := mrand.New(mrand.NewPCG(1, 2))
	for range 2000 {
		if len(keys) > 0 && rng.IntN(2) == 0 {
			for id := range keys {
				erase(id)
				break
			}
		} else {
			add()
		}
	}
	check()
	for id := range keys {
		erase(id)
	}
	if size() != 0 {
		t.Errorf("every key erased, the file keeps %d bytes", size())
	}
	for range 3 {
		add()
	}
	check()
	k.Close()
	// Reopened, it knows which slots are free.
	if k, err = openFileKeys(dir, nil); err != nil {
		t.Fatal(err)
	}
	add()
	check()
}
