//go:build race

package service_test

// raceDetector is true when the tests run with -race, which makes the
// scale test too slow to be worth it; `make test` runs that one without.
const raceDetector = true
