package family

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"tempmail"
)

// MaxBodyBytes caps API request bodies (docs/API.md, "Conventions"); the webhook has its own cap.
const MaxBodyBytes = 1 << 20

// DecodeBody reads a JSON request body into dst. An empty body counts as {};
// a non-empty body must be JSON (415 otherwise), valid (400) and at most
// MaxBodyBytes (413).
func DecodeBody(r *http.Request, dst any) error {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) || len(body) > MaxBodyBytes {
		return tempmail.Errorf(tempmail.TooLarge, "request body is larger than %d bytes", MaxBodyBytes)
	}
	if err != nil {
		return tempmail.Wrap(tempmail.Invalid, err, "could not read the request body")
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return tempmail.Errorf(tempmail.Unsupported, "Unsupported media type %q in request.", ct)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body)) // no copy of up to 1 MiB per request
	if err := dec.Decode(dst); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return tempmail.Errorf(tempmail.Invalid, "%s must be of type %s", typeErr.Field, typeErr.Type)
		}
		return tempmail.Errorf(tempmail.Invalid, "request body is not valid JSON: %v", err)
	}
	if dec.More() {
		return tempmail.Errorf(tempmail.Invalid, "request body must be a single JSON value")
	}
	return nil
}

// JSONInt reads a JSON number that is a whole number (not a string that
// holds one, which json.Number would accept).
func JSONInt(raw json.RawMessage) (int64, error) {
	if len(raw) > 0 && raw[0] == '"' {
		return 0, errors.New("a string, not a number")
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, err
	}
	return strconv.ParseInt(n.String(), 10, 64)
}

// NamesOf reads raw as a non-empty JSON array of names from allowed (at
// most max of them; 0: no bound but the body's), each kept once, in the
// order given: a subscription's events, a key's scopes. field and one name
// them in errors ("events", "event").
func NamesOf(raw json.RawMessage, field, one string, allowed []string, max int) ([]string, error) {
	var names []string
	if err := json.Unmarshal(raw, &names); err != nil || len(names) == 0 || max > 0 && len(names) > max {
		return nil, tempmail.Errorf(tempmail.Invalid, "%s must be a non-empty array of: %s", field, strings.Join(allowed, ", "))
	}
	var out []string
	for _, n := range names {
		if !slices.Contains(allowed, n) {
			return nil, tempmail.Errorf(tempmail.Invalid, "unknown %s %q: %s may be %s", one, tempmail.Excerpt(n, 64), field, strings.Join(allowed, ", "))
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}
