package openapi

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"tempmail/wire"
)

// The schemas of Go types, as encoding/json writes their values.

var (
	timeType      = reflect.TypeFor[time.Time]()
	wireTimeType  = reflect.TypeFor[wire.Time]()
	rawType       = reflect.TypeFor[json.RawMessage]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
	textType      = reflect.TypeFor[encoding.TextMarshaler]()
)

// reflector reflects the type of one component.
type reflector struct {
	// byType names the component of each Go type a field may refer to.
	byType map[reflect.Type]string
	// fields describe the component's fields further, by JSON name;
	// used marks those a field took, so that one naming no field is
	// told.
	fields  map[string]Schema
	used    map[string]bool
	request bool
}

// schemaOf is t's schema; path is the JSON name of the field it is the
// type of ("" for the component's own type, "a.b" within an object).
func (r *reflector) schemaOf(t reflect.Type, path string, root bool) (Schema, error) {
	if t.Kind() == reflect.Pointer {
		return r.schemaOf(t.Elem(), path, root)
	}
	if name, ok := r.byType[t]; ok && !root {
		if name == "" {
			return Schema{}, fmt.Errorf("%s: more than one component is of type %s: say which with a Ref", path, t)
		}
		return Schema{Ref: name}, nil
	}
	switch t {
	case timeType, wireTimeType:
		return Schema{Type: "string", Format: "date-time"}, nil
	case rawType:
		return Schema{}, nil // any JSON value: its handler reads it
	}
	if t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) ||
		t.Implements(textType) || reflect.PointerTo(t).Implements(textType) {
		return Schema{}, fmt.Errorf("%s: %s writes its own JSON, which reflection cannot know: declare it as a component", path, t)
	}
	switch t.Kind() {
	case reflect.String:
		return Schema{Type: "string"}, nil
	case reflect.Bool:
		return Schema{Type: "boolean"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return Schema{Type: "integer"}, nil
	case reflect.Float32, reflect.Float64:
		return Schema{Type: "number"}, nil
	case reflect.Interface:
		return Schema{}, nil
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return Schema{Type: "string", ContentEncoding: "base64"}, nil
		}
		items, err := r.schemaOf(t.Elem(), path, false)
		return Schema{Type: "array", Items: &items}, err
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return Schema{}, fmt.Errorf("%s: %s: a map's keys must be strings", path, t)
		}
		values, err := r.schemaOf(t.Elem(), path, false)
		return Schema{Type: "object", AdditionalProperties: &values}, err
	case reflect.Struct:
		return r.object(t, path)
	}
	return Schema{}, fmt.Errorf("%s: %s has no JSON form", path, t)
}

// object is a struct's schema: its fields as properties, each required
// unless it is omitted when empty (or the struct is a request's).
func (r *reflector) object(t reflect.Type, path string) (Schema, error) {
	s := Schema{Type: "object"}
	for _, f := range jsonFields(t) {
		key := f.name
		if path != "" {
			key = path + "." + f.name
		}
		p, err := r.schemaOf(f.typ, key, false)
		if err != nil {
			return s, err
		}
		if f.typ.Kind() == reflect.Pointer && !f.omit && !r.request {
			p.Nullable = true // a nil pointer is written null
		}
		if ann, ok := r.fields[key]; ok {
			r.used[key] = true
			p = merge(p, ann)
		}
		if !f.omit && !r.request {
			s.Required = append(s.Required, f.name)
		}
		s.Properties = append(s.Properties, Property{f.name, p})
	}
	return s, nil
}

// merge describes s further with ann (Component says how).
func merge(s, ann Schema) Schema {
	if ann.Ref != "" || ann.Type != "" || ann.Const != nil || ann.Enum != nil ||
		ann.OneOf != nil || ann.AnyOf != nil || ann.AllOf != nil {
		s = Schema{Nullable: s.Nullable}
	}
	items := s.Items
	out, a := reflect.ValueOf(&s).Elem(), reflect.ValueOf(ann)
	for i := range a.NumField() {
		if v := a.Field(i); !v.IsZero() {
			out.Field(i).Set(v)
		}
	}
	if items != nil && ann.Items != nil {
		m := merge(*items, *ann.Items)
		s.Items = &m
	}
	return s
}

// A jsonField is a field encoding/json writes.
type jsonField struct {
	name   string
	index  []int
	typ    reflect.Type
	omit   bool // omitempty or omitzero
	tagged bool
}

// jsonFields are the fields of struct type t that encoding/json writes, in
// its order: an embedded struct's fields where it is embedded, and of two
// fields of one name the shallower, or the one tagged with it (neither,
// when that does not decide).
func jsonFields(t reflect.Type) []jsonField {
	type level struct {
		typ   reflect.Type
		index []int
	}
	var all []jsonField
	depth := map[string]int{}
	visited := map[reflect.Type]bool{}
	next := []level{{typ: t}}
	for d := 0; len(next) > 0; d++ {
		current := next
		next = nil
		for _, l := range current {
			if visited[l.typ] {
				continue
			}
			visited[l.typ] = true
			for i := range l.typ.NumField() {
				sf := l.typ.Field(i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if sf.Anonymous {
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				index := append(slices.Clone(l.index), i)
				if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
					next = append(next, level{ft, index})
					continue
				}
				f := jsonField{name: name, index: index, typ: sf.Type, tagged: name != ""}
				if f.name == "" {
					f.name = sf.Name
				}
				for o := range strings.SplitSeq(opts, ",") {
					f.omit = f.omit || o == "omitempty" || o == "omitzero"
				}
				if _, seen := depth[f.name]; !seen {
					depth[f.name] = d
				}
				all = append(all, f)
			}
		}
	}
	byName := map[string][]jsonField{}
	for _, f := range all {
		if len(f.index)-1 == depth[f.name] {
			byName[f.name] = append(byName[f.name], f)
		}
	}
	var out []jsonField
	for _, list := range byName {
		if len(list) == 1 {
			out = append(out, list[0])
			continue
		}
		var tagged []jsonField
		for _, f := range list {
			if f.tagged {
				tagged = append(tagged, f)
			}
		}
		if len(tagged) == 1 {
			out = append(out, tagged[0])
		}
	}
	slices.SortFunc(out, func(a, b jsonField) int { return slices.Compare(a.index, b.index) })
	return out
}
