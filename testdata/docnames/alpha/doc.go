// Package alpha is the fixture's first package: alpha.go, and its tests in
// alpha_test.go; what beta says of it, the old way, is in
// beta.Old.
package alpha
