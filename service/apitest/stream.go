package apitest

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Stream is an event stream as a test client reads it.
type Stream struct {
	t      *testing.T
	resp   *http.Response
	r      *bufio.Reader
	events chan Event
}

// Event is one event of a stream, or a keep-alive comment (Comment).
type Event struct {
	ID, Name string
	Data     map[string]any
	Comment  bool
}

// OpenStream connects to path with a real HTTP client; lastID, when set,
// is sent as Last-Event-ID.
func (h *Harness) OpenStream(path, lastID string, headers ...string) *Stream {
	h.T.Helper()
	req, _ := http.NewRequest("GET", h.URL+path, nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := h.ClientVia(http.DefaultTransport, 0).Do(req)
	if err != nil {
		h.T.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		h.T.Fatalf("GET %s: %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	s := &Stream{t: h.T, resp: resp, r: bufio.NewReader(resp.Body), events: make(chan Event, 100)}
	h.T.Cleanup(s.Close)
	go s.read()
	return s
}

func (s *Stream) Close() { s.resp.Body.Close() }

// read parses the stream into events until it ends.
func (s *Stream) read() {
	defer close(s.events)
	var ev Event
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case line == "":
			if ev.Name != "" || ev.Comment {
				s.events <- ev
			}
			ev = Event{}
		case strings.HasPrefix(line, ":"):
			ev.Comment = true
		case strings.HasPrefix(line, "id: "):
			ev.ID = line[4:]
		case strings.HasPrefix(line, "event: "):
			ev.Name = line[7:]
		case strings.HasPrefix(line, "data: "):
			_ = json.Unmarshal([]byte(line[6:]), &ev.Data)
		}
	}
}

// Next returns the next event that is not a keep-alive comment, within
// 20 s whatever comments come meanwhile.
func (s *Stream) Next() Event {
	s.t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				s.t.Fatal("the stream ended")
			}
			if !ev.Comment {
				return ev
			}
		case <-deadline:
			s.t.Fatal("no event within 20 s")
		}
	}
}

// Ended waits for the stream to close.
func (s *Stream) Ended() bool {
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				return true
			}
			s.t.Logf("after the end: %+v", ev)
		case <-time.After(10 * time.Second):
			return false
		}
	}
}

// MessageIDBySubject is the id of the message with subject in the family
// C inbox with token.
func (h *Harness) MessageIDBySubject(token, subject string) string {
	h.T.Helper()
	r := h.Do("GET", "/inboxes/"+token+"/latest/?wait=10&subject="+subject, "")
	if r.Status != 200 {
		h.T.Fatalf("latest %s: %d %s", subject, r.Status, r.Body)
	}
	return r.JSON(h.T)["id"].(string)
}

// Events is every event and comment, as the stream sends them, closed when
// the stream ends; for a test that reads comments (Next skips them).
func (s *Stream) Events() <-chan Event { return s.events }
