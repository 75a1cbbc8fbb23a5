package api

import (
	_ "embed"
	"io"
	"net/http"
)

// openAPIDocument is the OpenAPI 3.1 document of every endpoint routes
// serves (docs/errors-and-limits.md, "Calling the API from a browser"). It is made from Go (BuildOpenAPI): each
// family declares its operations beside its routes (contract.go) and the
// schemas of its bodies beside their types (schemas.go), reflected from the
// types its handlers encode; go generate ./api/ writes it to openapi.json,
// which is checked in and embedded as it is, so that what is served is what
// is reviewed. A string, not a []byte, so that nothing can change it. The
// api tests hold it and the code to each other: it is what the declarations
// make (openapi_gen_test.go), every route has an operation and every
// operation a route (openapi_test.go), and every answer a test receives
// must validate against it (service/apitest).
//
//go:generate go run ./internal/genopenapi openapi.json
//go:embed openapi.json
var openAPIDocument string

// OpenAPIDocument is the document as it is served (service/apitest checks
// every answer in the tests against it).
func OpenAPIDocument() string { return openAPIDocument }

// openAPI serves the document. Caches must revalidate it: it changes when
// the service is upgraded.
func (s *Server) openAPI(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	_, _ = io.WriteString(w, openAPIDocument)
}
