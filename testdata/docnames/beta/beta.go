package beta

import "sync"

// T is a type. Its tests are in gamma_test.go, which is nowhere; those of
// package alpha are in alpha_test.go (alpha.Helper).
type T struct{ Field int }

// Method is T's.
func (t *T) Method() {}

// New makes a T.
func New() *T { return &T{} }

// Outer has T's members too.
type Outer struct {
	*T
	x int
}

// Ext has members from elsewhere.
type Ext struct{ sync.Mutex }
