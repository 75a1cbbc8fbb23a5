package api_test

import (
	"errors"
	"net/textproto"
	"strings"
	"testing"

	"tempmail/config"
	"tempmail/service/apitest"
)

// TestPlusAddressesReachTheirInbox: mail to local+tag@domain lands in
// local@domain's inbox, so one inbox serves many sign-ups; the to= filter
// tells them apart. With --plus-addressing=false such an address is
// unknown, as any other.
func TestPlusAddressesReachTheirInbox(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	token, address := h.TokenInbox()
	local, domain, _ := strings.Cut(address, "@")
	tagged := local + "+signup42@" + domain
	h.SendMail(tagged, "To: "+tagged+"\r\nSubject: welcome\r\n\r\nYour code is 424242.\r\n")
	first := h.WaitLatest(token, "")["id"].(string)
	h.SendMail(address, "To: "+address+"\r\nSubject: plain\r\n\r\nno tag\r\n")
	h.WaitLatest(token, first)
	r := h.Do("GET", "/inboxes/"+token+"/messages/?to=%2Bsignup42", "")
	if r.Status != 200 || r.Header.Get("X-Total-Count") != "1" || !strings.Contains(string(r.Body), `"subject":"welcome"`) {
		t.Errorf("to=+signup42: %d %s %s", r.Status, r.Header.Get("X-Total-Count"), r.Body)
	}
	if r := h.Do("GET", "/inboxes/"+token+"/otp/?to=%2Bsignup42", ""); !strings.Contains(string(r.Body), `"424242"`) {
		t.Errorf("otp of the tagged message: %d %s", r.Status, r.Body)
	}

	off := apitest.New(t, func(c *config.Config) { c.PlusAddressing = false })
	_, address = off.TokenInbox()
	local, domain, _ = strings.Cut(address, "@")
	c := off.SMTPClient()
	defer c.Close()
	if err := c.Mail("s@example.com"); err != nil {
		t.Fatal(err)
	}
	var reply *textproto.Error
	if err := c.Rcpt(local + "+x@" + domain); !errors.As(err, &reply) || reply.Code != 550 || !strings.HasPrefix(reply.Msg, "5.1.1") {
		t.Errorf("a plus address with --plus-addressing=false: %v, want 550 5.1.1", err)
	}
}
