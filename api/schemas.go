package api

import (
	"tempmail/api/openapi"
)

// schemas are the shapes of the assembly's answers, as the document names
// them: /livez's (a map), /readyz's (ops.go) and the page's configuration
// (page.go).
func schemas() map[string]openapi.Component {
	return map[string]openapi.Component{
		"Liveness": {Schema: openapi.Schema{
			Type:     "object",
			Required: []string{"status"},
			Properties: []openapi.Property{
				{Name: "status", Schema: openapi.Schema{Const: "ok"}},
			},
		}},
		"Health": {
			Of: health{},
			Fields: map[string]openapi.Schema{
				"status":  {Enum: []any{"ok", "starting", "stopping", "failing"}},
				"failing": {Description: "What keeps the service from serving; absent when ready."},
				"warnings": {
					Description: "What a ready service serves around: events the views set aside (each partition's, with " +
						"their sequences and why), the same on every node until `tempmail rebuild` applies them. " +
						"Absent when there is nothing to tell.",
				},
			},
		},
		"PageConfig": {
			Of: pageConfigBody{},
			Fields: map[string]openapi.Schema{
				"anonymous": {
					Description: "Whether an inbox may be made without an API key (--anonymous); when false the page asks for a key.",
				},
				"domains":         {Description: "The active domains."},
				"default_domain":  {Description: "The first configured domain; empty when no domain is active."},
				"inbox_ttl":       {Description: "Seconds a family C inbox lives.", Minimum: openapi.N(0)},
				"max_name_length": {Minimum: openapi.N(1)},
			},
		},
	}
}
