package api

// This file is compiled into the tests alone, and lets the external tests
// (package api_test, which run the whole service through servicetest and
// so cannot be in package api: service imports api) reach the few inner
// values they check, as net/http's export_test.go does. Nothing here is
// part of the package's API.

import (
	"time"

	"tempmail/api/family"
)

// The bounds tests hold the service to.
const (
	ScanChunk  = family.ScanChunk  // messages otp and filtered latest read at a time
	PageBudget = family.PageBudget // bytes past which a list page ends
)

// SetKeepAlive makes idle event streams send a comment every d instead
// of every 15 s. Call it before the streams it is for are opened.
func (s *Server) SetKeepAlive(d time.Duration) { s.KeepAlive = d }

// FillDownloads takes all the room attachment downloads share, as
// downloads in flight would (family.Downloads.Fill).
func (s *Server) FillDownloads(wait time.Duration) (free func(), ok bool) {
	return s.Downloads.Fill(wait)
}

// DownloadsIdle reports whether no download holds any room.
func (s *Server) DownloadsIdle() bool { return s.Downloads.Idle() }
