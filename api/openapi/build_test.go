package openapi

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"tempmail/wire"
)

type head struct {
	ID   string    `json:"id"`
	At   wire.Time `json:"at"`
	skip string
}

type note struct {
	head
	Text   string            `json:"text"`
	Tags   []string          `json:"tags,omitempty"`
	Meta   map[string]string `json:"meta"`
	Parent *note             `json:"parent"`
	Hidden bool              `json:"-"`
	Inner  struct {
		N int `json:"n"`
	} `json:"inner"`
	Count *int `json:"count,omitempty"`
}

// custom writes its own JSON, which reflection cannot know.
type custom struct{}

func (custom) MarshalJSON() ([]byte, error) { return []byte(`1`), nil }

type noteIn struct {
	Text *string `json:"text"`
}

// schemasOf is the document's components.schemas for schemas alone.
func schemasOf(t *testing.T, schemas map[string]Component) map[string]any {
	t.Helper()
	doc, err := Build([]byte(`{"openapi":"3.1.0"}`), Contract{Schemas: schemas})
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Components struct{ Schemas map[string]any }
	}
	if err := json.Unmarshal(doc, &out); err != nil {
		t.Fatal(err)
	}
	return out.Components.Schemas
}

func equalJSON(t *testing.T, name string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, w) {
		g, _ := json.Marshal(got)
		t.Errorf("%s:\n got %s\nwant %s", name, g, want)
	}
}

// A struct is an object of the fields encoding/json writes: embedded ones
// flattened, omitempty ones not required, a pointer not omitted nullable
// (a reference oneOf it and null), a component's type referred to, and
// Fields, Omit and Extends applied.
func TestReflectionFollowsEncodingJSON(t *testing.T) {
	got := schemasOf(t, map[string]Component{
		"Time": {Of: wire.Time{}},
		"Note": {Of: note{}, Omit: []string{"count"}, Fields: map[string]Schema{
			"id":      {Format: "uuid", Description: "Its id."},
			"text":    {Const: "x"},
			"tags":    {Items: &Schema{MaxLength: N(3)}},
			"inner.n": {Minimum: N(1)},
		}, Schema: Schema{Description: "A note."}},
		"NoteDetail": {Of: note{}, Extends: "Note", Schema: Schema{Required: []string{"count"}}},
		"NoteIn":     {Of: noteIn{}, Request: true},
	})
	equalJSON(t, "Note", got["Note"], `{
		"description": "A note.", "type": "object",
		"required": ["id", "at", "text", "meta", "parent", "inner"],
		"properties": {
			"id": {"description": "Its id.", "type": "string", "format": "uuid"},
			"at": {"$ref": "#/components/schemas/Time"},
			"text": {"const": "x"},
			"tags": {"type": "array", "items": {"type": "string", "maxLength": 3}},
			"meta": {"type": "object", "additionalProperties": {"type": "string"}},
			"parent": {"oneOf": [{"$ref": "#/components/schemas/Note"}, {"type": "null"}]},
			"inner": {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer", "minimum": 1}}}
		}}`)
	equalJSON(t, "NoteDetail", got["NoteDetail"], `{"allOf": [{"$ref": "#/components/schemas/Note"},
		{"type": "object", "required": ["count"], "properties": {"count": {"type": "integer"}}}]}`)
	equalJSON(t, "NoteIn", got["NoteIn"], `{"type": "object", "properties": {"text": {"type": "string"}}}`)
	equalJSON(t, "Time", got["Time"], `{"type": "string", "format": "date-time"}`)
}

// A nullable reference to a component that admits null itself is the
// reference alone.
func TestNullableReferenceToANullableComponent(t *testing.T) {
	type auth struct {
		OK bool `json:"ok"`
	}
	type msg struct {
		Auth *auth `json:"auth"`
	}
	got := schemasOf(t, map[string]Component{
		"Auth": {Of: auth{}, Schema: Schema{Nullable: true}},
		"Msg":  {Of: msg{}},
	})
	equalJSON(t, "Auth", got["Auth"], `{"type": ["object", "null"], "required": ["ok"], "properties": {"ok": {"type": "boolean"}}}`)
	equalJSON(t, "Msg", got["Msg"], `{"type": "object", "required": ["auth"], "properties": {"auth": {"$ref": "#/components/schemas/Auth"}}}`)
}

// What would make the document wrong is refused, saying what.
func TestBuildRefuses(t *testing.T) {
	for _, c := range []struct {
		name      string
		contracts []Contract
		want      string
	}{
		{"a field described that the type lacks", []Contract{{Schemas: map[string]Component{
			"Note": {Of: noteIn{}, Fields: map[string]Schema{"txt": {}}}}}}, "has no field for"},
		{"a reference to no schema", []Contract{{Schemas: map[string]Component{
			"Note": {Schema: Schema{Items: Ref("Nope")}}}}}, "no schema Nope"},
		{"a component declared twice", []Contract{{Schemas: map[string]Component{"A": {}}},
			{Schemas: map[string]Component{"A": {}}}}, "declared twice"},
		{"a path parameter the path lacks", []Contract{{Operations: []Operation{{Method: "GET", Path: "/a/", ID: "a",
			Params: []Param{{Name: "id", In: "path"}}}}}}, "path parameters"},
		{"an operation ID used twice", []Contract{{Operations: []Operation{{Method: "GET", Path: "/a/", ID: "a"},
			{Method: "POST", Path: "/a/", ID: "a"}}}}, "operation ID a"},
		{"a type that writes its own JSON", []Contract{{Schemas: map[string]Component{
			"R": {Of: struct {
				R custom `json:"r"`
			}{}}}}}, "writes its own JSON"},
	} {
		_, err := Build([]byte(`{}`), c.contracts...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}
