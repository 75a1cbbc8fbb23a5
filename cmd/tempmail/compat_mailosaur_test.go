package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"tempmail/service/servicetest"
)

// The Mailosaur family as its own clients see it: the published
// `mailosaur` SDK and `cypress-mailosaur`, at the exact versions of
// testdata/compat-mailosaur/package.json, unchanged, given the family's
// base URL alone (issue 33).
//
// The SDK speaks HTTPS on port 443 alone: it calls https.request with the
// base URL's host name and not its port. The service serves it there
// itself, as docs/API.md's recipe for a laptop or a CI job says:
// --https-addr :443, with the self-signed certificate for localhost it
// keeps in --data-dir, which node trusts through NODE_EXTRA_CA_CERTS. No
// proxy stands between them. Listening on 443 takes root (as CI runs) or
// CAP_NET_BIND_SERVICE; without either, the test says so and skips.

// mailosaurReport is what testdata/compat-mailosaur/client.mjs prints at
// its end.
type mailosaurReport struct {
	Server  struct{ ID, Name string }
	Address string
	Message struct {
		ID, Subject, From, To, Server string
		Received                      bool
		HTMLCode, HTMLLink, TextCode  string
		HTMLImages                    [][2]string
		Headers                       int
	}
	GotAt int64 // when messages.get resolved, in Unix milliseconds
	OTP   struct {
		Code, Expected string
		InFuture       bool
	}
	Files struct {
		EML, Attachment []byte
		Name            string
	}
	// Devices is a device stored, its code by id and by its secret, and
	// what is left once it is deleted.
	Devices struct {
		ID, Name, OTP, BySecret, Expected string
		Listed                            [][2]string
		SameWindow                        bool
		AfterDel                          int
		Gone                              *mailosaurRefusal
	}
	Transactions struct{ Days, Email int }
	Refused      map[string]*mailosaurRefusal
	Preview      *mailosaurRefusal
	List, Search []string
	Renamed      string
	Servers      []string
	Count        int
	Limits       struct{ Servers, Email int }
	Isolation    map[string]*mailosaurRefusal
	Reader       struct {
		Get          string
		Create       *mailosaurRefusal
		Devices      int
		CreateDevice *mailosaurRefusal
	}
	BadKey         *mailosaurRefusal
	AfterDeleteAll int
	NothingMore    *mailosaurRefusal
	Cypress        struct {
		GotAt                                int64
		EML, Attachment                      []byte
		OTP, Spam, Forward                   string
		Address, Subject, HTMLCode, HTMLLink string
		Listed                               int
		Requested                            []string
		Devices                              struct {
			ID, OTP, BySecret, Gone string
			Listed                  []string
			SameWindow              bool
			AfterDel                int
		}
	}
	Gone *mailosaurRefusal
}

// mailosaurRefusal is what a client threw: MailosaurError's type and
// status, and its message.
type mailosaurRefusal struct {
	Type    string
	Status  int
	Message string
}

// TestMailosaurFromItsSDK: with a tenant's key, the SDK makes a server,
// generates an address on it, waits (messages.get, searching again after
// the delays the family gives) for the mail this test sends there over
// SMTP, and finds its code and link; lists, searches, renames, counts
// and reads its limits; stores a device, whose code by its id is its
// secret's, and deletes it; another tenant's key is answered 404, a read
// key reads and cannot make (403), a bad key is 401; it deletes all, and a
// wait for more times out as the SDK's own. Then cypress-mailosaur's
// commands, run on a stand-in for cy (client.mjs says how), make a
// server and cy.mailosaurGetMessage waits for this test's second mail,
// and the device commands make, list, read and delete a device.
//
// Then docs/compatible.md's two recipes run as written, one after the other (each
// starts a service of its own on 443, 8080 and 2525): on a laptop, and in
// a GitHub Actions job (compat_mailosaur_recipe_test.go).
func TestMailosaurFromItsSDK(t *testing.T) {
	t.Parallel()
	dir := npmPackages(t, "compat-mailosaur", "the Mailosaur family was not checked with the mailosaur SDK nor cypress-mailosaur",
		"client.mjs", ".npmrc")
	if ln, err := net.Listen("tcp", ":443"); err != nil {
		skipNoPort443(t, err)
	} else {
		ln.Close()
	}
	t.Run("SDK", func(t *testing.T) { mailosaurSDKScenario(t, dir) })
	t.Run("laptop recipe", func(t *testing.T) { mailosaurLaptopRecipe(t, dir) })
	t.Run("CI recipe", func(t *testing.T) { mailosaurCIRecipe(t, dir) })
}

// mailosaurSDKScenario runs client.mjs, installed in dir, against a
// service on 443.
func mailosaurSDKScenario(t *testing.T, dir string) {
	const domain = "tempmail.test"
	cfg := testConfig(t.TempDir(), domain)
	cfg.APIToken = adminToken
	cfg.HTTPSAddr = ":443"
	svc, base := startServiceWith(t, cfg)
	ours := newTenant(t, base, adminToken, "ours")
	keyOurs, readOurs := newTenantKey(t, base, adminToken, ours, `["inboxes"]`), newTenantKey(t, base, adminToken, ours, `["read"]`)
	keyOther := newTenantKey(t, base, adminToken, newTenant(t, base, adminToken, "other"), `["inboxes"]`)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// No proxy: the SDK would take the first of these it finds set.
	env := []string{"NODE_EXTRA_CA_CERTS=" + filepath.Join(cfg.DataDir, "https-cert.pem"),
		"MAILOSAUR_SMTP_HOST=" + domain, "https_proxy=", "HTTPS_PROXY=", "http_proxy=", "HTTP_PROXY="}
	node := startNode(ctx, t, dir, env, "client.mjs", "https://localhost/compat/mailosaur/", keyOurs, readOurs, keyOther)
	lines := bufio.NewScanner(node.Out)
	lines.Buffer(nil, 1<<20)
	var out []byte
	var sent []string
	var sentAt []time.Time // each 250
	var raws []string
	for lines.Scan() {
		addr, ok := strings.CutPrefix(lines.Text(), "send ")
		if !ok {
			out = bytes.Clone(lines.Bytes())
			continue
		}
		sent = append(sent, addr)
		raws = append(raws, mailosaurTestMail(addr))
		servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", addr, raws[len(raws)-1])
		sentAt = append(sentAt, time.Now())
	}
	if err := node.Wait(); err != nil || node.Stderr.Len() > 0 {
		t.Fatalf("node client.mjs: %v\nstdout: %s\nstderr: %s", err, out, node.Stderr.Bytes())
	}
	var r mailosaurReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("the clients' report: %v\n%s", err, out)
	}

	id := r.Server.ID
	if len(id) != 8 || r.Server.Name != "SDK tests" || !strings.HasSuffix(r.Address, "@"+id+"."+domain) ||
		len(sent) != 2 || sent[0] != r.Address {
		t.Errorf("server %+v, address %q, mail sent to %v", r.Server, r.Address, sent)
	}
	m := r.Message
	if m.Subject != "Verify your account" || m.From != "shop@example.com" || m.To != r.Address || !m.Received ||
		m.Server != id || m.HTMLCode != "482913" || m.HTMLLink != "https://shop.example.com/verify?u=7" ||
		m.TextCode != "482913" || m.Headers == 0 || !reflect.DeepEqual(m.HTMLImages, [][2]string{{"cid:logo@shop", "Shop & Co"}}) {
		t.Errorf("messages.get: %+v", m)
	}
	if !reflect.DeepEqual(r.List, []string{m.ID}) || !reflect.DeepEqual(r.Search, []string{m.ID}) || r.Renamed != "Renamed" ||
		!reflect.DeepEqual(r.Servers, []string{"Renamed"}) || r.Count != 1 || r.Limits.Servers != 1 || r.Limits.Email != 1 {
		t.Errorf("list %v, search %v, renamed %q, servers %v, count %d, limits %+v", r.List, r.Search, r.Renamed, r.Servers, r.Count, r.Limits)
	}
	refused := func(what string, got *mailosaurRefusal, status int, typ string) {
		t.Helper()
		if got == nil || got.Status != status || got.Type != typ {
			t.Errorf("%s: %+v, want %d %s", what, got, status, typ)
		}
	}
	for _, call := range []string{"getServer", "getMessage", "list", "deleteAll", "deviceOtp", "deviceDel"} {
		refused("another tenant's "+call, r.Isolation[call], 404, "invalid_request")
	}
	if r.Reader.Get != m.ID {
		t.Errorf("a read key's getById: %q", r.Reader.Get)
	}
	refused("a read key's servers.create", r.Reader.Create, 403, "permission_error")
	refused("a read key's devices.create", r.Reader.CreateDevice, 403, "permission_error")
	if r.Reader.Devices != 1 {
		t.Errorf("a read key's devices.list: %d devices, want 1", r.Reader.Devices)
	}
	refused("a bad key", r.BadKey, 401, "authentication_error")
	if r.AfterDeleteAll != 0 {
		t.Errorf("after deleteAll the server lists %d messages", r.AfterDeleteAll)
	}
	refused("messages.get with nothing more to come", r.NothingMore, 0, "search_timeout")

	// Files, byte for byte; the one-time code as an app computes it;
	// today's mail; each call refused naming itself.
	if len(raws) == 2 {
		if !bytes.HasSuffix(r.Files.EML, []byte(raws[0])) || !bytes.Equal(r.Files.Attachment, mailosaurTestFile()) ||
			r.Files.Name != "bytes.bin" {
			t.Errorf("files.getEmail %q, files.getAttachment %x (%s)", r.Files.EML, r.Files.Attachment, r.Files.Name)
		}
		if !bytes.HasSuffix(r.Cypress.EML, []byte(raws[1])) || !bytes.Equal(r.Cypress.Attachment, mailosaurTestFile()) {
			t.Errorf("cy.mailosaurDownloadMessage %q, cy.mailosaurDownloadAttachment %x", r.Cypress.EML, r.Cypress.Attachment)
		}
		t.Logf("from the 250 to messages.get resolved: %d ms; to cy.mailosaurGetMessage: %d ms",
			r.GotAt-sentAt[0].UnixMilli(), r.Cypress.GotAt-sentAt[1].UnixMilli())
	}
	if len(r.OTP.Code) != 6 || r.OTP.Code != r.OTP.Expected || !r.OTP.InFuture || len(r.Cypress.OTP) != 6 {
		t.Errorf("devices.otp: %+v, cy.mailosaurGetDeviceOtp %q", r.OTP, r.Cypress.OTP)
	}
	if r.Transactions.Days != 1 || r.Transactions.Email != 1 {
		t.Errorf("usage.transactions: %+v", r.Transactions)
	}
	// A device stored: its id a UUID (the SDK asks otp(query) by id when
	// query holds a '-'), its code the code of its secret, as an app
	// computes it; deleted, it is not found.
	d := r.Devices
	if len(d.ID) != 36 || strings.Count(d.ID, "-") != 4 || d.Name != "phone" || !reflect.DeepEqual(d.Listed, [][2]string{{d.ID, "phone"}}) ||
		!d.SameWindow || len(d.OTP) != 6 || d.OTP != d.BySecret || d.OTP != d.Expected || d.AfterDel != 0 {
		t.Errorf("devices.create, list, otp(deviceId), del: %+v", d)
	}
	refused("devices.otp(deviceId) once deleted", d.Gone, 404, "invalid_request")
	if cd := r.Cypress.Devices; len(cd.ID) != 36 || !reflect.DeepEqual(cd.Listed, []string{"Cypress phone"}) || !cd.SameWindow ||
		len(cd.OTP) != 6 || cd.OTP != cd.BySecret || cd.AfterDel != 0 || cd.Gone != "Not found, check input parameters." {
		t.Errorf("cy.mailosaurCreateDevice, ListDevices, GetDeviceOtp(id), DeleteDevice: %+v", cd)
	}
	if len(r.Refused) != 8 {
		t.Errorf("%d calls refused, want 8", len(r.Refused))
	}
	refused("files.getPreview", r.Preview, 404, "invalid_request")
	for call, got := range r.Refused {
		if got == nil || got.Status != 400 || !strings.HasPrefix(got.Message, "("+call+") "+call+" (cy.mailosaur") ||
			!strings.Contains(got.Message, "not supported by tempmail") {
			t.Errorf("%s: %+v", call, got)
		}
	}
	for call, msg := range map[string]string{"analysis.spam": r.Cypress.Spam, "messages.forward": r.Cypress.Forward} {
		if !strings.HasPrefix(msg, "("+call+") ") {
			t.Errorf("cypress-mailosaur's %s threw %q", call, msg)
		}
	}

	c := r.Cypress
	if len(sent) == 2 && c.Address != sent[1] || !strings.HasSuffix(c.Address, "."+domain) || c.Subject != "Verify your account" ||
		c.HTMLCode != "482913" || c.HTMLLink != "https://shop.example.com/verify?u=7" || c.Listed != 1 {
		t.Errorf("cypress-mailosaur: %+v", c)
	}
	for _, p := range []string{"POST /compat/mailosaur/api/servers", "POST /compat/mailosaur/api/messages/search", "DELETE /compat/mailosaur/api/messages"} {
		if !strings.Contains(strings.Join(c.Requested, "\n"), p) {
			t.Errorf("cypress-mailosaur's commands requested %v, not %s", c.Requested, p)
		}
	}
	refused("servers.get after servers.del", r.Gone, 404, "invalid_request")
}

// mailosaurTestMail is the mail the test sends to addr: a code and a
// link in text and HTML, an image, and a binary file.
func mailosaurTestMail(addr string) string {
	return "From: Shop <shop@example.com>\r\nTo: " + addr + "\r\nSubject: Verify your account\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/mixed; boundary=m\r\n\r\n--m\r\nContent-Type: multipart/alternative; boundary=b\r\n\r\n" +
		"--b\r\nContent-Type: text/plain\r\n\r\nYour code is 482913: https://shop.example.com/verify?u=7\r\n" +
		"--b\r\nContent-Type: text/html\r\n\r\n<p style=\"color:#102030\">Your code is <b>482913</b>.</p>" +
		"<a href=\"https://shop.example.com/verify?u=7\">Verify</a><IMG SRC='cid:logo@shop' ALT=\"Shop &amp; Co\">\r\n--b--\r\n" +
		"--m\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=\"bytes.bin\"\r\n" +
		"Content-Transfer-Encoding: base64\r\n\r\n" + base64.StdEncoding.EncodeToString(mailosaurTestFile()) + "\r\n--m--\r\n"
}

// mailosaurTestFile is the attachment: every byte value once.
func mailosaurTestFile() []byte {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

// skipNoPort443 skips a test that needs port 443 this process may not
// listen on (not root, no CAP_NET_BIND_SERVICE, or taken), loudly: CI runs
// as root, and TEMPMAIL_NODE_CLIENTS=required makes it a failure.
func skipNoPort443(t *testing.T, err error) {
	t.Helper()
	msg := fmt.Sprintf("cannot listen on :443 (%v): the Mailosaur SDK, which speaks HTTPS on 443 alone, was not checked", err)
	if os.Getenv("TEMPMAIL_NODE_CLIENTS") == "required" {
		t.Fatal(msg + " (TEMPMAIL_NODE_CLIENTS=required)")
	}
	fmt.Fprintf(os.Stderr, "\n*** SKIPPED %s: %s ***\n\n", t.Name(), msg)
	t.Skip(msg)
}
