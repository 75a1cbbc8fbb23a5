package config

import (
	"fmt"
	"io"
	"strings"
)

// Reference writes the flags command takes as a Markdown table: the same
// flags, defaults, variables and words as its usage (Usage, what `tempmail
// serve -h` prints), for docs/configuration.md, whose table is this
// output and which a test holds equal to it.
func Reference(w io.Writer, command string) {
	fmt.Fprintf(w, "| flag | variable | default | meaning |\n|---|---|---|---|\n")
	for _, o := range options() {
		if !Takes(command, o.name) {
			continue
		}
		flag := "`--" + o.name + "`"
		if arg := placeholder(o); arg != "" {
			flag = "`--" + o.name + " " + arg + "`"
		}
		def := o.defaultFor(command)
		switch def {
		case "", "false":
			def = ""
		default:
			def = "`" + def + "`"
		}
		fmt.Fprintf(w, "| %s | `%s` | %s | %s |\n", cell(flag), EnvName(o.name), cell(def), cell(o.usage))
	}
}

// cell makes text fit in a Markdown table's cell: a | would end it.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
