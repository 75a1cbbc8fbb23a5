package main

import (
	"runtime/debug"
	"strings"
)

// version is stamped at link time (make build, the Dockerfile):
//
//	go build -ldflags "-X main.version=$(git describe --tags --always --dirty)"
//
// The linker writes it once; nothing assigns it at run time.
var version string

// buildVersion is the version that `tempmail version`, the build-info
// metric and the start-up line report.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	return versionOf(version, bi, ok)
}

// versionOf prefers the stamped version. An unstamped build (go build, go
// run, go install) falls back to what the toolchain recorded of the
// checkout, its commit and whether it had local changes, because the module
// version of a main package built in place says only "(devel)".
func versionOf(stamped string, bi *debug.BuildInfo, ok bool) string {
	if stamped = strings.TrimSpace(stamped); stamped != "" {
		return stamped
	}
	if !ok || bi == nil {
		return "unknown"
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if dirty {
			rev += "-dirty"
		}
		return rev
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v // go install module@version
	}
	return "unknown"
}
