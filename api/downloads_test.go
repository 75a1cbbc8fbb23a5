package api

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// TestAttachmentDownloadsShareABoundedBudget: while downloads hold the
// room they may take together, another waits, and is answered 503 when
// none comes; once it is given back, the download goes through, and a
// finished one leaves nothing held.
func TestAttachmentDownloadsShareABoundedBudget(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.api.downloads.wait = 200 * time.Millisecond
	token, address := h.tokenInbox()
	h.sendMail(address, multipartMail(address))
	id := h.waitLatest(token, "")["id"].(string)
	path := "/inboxes/" + token + "/messages/" + id + "/attachments/1/"

	ctx := context.Background()
	if err := h.api.downloads.sem.Acquire(ctx, h.api.downloads.budget); err != nil {
		t.Fatal(err)
	}
	r := h.do("GET", path, "")
	if r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
		t.Errorf("with no room: %d %s", r.Status, r.Body)
	}
	h.expect(r, http.StatusServiceUnavailable, `{"error":"too many large attachments are being read at once; try again shortly"}`)
	h.api.downloads.sem.Release(h.api.downloads.budget)
	for range 3 {
		if r := h.do("GET", path, ""); r.Status != 200 || string(r.Body) != string(pdfBytes) {
			t.Errorf("with room: %d %q", r.Status, r.Body)
		}
	}
	if !h.api.downloads.sem.TryAcquire(h.api.downloads.budget) {
		t.Error("finished downloads still hold room")
	}
}
