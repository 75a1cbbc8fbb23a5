package api

// This file is compiled into the tests alone, and lets the external tests
// (package api_test, which run the whole service through servicetest and
// so cannot be in package api: service imports api) reach the few inner
// values they check, as net/http's export_test.go does. Nothing here is
// part of the package's API.

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
)

// OpenAPIDocument is the document the server serves, as it is embedded.
var OpenAPIDocument = openAPIDocument

// Router is the server's router: the contract check (contract_test.go)
// asks it which route took a request, and which routes there are.
func (s *Server) Router() chi.Routes { return s.router }

// FamilyOf tells which family's error shape the answers to a request
// have: FamilyA, FamilyB, FamilyC or FamilyOps.
func FamilyOf(r *http.Request) family { return doorFor((&Server{}).registerDoors(), r.URL.Path).fam }

const (
	FamilyA   = familyA
	FamilyB   = familyB
	FamilyC   = familyC
	FamilyOps = familyOps
)

// The bounds tests hold the service to.
const (
	ScanChunk  = scanChunk  // messages otp and filtered latest read at a time
	PageBudget = pageBudget // bytes past which a list page ends
)

// SetKeepAlive makes idle event streams send a comment every d instead
// of every 15 s. Call it before the streams it is for are opened.
func (s *Server) SetKeepAlive(d time.Duration) { s.keepAlive = d }

// FillDownloads takes all the room attachment downloads share, as
// downloads in flight would, and makes a download that finds none wait
// only wait for it before it is answered 503. free gives the room back;
// ok is false, and nothing is taken, when some download holds room now.
func (s *Server) FillDownloads(wait time.Duration) (free func(), ok bool) {
	s.downloads.wait = wait
	if !s.downloads.sem.TryAcquire(s.downloads.budget) {
		return nil, false
	}
	return func() { s.downloads.sem.Release(s.downloads.budget) }, true
}

// DownloadsIdle reports whether no download holds any room.
func (s *Server) DownloadsIdle() bool {
	if !s.downloads.sem.TryAcquire(s.downloads.budget) {
		return false
	}
	s.downloads.sem.Release(s.downloads.budget)
	return true
}
