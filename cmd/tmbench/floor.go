package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/cespare/xxhash/v2"
	gosmtp "github.com/emersion/go-smtp"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The floor reference (tmbench floor-smtp ADDR DIR [always]): a go-smtp
// server that does nothing with a message but store it, whole, as one
// JetStream message in a nats-server embedded in its process, and answers
// 250 once the server has acknowledged it. It is what any design built on
// go-smtp and JetStream spends a message at least, before parsing, sealing,
// views, dedupe or a group commit: the durability scenario measures it
// beside tempmail, so that the part of tempmail's CPU that is its own, and
// the part that is its two foundations', are figures of one run.
//
// With "always" the server flushes every write to disk before it
// acknowledges (its sync_always: an fsync a message, never grouped);
// without it the server flushes every two minutes, which makes it a lower
// bound of any design on these foundations, durable or not. With "views"
// it flushes as without, and a view entry is written for each message
// before its 250 (floorviews.go).
func floorSMTP(addr, dir, mode string) {
	ns, err := server.NewServer(&server.Options{
		JetStream: true, StoreDir: dir, DontListen: true, NoLog: true, NoSigs: true,
		SyncAlways: mode == "always",
	})
	if err != nil {
		fail(err)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		fail(fmt.Errorf("the embedded server did not start"))
	}
	nc, err := nats.Connect("", nats.InProcessServer(ns))
	if err != nil {
		fail(err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		fail(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	_, err = js.CreateStream(ctx, jetstream.StreamConfig{Name: "MAIL", Subjects: []string{"mail.>"}, Storage: jetstream.FileStorage})
	cancel()
	if err != nil {
		fail(err)
	}
	if mode == "views" {
		serveSMTP(addr, "floor", viewsBackend{js, startViewsFloor(js)})
		return
	}
	serveSMTP(addr, "floor", floorBackend{js})
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

type floorBackend struct{ js jetstream.JetStream }

type floorSession struct {
	js      jetstream.JetStream
	subject string
}

func (b floorBackend) NewSession(*gosmtp.Conn) (gosmtp.Session, error) {
	return &floorSession{js: b.js}, nil
}
func (s *floorSession) Mail(string, *gosmtp.MailOptions) error { return nil }

// Rcpt names the subject the message is stored on, one per recipient, as
// tempmail keeps a subject per inbox.
func (s *floorSession) Rcpt(to string, _ *gosmtp.RcptOptions) error {
	s.subject = fmt.Sprintf("mail.%x", xxhash.Sum64String(to))
	return nil
}

func (s *floorSession) Data(r io.Reader) error {
	_, err := s.store(r)
	return err
}

// store stores the message whole, and says at what sequence.
func (s *floorSession) store(r io.Reader) (uint64, error) {
	body, err := io.ReadAll(r)
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ack, err := s.js.Publish(ctx, s.subject, body)
	if err != nil {
		return 0, err
	}
	return ack.Sequence, nil
}
func (s *floorSession) Reset()        {}
func (s *floorSession) Logout() error { return nil }

// The floor references' names in the durability scenario.
const (
	floorAlways = "floor: go-smtp + JetStream, fsync a message"
	floorLazy   = "floor: go-smtp + JetStream, no fsync"
)

type floorRef struct {
	target *ingestTarget
	dir    string
	cmd    *exec.Cmd
}

// floorModes are the floors' modes (floorSMTP), by name.
var floorModes = map[string]string{floorAlways: "always", floorLazy: "lazy", floorViews: "views"}

// startFloor starts the floor reference of that name in a directory of
// its own.
func (b *bench) startFloor(name string) *floorRef {
	dir, err := os.MkdirTemp("", "tmbench-floor")
	if err != nil {
		panic(err)
	}
	addr := freePort()
	cmd := b.startRef("floor-smtp", addr, dir, floorModes[name])
	return &floorRef{
		target: &ingestTarget{name: name, smtp: addr, rcpts: mailpitRcpts(50), pid: cmd.Process.Pid},
		dir:    dir,
		cmd:    cmd,
	}
}

func (f *floorRef) stop() {
	stopCmd(f.cmd)
	_ = os.RemoveAll(f.dir)
}

// floorRows reports tempmail's --sync always (a) against the floors, and
// the floors' own CPU against Mailpit's (m, nil when not measured): how
// far below Mailpit a design on these foundations can go at all.
func (b *bench) floorRows(a, m *ingestTarget, floors []*ingestTarget, n int) {
	per := func(t *ingestTarget) time.Duration { return t.cpu / time.Duration(n) }
	ac := per(a)
	for _, f := range floors {
		measured := fmt.Sprintf("%.0f msg/s, CPU %s a message; tempmail --sync always %.0f msg/s, %s", f.rate, ms(per(f)), a.rate, ms(ac))
		ratio := fmt.Sprintf("tempmail %.2f× its CPU", float64(ac)/float64(per(f)))
		if m != nil {
			ratio += fmt.Sprintf("; it %.2f× Mailpit's", float64(per(f))/float64(per(m)))
		}
		b.add(f.name+" (no target)", measured, ratio, true)
	}
}
