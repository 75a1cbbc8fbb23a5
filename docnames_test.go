package tempmail_test

import (
	"fmt"
	"go/ast"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestCommentsNameWhatExists is the doc check: no comment of the
// repository's Go files names a file or a symbol that is not there
// (staleNames says what a comment names).
func TestCommentsNameWhatExists(t *testing.T) {
	t.Parallel()
	found, err := staleNames(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Error(f)
	}
}

// TestDocCheckFindsStaleNames: the doc check, run on a small tree
// (testdata/docnames) with a stale name of every kind planted among names
// that exist or are not the check's to judge, reports the stale ones and
// nothing else.
func TestDocCheckFindsStaleNames(t *testing.T) {
	t.Parallel()
	root := filepath.Join("testdata", "docnames")
	found, err := staleNames(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"alpha/alpha.go:9: names gone.go, which is not in alpha",
		"alpha/alpha.go:9: names beta/gone.go, which does not exist",
		"alpha/alpha.go:10: names MISSING.md, which is nowhere in the repository",
		"alpha/alpha.go:15: names beta.Gone, which package beta (fixture/beta) does not declare",
		"alpha/alpha.go:16: names beta.T.gone, but beta.T has no field or method gone",
		"alpha/alpha.go:17: names beta.Outer.Gone, but beta.Outer has no field or method Gone",
		"alpha/alpha.go:18: names T.Gone, but T has no field or method Gone",
		"alpha/alpha.go:22: names [Gone], which package alpha (fixture/alpha) does not declare",
		"alpha/alpha.go:22: names [beta.T.Gone], but beta.T has no field or method Gone",
		"alpha/doc.go:3: names beta.Old, which package beta (fixture/beta) does not declare",
		"beta/beta.go:5: names gamma_test.go, which is not in beta",
	}
	var got []string
	for _, f := range found {
		rel, _ := strings.CutPrefix(f, root+string(filepath.Separator))
		got = append(got, filepath.ToSlash(rel))
	}
	if !slices.Equal(got, want) {
		t.Errorf("found:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// staleNames is the doc check. It parses every Go file under root (but in
// testdata and hidden directories) with go/parser, and reports each place
// where a comment names what does not exist, as "file:line: what". What
// the comments name, and where it must be:
//
//   - A file: a word ending in .go or .md, as doc.go, webhooks/guard.go
//     or docs/API.md. A name with a directory must exist from the root or
//     from the comment's directory; a bare .go name in the comment's
//     directory, or in one the same comment names (by its path, as
//     cmd/tempmail, or by its package's name); a bare .md name anywhere.
//     Words in a URL or an import path (github.com/nats-io/nats.go/...),
//     and the names of the modules go.mod requires (nats.go), are not
//     files of the repository.
//   - A symbol of a package of the module, written pkg.Name or
//     pkg.Name.Member with Name exported (events.Store.Content): pkg is a
//     name the package's files import a package of the module by, the
//     package's own name, or the name of exactly one package of the
//     module. Name must be declared at that package's top level (in any of
//     its files, tests too), and Member, of any case, must be a field or
//     method of the type Name, its embedded types' included. A pkg that
//     the package's files import from elsewhere (net/mail, as mail) is
//     not checked.
//   - A symbol of the comment's own package, written Type.Member where
//     Type is a type the package declares (Store.Forget): Member must be
//     its field or method. A bare Name is not checked: prose has too many
//     capitalised words (JetStream, OpenAPI, KiB, plurals of type names)
//     for a rule that is right every time.
//   - A doc link as go/doc/comment reads one (a name in square brackets,
//     qualified or not), with its first name exported or its package one
//     of the module: what it names must exist as above.
//
// A member of a type embedded from outside the module, or of an alias of
// such a type, cannot be known here, and is taken as existing.
func staleNames(root string) ([]string, error) {
	tr, err := readTree(root)
	if err != nil {
		return nil, err
	}
	var found []string
	for _, dir := range slices.Sorted(maps.Keys(tr.pkgs)) {
		p := tr.pkgs[dir]
		for _, name := range slices.Sorted(maps.Keys(p.files)) {
			file := filepath.Join(root, filepath.FromSlash(path.Join(dir, name)))
			for _, g := range p.files[name].Comments {
				for _, pr := range tr.check(p, g) {
					found = append(found, fmt.Sprintf("%s:%d: %s", file, pr.line, pr.msg))
				}
			}
		}
	}
	return found, nil
}

// tree is what the check knows of a repository.
type tree struct {
	fset   *token.FileSet
	module string
	files  map[string]bool   // every file, by its slash path from the root
	bases  map[string]bool   // every file's base name
	deps   map[string]bool   // the last element of each module go.mod requires
	pkgs   map[string]*pkg   // by directory
	byName map[string][]*pkg // by package name, but main
	byPath map[string]*pkg   // by import path
}

// pkg is a directory's Go files: its package and its _test package.
type pkg struct {
	dir, name, path string
	files           map[string]*ast.File
	decls           map[string]bool      // top-level names
	types           map[string]*typeInfo // top-level types
	imports         map[string]string    // local name -> import path, of every file
}

// typeInfo is what a type has: its own fields and methods, and the types
// it embeds (or, an alias, stands for), whose members it has too.
type typeInfo struct {
	members map[string]bool
	embeds  []typeRef
}

// typeRef names a type: by import path and name; path "" is the same
// package.
type typeRef struct{ path, name string }

func readTree(root string) (*tree, error) {
	tr := &tree{fset: token.NewFileSet(), files: map[string]bool{}, bases: map[string]bool{}, deps: map[string]bool{},
		pkgs: map[string]*pkg{}, byName: map[string][]*pkg{}, byPath: map[string]*pkg{}}
	if err := tr.readGoMod(filepath.Join(root, "go.mod")); err != nil {
		return nil, err
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		tr.files[rel], tr.bases[d.Name()] = true, true
		if !strings.HasSuffix(rel, ".go") || slices.Contains(strings.Split(rel, "/"), "testdata") {
			return nil
		}
		f, err := parser.ParseFile(tr.fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir := path.Dir(rel)
		pk := tr.pkgs[dir]
		if pk == nil {
			pk = &pkg{dir: dir, path: path.Join(tr.module, dir), files: map[string]*ast.File{}, decls: map[string]bool{},
				types: map[string]*typeInfo{}, imports: map[string]string{}}
			tr.pkgs[dir] = pk
		}
		pk.files[path.Base(rel)] = f
		if name, isTest := strings.CutSuffix(f.Name.Name, "_test"); !isTest || pk.name == "" {
			pk.name = name
		}
		pk.add(f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, p := range tr.pkgs {
		tr.byPath[p.path] = p
		if p.name != "main" {
			tr.byName[p.name] = append(tr.byName[p.name], p)
		}
	}
	return tr, nil
}

// readGoMod reads the module's path and the modules it requires.
func (tr *tree) readGoMod(name string) error {
	mod, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	for line := range strings.Lines(string(mod)) {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		switch {
		case len(f) >= 2 && f[0] == "module":
			tr.module = f[1]
		case len(f) >= 2 && strings.Contains(f[0], "/") && strings.HasPrefix(f[1], "v"):
			elems := strings.Split(f[0], "/")
			last := elems[len(elems)-1]
			if majorVersion.MatchString(last) {
				last = elems[len(elems)-2]
			}
			tr.deps[last] = true
		}
	}
	if tr.module == "" {
		return fmt.Errorf("%s names no module", name)
	}
	return nil
}

var majorVersion = regexp.MustCompile(`^v[0-9]+$`)

// add records what f declares and imports.
func (p *pkg) add(f *ast.File) {
	local := map[string]string{} // f's own imports, for its embedded types
	for _, im := range f.Imports {
		ipath := strings.Trim(im.Path.Value, `"`)
		name := path.Base(ipath)
		if majorVersion.MatchString(name) {
			name = path.Base(path.Dir(ipath))
		}
		if im.Name != nil {
			name = im.Name.Name
		}
		p.imports[name], local[name] = ipath, ipath
	}
	typ := func(name string) *typeInfo {
		if p.types[name] == nil {
			p.types[name] = &typeInfo{members: map[string]bool{}}
		}
		return p.types[name]
	}
	ref := func(x ast.Expr) (typeRef, bool) {
		switch x := x.(type) {
		case *ast.StarExpr:
			return refOf(x.X, local)
		}
		return refOf(x, local)
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				p.decls[d.Name.Name] = true
			} else if r, ok := ref(d.Recv.List[0].Type); ok {
				typ(r.name).members[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					for _, n := range s.Names {
						p.decls[n.Name] = true
					}
				case *ast.TypeSpec:
					p.decls[s.Name.Name] = true
					ti := typ(s.Name.Name)
					if s.Assign.IsValid() {
						r, ok := ref(s.Type)
						if !ok {
							r = typeRef{path: "?"} // an alias of what cannot be looked into
						}
						ti.embeds = append(ti.embeds, r)
					}
					var fields *ast.FieldList
					switch tt := s.Type.(type) {
					case *ast.StructType:
						fields = tt.Fields
					case *ast.InterfaceType:
						fields = tt.Methods
					}
					if fields == nil {
						continue
					}
					for _, fl := range fields.List {
						for _, n := range fl.Names {
							ti.members[n.Name] = true
						}
						if len(fl.Names) > 0 {
							continue
						}
						r, ok := ref(fl.Type)
						if !ok {
							r = typeRef{path: "?"} // a constraint's union and the like
						}
						ti.members[r.name] = true
						ti.embeds = append(ti.embeds, r)
					}
				}
			}
		}
	}
}

// refOf names the type x denotes, without type arguments, as f (whose
// imports are local) writes it.
func refOf(x ast.Expr, local map[string]string) (typeRef, bool) {
	switch x := x.(type) {
	case *ast.Ident:
		return typeRef{name: x.Name}, true
	case *ast.SelectorExpr:
		if q, ok := x.X.(*ast.Ident); ok {
			return typeRef{path: local[q.Name], name: x.Sel.Name}, local[q.Name] != ""
		}
	case *ast.IndexExpr:
		return refOf(x.X, local)
	case *ast.IndexListExpr:
		return refOf(x.X, local)
	}
	return typeRef{}, false
}

// hasMember reports whether the type name of p has member, or may have it
// by a type from outside the module.
func (tr *tree) hasMember(p *pkg, name, member string, depth int) bool {
	ti := p.types[name]
	if ti == nil || depth > 10 {
		return true // not a type, or embedded too deep to tell
	}
	if ti.members[member] {
		return true
	}
	for _, e := range ti.embeds {
		q := p
		if e.path != "" {
			if q = tr.byPath[e.path]; q == nil {
				return true // from outside the module
			}
		}
		if tr.hasMember(q, e.name, member, depth+1) {
			return true
		}
	}
	return false
}

// A problem is a stale name, on a line.
type problem struct {
	line int
	msg  string
}

var (
	// fileName is a word that ends in .go or .md.
	fileName = regexp.MustCompile(`[\w./-]*\w\.(?:go|md)\b`)
	// qualified is pkg.Name or pkg.Name.Member, not within a longer
	// selector (x.pkg.Name) or a doc link.
	qualified = regexp.MustCompile(`(?:^|[^\w.\[*])([a-z][a-z0-9]*)\.([A-Z]\w*)(?:\.([A-Za-z_]\w*))?`)
	// selector is Type.Member, not within a longer selector or a doc
	// link.
	selector = regexp.MustCompile(`(?:^|[^\w.\[*])([A-Z]\w*)\.([A-Za-z_]\w*)`)
	// bracketed is what may be a doc link: the line a link is on.
	bracketed = regexp.MustCompile(`\[\*?([\w.]+)\]`)
)

// check returns the stale names in comment group g of a file of p.
func (tr *tree) check(p *pkg, g *ast.CommentGroup) []problem {
	var out []problem
	linkLine := map[string]int{}
	for _, c := range g.List {
		first := tr.fset.Position(c.Slash).Line
		for i, line := range strings.Split(c.Text, "\n") {
			n := first + i
			for _, loc := range fileName.FindAllStringIndex(line, -1) {
				if msg := tr.checkFile(p, g, line, loc); msg != "" {
					out = append(out, problem{n, msg})
				}
			}
			for _, m := range qualified.FindAllStringSubmatch(line, -1) {
				if q := tr.resolve(p, m[1]); q != nil {
					if why := tr.checkSymbol(q, m[2], m[3]); why != "" {
						written := m[1] + "." + m[2]
						if m[3] != "" {
							written += "." + m[3]
						}
						out = append(out, problem{n, "names " + written + ", " + qualify(why, m[1])})
					}
				}
			}
			for _, m := range selector.FindAllStringSubmatch(line, -1) {
				if m[2] == "md" || m[2] == "go" {
					continue // a file, checked above: API.md, not type API's md
				}
				if p.types[m[1]] != nil {
					if why := tr.checkSymbol(p, m[1], m[2]); why != "" {
						out = append(out, problem{n, "names " + m[1] + "." + m[2] + ", " + why})
					}
				}
			}
			for _, m := range bracketed.FindAllStringSubmatch(line, -1) {
				if _, ok := linkLine[m[1]]; !ok {
					linkLine[m[1]] = n
				}
			}
		}
	}
	// Doc links, found as go/doc finds them: every name in brackets that
	// could be one is taken for one, and then looked up.
	links := comment.Parser{
		LookupPackage: func(name string) (string, bool) {
			if q := tr.resolve(p, name); q != nil {
				return q.path, true
			}
			return "", false
		},
		LookupSym: func(recv, name string) bool { return true },
	}
	for _, l := range docLinks(links.Parse(g.Text())) {
		q, qual := p, ""
		if l.ImportPath != "" {
			if q = tr.byPath[l.ImportPath]; q == nil {
				continue // outside the module
			}
			qual = q.name + "."
		}
		name, member := l.Name, ""
		if l.Recv != "" {
			name, member = l.Recv, l.Name
		}
		if qual == "" && !ast.IsExported(name) {
			continue
		}
		written := qual + name
		if member != "" {
			written += "." + member
		}
		if why := tr.checkSymbol(q, name, member); why != "" {
			out = append(out, problem{linkLine[written], "names [" + written + "], " + qualify(why, strings.TrimSuffix(qual, "."))})
		}
	}
	return out
}

// checkFile checks the file name at loc in line, of comment g of p.
func (tr *tree) checkFile(p *pkg, g *ast.CommentGroup, line string, loc []int) string {
	name := line[loc[0]:loc[1]]
	if strings.HasPrefix(line[loc[1]:], "/") {
		return "" // a directory in a path: github.com/nats-io/nats.go/jetstream
	}
	start := loc[0]
	for start > 0 && !strings.ContainsRune(" \t\"'`(", rune(line[start-1])) {
		start--
	}
	word := line[start:loc[1]]
	if first, _, ok := strings.Cut(word, "/"); strings.Contains(word, "://") || ok && strings.Contains(first, ".") && strings.Trim(first, ".") != "" {
		return "" // in a URL or an import path
	}
	name = strings.TrimPrefix(name, "./")
	switch {
	case tr.deps[name]:
		return "" // a module go.mod requires: nats.go
	case strings.Contains(name, "/"):
		if tr.files[path.Clean(name)] || tr.files[path.Join(p.dir, name)] {
			return ""
		}
		return fmt.Sprintf("names %s, which does not exist", name)
	case strings.HasSuffix(name, ".md"):
		if tr.bases[name] {
			return ""
		}
		return fmt.Sprintf("names %s, which is nowhere in the repository", name)
	case tr.files[path.Join(p.dir, name)]:
		return ""
	}
	text := g.Text()
	for dir, q := range tr.pkgs {
		if tr.files[path.Join(dir, name)] && (containsWord(text, dir) || containsWord(text, q.name)) {
			return "" // in a directory the comment names
		}
	}
	return fmt.Sprintf("names %s, which is not in %s", name, p.dir)
}

// containsWord reports whether text has w, not as part of a longer word
// or path.
func containsWord(text, w string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], w)
		if j < 0 {
			return false
		}
		j += i
		before, after := byte(' '), byte(' ')
		if j > 0 {
			before = text[j-1]
		}
		if end := j + len(w); end < len(text) {
			after = text[end]
		}
		if !isWordByte(before) && !isWordByte(after) {
			return true
		}
		i = j + 1
	}
}

func isWordByte(b byte) bool {
	return b == '_' || b == '/' || b == '-' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// checkSymbol says what is wrong with name (and member, if any) of q:
// "" if nothing.
func (tr *tree) checkSymbol(q *pkg, name, member string) string {
	if !q.decls[name] {
		return fmt.Sprintf("which package %s (%s) does not declare", q.name, q.path)
	}
	if member != "" && !tr.hasMember(q, name, member, 0) {
		return fmt.Sprintf("but %s has no field or method %s", name, member)
	}
	return ""
}

// qualify writes a type in why as qual (when not empty) qualifies it.
func qualify(why, qual string) string {
	if qual == "" {
		return why
	}
	if rest, ok := strings.CutPrefix(why, "but "); ok {
		return "but " + qual + "." + rest
	}
	return why
}

// resolve finds the package of the module that qual names in a comment
// of p: one p's files import by that name, p itself, or the one package
// of the module of that name; nil for any other.
func (tr *tree) resolve(p *pkg, qual string) *pkg {
	if ipath, ok := p.imports[qual]; ok {
		return tr.byPath[ipath] // nil: a package from elsewhere
	}
	if qual == p.name {
		return p
	}
	if ps := tr.byName[qual]; len(ps) == 1 {
		return ps[0]
	}
	return nil
}

// docLinks returns the doc links of d.
func docLinks(d *comment.Doc) []*comment.DocLink {
	var out []*comment.DocLink
	var walk func(texts []comment.Text)
	walk = func(texts []comment.Text) {
		for _, x := range texts {
			switch x := x.(type) {
			case *comment.DocLink:
				out = append(out, x)
			case *comment.Link:
				walk(x.Text)
			}
		}
	}
	for _, b := range d.Content {
		switch b := b.(type) {
		case *comment.Paragraph:
			walk(b.Text)
		case *comment.Heading:
			walk(b.Text)
		case *comment.List:
			for _, item := range b.Items {
				for _, c := range item.Content {
					if para, ok := c.(*comment.Paragraph); ok {
						walk(para.Text)
					}
				}
			}
		}
	}
	return out
}
