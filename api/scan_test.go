package api_test

import (
	"strconv"
	"strings"
	"testing"

	"tempmail/api"
	"tempmail/eventually"
	"tempmail/service/apitest"
)

// TestCodesAndFilteredLatestReadOnlyTheNewest: otp and latest with a
// filter look through an inbox newest first, a few messages at a time, and
// stop at the first that matches: finding a code in the newest of 100
// messages reads a handful of them, not the whole inbox (each read of what
// a message says is a request to NATS once the content cache, 8 MiB, no
// longer holds them all).
func TestCodesAndFilteredLatestReadOnlyTheNewest(t *testing.T) {
	t.Parallel()
	h := apitest.New(t) // its own: it reaches into the service
	token, address := h.TokenInbox()
	text := strings.Repeat("Nothing to see here, no code at all.\r\n", 150<<10/40)
	const n = 100
	for i := range n {
		h.SendMail(address, "Subject: newsletter "+strconv.Itoa(i)+"\r\n\r\n"+text)
	}
	h.SendMail(address, "Subject: your sign-in\r\n\r\nYour code is 482913.\r\n")
	eventually.True(t, "every message listed", func() bool {
		return h.Do("GET", "/inboxes/"+token+"/", "").JSON(t)["count"] == float64(n+1)
	})
	// requests is how many messages reach NATS while h reads path.
	requests := func(h *apitest.Harness, path string) uint64 {
		h.T.Helper()
		v, _ := h.Service.Node.Server().Varz(nil)
		before := v.InMsgs
		r := h.Do("GET", path, "")
		if r.Status != 200 {
			h.T.Fatalf("%d %s", r.Status, r.Body)
		}
		v, _ = h.Service.Node.Server().Varz(nil)
		return uint64(v.InMsgs - before)
	}
	// One at a time: each counts whatever reaches NATS meanwhile.
	for _, path := range []string{"/inboxes/" + token + "/otp/", "/inboxes/" + token + "/latest/?subject=sign-in",
		"/inboxes/" + token + "/otp/?subject=sign"} {
		t.Run(path, func(t *testing.T) {
			got := requests(h.As(t), path)
			t.Logf("%d requests to NATS", got)
			if got > 3*api.ScanChunk {
				t.Errorf("%d requests to NATS for the newest of %d messages", got, n+1)
			}
		})
	}
}
