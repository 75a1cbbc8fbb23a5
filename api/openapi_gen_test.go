package api_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"tempmail/api"
)

// TestOpenAPIIsGenerated: openapi.json is what the families' Go
// declarations make (api.BuildOpenAPI), so that neither a hand edit of the
// document nor a change to a type an answer encodes (a field added,
// renamed, made a pointer) without go generate gets through.
func TestOpenAPIIsGenerated(t *testing.T) {
	t.Parallel()
	made, err := api.BuildOpenAPI()
	if err != nil {
		t.Fatalf("the Go declarations make no document: %v", err)
	}
	if string(made) == api.OpenAPIDocument() {
		return
	}
	var have, want any
	if err := json.Unmarshal([]byte(api.OpenAPIDocument()), &have); err != nil {
		t.Fatalf("api/openapi.json is not JSON (%v): run go generate ./api/", err)
	}
	if err := json.Unmarshal(made, &want); err != nil {
		t.Fatal(err)
	}
	where, h, w := firstDifference(have, want, "")
	if where == "" {
		t.Fatal("api/openapi.json is laid out otherwise than the Go declarations make it: run go generate ./api/")
	}
	t.Fatalf("api/openapi.json is not what the Go declarations make: at %s it has %s, they make %s; "+
		"run go generate ./api/ (and if the document was edited by hand, make the edit in the Go "+
		"declarations: the family's contract.go or schemas.go)", where, h, w)
}

// firstDifference is where a and b first differ, as a JSON pointer (keys
// in order), and what each has there; "" when they are equal.
func firstDifference(a, b any, at string) (where, inA, inB string) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		for _, k := range slices.Sorted(maps.Keys(mergeKeys(x, y))) {
			p := at + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
			u, inX := x[k]
			v, inY := y[k]
			switch {
			case !inX:
				return p, "nothing", show(v)
			case !inY:
				return p, show(u), "nothing"
			}
			if w, s, t := firstDifference(u, v, p); w != "" {
				return w, s, t
			}
		}
		return "", "", ""
	case []any:
		y, ok := b.([]any)
		if !ok {
			break
		}
		for i := range min(len(x), len(y)) {
			if w, s, t := firstDifference(x[i], y[i], fmt.Sprintf("%s/%d", at, i)); w != "" {
				return w, s, t
			}
		}
		if len(x) == len(y) {
			return "", "", ""
		}
	default:
		if a == b {
			return "", "", ""
		}
	}
	if at == "" {
		at = "/"
	}
	return at, show(a), show(b)
}

func mergeKeys(a, b map[string]any) map[string]bool {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}

// show is v as JSON, cut short.
func show(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}
