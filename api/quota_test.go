package api_test

import (
	"net/http"
	"sync"
	"testing"
)

// 40 creations racing at a quota of 10 leave exactly 10 inboxes; the
// others are told so, in the family's shape; an inbox deleted makes room
// for one more.
func TestRacingCreatesAtAQuotaLeaveTheQuota(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tenant := h.newTenant("racers", `{"inboxes":10}`)
	key, _ := h.newKey(tenant, `["inboxes"]`)
	as := []string{"Authorization", "Bearer " + key, "Content-Type", "application/json"}
	const n = 40
	answers := make([]response, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			// Not h.do: only the test's goroutine may stop the test.
			answers[i] = <-h.start("POST", "/api/inboxes/create_inbox/", `{"domain_id":1}`, as...)
		})
	}
	close(start)
	wg.Wait()
	made, refused := []string{}, 0
	for _, r := range answers {
		switch {
		case r.Status == http.StatusCreated:
			made = append(made, r.JSON(t)["id"].(string))
		case r.Status == http.StatusForbidden && string(r.Body) == `{"error":"quota exceeded: inboxes 10 of 10"}`+"\n":
			refused++
		default:
			t.Errorf("a racing creation: %d %s", r.Status, r.Body)
		}
	}
	if len(made) != 10 || refused != n-10 {
		t.Fatalf("%d made and %d refused of %d racing at a quota of 10", len(made), refused, n)
	}

	// Beyond it, every family says so in its shape.
	h.expect(h.do("POST", "/api/create-temp-email/", `{}`, as...), http.StatusForbidden,
		`{"success":false,"error":"quota exceeded: inboxes 10 of 10"}`)
	h.expect(h.do("POST", "/inboxes/", ``, as...), http.StatusForbidden, `{"error":"quota exceeded: inboxes 10 of 10"}`)

	h.expect(h.do("DELETE", "/api/inboxes/"+made[0]+"/", "", as...), http.StatusNoContent, "")
	if r := h.do("POST", "/inboxes/", ``, as...); r.Status != http.StatusCreated {
		t.Errorf("after one deleted: %d %s", r.Status, r.Body)
	}
	h.expect(h.do("POST", "/inboxes/", ``, as...), http.StatusForbidden, `{"error":"quota exceeded: inboxes 10 of 10"}`)
}
