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
	ops, err := b.declare(contracts)
	if err != nil {
		return nil, err
	}
	doc, err := headOf(head)
	if err != nil {
		return nil, err
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

// declare takes in what the contracts declare (their components by name,
// each name once), maps each Go type a schema is made of to its name, and
// returns every operation, in the contracts' order.
func (b *builder) declare(contracts []Contract) ([]Operation, error) {
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
	return ops, nil
}

// headOf is the document's start: head's members in the order the
// specification lists them (openapi, info, jsonSchemaDialect, servers,
// tags), then any others by name. The head must leave paths, webhooks
// and components to the contracts.
func headOf(head []byte) (object, error) {
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
	return doc, nil
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
