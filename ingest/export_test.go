package ingest

// What the external tests (package ingest_test, which run the back end)
// need of ingest's insides.

// InflightBytes is how many message bytes s's sessions hold now.
func (s *SMTPServer) InflightBytes() int64 { return s.inflight.used.Load() }
