// Command genopenapi writes api/openapi.json from the Go declarations of
// every API family (api.BuildOpenAPI); go generate ./api/ runs it.
package main

import (
	"fmt"
	"os"

	"tempmail/api"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: genopenapi <file>")
		os.Exit(2)
	}
	doc, err := api.BuildOpenAPI()
	if err == nil {
		err = os.WriteFile(os.Args[1], doc, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genopenapi:", err)
		os.Exit(1)
	}
}
