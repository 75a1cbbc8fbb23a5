package ingest_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tempmail/backend/backendtest"
	"tempmail/events"
	"tempmail/eventually"
)

// A recipient whose inbox the log holds but the views do not show yet
// (they lag, as on a node catching up after a fault; here its partition's
// consumer is paused) is deferred with a 451, never refused with a 550,
// which would make the sender bounce mail to a live inbox. Once the views
// catch up, it takes mail; an address the log has no inbox for is still
// refused at once.
func TestARecipientTheViewsLagBehindIsDeferredNotRefused(t *testing.T) {
	t.Parallel()
	svc := backendtest.Start(t, testConfig(t))
	addr := "late@tempmail.test"
	part := svc.Store.PartitionOfAddress(addr)
	consumer := "views-g" + strconv.Itoa(svc.Views.Generation()) + "-" + part
	if _, err := svc.Node.JS.PauseConsumer(t.Context(), events.StreamName, consumer, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	d, err := svc.Views.DomainByName(t.Context(), "tempmail.test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Store.CreateInbox(t.Context(), events.InboxCreated{InboxID: uuid.NewString(), Address: addr,
		Token: uuid.NewString(), DomainID: d.ID, CreatedAt: time.Now().UTC()}, 0); err != nil {
		t.Fatal(err)
	}
	c := dial(t, svc.SMTPAddr())
	c.cmd(250, "EHLO client.example")
	c.cmd(250, "MAIL FROM:<s@example.com>")
	if reply := c.cmd(451, "RCPT TO:<"+addr+">"); !strings.HasPrefix(reply, "4.") {
		t.Errorf("a live inbox the views lag behind: %q, want a 4.x.x", reply)
	}
	if reply := c.cmd(550, "RCPT TO:<nobody@tempmail.test>"); !strings.HasPrefix(reply, "5.1.1") {
		t.Errorf("an address without an inbox: %q, want 5.1.1", reply)
	}
	if _, err := svc.Node.JS.ResumeConsumer(t.Context(), events.StreamName, consumer); err != nil {
		t.Fatal(err)
	}
	eventually.True(t, "the inbox takes mail once the views catch up", func() bool {
		c.write("RCPT TO:<" + addr + ">\r\n")
		code, _ := c.reply()
		return code == 250
	})
	c.cmd(354, "DATA")
	c.cmd(250, "Subject: late\r\n\r\nhello\r\n.")
}
