package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"tempmail/service/servicetest"
)

// The MailSlurp family as its own SDK sees it: the published
// `mailslurp-client`, at the exact version of
// testdata/compat-mailslurp/package.json, unchanged, given the family's
// base path alone (issue 33).

// mailslurpReport is what testdata/compat-mailslurp/client.mjs prints at
// its end.
type mailslurpReport struct {
	GotAt int64 // when waitForLatestEmail resolved, in Unix milliseconds
	Inbox struct {
		ID           string
		EmailAddress string
		CreatedAt    bool // a Date, as the SDK reads the time
	}
	Latest struct{ ID, Subject string }
	Email  struct {
		Subject, Body, From string
		To                  []string
		IsHTML, Read        bool
	}
	Found struct {
		Nth, Matching string
		Emails        []string
		Counted       []string
		MatchingAll   []string
		Match         []string
		Code          string
	}
	TimedOut *sdkRefusal
	Lists    mailslurpListsReport
	Reading  struct {
		HTML      string
		HTMLJSON  struct{ Subject, Body string }
		HTMLQuery []string
		Raw       []byte // base64 in the report, as every byte array below
		RawVoid   bool
		RawJSON   string
	}
	Attachments mailslurpAttachmentsReport
	Isolation   map[string]*sdkRefusal
	OtherSees   struct {
		ByAddress  bool
		AllInboxes int
	}
	Reader struct {
		GetEmail    string
		CreateInbox *sdkRefusal
		DeleteEmail *sdkRefusal
	}
	Unsupported *sdkRefusal
	BadKey      *sdkRefusal
	Gone        *sdkRefusal
}

// mailslurpPageReport is what the SDK read of a page (Spring's shape).
type mailslurpPageReport struct {
	IDs                                     []string
	TotalElements, TotalPages, Size, Number int
	NumberOfElements, PageNumber, PageSize  int
	First, Last, Empty, Sorted, Dates       bool
}

// mailslurpListsReport is what the SDK's lists and look-ups read of the
// second inbox, and of the tenant's two inboxes.
type mailslurpListsReport struct {
	AllInboxes   []mailslurpPageReport
	Emails       mailslurpPageReport
	UnreadBefore []bool
	MarkAsRead   struct {
		ID   string
		Read bool
	}
	ReadAfter []bool
	Count     int
	ByAddress struct {
		InboxID string
		Exists  bool
	}
	LatestIn struct {
		ID, Subject string
		Attachments []string
	}
}

// mailslurpAttachmentsReport is what the SDK read of the attachment.
type mailslurpAttachmentsReport struct {
	ID       string
	Metadata []struct {
		ID, Name, ContentType string
		ContentLength         int
	}
	Entity struct {
		ID, Name, ContentType, InboxID, UserID string
		ContentLength                          int
		CreatedAt                              bool
	}
	Text, TextByID   int // the length of the text the SDK made of the bytes
	Bytes, BytesByID []byte
	Base64           []struct {
		Base64FileContents []byte
		ContentType        string
		SizeBytes          int
	}
}

// sdkRefusal is what the SDK threw for an error answer: its parsed body.
type sdkRefusal struct {
	Status  int
	Message string
	Thrown  string
}

// TestMailSlurpFromItsSDK: with a tenant's key, the SDK makes an inbox,
// waits (its own held wait) for the mail this test sends it over SMTP,
// reads it whole (body, subject), finds it by index, by match and by
// count, lists the inbox, matches a pattern and extracts its code, is told 408 when
// nothing more comes, deletes the email and the inbox. Another tenant's
// key is answered 404 for them; a read key reads, and cannot make or
// delete (403); an endpoint the family lacks is 501, a bad key 401.
func TestMailSlurpFromItsSDK(t *testing.T) {
	t.Parallel()
	dir := npmPackages(t, "compat-mailslurp", "the MailSlurp family was not checked with the mailslurp-client SDK", "client.mjs")
	cfg := testConfig(t.TempDir(), "tempmail.test")
	cfg.APIToken = adminToken
	svc, base := startServiceWith(t, cfg)
	ours := newTenant(t, base, adminToken, "ours")
	keyOurs, readOurs := newTenantKey(t, base, adminToken, ours, `["inboxes"]`), newTenantKey(t, base, adminToken, ours, `["read"]`)
	keyOther := newTenantKey(t, base, adminToken, newTenant(t, base, adminToken, "other"), `["inboxes"]`)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	node := startNode(ctx, t, dir, nil, "client.mjs", base+"/compat/mailslurp", keyOurs, readOurs, keyOther)
	lines := bufio.NewScanner(node.Out)
	lines.Buffer(nil, 1<<20)
	var addrs []string
	for len(addrs) < 2 && lines.Scan() {
		addrs = append(addrs, lines.Text())
	}
	if len(addrs) < 2 {
		_ = node.Wait()
		t.Fatalf("the SDK made no inboxes: %s", node.Stderr.Bytes())
	}
	addr, filesAddr := addrs[0], addrs[1]
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", addr, "From: Shop <shop@example.com>\r\nTo: "+addr+
		"\r\nSubject: Your code\r\nContent-Type: text/plain\r\n\r\nYour code is 482913.\r\n")
	sentAt := time.Now() // the 250
	sent := mailslurpTestMail(filesAddr)
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", filesAddr, sent)
	var out []byte
	if lines.Scan() {
		out = lines.Bytes()
	}
	if err := node.Wait(); err != nil || node.Stderr.Len() > 0 {
		t.Fatalf("node client.mjs: %v\nstdout: %s\nstderr: %s", err, out, node.Stderr.Bytes())
	}
	var r mailslurpReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("the SDK's report: %v\n%s", err, out)
	}

	t.Logf("from the 250 to waitForLatestEmail resolved: %d ms", r.GotAt-sentAt.UnixMilli())
	if r.Inbox.EmailAddress != addr || !strings.HasSuffix(addr, "@tempmail.test") || !r.Inbox.CreatedAt {
		t.Errorf("createInbox: %+v", r.Inbox)
	}
	id := r.Latest.ID
	if r.Latest.Subject != "Your code" || r.Email.Subject != "Your code" || !strings.Contains(r.Email.Body, "Your code is 482913.") ||
		r.Email.From != "shop@example.com" || !reflect.DeepEqual(r.Email.To, []string{addr}) || r.Email.IsHTML || !r.Email.Read {
		t.Errorf("waitForLatestEmail %+v, getEmail %+v", r.Latest, r.Email)
	}
	if r.Found.Nth != id || r.Found.Matching != id || !reflect.DeepEqual(r.Found.Emails, []string{id}) ||
		!reflect.DeepEqual(r.Found.Counted, []string{id}) || !reflect.DeepEqual(r.Found.MatchingAll, []string{id}) ||
		!reflect.DeepEqual(r.Found.Match, []string{"code is 482913", "482913"}) || r.Found.Code != "482913" {
		t.Errorf("found: %+v", r.Found)
	}
	refused := func(what string, got *sdkRefusal, status int, message string) {
		t.Helper()
		if got == nil || got.Status != status || !strings.Contains(got.Message, message) {
			t.Errorf("%s: %+v, want %d %q", what, got, status, message)
		}
	}
	refused("waitForLatestEmail with nothing unread", r.TimedOut, 408, "Failed to satisfy email query for inbox "+r.Inbox.ID)
	checkMailSlurpLists(t, &r, ours)
	checkMailSlurpReading(t, &r, sent)
	for call := range r.Isolation {
		refused("another tenant's "+call, r.Isolation[call], 404, "not found")
	}
	if len(r.Isolation) != 19 || r.OtherSees.ByAddress || r.OtherSees.AllInboxes != 0 {
		t.Errorf("another tenant's key: %d calls refused, sees %+v", len(r.Isolation), r.OtherSees)
	}
	if r.Reader.GetEmail != id {
		t.Errorf("a read key's getEmail: %q", r.Reader.GetEmail)
	}
	refused("a read key's createInbox", r.Reader.CreateInbox, 403, "no inboxes scope")
	refused("a read key's deleteEmail", r.Reader.DeleteEmail, 403, "no inboxes scope")
	refused("sendEmail", r.Unsupported, 501, "POST /inboxes/"+r.Inbox.ID+"/confirm is not supported by tempmail's MailSlurp family")
	refused("a bad key", r.BadKey, 401, "Invalid key")
	refused("getInbox after deleteInbox", r.Gone, 404, "Inbox not found")
}

// mailslurpTestHTML is the HTML of mailslurpTestMail, as sent: its line
// ends are CRLF on the wire, and LF as the service gives text.
const mailslurpTestHTML = "<html><body>\r\n<p>Your files are attached.</p>\r\n<p class=\"code\">482913</p>\r\n</body></html>"

// mailslurpTestMail is HTML with a binary attachment (every byte value
// once, mailosaurTestFile), base64 in multipart/mixed.
func mailslurpTestMail(addr string) string {
	return "From: Shop <shop@example.com>\r\nTo: " + addr + "\r\nSubject: Your files\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/mixed; boundary=m\r\n\r\n--m\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" +
		mailslurpTestHTML + "\r\n--m\r\nContent-Type: application/octet-stream\r\n" +
		"Content-Disposition: attachment; filename=\"bytes.bin\"\r\nContent-Transfer-Encoding: base64\r\n\r\n" +
		base64.StdEncoding.EncodeToString(mailosaurTestFile()) + "\r\n--m--\r\n"
}

// checkMailSlurpLists: the tenant's two inboxes paged one by one, oldest
// first, and all at once newest first; the second inbox's email paged
// unread, marked read, counted, found by the inbox's address and as its
// latest.
func checkMailSlurpLists(t *testing.T, r *mailslurpReport, tenant string) {
	t.Helper()
	l := r.Lists
	if len(l.AllInboxes) != 3 {
		t.Fatalf("getAllInboxes: %+v", l.AllInboxes)
	}
	first, second, all := l.AllInboxes[0], l.AllInboxes[1], l.AllInboxes[2]
	filesID := l.ByAddress.InboxID
	want := mailslurpPageReport{IDs: []string{r.Inbox.ID}, TotalElements: 2, TotalPages: 2, Size: 1, Number: 0,
		NumberOfElements: 1, PageNumber: 0, PageSize: 1, First: true, Sorted: true, Dates: true}
	if !reflect.DeepEqual(first, want) {
		t.Errorf("getAllInboxes page 0 of 1: %+v, want %+v", first, want)
	}
	want.IDs, want.Number, want.PageNumber, want.First, want.Last = []string{filesID}, 1, 1, false, true
	if !reflect.DeepEqual(second, want) {
		t.Errorf("getAllInboxes page 1 of 1: %+v, want %+v", second, want)
	}
	if !reflect.DeepEqual(all.IDs, []string{filesID, r.Inbox.ID}) || all.TotalPages != 1 || !all.First || !all.Last || all.Size != 20 {
		t.Errorf("getAllInboxes DESC: %+v", all)
	}
	id := l.MarkAsRead.ID
	if !reflect.DeepEqual(l.Emails.IDs, []string{id}) || l.Emails.TotalElements != 1 || l.Emails.Size != 10 || !l.Emails.Dates ||
		!reflect.DeepEqual(l.UnreadBefore, []bool{false}) || !l.MarkAsRead.Read || !reflect.DeepEqual(l.ReadAfter, []bool{true}) {
		t.Errorf("getInboxEmailsPaginated, then markAsRead: %+v", l)
	}
	if l.Count != 1 || !l.ByAddress.Exists || filesID == "" || l.LatestIn.ID != id || l.LatestIn.Subject != "Your files" ||
		!reflect.DeepEqual(l.LatestIn.Attachments, []string{r.Attachments.ID}) {
		t.Errorf("getInboxEmailCount, getInboxByEmailAddress, getLatestEmailInInbox1: %+v", l)
	}
	if a := r.Attachments; a.Entity.InboxID != filesID || a.Entity.UserID != tenant {
		t.Errorf("getAttachment: %+v", a.Entity)
	}
}

// checkMailSlurpReading: the HTML exactly as sent, the source exactly as
// sent under the service's own trace fields, and every download of the
// attachment the bytes sent.
func checkMailSlurpReading(t *testing.T, r *mailslurpReport, sent string) {
	t.Helper()
	html := strings.ReplaceAll(mailslurpTestHTML, "\r\n", "\n")
	g := r.Reading
	if g.HTML != html || g.HTMLJSON.Body != html || g.HTMLJSON.Subject != "Your files" ||
		!reflect.DeepEqual(g.HTMLQuery, []string{"482913"}) {
		t.Errorf("getEmailHTML %q, getEmailHTMLJson %+v, getEmailHTMLQuery %q; want %q", g.HTML, g.HTMLJSON, g.HTMLQuery, html)
	}
	above, ok := strings.CutSuffix(string(g.Raw), sent)
	if !ok || g.RawJSON != string(g.Raw) || !g.RawVoid {
		t.Fatalf("getRawEmailContents %q, getRawEmailJson %q: want what was sent under trace fields, %q", g.Raw, g.RawJSON, sent)
	}
	// Above what was sent: one Received field, and Authentication-Results
	// when checks are on; nothing else.
	received := 0
	for _, line := range strings.SplitAfter(strings.TrimSuffix(above, "\r\n"), "\r\n") {
		name, _, _ := strings.Cut(line, ":")
		switch {
		case strings.HasPrefix(line, "\t") || strings.HasPrefix(line, " "): // a folded field goes on
		case name == "Received":
			received++
		case name != "Authentication-Results":
			t.Errorf("getRawEmailContents: %q above what was sent", line)
		}
	}
	if received != 1 || !strings.HasSuffix(above, "\r\n") {
		t.Errorf("getRawEmailContents: %q above what was sent, want one Received field", above)
	}
	a, file := r.Attachments, mailosaurTestFile()
	for _, m := range a.Metadata {
		if m.ID != a.ID || m.Name != "bytes.bin" || m.ContentType != "application/octet-stream" || m.ContentLength != len(file) {
			t.Errorf("getAttachmentMetaData, getAttachmentInfo: %+v", a.Metadata)
		}
	}
	if e := a.Entity; len(a.Metadata) != 2 || e.ID != a.ID || e.Name != "bytes.bin" || e.ContentType != "application/octet-stream" ||
		e.ContentLength != len(file) || !e.CreatedAt {
		t.Errorf("getAttachment: %+v", e)
	}
	if !bytes.Equal(a.Bytes, file) || !bytes.Equal(a.BytesByID, file) || a.Text == 0 || a.TextByID == 0 {
		t.Errorf("downloadAttachment %x (text of %d), downloadAttachmentAsBytes %x (text of %d): want %x", a.Bytes, a.Text,
			a.BytesByID, a.TextByID, file)
	}
	for _, d := range a.Base64 {
		if !bytes.Equal(d.Base64FileContents, file) || d.ContentType != "application/octet-stream" || d.SizeBytes != len(file) {
			t.Errorf("downloadAttachmentBase64, downloadAttachmentAsBase64Encoded: %x %s %d", d.Base64FileContents, d.ContentType, d.SizeBytes)
		}
	}
	if len(a.Base64) != 2 {
		t.Errorf("base64 downloads: %d", len(a.Base64))
	}
}
