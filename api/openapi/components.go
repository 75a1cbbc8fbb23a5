package openapi

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
)

// components are the document's components: every schema the operations
// and the other schemas name, reflected and described.
func (b *builder) components() (object, error) {
	o := object{}
	if len(b.security) > 0 {
		s := object{}
		for _, name := range slices.Sorted(maps.Keys(b.security)) {
			sc := b.security[name]
			so := object{}
			so.set("type", sc.Type)
			so.setString("description", sc.Description)
			so.setString("name", sc.Name)
			so.setString("in", sc.In)
			so.setString("scheme", sc.Scheme)
			s.set(name, so)
		}
		o.set("securitySchemes", s)
	}
	if len(b.params) > 0 {
		p := object{}
		for _, name := range slices.Sorted(maps.Keys(b.params)) {
			param := b.params[name]
			if param.Ref != "" {
				return nil, fmt.Errorf("the parameter %s refers to another", name)
			}
			p.set(name, b.param(param))
		}
		o.set("parameters", p)
	}
	if len(b.headers) > 0 {
		h := object{}
		for _, name := range slices.Sorted(maps.Keys(b.headers)) {
			h.set(name, b.header(b.headers[name]))
		}
		o.set("headers", h)
	}
	if len(b.responses) > 0 {
		r := object{}
		for _, name := range slices.Sorted(maps.Keys(b.responses)) {
			r.set(name, b.response(b.responses[name]))
		}
		o.set("responses", r)
	}
	s := object{}
	for _, name := range slices.Sorted(maps.Keys(b.schemas)) {
		c, err := b.component(name)
		if err != nil {
			return nil, err
		}
		s.set(name, b.schema(*c))
	}
	o.set("schemas", s)
	return o, nil
}

// component is the schema of the component name, made once.
func (b *builder) component(name string) (*Schema, error) {
	if s := b.built[name]; s != nil {
		return s, nil
	}
	c, ok := b.schemas[name]
	if !ok {
		return nil, fmt.Errorf("no schema %s", name)
	}
	if b.inProgress[name] {
		return nil, fmt.Errorf("the schema %s extends itself", name)
	}
	b.inProgress[name] = true
	s, err := b.make(name, c)
	if err != nil {
		return nil, fmt.Errorf("the schema %s: %w", name, err)
	}
	b.built[name] = &s
	return &s, nil
}

func (b *builder) make(name string, c Component) (Schema, error) {
	if c.Of == nil {
		if c.Fields != nil || c.Omit != nil || c.Extends != "" || c.Request {
			return Schema{}, errors.New("Fields, Omit, Extends and Request describe a Go type (Of), which it has none of")
		}
		return c.Schema, nil
	}
	r := &reflector{byType: b.byType, fields: c.Fields, used: map[string]bool{}, request: c.Request}
	s, err := r.schemaOf(reflect.TypeOf(c.Of), "", true)
	if err != nil {
		return s, err
	}
	for _, key := range slices.Sorted(maps.Keys(c.Fields)) {
		if !r.used[key] {
			return s, fmt.Errorf("Fields describes %s, which %T has no field for", key, c.Of)
		}
	}
	for _, f := range c.Omit {
		i := slices.IndexFunc(s.Properties, func(p Property) bool { return p.Name == f })
		if i < 0 {
			return s, fmt.Errorf("Omit names %s, which %T has no field for", f, c.Of)
		}
		s.Properties = slices.Delete(s.Properties, i, i+1)
		s.Required = slices.DeleteFunc(s.Required, func(r string) bool { return r == f })
	}
	own := c.Schema
	if c.Extends != "" {
		base, err := b.component(c.Extends)
		if err != nil {
			return s, err
		}
		has := func(list []Property, name string) bool {
			return slices.ContainsFunc(list, func(p Property) bool { return p.Name == name })
		}
		ext := Schema{Type: "object", Required: own.Required}
		if ext.Required == nil {
			for _, r := range s.Required {
				if !slices.Contains(base.Required, r) {
					ext.Required = append(ext.Required, r)
				}
			}
		}
		for _, p := range s.Properties {
			if !has(base.Properties, p.Name) {
				ext.Properties = append(ext.Properties, p)
			}
		}
		for _, r := range ext.Required {
			if !has(s.Properties, r) {
				return s, fmt.Errorf("it requires %s, which %T has no field for", r, c.Of)
			}
		}
		s = Schema{AllOf: []Schema{{Ref: c.Extends}, ext}}
	} else if own.Required != nil {
		s.Required = own.Required
	}
	own.Required = nil
	s.Properties = append(s.Properties, own.Properties...)
	own.Properties = nil
	return merge(s, own), nil
}

// schema is s as the document writes it: its keywords in the order the
// document has them (a reference, the type, the value's constraints, then
// the structure).
func (b *builder) schema(s Schema) object {
	var null bool
	if s.Nullable {
		if o, ok := b.nullableRef(s); ok {
			return o
		}
		null = s.Type != "" && s.Type != "null"
	}
	o := object{}
	if s.Ref != "" {
		o.set("$ref", ref(b, b.schemas, "schema", s.Ref))
	}
	// An object's description heads it; a value's follows its type.
	composite := s.Type == "object" || s.Properties != nil || s.AllOf != nil || s.OneOf != nil || s.AnyOf != nil
	if composite {
		o.setString("description", s.Description)
	}
	if null {
		o.set("type", []any{s.Type, "null"})
	} else {
		o.setString("type", s.Type)
	}
	b.values(&o, s)
	if !composite {
		o.setString("description", s.Description)
	}
	b.structure(&o, s)
	return o
}

// nullableRef is a nullable reference to a schema that is not nullable
// itself, as the document writes it: oneOf the reference and null, the
// rest beside it. ok is false for any other nullable schema, which
// schema writes with its type.
func (b *builder) nullableRef(s Schema) (o object, ok bool) {
	switch {
	case s.Type != "":
		return nil, false
	case s.Ref != "":
		target, err := b.component(s.Ref)
		if err != nil || target.Nullable {
			return nil, false
		}
		ref := s
		ref.Nullable = false
		o.setString("description", s.Description)
		o.set("oneOf", []any{object{{"$ref", "#/components/schemas/" + s.Ref}}, object{{"type", "null"}}})
		ref.Ref, ref.Description = "", ""
		for _, kv := range b.schema(ref) {
			o.set(kv.k, kv.v)
		}
		return o, true
	default:
		b.fail("a nullable schema needs a type or a reference: %+v", s)
		return nil, false
	}
}

// values writes what s says of a value: its format, constants, examples,
// pattern, bounds, content and items.
func (b *builder) values(o *object, s Schema) {
	o.setString("format", s.Format)
	if s.Const != nil {
		o.set("const", s.Const)
	}
	if s.Enum != nil {
		o.set("enum", s.Enum)
	}
	if s.Default != nil {
		o.set("default", s.Default)
	}
	if s.Examples != nil {
		o.set("examples", s.Examples)
	}
	o.setString("pattern", s.Pattern)
	for _, n := range []struct {
		k string
		v *int64
	}{{"minLength", s.MinLength}, {"maxLength", s.MaxLength}, {"minimum", s.Minimum}, {"maximum", s.Maximum},
		{"minItems", s.MinItems}, {"maxItems", s.MaxItems}} {
		if n.v != nil {
			o.set(n.k, *n.v)
		}
	}
	o.setString("contentEncoding", s.ContentEncoding)
	o.setString("contentMediaType", s.ContentMediaType)
	if s.Items != nil {
		o.set("items", b.schema(*s.Items))
	}
}

// structure writes what s says of an object's shape: its required and
// other properties, the schemas it combines, its discriminator and its
// definitions.
func (b *builder) structure(o *object, s Schema) {
	if s.Required != nil {
		o.set("required", s.Required)
	}
	if s.Closed {
		o.set("additionalProperties", false)
	} else if s.AdditionalProperties != nil {
		o.set("additionalProperties", b.schema(*s.AdditionalProperties))
	}
	if s.Properties != nil {
		props := object{}
		for _, p := range s.Properties {
			props.set(p.Name, b.schema(p.Schema))
		}
		o.set("properties", props)
	}
	for _, list := range []struct {
		k string
		v []Schema
	}{{"allOf", s.AllOf}, {"oneOf", s.OneOf}, {"anyOf", s.AnyOf}} {
		if list.v != nil {
			var out []any
			for _, x := range list.v {
				out = append(out, b.schema(x))
			}
			o.set(list.k, out)
		}
	}
	if d := s.Discriminator; d != nil {
		o.set("discriminator", b.discriminator(d))
	}
	if s.Defs != nil {
		defs := object{}
		for _, k := range slices.Sorted(maps.Keys(s.Defs)) {
			defs.set(k, b.schema(s.Defs[k]))
		}
		o.set("$defs", defs)
	}
}

// discriminator is d as the document writes it, its mapping sorted.
func (b *builder) discriminator(d *Discriminator) object {
	do := object{{"propertyName", d.PropertyName}}
	if d.Mapping != nil {
		m := object{}
		for _, k := range slices.Sorted(maps.Keys(d.Mapping)) {
			m.set(k, ref(b, b.schemas, "schema", d.Mapping[k]))
		}
		do.set("mapping", m)
	}
	return do
}

// ref is the pointer to the component name of all, which is of kind
// (schema, parameter, response, header); a name not declared is an
// error of the build.
func ref[T any](b *builder, all map[string]T, kind, name string) string {
	if _, ok := all[name]; !ok {
		b.fail("no %s %s", kind, name)
	}
	return "#/components/" + kind + "s/" + name
}
