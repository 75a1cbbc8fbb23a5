// Package admin serves the admin's endpoints under /api/ (docs/tenants.md "Tenants
// and keys"): tenants, their quotas and keys (tenants.go), and domains
// added at run time (domains.go). They are family A's paths and errors'
// shape, and need the API token or a key with the admin scope. Their part
// of the OpenAPI document is contract.go's, and schemas.go's.
package admin
