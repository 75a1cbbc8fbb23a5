package main

import (
	"runtime/debug"
	"testing"
)

func TestVersionFallsBackToTheCommitWhenUnstamped(t *testing.T) {
	t.Parallel()
	vcs := func(rev, modified string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}
		bi.Settings = []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
		return bi
	}
	cases := []struct {
		name    string
		stamped string
		bi      *debug.BuildInfo
		ok      bool
		want    string
	}{
		{"stamped", "v1.2.3-4-gabcdef0-dirty", vcs("0123456789abcdef0123", "true"), true, "v1.2.3-4-gabcdef0-dirty"},
		{"commit", "", vcs("0123456789abcdef0123", "false"), true, "0123456789ab"},
		{"modified commit", "", vcs("0123456789abcdef0123", "true"), true, "0123456789ab-dirty"},
		{"module version", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, true, "v1.4.0"},
		{"devel", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "unknown"},
		{"no build info", "", nil, false, "unknown"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := versionOf(c.stamped, c.bi, c.ok); got != c.want {
				t.Errorf("versionOf(%q, ...) = %q, want %q", c.stamped, got, c.want)
			}
		})
	}
}
