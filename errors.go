package tempmail

import (
	"errors"
	"fmt"
)

// Kind classifies an error by what the caller should do about it. The api
// package maps kinds to statuses in one place; nothing else picks statuses.
type Kind int

const (
	// Internal is a fault of the service; the caller can only retry later.
	Internal Kind = iota
	// Invalid means the request is malformed or out of range.
	Invalid
	// NotFound means the resource does not exist or is no longer live.
	NotFound
	// Conflict means the request lost a race or names something taken.
	Conflict
	// Unauthorized means credentials are missing or wrong.
	Unauthorized
	// Forbidden means credentials are present but do not grant access.
	Forbidden
	// Unavailable means a dependency (the event store) cannot serve now.
	Unavailable
	// TooLarge means the request or message exceeds a configured limit.
	TooLarge
	// Unsupported means a body arrived in a media type that is not accepted.
	Unsupported
	// Full means the disk has too little room left for something new;
	// deletions still work, and free room.
	Full
	// TooMany means the client has used its share (of held requests, of
	// creations); it may try again later.
	TooMany
)

var kindNames = [...]string{"internal", "invalid", "not found", "conflict",
	"unauthorized", "forbidden", "unavailable", "too large", "unsupported", "full", "too many"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Error is an error with a kind and a message written for the user.
type Error struct {
	Kind Kind
	Msg  string // what happened and, where it helps, what to do about it
	Err  error  // the underlying cause, for logs; may be nil
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Msg + ": " + e.Err.Error()
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error of the given kind with a formatted message.
func Errorf(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// Wrap returns an *Error of the given kind that keeps err as its cause.
func Wrap(kind Kind, err error, msg string) *Error {
	return &Error{Kind: kind, Msg: msg, Err: err}
}

// KindOf reports the kind of the first *Error in err's chain, or Internal.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Internal
}

// Message returns the user-facing message of the first *Error in err's
// chain, or fallback when there is none (so internals never leak).
func Message(err error, fallback string) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Msg
	}
	return fallback
}
