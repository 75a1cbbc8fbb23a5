// Package openapi makes the service's OpenAPI 3.1 document (api/openapi.json)
// from Go, so that the code and the document have one source. Each API
// family declares its part as a Contract, beside its routes: its
// operations, and the components they name. The schemas of the bodies a
// family's handlers encode are reflected from the Go types themselves
// (their fields' JSON names, what omitempty leaves out, slices, maps,
// pointers, embedded structs flattened as encoding/json flattens them);
// what reflection cannot tell (what a field means, its format, bounds and
// examples) is said beside the type, in the Component that names it. Build
// puts the contracts together, checks that every reference resolves, and
// writes the document.
//
// The document is checked in and embedded, and a test in package api fails
// when it is not what Build makes now: go generate ./api/ writes it again.
//
// Where things are: openapi.go declares what a family says (Contract,
// Operation, Schema, Component); reflect.go makes schemas from Go types;
// build.go puts the document together, operations.go writes its paths
// and webhooks, components.go its schemas, object.go keeps JSON objects'
// members in order as it writes them.
package openapi
