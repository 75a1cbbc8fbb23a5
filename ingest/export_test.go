package ingest

// What the external tests (package ingest_test, which run the whole
// service) need of ingest's insides.

// Malformed and MultipartMessage are parse_test.go's messages, which the
// SMTP tests send.
var Malformed = malformed

const MultipartMessage = multipartMsg

// InflightBytes is how many message bytes s's sessions hold now.
func (s *SMTPServer) InflightBytes() int64 { return s.inflight.used.Load() }
