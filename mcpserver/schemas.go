package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The JSON schemas of what each tool takes and returns, and the check of a
// call's arguments against them.
//
// The schemas use one plain type per property: an optional argument is one
// the call leaves out, never one typed ["null", "integer"], and no result
// has a null in it. Hosts and their tools read a type array badly: the MCP
// Inspector's CLI turns a command line's "30" into a number only for a
// property typed exactly "integer", so every call that set timeout_seconds
// failed, and model providers' schema dialects have no type arrays.
//
// A call's arguments are checked here, in words ("timeout_seconds must be
// a whole number from 0 to 60, not 120"), before the SDK checks them
// against the same schema, whose own errors read
// "maximum: 120/1 is greater than 60.000000".

// bound is what a schema says of one property beyond its type: a string's
// longest length and the values it may take (enum; nil: any), or a
// number's range (from min, 0 unless given) and default (0: none).
type bound struct {
	number        bool
	min, max, def int
	enum          []string
}

// input is the schema of what a tool takes: T's, with bounds.
func input[T any](bounds map[string]bound) *jsonschema.Schema {
	s := schemaFor[T]()
	for name, b := range bounds {
		p := s.Properties[name]
		if p == nil {
			continue
		}
		if b.number {
			p.Minimum, p.Maximum = jsonschema.Ptr(float64(b.min)), jsonschema.Ptr(float64(b.max))
			if b.def != 0 {
				// The SDK fills a default in: a seed of 0 given is not
				// one left out.
				p.Default = json.RawMessage(fmt.Sprint(b.def))
			}
		} else {
			p.MaxLength = jsonschema.Ptr(b.max)
			for _, v := range b.enum {
				p.Enum = append(p.Enum, v)
			}
		}
	}
	return s
}

// schemaFor is T's schema with plain types: the null that jsonschema gives
// a pointer (an optional argument) or a slice (never nil in a result) is
// taken out.
func schemaFor[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(err) // the types are this package's own
	}
	plain(s)
	return s
}

func plain(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) > 0 {
		types := slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" })
		if len(types) == 1 {
			s.Type, s.Types = types[0], nil
		} else {
			s.Types = types
		}
	}
	for _, p := range s.Properties {
		plain(p)
	}
	plain(s.Items)
}

// checkArguments is a middleware that answers a call whose arguments its
// tool's schema refuses with a tool error that says why in words.
func (t *Tools) checkArguments(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if call, ok := req.(*mcp.CallToolRequest); ok && method == "tools/call" && call.Params != nil {
			if s := t.inputs[call.Params.Name]; s != nil {
				if err := checkArguments(s, call.Params.Arguments); err != nil {
					res := &mcp.CallToolResult{}
					res.SetError(err)
					return res, nil
				}
			}
		}
		return next(ctx, method, req)
	}
}

// checkArguments checks raw against an object's schema as built by input:
// no property it does not name, each of the right type and within its
// bounds, and those it requires there.
func checkArguments(s *jsonschema.Schema, raw json.RawMessage) error {
	args := map[string]any{}
	if b := bytes.TrimSpace(raw); len(b) > 0 && string(b) != "null" {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		if err := d.Decode(&args); err != nil || args == nil {
			return errors.New("the arguments must be a JSON object")
		}
	}
	names := slices.Sorted(maps.Keys(s.Properties))
	for _, name := range slices.Sorted(maps.Keys(args)) {
		p := s.Properties[name]
		if p == nil {
			return fmt.Errorf("unknown argument %q: this tool takes %s", cutName(name), strings.Join(names, ", "))
		}
		if err := checkValue(name, p, args[name]); err != nil {
			return err
		}
	}
	for _, name := range s.Required {
		if _, ok := args[name]; !ok {
			return fmt.Errorf("%s is required", name)
		}
	}
	return nil
}

func checkValue(name string, p *jsonschema.Schema, v any) error {
	switch p.Type {
	case "string":
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s must be a string", name)
		}
		if n := utf8.RuneCountInString(s); p.MaxLength != nil && n > *p.MaxLength {
			return fmt.Errorf("%s must be at most %d characters, not %d", name, *p.MaxLength, n)
		}
		if len(p.Enum) > 0 && !slices.Contains(p.Enum, any(s)) {
			names := make([]string, len(p.Enum))
			for i, v := range p.Enum {
				names[i] = fmt.Sprint(v)
			}
			return fmt.Errorf("%s must be one of %s, not %q", name, strings.Join(names, ", "), cutName(s))
		}
	case "integer":
		num, ok := v.(json.Number)
		f, err := num.Float64()
		if !ok || err != nil || f != math.Trunc(f) {
			return fmt.Errorf("%s must be a whole number%s", name, rangeOf(p))
		}
		if p.Minimum != nil && f < *p.Minimum || p.Maximum != nil && f > *p.Maximum {
			return fmt.Errorf("%s must be a whole number%s, not %s", name, rangeOf(p), num)
		}
	case "number":
		num, ok := v.(json.Number)
		f, err := num.Float64()
		if !ok || err != nil {
			return fmt.Errorf("%s must be a number%s", name, rangeOf(p))
		}
		if p.Minimum != nil && f < *p.Minimum || p.Maximum != nil && f > *p.Maximum {
			return fmt.Errorf("%s must be a number%s, not %s", name, rangeOf(p), num)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s must be true or false", name)
		}
	}
	return nil
}

// rangeOf says a number's bounds: " from 0 to 60".
func rangeOf(p *jsonschema.Schema) string {
	switch {
	case p.Minimum != nil && p.Maximum != nil:
		return fmt.Sprintf(" from %v to %v", *p.Minimum, *p.Maximum)
	case p.Minimum != nil:
		return fmt.Sprintf(" of at least %v", *p.Minimum)
	case p.Maximum != nil:
		return fmt.Sprintf(" of at most %v", *p.Maximum)
	}
	return ""
}

// cutName bounds a name a client sent, for an error that quotes it.
func cutName(s string) string {
	if len(s) > 64 {
		s, _ = cut(s, 64)
		return s + "…"
	}
	return s
}

// result is a call's answer: out, which the SDK sends as structured
// content, and the same JSON as text, written without HTML escapes. The
// SDK's own text would be json.Marshal's, `?u=7\u0026t=zz`, and a host
// that gives the model only the text gives it a URL that is not the link.
func result[T any](out T) (*mcp.CallToolResult, T, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, out, err
	}
	text := strings.TrimSuffix(b.String(), "\n")
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}
