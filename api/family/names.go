package family

import (
	"encoding/json"
	"strings"

	"tempmail"
)

// EmailName validates a wanted name, sent as field; empty means "pick one
// at random". Every family's chosen names pass here.
func (s *Kit) EmailName(raw json.RawMessage, field string) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	invalid := func(why string) error { return tempmail.Errorf(tempmail.Invalid, "Invalid %s: %s", field, why) }
	var name string
	if err := json.Unmarshal(raw, &name); err != nil {
		return "", invalid("must be a string")
	}
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		return "", nil
	}
	if err := s.Names.Check(name); err != nil {
		return "", invalid(tempmail.Message(err, "is not a name"))
	}
	return name, nil
}

// AsInvalid turns a NotFound into a 400 with msg.
func AsInvalid(err error, msg string) error {
	if tempmail.KindOf(err) == tempmail.NotFound {
		return tempmail.Errorf(tempmail.Invalid, "%s", msg)
	}
	return err
}
