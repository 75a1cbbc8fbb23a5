package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
)

// Build writes the document: head (a JSON object of the document's
// fixed parts: openapi, info, servers, tags) and the contracts' paths,
// webhooks and components, indented as json.Indent writes it with two
// spaces. Paths are in the order their first operation is declared;
// components in the order of their names.
func Build(head []byte, contracts ...Contract) ([]byte, error) {
	b := &builder{
		schemas:    map[string]Component{},
		params:     map[string]Param{},
		responses:  map[string]Response{},
		headers:    map[string]Header{},
		security:   map[string]SecurityScheme{},
		byType:     map[reflect.Type]string{},
		built:      map[string]*Schema{},
		inProgress: map[string]bool{},
		told:       map[string]bool{},
	}
	var ops []Operation
	for _, c := range contracts {
		ops = append(ops, c.Operations...)
		for _, err := range []error{
			declare(b.schemas, c.Schemas, "schema"),
			declare(b.params, c.Parameters, "parameter"),
			declare(b.responses, c.Responses, "response"),
			declare(b.headers, c.Headers, "header"),
			declare(b.security, c.SecuritySchemes, "security scheme"),
		} {
			if err != nil {
				return nil, err
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(b.schemas)) {
		c := b.schemas[name]
		if c.Of == nil || c.Extends != "" {
			continue
		}
		t := reflect.TypeOf(c.Of)
		if _, dup := b.byType[t]; dup {
			b.byType[t] = "" // ambiguous: a field of this type must say which
		} else {
			b.byType[t] = name
		}
	}

	doc := object{}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(head, &top); err != nil {
		return nil, fmt.Errorf("the document's head: %w", err)
	}
	for _, k := range []string{"paths", "webhooks", "components"} {
		if _, ok := top[k]; ok {
			return nil, fmt.Errorf("the document's head has %s, which the contracts make", k)
		}
	}
	order := []string{"openapi", "info", "jsonSchemaDialect", "servers", "tags"}
	for _, k := range order {
		if v, ok := top[k]; ok {
			doc.set(k, v)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(top)) {
		if !slices.Contains(order, k) {
			doc.set(k, top[k])
		}
	}

	paths, webhooks, err := b.operations(ops)
	if err != nil {
		return nil, err
	}
	doc.set("paths", paths)
	if len(webhooks) > 0 {
		doc.set("webhooks", webhooks)
	}
	components, err := b.components()
	if err != nil {
		return nil, err
	}
	doc.set("components", components)
	if len(b.errs) > 0 {
		return nil, errors.Join(b.errs...)
	}

	var compact, out bytes.Buffer
	if err := write(&compact, doc); err != nil {
		return nil, err
	}
	if err := json.Indent(&out, compact.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

func declare[T any](all, some map[string]T, kind string) error {
	for name, v := range some {
		if _, dup := all[name]; dup {
			return fmt.Errorf("the %s %s is declared twice", kind, name)
		}
		all[name] = v
	}
	return nil
}

type builder struct {
	schemas   map[string]Component
	params    map[string]Param
	responses map[string]Response
	headers   map[string]Header
	security  map[string]SecurityScheme

	byType     map[reflect.Type]string
	built      map[string]*Schema
	inProgress map[string]bool
	errs       []error // references that do not resolve, each once
	told       map[string]bool
}

func (b *builder) fail(format string, args ...any) {
	err := fmt.Errorf(format, args...)
	if !b.told[err.Error()] {
		b.told[err.Error()] = true
		b.errs = append(b.errs, err)
	}
}

var pathParam = regexp.MustCompile(`\{([^}]+)\}`)

// methods is the order of a path's operations.
var methods = []string{"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"}

func (b *builder) operations(ops []Operation) (paths, webhooks object, err error) {
	type item struct {
		params []Param
		given  bool
		ops    map[string]Operation
	}
	items := map[string]*item{}
	var order []string
	ids := map[string]string{}
	for _, op := range ops {
		where := op.Method + " " + op.Path
		key := op.Path
		if op.Webhook != "" {
			where, key = "webhook "+op.Webhook, "\x00"+op.Webhook
		} else if !strings.HasPrefix(op.Path, "/") {
			return nil, nil, fmt.Errorf("%s: a path begins with /", where)
		}
		if !slices.Contains(methods, op.Method) {
			return nil, nil, fmt.Errorf("%s: no such method", where)
		}
		if op.ID == "" {
			return nil, nil, fmt.Errorf("%s has no ID", where)
		}
		if other, dup := ids[op.ID]; dup {
			return nil, nil, fmt.Errorf("operation ID %s is both %s's and %s's", op.ID, other, where)
		}
		ids[op.ID] = where
		it := items[key]
		if it == nil {
			it = &item{ops: map[string]Operation{}}
			items[key] = it
			order = append(order, key)
		}
		if _, dup := it.ops[op.Method]; dup {
			return nil, nil, fmt.Errorf("%s is declared twice", where)
		}
		it.ops[op.Method] = op

		// The path's parameters are the path item's: every operation of
		// the path gives the same, those its template names.
		var inPath []Param
		for _, p := range op.Params {
			if b.paramIn(p) == "path" {
				inPath = append(inPath, p)
			}
		}
		if op.Webhook == "" {
			var names, want []string
			for _, p := range inPath {
				names = append(names, b.paramName(p))
			}
			for _, m := range pathParam.FindAllStringSubmatch(op.Path, -1) {
				want = append(want, m[1])
			}
			if !slices.Equal(slices.Sorted(slices.Values(names)), slices.Sorted(slices.Values(want))) {
				return nil, nil, fmt.Errorf("%s: its path parameters are %v, its path names %v", where, names, want)
			}
		}
		if !it.given {
			it.params, it.given = inPath, true
		} else if !reflect.DeepEqual(it.params, inPath) {
			return nil, nil, fmt.Errorf("%s: its path parameters are not those of the path's other operations", where)
		}
	}

	paths, webhooks = object{}, object{}
	for _, key := range order {
		it := items[key]
		pi := object{}
		if len(it.params) > 0 {
			pi.set("parameters", b.paramList(it.params))
		}
		for _, m := range methods {
			if op, ok := it.ops[m]; ok {
				pi.set(strings.ToLower(m), b.operation(op))
			}
		}
		if name, ok := strings.CutPrefix(key, "\x00"); ok {
			webhooks.set(name, pi)
		} else {
			paths.set(key, pi)
		}
	}
	return paths, webhooks, nil
}

func (b *builder) paramIn(p Param) string {
	if p.Ref != "" {
		return b.params[p.Ref].In
	}
	return p.In
}

func (b *builder) paramName(p Param) string {
	if p.Ref != "" {
		return b.params[p.Ref].Name
	}
	return p.Name
}

func (b *builder) paramList(list []Param) []any {
	out := []any{}
	for _, p := range list {
		out = append(out, b.param(p))
	}
	return out
}

func (b *builder) operation(op Operation) object {
	o := object{}
	if len(op.Tags) > 0 {
		o.set("tags", op.Tags)
	}
	o.set("operationId", op.ID)
	o.setString("summary", op.Summary)
	o.setString("description", op.Description)
	security := []any{}
	for _, s := range op.Security {
		req := object{}
		for _, name := range s {
			if _, ok := b.security[name]; !ok {
				b.fail("%s: no security scheme %s", op.ID, name)
			}
			req.set(name, []any{})
		}
		security = append(security, req)
	}
	o.set("security", security)
	var params []Param
	for _, p := range op.Params {
		if op.Webhook != "" || b.paramIn(p) != "path" {
			params = append(params, p)
		}
	}
	if len(params) > 0 {
		o.set("parameters", b.paramList(params))
	}
	if op.Body != nil {
		body := object{}
		body.setString("description", op.Body.Description)
		if op.Body.Required {
			body.set("required", true)
		}
		body.set("content", b.content(op.Body.Content))
		o.set("requestBody", body)
	}
	responses := object{}
	for _, code := range slices.Sorted(maps.Keys(op.Responses)) {
		responses.set(code, b.response(op.Responses[code]))
	}
	o.set("responses", responses)
	return o
}

func (b *builder) param(p Param) object {
	o := object{}
	if p.Ref != "" {
		if _, ok := b.params[p.Ref]; !ok {
			b.fail("no parameter %s", p.Ref)
		}
		o.set("$ref", "#/components/parameters/"+p.Ref)
		return o
	}
	o.set("name", p.Name)
	o.set("in", p.In)
	if p.Required {
		o.set("required", true)
	}
	o.setString("description", p.Description)
	if p.Schema != nil {
		o.set("schema", b.schema(*p.Schema))
	}
	if p.Example != nil {
		o.set("example", p.Example)
	}
	o.setString("style", p.Style)
	if p.Explode {
		o.set("explode", true)
	}
	return o
}

func (b *builder) response(r Response) object {
	o := object{}
	if r.Ref != "" {
		if _, ok := b.responses[r.Ref]; !ok {
			b.fail("no response %s", r.Ref)
		}
		o.set("$ref", "#/components/responses/"+r.Ref)
		return o
	}
	o.set("description", r.Description)
	if len(r.Headers) > 0 {
		headers := object{}
		for _, name := range slices.Sorted(maps.Keys(r.Headers)) {
			headers.set(name, b.header(r.Headers[name]))
		}
		o.set("headers", headers)
	}
	if len(r.Content) > 0 {
		o.set("content", b.content(r.Content))
	}
	return o
}

func (b *builder) header(h Header) object {
	o := object{}
	if h.Ref != "" {
		if _, ok := b.headers[h.Ref]; !ok {
			b.fail("no header %s", h.Ref)
		}
		o.set("$ref", "#/components/headers/"+h.Ref)
		return o
	}
	o.setString("description", h.Description)
	if h.Required {
		o.set("required", true)
	}
	if h.Schema != nil {
		o.set("schema", b.schema(*h.Schema))
	}
	return o
}

func (b *builder) content(c map[string]MediaType) object {
	o := object{}
	for _, mt := range slices.Sorted(maps.Keys(c)) {
		m := object{}
		if s := c[mt].Schema; s != nil {
			m.set("schema", b.schema(*s))
		}
		if events := c[mt].Events; len(events) > 0 {
			e := object{}
			for _, name := range slices.Sorted(maps.Keys(events)) {
				e.set(name, b.schema(events[name]))
			}
			m.set("x-events", e)
		}
		o.set(mt, m)
	}
	return o
}

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

// schema is s as the document writes it.
func (b *builder) schema(s Schema) object {
	o := object{}
	var null bool
	if s.Nullable {
		switch {
		case s.Type != "":
			null = s.Type != "null"
		case s.Ref != "":
			if target, err := b.component(s.Ref); err == nil && !target.Nullable {
				// oneOf the reference and null; the rest beside it.
				ref := s
				ref.Nullable = false
				o.setString("description", s.Description)
				o.set("oneOf", []any{object{{"$ref", "#/components/schemas/" + s.Ref}}, object{{"type", "null"}}})
				ref.Ref, ref.Description = "", ""
				for _, kv := range b.schema(ref) {
					o.set(kv.k, kv.v)
				}
				return o
			}
		default:
			b.fail("a nullable schema needs a type or a reference: %+v", s)
		}
	}
	if s.Ref != "" {
		if _, ok := b.schemas[s.Ref]; !ok {
			b.fail("no schema %s", s.Ref)
		}
		o.set("$ref", "#/components/schemas/"+s.Ref)
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
	if !composite {
		o.setString("description", s.Description)
	}
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
		do := object{{"propertyName", d.PropertyName}}
		if d.Mapping != nil {
			m := object{}
			for _, k := range slices.Sorted(maps.Keys(d.Mapping)) {
				if _, ok := b.schemas[d.Mapping[k]]; !ok {
					b.fail("no schema %s", d.Mapping[k])
				}
				m.set(k, "#/components/schemas/"+d.Mapping[k])
			}
			do.set("mapping", m)
		}
		o.set("discriminator", do)
	}
	if s.Defs != nil {
		defs := object{}
		for _, k := range slices.Sorted(maps.Keys(s.Defs)) {
			defs.set(k, b.schema(s.Defs[k]))
		}
		o.set("$defs", defs)
	}
	return o
}

// An object is a JSON object whose members keep their order.
type object []member

type member struct {
	k string
	v any
}

func (o *object) set(k string, v any) { *o = append(*o, member{k, v}) }

func (o *object) setString(k, v string) {
	if v != "" {
		o.set(k, v)
	}
}

// write writes v as compact JSON, without escaping <, > and & (the
// document is no HTML).
func write(buf *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case object:
		buf.WriteByte('{')
		for i, m := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := write(buf, m.k); err != nil {
				return err
			}
			buf.WriteByte(':')
			if err := write(buf, m.v); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
		return nil
	case []any:
		buf.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := write(buf, x); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	case json.RawMessage:
		return json.Compact(buf, v)
	}
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // Encode's newline
	return nil
}
