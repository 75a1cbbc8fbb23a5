package family

import (
	"bytes"
	"context"
	"crypto/subtle"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"tempmail"
	"tempmail/command"
	"tempmail/mailbox"
	"tempmail/projections"
)

// ErrNotFound is the lookups' answer for anything absent, malformed or
// expired; each family words it its own way (AsNotFound).
var ErrNotFound = tempmail.Errorf(tempmail.NotFound, "not found")

// AsNotFound rewords a NotFound error for a family; other errors pass.
func AsNotFound(err error, msg string) error {
	if tempmail.KindOf(err) == tempmail.NotFound {
		return tempmail.Errorf(tempmail.NotFound, "%s", msg)
	}
	return err
}

// UUIDPattern is what a route parameter that holds an id may match: the
// characters of a UUID's text form (ValidID checks the rest).
const UUIDPattern = "[0-9a-fA-F-]+"

// ValidID reports whether id is a UUID in its canonical text form, so that
// malformed ids are answered 404 without touching the views.
func ValidID(id string) bool {
	u, err := uuid.Parse(id)
	return err == nil && len(id) == 36 && u.String() == strings.ToLower(id)
}

// ValidToken reports whether tok can be an inbox token: the service makes
// them of 26 base32 characters (crypto/rand.Text); anything of another
// alphabet, or longer than 64, is no token.
func ValidToken(tok string) bool {
	if len(tok) == 0 || len(tok) > 64 {
		return false
	}
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// LiveInbox passes on a looked-up inbox only if it exists and has not expired.
func LiveInbox(in *projections.Inbox, err error) (*projections.Inbox, error) {
	if err != nil {
		return nil, err
	}
	if !in.Live(time.Now()) {
		return nil, ErrNotFound
	}
	return in, nil
}

// Visible passes on a looked-up inbox only if the request may see it
// (credential.sees): with a key, an inbox of another tenant is no inbox
// at all, as a 404 says of one that never existed.
func (c Credential) Visible(in *projections.Inbox, err error) (*projections.Inbox, error) {
	if err != nil {
		return nil, err
	}
	if !c.Sees(in) {
		return nil, ErrNotFound
	}
	return in, nil
}

// InboxByID returns the live inbox with this id.
func (s *Kit) InboxByID(ctx context.Context, id string) (*projections.Inbox, error) {
	if !ValidID(id) {
		return nil, ErrNotFound
	}
	in, err := s.Views.Inbox(ctx, strings.ToLower(id))
	return CredentialIn(ctx).Visible(LiveInbox(in, err))
}

// MessageByID returns a message whose inbox is live, and that inbox.
func (s *Kit) MessageByID(ctx context.Context, id string) (*mailbox.Message, *projections.Inbox, error) {
	if !ValidID(id) {
		return nil, nil, ErrNotFound
	}
	m, in, err := s.Views.Message(ctx, strings.ToLower(id))
	if err != nil {
		return nil, nil, err
	}
	if in, err = CredentialIn(ctx).Visible(LiveInbox(in, nil)); err != nil {
		return nil, nil, err
	}
	return m, in, nil
}

// MessageIn returns a message that belongs to inbox in.
func (s *Kit) MessageIn(ctx context.Context, in *projections.Inbox, id string) (*mailbox.Message, error) {
	if !ValidID(id) {
		return nil, ErrNotFound
	}
	return s.Views.MessageIn(ctx, in, strings.ToLower(id))
}

// OpenRaw returns the stored bytes of a message: from its content when
// small, streamed from the object store when large.
func (s *Kit) OpenRaw(ctx context.Context, m *mailbox.Message) (io.ReadCloser, error) {
	if m.RawObject == "" {
		return io.NopCloser(bytes.NewReader(m.Raw)), nil
	}
	obj, err := s.Store.OpenRaw(ctx, m.ContentRef(), m.RawObject)
	if tempmail.KindOf(err) == tempmail.NotFound {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, tempmail.Wrap(tempmail.Unavailable, err, "the message source cannot be read now; try again")
	}
	return obj, nil
}

// RawBytes reads a message's stored bytes whole.
func (s *Kit) RawBytes(ctx context.Context, m *mailbox.Message) ([]byte, error) {
	rc, err := s.OpenRaw(ctx, m)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, m.Size+1))
	if err != nil {
		return nil, tempmail.Wrap(tempmail.Unavailable, err, "the message source cannot be read now; try again")
	}
	return b, nil
}

// AttachmentByID returns the attachment whose id alone is given (as
// Mailosaur's and MailSlurp's clients fetch one), with its message: an id
// is the message's and the attachment's place in it (mail.AttachmentID),
// so no index of attachments is needed. Anything malformed, or of a
// message the request may not see, is ErrNotFound.
func (s *Kit) AttachmentByID(ctx context.Context, id string) (*mailbox.Message, *mailbox.Attachment, error) {
	i := strings.LastIndexByte(id, '-')
	if i < 0 || len(id) > 36+1+4 { // a message id, "-", the attachment's number
		return nil, nil, ErrNotFound
	}
	m, _, err := s.MessageByID(ctx, id[:i])
	if err != nil {
		return nil, nil, err
	}
	for i := range m.Attachments {
		if m.Attachments[i].ID == strings.ToLower(id) {
			return m, &m.Attachments[i], nil
		}
	}
	return nil, nil, ErrNotFound
}

// OldestFirst calls visit for in's messages, joined, oldest first, until
// it says it found what it looks for. It reads the whole list (the
// per-inbox cap bounds it): the waits that count from the oldest look
// again, whole, at each change of the inbox.
func (s *Kit) OldestFirst(ctx context.Context, in *projections.Inbox, visit func(*projections.Summary) bool) error {
	list, err := s.Views.Messages(ctx, in)
	if err != nil {
		return err
	}
	for i := len(list) - 1; i >= 0; i-- {
		if visit(&list[i]) {
			return nil
		}
	}
	return nil
}

// MayReadByAddress says whether r may read in by its address alone. An
// inbox of a catch-all domain was made by mail to an address anyone may
// guess (signup-42@), and a tenant's inbox is its team's, whose address
// its team gives out to the sites it signs up on: either is read by
// address only with the API token or its own, in `Authorization: Token
// <token>`, or with a key of the tenant it belongs to. Without any of
// them it is answered as no inbox at all (404, and never held): not 401,
// which would say that it exists. Other inboxes' addresses are given out
// by whoever made them, and answer anyone (with the read key, when there
// is one): keyless clients' inboxes, the anonymous tenant's among them.
func (s *Kit) MayReadByAddress(r *http.Request, in *projections.Inbox) bool {
	team := in.TenantID != "" && in.TenantID != command.AnonymousTenant
	if _, domain := tempmail.SplitAddress(in.Address); !team && !s.CatchAllNamed(r.Context(), domain) {
		return true
	}
	c := CredentialFrom(r)
	if c.IsAdmin() || c.Key != nil && in.TenantID != "" && in.TenantID == c.Key.TenantID {
		return true // the admin, or a key of the tenant it belongs to
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Token ")
	if !ok {
		return false
	}
	tok = strings.TrimSpace(tok)
	api := subtle.ConstantTimeCompare([]byte(tok), []byte(s.Config.APIToken)) == 1 && s.Config.APIToken != ""
	own := subtle.ConstantTimeCompare([]byte(tok), []byte(in.Token)) == 1 && in.Token != ""
	return api || own
}
