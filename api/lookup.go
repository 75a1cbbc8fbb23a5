package api

import (
	"bytes"
	"context"
	"io"
	"strings"
	"time"

	"github.com/google/uuid"

	"tempmail"
	"tempmail/projections"
)

// errNotFound is the lookups' answer for anything absent, malformed or
// expired; each family words it its own way (asNotFound).
var errNotFound = tempmail.Errorf(tempmail.NotFound, "not found")

// asNotFound rewords a NotFound error for a family; other errors pass.
func asNotFound(err error, msg string) error {
	if tempmail.KindOf(err) == tempmail.NotFound {
		return tempmail.Errorf(tempmail.NotFound, "%s", msg)
	}
	return err
}

// uuidPattern is what a route parameter that holds an id may match: the
// characters of a UUID's text form (validID checks the rest).
const uuidPattern = "[0-9a-fA-F-]+"

// validID reports whether id is a UUID in its canonical text form, so that
// malformed ids are answered 404 without touching the views.
func validID(id string) bool {
	u, err := uuid.Parse(id)
	return err == nil && len(id) == 36 && u.String() == strings.ToLower(id)
}

// validToken reports whether tok can be an inbox token: the service makes
// them of 26 base32 characters (crypto/rand.Text); anything of another
// alphabet, or longer than 64, is no token.
func validToken(tok string) bool {
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

// liveInbox passes on a looked-up inbox only if it exists and has not expired.
func liveInbox(in *projections.Inbox, err error) (*projections.Inbox, error) {
	if err != nil {
		return nil, err
	}
	if !in.Live(time.Now()) {
		return nil, errNotFound
	}
	return in, nil
}

// visible passes on a looked-up inbox only if the request may see it
// (credential.sees): with a key, an inbox of another tenant is no inbox
// at all, as a 404 says of one that never existed.
func (c credential) visible(in *projections.Inbox, err error) (*projections.Inbox, error) {
	if err != nil {
		return nil, err
	}
	if !c.sees(in) {
		return nil, errNotFound
	}
	return in, nil
}

// inboxByID returns the live inbox with this id.
func (s *Server) inboxByID(ctx context.Context, id string) (*projections.Inbox, error) {
	if !validID(id) {
		return nil, errNotFound
	}
	in, err := s.views.Inbox(ctx, strings.ToLower(id))
	return credentialIn(ctx).visible(liveInbox(in, err))
}

// messageByID returns a message whose inbox is live, and that inbox.
func (s *Server) messageByID(ctx context.Context, id string) (*projections.Message, *projections.Inbox, error) {
	if !validID(id) {
		return nil, nil, errNotFound
	}
	m, in, err := s.views.Message(ctx, strings.ToLower(id))
	if err != nil {
		return nil, nil, err
	}
	if in, err = credentialIn(ctx).visible(liveInbox(in, nil)); err != nil {
		return nil, nil, err
	}
	return m, in, nil
}

// messageIn returns a message that belongs to inbox in.
func (s *Server) messageIn(ctx context.Context, in *projections.Inbox, id string) (*projections.Message, error) {
	if !validID(id) {
		return nil, errNotFound
	}
	return s.views.MessageIn(ctx, in, strings.ToLower(id))
}

// openRaw returns the stored bytes of a message: from its content when
// small, streamed from the object store when large.
func (s *Server) openRaw(ctx context.Context, m *projections.Message) (io.ReadCloser, error) {
	if m.RawObject == "" {
		return io.NopCloser(bytes.NewReader(m.Raw)), nil
	}
	obj, err := s.store.OpenRaw(ctx, m.ContentRef(), m.RawObject)
	if tempmail.KindOf(err) == tempmail.NotFound {
		return nil, errNotFound
	}
	if err != nil {
		return nil, tempmail.Wrap(tempmail.Unavailable, err, "the message source cannot be read now; try again")
	}
	return obj, nil
}

// rawBytes reads a message's stored bytes whole.
func (s *Server) rawBytes(ctx context.Context, m *projections.Message) ([]byte, error) {
	rc, err := s.openRaw(ctx, m)
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
