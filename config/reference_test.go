package config

import (
	"flag"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/configuration.md's tables of flags from the flags")

// configurationPage is the page that holds each command's flags, between
// <!-- flags:begin COMMAND --> and <!-- flags:end -->.
const configurationPage = "../docs/configuration.md"

// TestConfigurationPageIsTheFlags: docs/configuration.md's table of each
// command's flags is what Reference writes, and lists the flags `tempmail
// COMMAND -h` lists, in its order. With -update (make docs) the tables are
// written again.
func TestConfigurationPageIsTheFlags(t *testing.T) {
	b, err := os.ReadFile(configurationPage)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, command := range []string{"serve", "rebuild", "healthcheck"} {
		begin := "<!-- flags:begin " + command + " -->\n"
		from := strings.Index(page, begin)
		to := strings.Index(page[max(from, 0):], "<!-- flags:end -->")
		if from < 0 || to < 0 {
			t.Fatalf("%s has no table of %s's flags between %q and <!-- flags:end -->", configurationPage, command, begin)
		}
		from += len(begin)
		to += from - len(begin)
		var want strings.Builder
		Reference(&want, command)
		if got := page[from:to]; got != want.String() {
			if !*update {
				t.Errorf("%s: the table of %s's flags is not what its flags say; go test ./config -update (make docs) writes it again.\nWant:\n%s", configurationPage, command, want.String())
				continue
			}
			page = page[:from] + want.String() + page[to:]
		}

		// The rows name the flags the usage lists, in its order.
		var usage strings.Builder
		Usage(&usage, command)
		flagLine := regexp.MustCompile(`(?m)^  (--[a-z-]+)`)
		rowFlag := regexp.MustCompile("(?m)^\\| `(--[a-z-]+)")
		var listed, rows []string
		for _, m := range flagLine.FindAllStringSubmatch(usage.String(), -1) {
			listed = append(listed, m[1])
		}
		for _, m := range rowFlag.FindAllStringSubmatch(want.String(), -1) {
			rows = append(rows, m[1])
		}
		if len(listed) == 0 || !slices.Equal(listed, rows) {
			t.Errorf("%s -h lists %q, the page's table %q", command, listed, rows)
		}
	}
	if *update && page != string(b) {
		if err := os.WriteFile(configurationPage, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
