package mailosaur_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"tempmail"
	"tempmail/events"
	"tempmail/eventually"
	"tempmail/projections"
	"tempmail/service/apitest"
)

// Stored devices (devices.go): devices.create, list, otp(deviceId) and
// del, each tenant's own, at most projections.MaxTenantDevices of them,
// forgotten (their secrets with them) when deleted or when their tenant is.

const deviceSecret = "ONSWG4TFOQYTEMYJBSWY3DPEHPK3PXP"

// createDevice makes a device named name with key and returns its id.
func createDevice(h *apitest.Harness, key, name, secret string) string {
	h.T.Helper()
	body, _ := json.Marshal(map[string]string{"name": name, "sharedSecret": secret})
	r := h.Do("POST", mo+"/devices", string(body), mailosaurAuth(key)...)
	if r.Status != http.StatusOK {
		h.T.Fatalf("create device: %d %s", r.Status, r.Body)
	}
	var d struct{ ID, Name string }
	if err := json.Unmarshal(r.Body, &d); err != nil || !apitest.IsUUID(d.ID) || d.Name != name {
		h.T.Fatalf("created device: %s", r.Body)
	}
	return d.ID
}

// deviceNames lists the key's tenant's devices, by name.
func deviceNames(h *apitest.Harness, key string) []string {
	h.T.Helper()
	r := h.Do("GET", mo+"/devices", "", mailosaurAuth(key)...)
	var l struct{ Items []struct{ ID, Name string } }
	if err := json.Unmarshal(r.Body, &l); r.Status != http.StatusOK || err != nil || l.Items == nil {
		h.T.Fatalf("list devices: %d %s", r.Status, r.Body)
	}
	names := []string{}
	for _, d := range l.Items {
		names = append(names, d.Name)
	}
	return names
}

type otpAnswer struct {
	Code    string
	Expires time.Time
}

// sameWindowCodes asks for the code of a stored device and of its secret
// in one 30-second window (asking again should a window end between
// them).
func sameWindowCodes(h *apitest.Harness, key, id, secret string) (byID, bySecret otpAnswer) {
	h.T.Helper()
	for range 3 {
		for _, c := range []struct {
			method, path, body string
			into               *otpAnswer
		}{
			{"GET", "/devices/" + id + "/otp", "", &byID},
			{"POST", "/devices/otp", `{"sharedSecret":"` + secret + `"}`, &bySecret},
		} {
			r := h.Do(c.method, mo+c.path, c.body, mailosaurAuth(key)...)
			if err := json.Unmarshal(r.Body, c.into); r.Status != http.StatusOK || err != nil {
				h.T.Fatalf("%s %s: %d %s", c.method, c.path, r.Status, r.Body)
			}
		}
		if byID.Expires.Equal(bySecret.Expires) {
			return byID, bySecret
		}
	}
	h.T.Fatalf("no two codes asked in one window: %+v, %+v", byID, bySecret)
	return
}

// TestMailosaurDevices: a device made is listed (never its secret), its
// code is the code of its secret, and once deleted it is not found; a read
// key lists and reads codes and changes nothing.
func TestMailosaurDevices(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	tenant := h.NewTenant("modevicelife", "")
	key, _ := h.NewKey(tenant, `["inboxes"]`)
	readKey, _ := h.NewKey(tenant, `["read"]`)
	auth := mailosaurAuth(key)
	h.Expect(h.Do("GET", mo+"/devices", "", auth...), 200, `{"items":[]}`)

	phone := createDevice(h, key, "Phone", deviceSecret)
	// Any case, spaces, dashes and padding, as devices.otp takes them.
	tablet := createDevice(h, key, "Tablet", "jbsw y3dp-ehpk 3pxp====")
	r := h.Do("GET", mo+"/devices", "", mailosaurAuth(readKey)...)
	h.Expect(r, 200, `{"items":[{"id":"`+phone+`","name":"Phone"},{"id":"`+tablet+`","name":"Tablet"}]}`)

	byID, bySecret := sameWindowCodes(h, readKey, phone, deviceSecret)
	if len(byID.Code) != 6 || byID.Code != bySecret.Code || !time.Now().Before(byID.Expires) {
		t.Errorf("devices.otp(deviceId) %+v, devices.otp(sharedSecret) %+v", byID, bySecret)
	}
	if byID, bySecret := sameWindowCodes(h, key, strings.ToUpper(tablet), "JBSWY3DPEHPK3PXP"); byID.Code != bySecret.Code {
		t.Errorf("a device made with its secret spaced and in lower case: %+v, want %+v", byID, bySecret)
	}

	// A read key changes nothing.
	h.Expect(h.Do("POST", mo+"/devices", `{"name":"x","sharedSecret":"`+deviceSecret+`"}`, mailosaurAuth(readKey)...), 403, "")
	h.Expect(h.Do("DELETE", mo+"/devices/"+phone, "", mailosaurAuth(readKey)...), 403, "")

	h.Expect(h.Do("DELETE", mo+"/devices/"+phone, "", auth...), 204, "")
	for _, c := range []struct{ method, path string }{{"GET", "/devices/" + phone + "/otp"}, {"DELETE", "/devices/" + phone}} {
		if r := h.Do(c.method, mo+c.path, "", auth...); r.Status != 404 || r.JSON(t)["type"] != "NotFoundError" {
			t.Errorf("%s %s once deleted: %d %s", c.method, c.path, r.Status, r.Body)
		}
	}
	h.Expect(h.Do("GET", mo+"/devices", "", auth...), 200, `{"items":[{"id":"`+tablet+`","name":"Tablet"}]}`)
	if _, err := h.Service.Views.Device(t.Context(), phone); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("the deleted device's entry: %v, want not found", err)
	}
	// Its creation, secret and all, leaves the log.
	eventually.Within(t, 20*time.Second, "the deleted device's creation gone from the log", func() error {
		return deviceEvents(t, h, tenant, phone)
	})
}

// deviceEvents fails while the log holds a DeviceCreated of device on
// the tenant's subject.
func deviceEvents(t *testing.T, h *apitest.Harness, tenant, device string) error {
	ctx := t.Context()
	subject := "ev.sys.tenant." + tenant
	for next := uint64(1); ; {
		m, err := h.Service.Store.Stream().GetMsg(ctx, next, jetstream.WithGetMsgSubject(subject))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		next = m.Sequence + 1
		p, _, err := events.Decode(m.Data)
		if err != nil {
			return err
		}
		if ev, ok := p.(*events.DeviceCreated); ok && ev.DeviceID == device {
			return fmt.Errorf("the log holds the device's creation at %d", m.Sequence)
		}
	}
}

// TestMailosaurDevicesOfAnotherTenant: another tenant's key lists none of
// them, and finds none of them by id, as if they did not exist.
func TestMailosaurDevicesOfAnotherTenant(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	key, _ := h.NewKey(h.NewTenant("modevicesmine", ""), `["inboxes"]`)
	theirs, _ := h.NewKey(h.NewTenant("modevicestheirs", ""), `["inboxes"]`)
	mine := createDevice(h, key, "Mine", deviceSecret)
	createDevice(h, theirs, "Theirs", deviceSecret)

	if names := deviceNames(h, theirs); len(names) != 1 || names[0] != "Theirs" {
		t.Errorf("another tenant lists %v", names)
	}
	for _, c := range []struct{ method, path string }{{"GET", "/devices/" + mine + "/otp"}, {"DELETE", "/devices/" + mine}} {
		if r := h.Do(c.method, mo+c.path, "", mailosaurAuth(theirs)...); r.Status != 404 || r.JSON(t)["type"] != "NotFoundError" {
			t.Errorf("%s %s with another tenant's key: %d %s", c.method, c.path, r.Status, r.Body)
		}
	}
	h.Expect(h.Do("GET", mo+"/devices/"+mine+"/otp", "", mailosaurAuth(key)...), 200, "")
	if names := deviceNames(h, key); len(names) != 1 || names[0] != "Mine" {
		t.Errorf("its own tenant lists %v", names)
	}
}

// TestMailosaurDeviceBounds: a name of 1 to 200 characters, none a
// control character; a secret as devices.otp takes it; ids that cannot be
// a device's are not found, before anything is looked up.
func TestMailosaurDeviceBounds(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	key, _ := h.NewKey(h.NewTenant("modevicebounds", ""), `["inboxes"]`)
	auth := mailosaurAuth(key)
	for _, name := range []string{"x", strings.Repeat("𝄞", 200), "<script>&amp;", "שלום 👋🏽", " spaced ", "a\u200bb"} {
		if id := createDevice(h, key, name, deviceSecret); id == "" {
			t.Errorf("name %q refused", name)
		}
	}
	longest := strings.Repeat("A", 208) // 130 bytes of secret
	createDevice(h, key, "longest secret", longest)
	for _, c := range []struct{ body, field string }{
		{`{"sharedSecret":"` + deviceSecret + `"}`, "name"},
		{`{"name":null,"sharedSecret":"` + deviceSecret + `"}`, "name"},
		{`{"name":"","sharedSecret":"` + deviceSecret + `"}`, "name"},
		{`{"name":"` + strings.Repeat("𝄞", 201) + `","sharedSecret":"` + deviceSecret + `"}`, "name"},
		{`{"name":"a\nb","sharedSecret":"` + deviceSecret + `"}`, "name"},
		{`{"name":"a\u0000b","sharedSecret":"` + deviceSecret + `"}`, "name"},
		{`{"name":"a\u0085b","sharedSecret":"` + deviceSecret + `"}`, "name"},
		{`{"name":"phone"}`, "sharedSecret"},
		{`{"name":"phone","sharedSecret":""}`, "sharedSecret"},
		{`{"name":"phone","sharedSecret":"   ---  "}`, "sharedSecret"},
		{`{"name":"phone","sharedSecret":"not base32!"}`, "sharedSecret"},
		{`{"name":"phone","sharedSecret":"ONSWG4TFOQYTEMY1"}`, "sharedSecret"},
		{`{"name":"phone","sharedSecret":"` + longest + `AAAAAAAA"}`, "sharedSecret"},
		{`{"name":"phone","sharedSecret":"` + strings.Repeat("A", 5000) + `"}`, "sharedSecret"},
		{`{"name":7,"sharedSecret":"` + deviceSecret + `"}`, "request"},
		{`{"name":`, "request"},
	} {
		r := h.Do("POST", mo+"/devices", c.body, auth...)
		var e struct {
			Type   string
			Errors []struct{ Field string }
		}
		_ = json.Unmarshal(r.Body, &e)
		if r.Status != 400 || e.Type != "ValidationError" || len(e.Errors) != 1 || e.Errors[0].Field != c.field {
			t.Errorf("POST %.60s: %d %.200s, want 400 on %s", c.body, r.Status, r.Body, c.field)
		}
	}
	if names := deviceNames(h, key); len(names) != 7 {
		t.Errorf("%d devices made, want the 7 with good names and secrets: %q", len(names), names)
	}
	h.Expect(h.Do("POST", mo+"/devices", "name=x", "Authorization", auth[1], "Content-Type", "text/plain"), 415, "")

	for _, id := range []string{"not-a-uuid", "0190f0f0-0000-7000-8000-000000000000", "-", "0190f0f0-0000-7000-8000-00000000000g",
		"0190f0f000007000800000000000000000000", strings.Repeat("a-", 900), "%00", "0190f0f0-0000-7000-8000-000000000000%0a",
		"..%2f..%2fservers"} {
		for _, c := range []struct{ method, path string }{{"GET", "/devices/" + id + "/otp"}, {"DELETE", "/devices/" + id}} {
			if r := h.Do(c.method, mo+c.path, "", auth...); r.Status != 404 || r.JSON(t)["type"] != "NotFoundError" {
				t.Errorf("%s %.80s: %d %.200s", c.method, c.path, r.Status, r.Body)
			}
		}
	}
}

// TestMailosaurDeviceCap: of creations racing at the cap, exactly the cap
// are made and the others told so (403); a device deleted makes room for
// one more.
func TestMailosaurDeviceCap(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	key, _ := h.NewKey(h.NewTenant("modevicecap", ""), `["inboxes"]`)
	const before, racing = projections.MaxTenantDevices - 20, 40
	var first string
	for i := range before {
		id := createDevice(h, key, fmt.Sprint("device ", i), deviceSecret)
		if i == 0 {
			first = id
		}
	}
	answers := make([]apitest.Response, racing)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range racing {
		wg.Go(func() {
			<-start
			// Not h.Do: only the test's goroutine may stop the test.
			answers[i] = <-h.Start("POST", mo+"/devices", `{"name":"racer","sharedSecret":"`+deviceSecret+`"}`, mailosaurAuth(key)...)
		})
	}
	close(start)
	wg.Wait()
	made, refused := 0, 0
	for _, r := range answers {
		switch {
		case r.Status == http.StatusOK:
			made++
		case r.Status == http.StatusForbidden && strings.Contains(string(r.Body), `"type":"PermissionError"`) &&
			strings.Contains(string(r.Body), "100 devices"):
			refused++
		default:
			t.Errorf("a racing creation: %d %s", r.Status, r.Body)
		}
	}
	if made != projections.MaxTenantDevices-before || refused != racing-made {
		t.Errorf("%d made and %d refused of %d racing with %d places left", made, refused, racing, projections.MaxTenantDevices-before)
	}
	if n := len(deviceNames(h, key)); n != projections.MaxTenantDevices {
		t.Errorf("%d devices listed, want %d", n, projections.MaxTenantDevices)
	}
	h.Expect(h.Do("POST", mo+"/devices", `{"name":"one more","sharedSecret":"`+deviceSecret+`"}`, mailosaurAuth(key)...), 403, "")
	h.Expect(h.Do("DELETE", mo+"/devices/"+first, "", mailosaurAuth(key)...), 204, "")
	createDevice(h, key, "in its place", deviceSecret)
}

// TestMailosaurDevicesEndWithTheirTenant: a tenant's deletion forgets its
// devices, secrets included: from the views, and from the log with the
// tenant's subject.
func TestMailosaurDevicesEndWithTheirTenant(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	tenant := h.NewTenant("modevicesdoomed", "")
	key, _ := h.NewKey(tenant, `["inboxes"]`)
	ids := []string{createDevice(h, key, "one", deviceSecret), createDevice(h, key, "two", deviceSecret)}
	h.Expect(h.Do("DELETE", "/api/tenants/"+tenant+"/", "", apitest.Admin()...), http.StatusNoContent, "")
	h.Expect(h.Do("GET", mo+"/devices", "", mailosaurAuth(key)...), 401, "")
	ctx := t.Context()
	eventually.Within(t, 20*time.Second, "the deleted tenant's devices gone from the views", func() error {
		for _, id := range ids {
			if _, err := h.Service.Views.Device(ctx, id); tempmail.KindOf(err) != tempmail.NotFound {
				return fmt.Errorf("device %s: %v, want not found", id, err)
			}
		}
		if list, err := h.Service.Views.TenantDevices(ctx, tenant, true); err != nil || len(list) != 0 {
			return fmt.Errorf("its list: %v, %v", list, err)
		}
		return nil
	})
	eventually.Within(t, 20*time.Second, "the deleted tenant's subject gone from the log", func() error {
		lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		_, err := h.Service.Store.Stream().GetLastMsgForSubject(lctx, "ev.sys.tenant."+tenant)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return nil
		}
		return fmt.Errorf("the log still holds the tenant's events: %v", err)
	})
}
