package openapi

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// operations are the document's paths and webhooks, each path where a
// family first declares it; what an operation lacks is an error.
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

		inPath, err := b.pathParams(op, where)
		if err != nil {
			return nil, nil, err
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

// pathParams are op's parameters in its path: those its path's template
// names, no more and no fewer (a webhook has none to name). They are the
// path item's: every operation of the path gives the same.
func (b *builder) pathParams(op Operation, where string) ([]Param, error) {
	var inPath []Param
	for _, p := range op.Params {
		if b.paramIn(p) == "path" {
			inPath = append(inPath, p)
		}
	}
	if op.Webhook != "" {
		return inPath, nil
	}
	var names, want []string
	for _, p := range inPath {
		names = append(names, b.paramName(p))
	}
	for _, m := range pathParam.FindAllStringSubmatch(op.Path, -1) {
		want = append(want, m[1])
	}
	if !slices.Equal(slices.Sorted(slices.Values(names)), slices.Sorted(slices.Values(want))) {
		return nil, fmt.Errorf("%s: its path parameters are %v, its path names %v", where, names, want)
	}
	return inPath, nil
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
		o.set("$ref", ref(b, b.params, "parameter", p.Ref))
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
		o.set("$ref", ref(b, b.responses, "response", r.Ref))
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
		o.set("$ref", ref(b, b.headers, "header", h.Ref))
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
