package entry

import (
	"reflect"
	"testing"
	"time"

	"tempmail/events"
	"tempmail/mailbox"
	"tempmail/projections/view"
)

// fullPage is the most summaries an open page holds (the views close it
// then: projections' pageMaxItems).
const fullPage = 32

// fullInbox is an inbox at its largest usual size: a full open page, a
// page index of a thousand messages, every mark kept, a subscription.
func fullInbox() *Inbox {
	now := time.Now().UTC()
	in := &Inbox{Meta: view.Meta{Seq: 1234567}, ID: "414bc58d-55c3-49ae-8b7a-bad3cf0ef9f9", Address: "abcdefghij@tempmail.test",
		Token: "ABCDEFGHIJKLMNOPQRSTUVWXYZ", Retention: mailbox.RetainMessages, DomainID: 1, CreatedAt: now, ExpiresAt: now.Add(time.Hour),
		TTL: 3600, LifecycleSeq: 123456, Count: 1000, NextPage: 31, Forgotten: 99,
		Webhooks: []WebhookRef{{ID: "hook", Events: []string{mailbox.HookMessageReceived, mailbox.HookInboxDeleted}, Seq: 7, Claimed: true}}}
	for i := range fullPage {
		id := events.NewMessageID(in.ID)
		in.Head = append(in.Head, Summary{ID: id, ReceivedAt: now, Size: 4312, IsRead: i%3 == 0, ReadSeq: uint64(i % 3),
			ContentSeq: 1234567, Key: 123456, RawObject: map[bool]string{true: "msg/" + id}[i == 5],
			Print: events.Print{Raw: 1<<63 + 12345, Body: 1<<62 + 999}, DeletedSeq: uint64(i % 2), ClaimSeq: uint64(i % 4)})
		in.Pages = append(in.Pages, PageRef{N: int64(i), Size: 32, Last: id})
		in.Marks = append(in.Marks, Mark{Seq: 1234567, Kind: ChangeDeleted, ID: id, ContentSeq: 1234000})
	}
	return in
}

func TestBinaryEntriesRoundTrip(t *testing.T) {
	t.Parallel()
	for _, rec := range []view.Record{fullInbox(), &Inbox{}, &Page{Meta: view.Meta{Seq: 3}, Items: fullInbox().Head}, &Page{Meta: view.Meta{Gone: true}}} {
		data, err := Encode(rec)
		if err != nil {
			t.Fatal(err)
		}
		if data[0] != BinaryMark {
			t.Fatalf("%T is not stored in binary", rec)
		}
		got := reflect.New(reflect.TypeOf(rec).Elem()).Interface().(view.Record)
		if err := Decode(data, got); err != nil {
			t.Fatalf("%T: %v", rec, err)
		}
		if !reflect.DeepEqual(got, rec) {
			t.Errorf("%T came back as\n%+v\nwant\n%+v", rec, got, rec)
		}
		// Cut short anywhere, an entry is an error, never a panic or a
		// list that claims more than the bytes could hold.
		for n := 1; n < len(data); n += 7 {
			if err := Decode(data[:n], got); err == nil {
				t.Errorf("%T cut to %d of %d bytes decoded without an error", rec, n, len(data))
			}
		}
	}
	// A tombstone, written as JSON, reads into any record.
	var in Inbox
	if err := Decode([]byte(`{"seq":9,"gone":true}`), &in); err != nil || !in.Gone || in.Seq != 9 {
		t.Errorf("tombstone: %+v %v", in.Meta, err)
	}
}

// An inbox entry of binary version 2 (views format 4) held the letter of
// the API that made the inbox where version 3 holds its retention: it is
// refused, never read with its letter taken for a retention. (Views of
// format 4 are rebuilt from the log before they are read.)
func TestInboxEntryOfBinaryVersion2IsRefused(t *testing.T) {
	t.Parallel()
	data, err := Encode(fullInbox())
	if err != nil {
		t.Fatal(err)
	}
	data[1] = 2
	var in Inbox
	if err := Decode(data, &in); err == nil {
		t.Errorf("an entry of binary version 2 read as %+v", in)
	}
}

func BenchmarkInboxDecode(b *testing.B) {
	data, _ := Encode(fullInbox())
	b.ReportMetric(float64(len(data)), "bytes/entry")
	for b.Loop() {
		var in Inbox
		if err := Decode(data, &in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkInboxEncode(b *testing.B) {
	in := fullInbox()
	for b.Loop() {
		if _, err := Encode(in); err != nil {
			b.Fatal(err)
		}
	}
}

// A mail.tm account's password hash comes back, with a tenant and
// without one; an entry without one (every entry written before it) reads
// as an inbox of none.
func TestInboxPasswordHashRoundTrips(t *testing.T) {
	t.Parallel()
	for _, tenant := range []string{"", "t-1"} {
		in := fullInbox()
		in.TenantID, in.PasswordHash = tenant, "$2a$10$abcdefghijklmnopqrstuv"
		in.Held, in.Claimed = Claims{Bytes: 77, Day: "2026-11-27", Messages: 2}, Claims{Bytes: 30, Day: "2026-11-27", Messages: 1}
		if tenant == "" {
			in.Held, in.Claimed = Claims{}, Claims{}
		}
		data, _ := Encode(in)
		var got Inbox
		if err := Decode(data, &got); err != nil || !reflect.DeepEqual(&got, in) {
			t.Errorf("tenant %q: came back as %q %q %+v %+v (%v)", tenant, got.PasswordHash, got.TenantID, got.Held, got.Claimed, err)
		}
	}
}
