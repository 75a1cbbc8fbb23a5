package mailtm

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"
	"golang.org/x/crypto/bcrypt"

	"tempmail"
	"tempmail/api/family"
	"tempmail/command"
	"tempmail/projections"
)

// The MailTM family's domains, accounts and tokens (mailtm.go).
//
// A password is kept as bcrypt's hash of its SHA-256 (bcrypt reads 72
// bytes at most; the digest, in base64, is 44 and keeps every byte of a
// password of up to maxPasswordBytes in play). The hash travels in the
// inbox's InboxCreated, so that every node can check it; bcrypt compares
// in constant time. An address with no account, or an inbox with no
// password, is checked against a hash all the same, so that the time an
// answer takes does not tell which addresses have accounts.

// Bounds of what an account is made with.
const (
	maxPasswordBytes = 128
	maxAddressBytes  = 254 // RFC 5321's bound on a path
)

// passwords hashes passwords at its cost, and checks them, a few at a
// time: each costs tens of milliseconds of a core, so that a flood of
// logins (POST /token, also bounded per client by LimitLogins) waits its
// turn instead of taking every core from the mail.
type passwords struct {
	cost int
	// none is a hash no password anyone knows matches, at the same cost:
	// what an absent account's password is checked against. Made on the
	// first such check.
	none func() []byte
	// room holds a token for each hash being made or checked: at most one
	// a core.
	room chan struct{}
}

func newPasswords(cost int) passwords {
	if cost == 0 {
		cost = bcrypt.DefaultCost
	}
	return passwords{cost: cost, room: make(chan struct{}, runtime.GOMAXPROCS(0)), none: sync.OnceValue(func() []byte {
		h, err := bcrypt.GenerateFromPassword([]byte(rand.Text()), cost)
		if err != nil {
			panic("bcrypt: " + err.Error()) // only for a cost out of bcrypt's range, which New is not given
		}
		return h
	})}
}

// prepare is what bcrypt hashes of a password: its SHA-256, in base64.
func (passwords) prepare(password string) []byte {
	sum := sha256.Sum256([]byte(password))
	return []byte(base64.StdEncoding.EncodeToString(sum[:]))
}

// turn waits for room to hash, until ctx ends; release gives it back.
func (p passwords) turn(ctx context.Context) (release func(), err error) {
	select {
	case p.room <- struct{}{}:
		return func() { <-p.room }, nil
	case <-ctx.Done():
		return nil, tempmail.Errorf(tempmail.Unavailable, "too many passwords being checked at once; try again")
	}
}

// hash is the slow salted hash an account keeps.
func (p passwords) hash(ctx context.Context, password string) (string, error) {
	release, err := p.turn(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	h, err := bcrypt.GenerateFromPassword(p.prepare(password), p.cost)
	if err != nil {
		return "", tempmail.Wrap(tempmail.Internal, err, "could not hash the password")
	}
	return string(h), nil
}

// match reports whether password is the one hash was made of; an empty
// hash (no account, or an inbox with no password) matches none, after as
// long.
func (p passwords) match(ctx context.Context, hash, password string) (bool, error) {
	release, err := p.turn(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	stored := []byte(hash)
	if hash == "" {
		stored = p.none()
	}
	ok := bcrypt.CompareHashAndPassword(stored, p.prepare(password)) == nil
	return ok && hash != "", nil
}

// mailtmDomains lists the domains accounts may be made on: all on page 1.
func (s *API) mailtmDomains(w http.ResponseWriter, r *http.Request) {
	page, err := mailtmPage(r)
	var list []projections.Domain
	if err == nil {
		list, err = s.DomainsFor(r)
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	on := jsonLD(w)
	var out []mailtmDomainOut
	for _, d := range list {
		out = append(out, toMailTMDomain(d, on, false))
	}
	total := len(out)
	if page > 1 {
		out = nil
	}
	writeMailTMCollection(w, on, "Domain", "/domains", total, page, len(out), func(i int) any { return out[i] })
}

func (s *API) mailtmDomain(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.Atoi(chi.URLParam(r, "id"))
	var d projections.Domain
	if err != nil || id < 1 || len(chi.URLParam(r, "id")) > 9 {
		err = errMailTMNotFound
	} else {
		d, err = s.ActiveDomainOfID(r, id)
	}
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, "Not Found"))
		return
	}
	family.WriteJSON(w, http.StatusOK, toMailTMDomain(d, jsonLD(w), true))
}

// mailtmCredentials is the body of POST /accounts and POST /token.
type mailtmCredentials struct {
	Address  json.RawMessage `json:"address"`
	Password json.RawMessage `json:"password"`
}

// read checks the body's fields, returning the address (lower-case) and
// the password, or what is wrong with them.
func (b mailtmCredentials) read() (address, password string, problems []mailtmViolation) {
	address, bad := mailtmJSONString(b.Address, "address")
	address = strings.ToLower(strings.TrimSpace(address))
	switch {
	case bad != nil:
		problems = append(problems, *bad)
	case address == "":
		problems = append(problems, mailtmViolation{"address", "This value should not be blank."})
	case len(address) > maxAddressBytes || !utf8.ValidString(address) || strings.Count(address, "@") != 1:
		problems = append(problems, mailtmViolation{"address", "This value is not a valid email address."})
	}
	password, bad = mailtmJSONString(b.Password, "password")
	switch {
	case bad != nil:
		problems = append(problems, *bad)
	case password == "":
		problems = append(problems, mailtmViolation{"password", "This value should not be blank."})
	case len(password) > maxPasswordBytes || !utf8.ValidString(password):
		problems = append(problems, mailtmViolation{"password", "This value should be at most 128 bytes of UTF-8."})
	}
	return address, password, problems
}

func (s *API) mailtmCreateAccount(w http.ResponseWriter, r *http.Request) {
	if c := family.CredentialFrom(r); c.Key != nil {
		if err := (mailtmCaller{c: c}).may(true); err != nil {
			family.WriteError(w, r, s.Log, err)
			return
		}
	}
	owner, err := s.InboxOwner(r)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	var body mailtmCredentials
	if err := family.DecodeBody(r, &body); err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	address, password, problems := body.read()
	if len(problems) > 0 {
		writeMailTMViolations(w, problems...)
		return
	}
	local, domain, _ := strings.Cut(address, "@")
	name, err := s.EmailName(json.RawMessage(strconv.Quote(local)), "address")
	if err != nil || name == "" {
		writeMailTMViolations(w, mailtmViolation{"address", "This value is not a valid email address."})
		return
	}
	dom, err := s.ActiveDomainNamed(r, domain)
	if err != nil {
		if tempmail.KindOf(err) != tempmail.NotFound {
			family.WriteError(w, r, s.Log, err)
			return
		}
		writeMailTMViolations(w, mailtmViolation{"address", "This domain is not one of GET /domains."})
		return
	}
	hash, err := s.passwords.hash(r.Context(), password)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	in, err := s.Commands.CreateInbox(r.Context(), command.Spec{Local: name, Domain: dom,
		TTL: s.Config.TokenInboxTTL, Tenant: owner, PasswordHash: hash})
	if errors.Is(err, command.ErrTaken) {
		writeMailTMViolations(w, mailtmViolation{"address", "This value is already used."})
		return
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusCreated, toMailTMAccount(in, s.mailtmQuota(), jsonLD(w)))
}

// mailtmQuota is the most an account may hold: as many messages as an
// inbox keeps, each of the largest size taken; 0 when either is unbounded.
func (s *API) mailtmQuota() int64 {
	return s.Config.MaxMessageBytes * int64(s.Config.MaxMessagesPerInbox)
}

func (s *API) mailtmToken(w http.ResponseWriter, r *http.Request) {
	var body mailtmCredentials
	if err := family.DecodeBody(r, &body); err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	address, password, problems := body.read()
	if len(problems) > 0 {
		writeMailTMViolations(w, problems...)
		return
	}
	var in *projections.Inbox
	addr, err := tempmail.NormalizeAddress(address)
	if err == nil {
		in, err = family.LiveInbox(s.Views.InboxByAddress(r.Context(), addr))
	}
	switch {
	case err == nil:
	case tempmail.KindOf(err) == tempmail.NotFound || tempmail.KindOf(err) == tempmail.Invalid:
		in = &projections.Inbox{}
	default:
		family.WriteError(w, r, s.Log, err)
		return
	}
	ok, err := s.passwords.match(r.Context(), in.PasswordHash, password)
	if err == nil && !ok {
		err = tempmail.Errorf(tempmail.Unauthorized, "Invalid credentials.")
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusOK, mailtmToken{ID: in.ID, Token: in.Token})
}

func (s *API) mailtmMe(w http.ResponseWriter, r *http.Request) {
	in, err := s.mailtmSelf(r)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusOK, toMailTMAccount(in, s.mailtmQuota(), jsonLD(w)))
}

// mailtmAccountOf resolves {id} to an account the caller may reach, with
// write telling what it asks (mailtmCaller.may); on failure it has
// answered.
func (s *API) mailtmAccountOf(w http.ResponseWriter, r *http.Request, write bool) (*projections.Inbox, bool) {
	m, err := s.mailtmCallerOf(r)
	if err == nil {
		err = m.may(write)
	}
	var in *projections.Inbox
	if err == nil {
		in, err = s.InboxByID(r.Context(), chi.URLParam(r, "id"))
	}
	if err == nil && !m.sees(in) {
		err = errMailTMNotFound
	}
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, "Not Found"))
		return nil, false
	}
	return in, true
}

func (s *API) mailtmGetAccount(w http.ResponseWriter, r *http.Request) {
	in, ok := s.mailtmAccountOf(w, r, false)
	if !ok {
		return
	}
	family.WriteJSON(w, http.StatusOK, toMailTMAccount(in, s.mailtmQuota(), jsonLD(w)))
}

func (s *API) mailtmDeleteAccount(w http.ResponseWriter, r *http.Request) {
	in, ok := s.mailtmAccountOf(w, r, true)
	if !ok {
		return
	}
	if err := s.Commands.DeleteInbox(r.Context(), in); err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, "Not Found"))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
