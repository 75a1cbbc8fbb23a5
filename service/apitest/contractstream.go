package apitest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pb33f/libopenapi-validator/responses"
	"github.com/pb33f/libopenapi/datamodel/high/base"
)

// eventSchemas returns the schema of each event's data of the event stream
// at docPath: its media type's x-events.
func (c *Contract) eventSchemas(docPath string) (map[string]*base.Schema, error) {
	events, ok := digJSON(c.raw, "paths", docPath, "get", "responses", "200", "content", "text/event-stream", "x-events").(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: the event stream's media type has no x-events", docPath)
	}
	out := map[string]*base.Schema{}
	for name, v := range events {
		ref, _ := digJSON(v, "$ref").(string)
		proxy := c.model.Components.Schemas.GetOrZero(strings.TrimPrefix(ref, "#/components/schemas/"))
		if proxy == nil {
			return nil, fmt.Errorf("%s: x-events.%s: no schema %q", docPath, name, ref)
		}
		out[name] = proxy.Schema()
	}
	return out, nil
}

func digJSON(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// streamChecker checks an event stream's events as they are read: each is
// a comment, the retry line, or an id, a documented event name and one
// data line that validates against that event's schema.
func (c *Contract) streamChecker(req *http.Request, body io.ReadCloser) io.ReadCloser {
	docPath := c.docPaths[routeKey(c.route(req.Method, req))]
	schemas, err := c.eventSchemas(docPath)
	sc := &streamCheck{ReadCloser: body, c: c, req: req, schemas: schemas}
	if err != nil {
		sc.problem("%v", err)
	}
	return sc
}

type streamCheck struct {
	io.ReadCloser
	c       *Contract
	req     *http.Request
	schemas map[string]*base.Schema
	pending []byte // the part of the stream after the last complete block
}

func (s *streamCheck) Read(p []byte) (int, error) {
	n, err := s.ReadCloser.Read(p)
	s.pending = append(s.pending, p[:n]...)
	for {
		block, rest, ok := bytes.Cut(s.pending, []byte("\n\n"))
		if !ok {
			break
		}
		s.checkBlock(string(block))
		s.pending = rest
	}
	return n, err
}

func (s *streamCheck) problem(format string, args ...any) {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	s.c.streamed = append(s.c.streamed, fmt.Sprintf("event stream %s, which api/openapi.json does not allow: ", s.req.URL.Path)+
		fmt.Sprintf(format, args...))
}

var (
	streamRetryLine = regexp.MustCompile(`^retry: [0-9]+$`)
	// streamEndBlock is how a stream at its --max-stream-age ends: its last
	// id, for EventSource to resume from, and when to.
	streamEndBlock = regexp.MustCompile(`^id: [0-9]+\nretry: [0-9]+$`)
)

func (s *streamCheck) checkBlock(block string) {
	if strings.HasPrefix(block, ":") || streamRetryLine.MatchString(block) || streamEndBlock.MatchString(block) {
		return
	}
	fields := map[string]string{}
	for line := range strings.SplitSeq(block, "\n") {
		name, value, _ := strings.Cut(line, ": ")
		if _, twice := fields[name]; twice || !slices.Contains([]string{"id", "event", "data"}, name) {
			s.problem("line %q in event %q", line, block)
			return
		}
		fields[name] = value
	}
	if _, err := strconv.ParseUint(fields["id"], 10, 64); err != nil {
		s.problem("event %q has no numeric id", block)
	}
	schema, ok := s.schemas[fields["event"]]
	if !ok {
		s.problem("event %q is not one of x-events", block)
		return
	}
	resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(fields["data"]))}
	s.c.validating.Lock()
	_, errs := responses.ValidateResponseSchema(&responses.ValidateResponseSchemaInput{
		Request: s.req, Response: resp, Schema: schema, Version: 3.1, Options: s.c.opts})
	s.c.validating.Unlock()
	if problems := DescribeProblems(errs); len(problems) > 0 {
		s.problem("event %q: %s", block, strings.Join(problems, "; "))
	}
}
