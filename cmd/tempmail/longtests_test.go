package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestLongScenariosAreTheMakefiles: every test that calls servicetest.Long
// or backendtest.Long (skipped by make test and test-e2e) is named in the
// Makefile's LONG_TESTS (run by make test-long, which CI runs), and every
// name there is such a test: a long scenario that no target runs would
// never run at all.
func TestLongScenariosAreTheMakefiles(t *testing.T) {
	t.Parallel()
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^LONG_TESTS := (.*)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("the Makefile has no LONG_TESTS")
	}
	listed := strings.Split(string(m[1]), "|")
	var long []string
	fset := token.NewFileSet()
	err = filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Long" {
					if x, ok := sel.X.(*ast.Ident); ok && (x.Name == "servicetest" || x.Name == "backendtest") {
						long = append(long, fn.Name.Name)
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range long {
		if !slices.Contains(listed, name) {
			t.Errorf("%s calls servicetest.Long or backendtest.Long but is not in the Makefile's LONG_TESTS: no target would run it", name)
		}
	}
	for _, name := range listed {
		if !slices.Contains(long, name) {
			t.Errorf("the Makefile's LONG_TESTS names %s, which is no test calling servicetest.Long or backendtest.Long", name)
		}
	}
}
