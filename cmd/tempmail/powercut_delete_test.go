package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"tempmail/eventually"
	"tempmail/service/servicetest"
)

// No power cut undoes a deletion: once DELETE answers 204 (or an inbox
// has expired), what it deleted stays gone after the power goes, even when
// the log has already forgotten it (its events purged, the deletion's
// with them) while the views on disk were older and still held it.

// deletions is what one run deletes, made through the service's API: an
// inbox, one message of another (its other message stays), an inbox that
// expires, and a tenant with an inbox and a key. Each held mail and was on
// disk before any of it was deleted.
type deletions struct {
	token     string
	gone      tokenInbox // DELETE /inboxes/<token>/
	kept      tokenInbox // one of its two messages deleted
	deletedID string     // that message
	keptID    string
	expiring  string // an inbox (family A id) that expires
	tenant    string // DELETE /api/tenants/{id}/
	key       string // the tenant's key
	tenantBox tokenInbox
}

// powerCutDeleteArgs are the flags of these runs: the power-cut tests'
// own, and inboxes that may live a few seconds.
func powerCutDeleteArgs(token string) []string {
	return append(powerCutArgs(token), "--min-inbox-ttl", "1s")
}

// TestPowerCutUndoesNoDeletion: on a single node whose store is on disk,
// an inbox deleted, a message deleted, an inbox expired and a tenant
// deleted, then the power cut as soon as the log has forgotten them: after
// the restart every one of them is still gone, and what the deleted
// message said cannot be read.
func TestPowerCutUndoesNoDeletion(t *testing.T) {
	disk := newPowerDisk(t)
	token := "powercut-test-token"
	node := &clusterNode{name: "single", dir: disk.dir(), args: powerCutDeleteArgs(token)}
	if err := node.start(t); err != nil {
		t.Fatal(err)
	}
	d := makeDeletable(t, node, token)
	onDisk(t, disk.dir())
	d.delete(t, node)
	forgotten(t, node)

	_ = node.cmd.Process.Signal(syscall.SIGSTOP)
	disk.cut(t)
	_ = node.cmd.Process.Kill()
	_ = node.cmd.Wait()
	disk.unmount(t)
	disk = mountPowerDisk(t, disk.root())
	node.dir = disk.dir()
	if err := node.start(t); err != nil {
		t.Fatalf("the service did not start again after the power cut: %v", err)
	}
	d.stayGone(t, node)
}

// TestPowerCutOfAClusterUndoesNoDeletion: the same on a three-node
// cluster, every node's power cut at once.
func TestPowerCutOfAClusterUndoesNoDeletion(t *testing.T) {
	token := "powercut-test-token"
	nodes := clusterNodes(t)
	disks := make([]powerDisk, len(nodes))
	for i, n := range nodes {
		disks[i] = newPowerDisk(t)
		n.dir = disks[i].dir()
		n.args = append(n.args, powerCutDeleteArgs(token)...)
	}
	startNodes(t, nodes...)
	d := makeDeletable(t, nodes[0], token)
	for _, disk := range disks {
		onDisk(t, disk.dir())
	}
	d.delete(t, nodes[1])
	for _, n := range nodes {
		forgotten(t, n)
	}
	for _, n := range nodes {
		_ = n.cmd.Process.Signal(syscall.SIGSTOP)
	}
	for _, disk := range disks {
		disk.cut(t)
	}
	for i, n := range nodes {
		_ = n.cmd.Process.Kill()
		_ = n.cmd.Wait()
		disks[i].unmount(t)
		disks[i] = mountPowerDisk(t, disks[i].root())
		n.dir = disks[i].dir()
	}
	startNodes(t, nodes...)
	for _, n := range nodes {
		d.stayGone(t, n)
	}
}

// makeDeletable makes what a run deletes, each with mail.
func makeDeletable(t *testing.T, node *clusterNode, token string) *deletions {
	t.Helper()
	admin := []string{"Authorization", "Token " + token}
	d := &deletions{token: token, gone: createTokenInbox(t, node.base), kept: createTokenInbox(t, node.base)}
	code, body := call(t, "POST", node.base+"/api/inboxes/create_inbox/", `{"domain_id":1,"ttl":6}`, admin...)
	var a struct {
		ID    string `json:"id"`
		Email string `json:"email"`
	}
	if code != http.StatusCreated || json.Unmarshal(body, &a) != nil {
		t.Fatalf("make an inbox that expires: %d %s", code, body)
	}
	d.expiring = a.ID
	d.tenant = newTenant(t, node.base, token, "doomed")
	d.key = newTenantKey(t, node.base, token, d.tenant, `["inboxes"]`)
	code, body = call(t, "POST", node.base+"/inboxes/", "{}", "Authorization", "Bearer "+d.key)
	if code != http.StatusCreated || json.Unmarshal(body, &d.tenantBox) != nil {
		t.Fatalf("make the tenant's inbox: %d %s", code, body)
	}
	for i, to := range []string{d.gone.Address, d.kept.Address, d.kept.Address, a.Email, d.tenantBox.Address} {
		if err := servicetest.Mail(node.smtpAddr, to, fmt.Sprintf("on disk %d", i), "what it says: "+to); err != nil {
			t.Fatal(err)
		}
	}
	var msgs []servicetest.Summary
	eventually.True(t, "the inbox that keeps a message lists its two", func() bool {
		msgs = listMessages(t, node.base, d.kept.Token)
		return len(msgs) == 2
	})
	d.deletedID, d.keptID = msgs[0].ID, msgs[1].ID
	return d
}

// delete deletes them all, each answered 204 (the expiry, once the inbox
// is gone).
func (d *deletions) delete(t *testing.T, node *clusterNode) {
	t.Helper()
	admin := []string{"Authorization", "Token " + d.token}
	for _, req := range [][2]string{
		{"/inboxes/" + d.gone.Token + "/", ""},
		{"/inboxes/" + d.kept.Token + "/messages/" + d.deletedID + "/", ""},
		{"/api/tenants/" + d.tenant + "/", "admin"},
	} {
		var h []string
		if req[1] == "admin" {
			h = admin
		}
		if code, body := call(t, "DELETE", node.base+req[0], "", h...); code != http.StatusNoContent {
			t.Fatalf("DELETE %s: %d %s", req[0], code, body)
		}
	}
	eventually.True(t, "the inbox expires", func() bool {
		code, _ := call(t, "GET", node.base+"/api/inboxes/"+d.expiring+"/", "", admin...)
		return code == http.StatusNotFound
	})
}

// forgotten waits until node's views have made every deletion final: the
// log has forgotten what they let go (tempmail_projection_forget_pending).
func forgotten(t *testing.T, node *clusterNode) {
	t.Helper()
	eventually.True(t, node.name+" forgets what was deleted", func() bool {
		body := scrape(t, node.base)
		for _, line := range strings.Split(body, "\n") {
			if strings.HasPrefix(line, "tempmail_projection_forget_pending{") && !strings.HasSuffix(line, " 0") {
				return false
			}
		}
		return true
	})
}

// stayGone checks, on node after the power came back, that nothing
// deleted is back and that what was kept is there.
func (d *deletions) stayGone(t *testing.T, node *clusterNode) {
	t.Helper()
	admin := []string{"Authorization", "Token " + d.token}
	var mu sync.Mutex
	var back []string
	gone := func(what, path string, headers ...string) {
		code, body := call(t, "GET", node.base+path, "", headers...)
		if code != http.StatusNotFound && !(code == http.StatusOK && strings.TrimSpace(string(body)) == "[]") {
			mu.Lock()
			back = append(back, fmt.Sprintf("%s: GET %s answers %d %s", what, path, code, body))
			mu.Unlock()
		}
	}
	gone("the deleted inbox", "/inboxes/"+d.gone.Token+"/")
	gone("the deleted inbox, by address", "/api/inboxes/?email="+d.gone.Address, admin...)
	gone("the deleted message", "/inboxes/"+d.kept.Token+"/messages/"+d.deletedID+"/")
	gone("the deleted message's source", "/inboxes/"+d.kept.Token+"/messages/"+d.deletedID+"/raw/")
	gone("the deleted message, by id", "/api/emails/"+d.deletedID+"/", admin...)
	gone("the expired inbox", "/api/inboxes/"+d.expiring+"/", admin...)
	gone("the deleted tenant", "/api/tenants/"+d.tenant+"/", admin...)
	gone("the deleted tenant's inbox", "/inboxes/"+d.tenantBox.Token+"/")
	if code, _ := call(t, "GET", node.base+"/api/usage/", "", "Authorization", "Bearer "+d.key); code != http.StatusUnauthorized {
		back = append(back, fmt.Sprintf("the deleted tenant's key: GET /api/usage/ answers %d, want 401", code))
	}
	if msgs := listMessages(t, node.base, d.kept.Token); len(msgs) != 1 || msgs[0].ID != d.keptID {
		back = append(back, fmt.Sprintf("the inbox that kept a message lists %v, want only %s", msgs, d.keptID))
	}
	if len(back) > 0 {
		t.Errorf("%s, after the power cut:\n%s", node.name, strings.Join(back, "\n"))
	}
}

// onDisk puts every file under dir on disk, as the server's own periodic
// flush does after a while (every two minutes): what was made before the
// deletions is on disk, the views included.
func onDisk(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || !(e.Type().IsRegular() || e.IsDir()) {
			return err
		}
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed meanwhile
		}
		if err != nil {
			return err
		}
		defer f.Close()
		return f.Sync()
	})
	if err != nil {
		t.Fatalf("put %s on disk: %v", dir, err)
	}
}
