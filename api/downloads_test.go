package api_test

import (
	"net/http"
	"tempmail/service/apitest"
	"testing"
	"time"
)

// TestAttachmentDownloadsShareABoundedBudget: while downloads hold the
// room they may take together, another waits, and is answered 503 when
// none comes; once it is given back, the download goes through, and a
// finished one leaves nothing held.
func TestAttachmentDownloadsShareABoundedBudget(t *testing.T) {
	t.Parallel()
	h := apitest.New(t) // its own: it reaches into the service
	token, address := h.TokenInbox()
	h.SendMail(address, apitest.MultipartMail(address))
	id := h.WaitLatest(token, "")["id"].(string)
	path := "/inboxes/" + token + "/messages/" + id + "/attachments/1/"

	free, ok := h.Service.API.FillDownloads(200 * time.Millisecond)
	if !ok {
		t.Fatal("downloads hold room before any was asked for")
	}
	r := h.Do("GET", path, "")
	if r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
		t.Errorf("with no room: %d %s", r.Status, r.Body)
	}
	h.Expect(r, http.StatusServiceUnavailable, `{"error":"too many large attachments are being read at once; try again shortly"}`)
	free()
	for range 3 {
		if r := h.Do("GET", path, ""); r.Status != 200 || string(r.Body) != string(pdfBytes) {
			t.Errorf("with room: %d %q", r.Status, r.Body)
		}
	}
	if !h.Service.API.DownloadsIdle() {
		t.Error("finished downloads still hold room")
	}
}
