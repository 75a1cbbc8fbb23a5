package mailosaur

import (
	"crypto/rand"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"tempmail"
	"tempmail/api/family"
	"tempmail/command"
	"tempmail/projections"
)

// Mailosaur servers (mailosaur.go): each is a private catch-all
// domain of the key's tenant, <id>.<first --domains domain>, added with
// its name as the domain's label. Its id is the domain's first label,
// 8 characters, as the SDK's messages.get insists; generateEmailAddress
// (in the SDK, with MAILOSAUR_SMTP_HOST set to the first domain) makes
// <random>@<id>.<domain>, and the first mail to such an address makes its
// inbox, the tenant's, as on any private catch-all domain.

const (
	mailosaurIDLen = 8
	// mailosaurMaxInboxes bounds the inboxes of a server looked at by
	// one list or search, newest first: those of the last hour (the
	// catch-all lifetime) but for the busiest servers.
	mailosaurMaxInboxes = 500
	mailosaurMaxName    = 200 // characters of a server's name, or a device's
)

// mailosaurServer is a server as the SDK's Server model reads it.
type mailosaurServer struct {
	ID       string   `json:"id"`
	Name     string   `json:"name"`
	Users    []string `json:"users"`
	Messages int      `json:"messages"`
}

type mailosaurServerList struct {
	Items []mailosaurServer `json:"items"`
}

// mailosaurServerBody is what create and update send: the name is all
// that is taken (update sends the whole server back).
type mailosaurServerBody struct {
	Name *string `json:"name"`
}

// mailosaurDomainSuffix is what follows a server's id in its domain.
func (s *API) mailosaurDomainSuffix() string { return "." + s.Config.Domains[0] }

// mailosaurServerID is d's server id, or "" when d is no server of
// tenant: one of its catch-all domains named <id>.<first domain>.
func (s *API) mailosaurServerID(d projections.Domain, tenant string) string {
	id, ok := strings.CutSuffix(d.Name, s.mailosaurDomainSuffix())
	if !ok || !d.Active || !d.CatchAll || tenant == "" || d.TenantID != tenant || !validServerID(id) {
		return ""
	}
	return id
}

// validServerID reports an id the service could have made: 8 of [a-z0-9].
func validServerID(id string) bool {
	return len(id) == mailosaurIDLen && strings.IndexFunc(id, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) < 0
}

// mailosaurServerDomains are the key's tenant's servers, in the order
// they were made.
func (s *API) mailosaurServerDomains(r *http.Request) ([]projections.Domain, error) {
	owner := family.CredentialFrom(r).Owner()
	if owner == "" {
		return nil, nil
	}
	list, err := s.Views.TenantDomains(r.Context(), owner, false)
	if err != nil {
		return nil, err
	}
	var out []projections.Domain
	for _, d := range list {
		if s.mailosaurServerID(d, owner) != "" {
			out = append(out, d)
		}
	}
	return out, nil
}

var errServerNotFound = tempmail.Errorf(tempmail.NotFound, "server not found")

// mailosaurServerDomain is the key's tenant's server of id: another
// tenant's is not found, as one that does not exist.
func (s *API) mailosaurServerDomain(r *http.Request, id string) (projections.Domain, error) {
	id = strings.ToLower(id)
	if !validServerID(id) {
		return projections.Domain{}, errServerNotFound
	}
	list, err := s.mailosaurServerDomains(r)
	if err != nil {
		return projections.Domain{}, err
	}
	i := slices.IndexFunc(list, func(d projections.Domain) bool { return d.Name == id+s.mailosaurDomainSuffix() })
	if i < 0 {
		return projections.Domain{}, errServerNotFound
	}
	return list[i], nil
}

// mailosaurServerInboxes are the live inboxes on server domain d, newest
// first, at most max of them (0: all), among the newest of its tenant's
// inboxes (tenantScanMax).
func (s *API) mailosaurServerInboxes(r *http.Request, d projections.Domain, max int) ([]*projections.Inbox, error) {
	now := time.Now()
	var out []*projections.Inbox
	err := s.TenantInboxes(r.Context(), d.TenantID, func(ti projections.TenantInbox) (bool, error) {
		if !ti.Live(now) || !strings.HasSuffix(ti.Address, "@"+d.Name) {
			return true, nil
		}
		in, err := s.Views.Inbox(r.Context(), ti.ID)
		if tempmail.KindOf(err) == tempmail.NotFound || err == nil && !in.Live(now) {
			return true, nil // ended as the list was read
		}
		if err != nil {
			return false, err
		}
		out = append(out, in)
		return max == 0 || len(out) < max, nil
	})
	return out, err
}

// mailosaurServerOut is d as the SDK reads a server: with the messages of
// its inboxes counted.
func (s *API) mailosaurServerOut(r *http.Request, d projections.Domain) (mailosaurServer, error) {
	out := mailosaurServer{ID: strings.TrimSuffix(d.Name, s.mailosaurDomainSuffix()), Name: d.Label, Users: []string{}}
	inboxes, err := s.mailosaurServerInboxes(r, d, mailosaurMaxInboxes)
	for _, in := range inboxes {
		out.Messages += in.Count
	}
	return out, err
}

func (s *API) mailosaurServers(w http.ResponseWriter, r *http.Request) {
	err := mailosaurMay(r, false)
	var list []projections.Domain
	if err == nil {
		list, err = s.mailosaurServerDomains(r)
	}
	out := mailosaurServerList{Items: []mailosaurServer{}}
	for _, d := range list {
		if err != nil {
			break
		}
		var sv mailosaurServer
		sv, err = s.mailosaurServerOut(r, d)
		out.Items = append(out.Items, sv)
	}
	if err != nil {
		s.mailosaurFail(w, r, err)
		return
	}
	// Mailosaur lists servers by name.
	slices.SortStableFunc(out.Items, func(a, b mailosaurServer) int { return strings.Compare(a.Name, b.Name) })
	family.WriteJSON(w, http.StatusOK, out)
}

// checkServerName reads a server's name (and a device's): 1 to
// mailosaurMaxName characters, none of them a control character.
func checkServerName(name *string) (string, error) {
	bad := tempmail.Errorf(tempmail.Invalid, "name: must be 1 to %d characters, none a control character", mailosaurMaxName)
	if name == nil || *name == "" || len(*name) > 4*mailosaurMaxName || utf8.RuneCountInString(*name) > mailosaurMaxName ||
		!utf8.ValidString(*name) || strings.IndexFunc(*name, unicode.IsControl) >= 0 {
		return "", bad
	}
	return *name, nil
}

// newServerID is 8 random characters of [a-z0-9].
func newServerID() string {
	return strings.ToLower(rand.Text()[:mailosaurIDLen]) // base32: A-Z and 2-7
}

func (s *API) mailosaurCreateServer(w http.ResponseWriter, r *http.Request) {
	var body mailosaurServerBody
	err := mailosaurMay(r, true)
	if err == nil {
		err = family.DecodeBody(r, &body)
	}
	var name, owner string
	if err == nil {
		name, err = checkServerName(body.Name)
	}
	if err == nil {
		owner, err = s.InboxOwner(r) // a key's tenant: the credential takes nothing else
	}
	// At most command.MaxTenantServers: claimed against the tenant's
	// count as the domain is added, so that racing creations never pass
	// it.
	var d projections.Domain
	for try := 0; err == nil && try < 3; try++ {
		d, err = s.Commands.AddDomain(r.Context(), command.DomainSpec{Name: newServerID() + s.mailosaurDomainSuffix(),
			TenantID: owner, CatchAll: true, Label: name, Server: true})
		if tempmail.KindOf(err) != tempmail.Conflict {
			break
		}
		err = nil // an id drawn twice: draw again
	}
	if err == nil && d.ID == 0 {
		err = tempmail.Errorf(tempmail.Conflict, "no free server id was drawn; try again")
	}
	s.answerServer(w, r, d, err)
}

func (s *API) mailosaurServer(w http.ResponseWriter, r *http.Request) {
	err := mailosaurMay(r, false)
	var d projections.Domain
	if err == nil {
		d, err = s.mailosaurServerDomain(r, chi.URLParam(r, "serverID"))
	}
	s.answerServer(w, r, d, err)
}

// answerServer answers with server d, or with err when there is one: the
// end of every handler that answers with a server.
func (s *API) answerServer(w http.ResponseWriter, r *http.Request, d projections.Domain, err error) {
	var out mailosaurServer
	if err == nil {
		out, err = s.mailosaurServerOut(r, d)
	}
	if err != nil {
		s.mailosaurFail(w, r, err)
		return
	}
	family.WriteJSON(w, http.StatusOK, out)
}

// mailosaurUpdateServer renames a server: its name is all that changes.
func (s *API) mailosaurUpdateServer(w http.ResponseWriter, r *http.Request) {
	var body mailosaurServerBody
	err := mailosaurMay(r, true)
	var d projections.Domain
	if err == nil {
		d, err = s.mailosaurServerDomain(r, chi.URLParam(r, "serverID"))
	}
	if err == nil {
		err = family.DecodeBody(r, &body)
	}
	var name string
	if err == nil {
		name, err = checkServerName(body.Name)
	}
	if err == nil && name != d.Label {
		d, err = s.Commands.RelabelDomain(r.Context(), d.ID, name)
		err = family.AsNotFound(err, "server not found")
	}
	s.answerServer(w, r, d, err)
}

// mailosaurDeleteServer removes the server's domain (mail to it is
// refused from then on), then its inboxes and their mail.
func (s *API) mailosaurDeleteServer(w http.ResponseWriter, r *http.Request) {
	err := mailosaurMay(r, true)
	var d projections.Domain
	if err == nil {
		d, err = s.mailosaurServerDomain(r, chi.URLParam(r, "serverID"))
	}
	if err == nil {
		err = family.AsNotFound(s.Commands.RemoveDomain(r.Context(), d.ID), "server not found")
	}
	if err == nil {
		err = s.mailosaurEndInboxes(r, d)
	}
	if err != nil {
		s.mailosaurFail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// mailosaurEndInboxes deletes every live inbox on server domain d; one
// that ended meanwhile is skipped.
func (s *API) mailosaurEndInboxes(r *http.Request, d projections.Domain) error {
	inboxes, err := s.mailosaurServerInboxes(r, d, 0)
	if err != nil {
		return err
	}
	for _, in := range inboxes {
		if err := s.Commands.DeleteInbox(r.Context(), in); err != nil && tempmail.KindOf(err) != tempmail.NotFound &&
			tempmail.KindOf(err) != tempmail.Conflict {
			return err
		}
	}
	return nil
}
