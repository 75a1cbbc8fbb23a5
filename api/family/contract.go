package family

import (
	"tempmail/api/openapi"
)

// EventStreamAnswer is the 200 of an inbox's event stream in every family
// that has one (docs/waiting.md "Event streams"): the same events, each
// family's message shape (message, a component's name) in its message
// events.
func EventStreamAnswer(message string) openapi.Response {
	return openapi.Response{
		Description: "The inbox's event stream, open until the inbox ends, the client goes or the service stops.",
		Headers:     map[string]openapi.Header{"Cache-Control": {Ref: "NoCache"}},
		Content: map[string]openapi.MediaType{
			"text/event-stream": {
				Schema: openapi.Ref("EventStream"),
				Events: map[string]openapi.Schema{
					"message": {Ref: message},
					"read":    {Ref: "StreamChange"},
					"deleted": {Ref: "StreamChange"},
					"expired": {Ref: "StreamEnd"},
					"reset":   {Ref: "StreamReset"},
					"attempt": {Ref: "Attempt"},
				},
			},
		},
	}
}
