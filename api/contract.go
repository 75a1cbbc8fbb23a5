package api

import (
	_ "embed"

	"tempmail/api/admin"
	"tempmail/api/compat/mailosaur"
	"tempmail/api/compat/mailslurp"
	"tempmail/api/compat/mailtm"
	"tempmail/api/inbound"
	"tempmail/api/inboxapi"
	"tempmail/api/mailboxapi"
	"tempmail/api/mcphttp"
	"tempmail/api/openapi"
	"tempmail/api/tokenapi"
)

// openAPIHead is the document's fixed parts: its version, info, servers
// and tags, which no operation declares.
//
//go:embed openapi-head.json
var openAPIHead []byte

// BuildOpenAPI makes the OpenAPI document from every family's contract,
// in the order the paths are written: what go generate writes to
// openapi.json, and what the tests compare it with.
func BuildOpenAPI() ([]byte, error) {
	return openapi.Build(openAPIHead,
		inboxapi.Contract(), inbound.Contract(), admin.Contract(), mailboxapi.Contract(), tokenapi.Contract(),
		contract(), mcphttp.Contract(), mailosaur.Contract(), mailslurp.Contract(), mailtm.Contract(),
		sharedContract())
}

// contract is the assembly's own part of the document: the page, the
// probes, /metrics and the document itself (routes.go), and the shapes
// of ops.go's and page.go's answers (schemas.go).
func contract() openapi.Contract {
	return openapi.Contract{
		Operations: []openapi.Operation{{
			Method: "GET", Path: "/",
			ID:      "getPage",
			Tags:    []string{"Page"},
			Summary: "The web page",
			Description: "A page for people: an address at once, its mail arriving live, each message readable in a " +
				"sandboxed frame. It uses family C and its event stream only. Served under a strict " +
				"Content-Security-Policy; it loads nothing from elsewhere.",
			Security: []openapi.Security{},
			Responses: map[string]openapi.Response{
				"200": {
					Description: "The page.",
					Content: map[string]openapi.MediaType{
						"text/html": {Schema: &openapi.Schema{Type: "string"}},
					},
				},
				"304": {Description: "Not modified (conditional request)."},
			},
		}, {
			Method: "GET", Path: "/ui/config.json",
			ID:       "getPageConfig",
			Tags:     []string{"Page"},
			Summary:  "What the page needs to know",
			Security: []openapi.Security{},
			Responses: map[string]openapi.Response{
				"200": {
					Description: "The page's configuration.",
					Content:     openapi.JSON(openapi.Ref("PageConfig")),
				},
				"500": {Ref: "InternalError"},
				"503": {Ref: "Unavailable"},
			},
		}, {
			Method: "GET", Path: "/ui/{asset}",
			ID:       "getPageAsset",
			Tags:     []string{"Page"},
			Summary:  "The page's assets",
			Security: []openapi.Security{},
			Params: []openapi.Param{{
				Name:        "asset",
				In:          "path",
				Required:    true,
				Description: "A file of the page (scripts, styles, icon).",
				Schema:      &openapi.Schema{Type: "string"},
			}},
			Responses: map[string]openapi.Response{
				"200": {
					Description: "The file, with its type.",
					Content: map[string]openapi.MediaType{
						"*/*": {Schema: &openapi.Schema{Type: "string"}},
					},
				},
				"301": {Description: "A redirect to the canonical path of a directory or an index file."},
				"304": {Description: "Not modified (conditional request)."},
				"404": {
					Description: "No such file (a plain-text answer from the file server).",
					Content: map[string]openapi.MediaType{
						"text/plain": {Schema: &openapi.Schema{Type: "string"}},
					},
				},
			},
		}, {
			Method: "GET", Path: "/livez",
			ID:          "livez",
			Tags:        []string{"Operations"},
			Summary:     "Liveness",
			Description: "200 while the process runs.",
			Security:    []openapi.Security{},
			Responses: map[string]openapi.Response{
				"200": {Description: "Alive.", Content: openapi.JSON(openapi.Ref("Liveness"))},
			},
		}, {
			Method: "GET", Path: "/readyz",
			ID:      "readyz",
			Tags:    []string{"Operations"},
			Summary: "Readiness",
			Description: "200 only while the event store is reachable, every projection partition runs and the " +
				"listeners are up; 503 while starting, stopping or failing.",
			Security: []openapi.Security{},
			Responses: map[string]openapi.Response{
				"200": {Ref: "Ready"},
				"503": {Ref: "NotReady"},
			},
		}, {
			Method: "GET", Path: "/healthz",
			ID:       "healthz",
			Tags:     []string{"Operations"},
			Summary:  "Readiness (the name before /readyz, kept)",
			Security: []openapi.Security{},
			Responses: map[string]openapi.Response{
				"200": {Ref: "Ready"},
				"503": {Ref: "NotReady"},
			},
		}, {
			Method: "GET", Path: "/metrics",
			ID:       "metrics",
			Tags:     []string{"Operations"},
			Summary:  "Prometheus metrics",
			Security: []openapi.Security{},
			Responses: map[string]openapi.Response{
				"200": {
					Description: "The metrics in the Prometheus text format (OpenMetrics when the client asks for it).",
					Content: map[string]openapi.MediaType{
						"text/plain":                   {Schema: &openapi.Schema{Type: "string"}},
						"application/openmetrics-text": {Schema: &openapi.Schema{Type: "string"}},
					},
				},
			},
		}, {
			Method: "GET", Path: "/openapi.json",
			ID:       "getOpenAPI",
			Tags:     []string{"Operations"},
			Summary:  "This document",
			Security: []openapi.Security{},
			Responses: map[string]openapi.Response{
				"200": {
					Description: "The OpenAPI 3.1 document of every endpoint.",
					Content: openapi.JSON(&openapi.Schema{
						Type:     "object",
						Required: []string{"openapi", "info", "paths"},
						Properties: []openapi.Property{
							{Name: "openapi", Schema: openapi.Schema{Type: "string", Const: "3.1.0"}},
							{Name: "info", Schema: openapi.Schema{Type: "object"}},
							{Name: "paths", Schema: openapi.Schema{Type: "object"}},
						},
					}),
				},
			},
		},
		},
		Responses: map[string]openapi.Response{
			"NotReady": {
				Description: "Starting, stopping or failing; `failing` says what.",
				Headers: map[string]openapi.Header{
					"Retry-After": {Ref: "Retry-After"},
				},
				Content: openapi.JSON(openapi.Ref("Health")),
			},
			"Ready": {
				Description: "Ready: `{\"status\": \"ok\"}`.",
				Content:     openapi.JSON(openapi.Ref("Health")),
			},
			"Unavailable": {
				Description: "The event store cannot be reached now; try again after `Retry-After` seconds.",
				Headers: map[string]openapi.Header{
					"Retry-After": {Ref: "Retry-After"},
				},
				Content: openapi.JSON(openapi.Ref("Error")),
			},
		},
		Schemas: schemas(),
	}
}
