package command_test

import (
	"context"
	"testing"

	"tempmail"
	"tempmail/backend/backendtest"
)

// TestMarkReadIsSeenAtOnceAndRecordedOnce: a message marked read reads as
// read as soon as the command returns. Marking it again, with what was
// read before or after, and from ten callers at once, records nothing
// more: the log holds one read per message.
func TestMarkReadIsSeenAtOnceAndRecordedOnce(t *testing.T) {
	t.Parallel()
	svc := start(t)
	in := newInbox(t, svc, "")
	backendtest.Deliver(t, svc, in.Token, "to read")
	unread := latest(t, svc, in)
	if unread.IsRead {
		t.Fatal("a new message is read")
	}
	read, err := svc.Commands.MarkRead(t.Context(), unread)
	if err != nil {
		t.Fatal(err)
	}
	if !read.IsRead || read.ID != unread.ID || read.Subject != "to read" {
		t.Errorf("MarkRead returned %+v", read)
	}
	if m, _, err := svc.Views.Message(t.Context(), unread.ID); err != nil || !m.IsRead {
		t.Errorf("right after MarkRead the views show %+v (%v)", m, err)
	}

	before := logEnd(t, svc)
	if again, err := svc.Commands.MarkRead(t.Context(), read); err != nil || !again.IsRead {
		t.Errorf("marking a read message read: %+v %v", again, err)
	}
	for _, err := range race(10, func(ctx context.Context, _ int) error {
		m, err := svc.Commands.MarkRead(ctx, unread) // as read before the first
		if err == nil && !m.IsRead {
			t.Errorf("a racing MarkRead returned an unread message")
		}
		return err
	}) {
		if err != nil {
			t.Errorf("a racing MarkRead: %v", err)
		}
	}
	if got := logEnd(t, svc); got != before {
		t.Errorf("marking read again recorded %d events", got-before)
	}
}

// TestDeleteMessageIsSeenAtOnceAndRecordedOnce: a deleted message is gone
// from the views as soon as the command returns, and its inbox's other
// messages stay. Deleting it again, and from ten callers at once,
// records nothing more; marking it read then finds nothing.
func TestDeleteMessageIsSeenAtOnceAndRecordedOnce(t *testing.T) {
	t.Parallel()
	svc := start(t)
	in := newInbox(t, svc, "")
	backendtest.Deliver(t, svc, in.Token, "kept")
	kept := latest(t, svc, in)
	backendtest.Deliver(t, svc, in.Token, "deleted")
	doomed := latest(t, svc, in)

	if err := svc.Commands.DeleteMessage(t.Context(), doomed); err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.Views.Message(t.Context(), doomed.ID); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("right after DeleteMessage the message is found: %v", err)
	}
	now, err := svc.Views.Inbox(t.Context(), in.ID)
	if err != nil {
		t.Fatal(err)
	}
	list, err := svc.Views.Messages(t.Context(), now)
	if err != nil {
		t.Fatal(err)
	}
	if now.Count != 1 || len(list) != 1 || list[0].ID != kept.ID {
		t.Errorf("after deleting one of two: count %d, list %+v", now.Count, list)
	}

	before := logEnd(t, svc)
	for _, err := range race(10, func(ctx context.Context, _ int) error { return svc.Commands.DeleteMessage(ctx, doomed) }) {
		if err != nil {
			t.Errorf("deleting a deleted message again: %v", err)
		}
	}
	if got := logEnd(t, svc); got != before {
		t.Errorf("deleting again recorded %d events", got-before)
	}
	if m, err := svc.Commands.MarkRead(t.Context(), doomed); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("marking a deleted message read: %+v %v, want NotFound", m, err)
	}
	if m, _, err := svc.Views.Message(t.Context(), kept.ID); err != nil || m.IsRead {
		t.Errorf("the other message: %+v %v", m, err)
	}
}
