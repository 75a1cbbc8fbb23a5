package mailslurp

import (
	"maps"
	"slices"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"tempmail"
)

// getEmailHTMLQuery's selectors (bodies.go). MailSlurp's service takes
// any jsoup selector; tempmail takes the part of CSS that finds the
// elements of sign-up mail (tag, *, #id, .class, [attr] and [attr op
// value], within one another (a space) or right under (>), alternatives
// joined by commas) and answers 400, naming what it takes, for the rest:
// pseudo-classes, + and ~, escapes. Names and values compare as jsoup
// compares them: tags, attribute names, classes and attribute values in
// any case, ids exactly.
//
// A selector is found by passes over the parsed HTML, one per step, each
// marking the elements that match the step and stand within (or right
// under) one the pass before marked: steps × elements, however the
// elements nest, where matching each element from its last step back
// through its ancestors can take time exponential in the steps. The steps
// are bounded (maxSelectorSteps), the HTML is at most 256 KiB (mail.Parse
// keeps no more), and html.Parse refuses HTML nested deeper than 512.

// Bounds on a selector, and on what a query answers.
const (
	maxSelectorLen    = 256
	maxSelectorGroups = 8
	maxSelectorSteps  = 32      // every alternative's together: each is a pass over the HTML
	maxQueryLines     = 1000    // elements whose text is answered, the first in the HTML
	maxQueryText      = 1 << 20 // bytes of text answered, all lines together
)

// errSelector says what htmlSelector may be.
var errSelector = tempmail.Errorf(tempmail.Invalid,
	"htmlSelector must be a CSS selector of at most %d printable ASCII characters and %d steps: elements by "+
		"tag, *, #id, .class, [attr] or [attr=value] (also ~= ^= $= *=), joined by spaces (within) and > "+
		"(right under), alternatives by commas", maxSelectorLen, maxSelectorSteps)

// A selector is one alternative of a selector group: its steps, left to
// right.
type selector []step

// A step is a compound selector, and how it joins the step before it.
type step struct {
	tag     string // lower case; "" for any
	id      string
	classes []string // lower case
	attrs   []attrTest
	child   bool // right under an element of the step before (>), not anywhere within one
}

// An attrTest is [name], or [name op value].
type attrTest struct {
	name, op, value string // name and value lower case; no op tests that the attribute is there
}

// parseSelectors reads a selector group.
func parseSelectors(src string) ([]selector, error) {
	if src == "" {
		return nil, tempmail.Errorf(tempmail.Invalid, "htmlSelector is required")
	}
	if len(src) > maxSelectorLen {
		return nil, errSelector
	}
	for i := range len(src) {
		if src[i] < 0x20 || src[i] > 0x7e {
			return nil, errSelector
		}
	}
	p := selectorParser{s: src}
	var out []selector
	steps := 0
	for {
		sel, ok := p.selector()
		if !ok {
			return nil, errSelector
		}
		out, steps = append(out, sel), steps+len(sel)
		if len(out) > maxSelectorGroups || steps > maxSelectorSteps {
			return nil, errSelector
		}
		if p.done() {
			return out, nil
		}
		if !p.eat(',') {
			return nil, errSelector
		}
	}
}

type selectorParser struct {
	s string
	i int // what is read
}

func (p *selectorParser) done() bool { return p.i == len(p.s) }

func (p *selectorParser) eat(c byte) bool {
	if !p.done() && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// spaces reads spaces, and reports whether there were any.
func (p *selectorParser) spaces() bool {
	start := p.i
	for p.eat(' ') {
	}
	return p.i > start
}

// name reads a name: letters, digits, - and _.
func (p *selectorParser) name() string {
	start := p.i
	for ; !p.done(); p.i++ {
		c := p.s[p.i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			break
		}
	}
	return p.s[start:p.i]
}

// selector reads one alternative, up to a comma or the end.
func (p *selectorParser) selector() (selector, bool) {
	var sel selector
	child := false
	p.spaces()
	for {
		st, ok := p.step()
		if !ok {
			return nil, false
		}
		st.child = child
		sel = append(sel, st)
		spaced := p.spaces()
		switch {
		case p.done() || p.s[p.i] == ',':
			return sel, true
		case p.eat('>'):
			child = true
			p.spaces()
		case spaced:
			child = false
		default:
			return nil, false
		}
	}
}

// step reads a compound selector.
func (p *selectorParser) step() (step, bool) {
	var st step
	start := p.i
	if !p.eat('*') {
		st.tag = strings.ToLower(p.name())
	}
	for {
		switch {
		case p.eat('#'):
			if st.id = p.name(); st.id == "" {
				return st, false
			}
		case p.eat('.'):
			c := p.name()
			if c == "" {
				return st, false
			}
			st.classes = append(st.classes, strings.ToLower(c))
		case p.eat('['):
			a, ok := p.attr()
			if !ok {
				return st, false
			}
			st.attrs = append(st.attrs, a)
		default:
			return st, p.i > start
		}
	}
}

// attr reads an attribute test, after its [.
func (p *selectorParser) attr() (attrTest, bool) {
	p.spaces()
	a := attrTest{name: strings.ToLower(p.name())}
	p.spaces()
	if a.name == "" {
		return a, false
	}
	if p.eat(']') {
		return a, true
	}
	for _, op := range []string{"=", "~=", "^=", "$=", "*="} {
		if strings.HasPrefix(p.s[p.i:], op) {
			a.op, p.i = op, p.i+len(op)
			break
		}
	}
	if a.op == "" {
		return a, false
	}
	p.spaces()
	var ok bool
	if a.value, ok = p.quoted('"'); !ok {
		if a.value, ok = p.quoted('\''); !ok {
			if a.value = p.name(); a.value == "" {
				return a, false
			}
		}
	}
	a.value = strings.ToLower(a.value)
	p.spaces()
	return a, p.eat(']')
}

// quoted reads a value in quotes q, and reports whether there was one.
func (p *selectorParser) quoted(q byte) (string, bool) {
	if !p.eat(q) {
		return "", false
	}
	end := strings.IndexByte(p.s[p.i:], q)
	if end < 0 {
		p.i = len(p.s) // unclosed: nothing more to read, and no ] to end the test
		return "", true
	}
	v := p.s[p.i : p.i+end]
	p.i += end + 1
	return v, true
}

// matches reports whether element n is what st says, wherever it is.
func (st *step) matches(n *html.Node) bool {
	if st.tag != "" && !strings.EqualFold(n.Data, st.tag) {
		return false
	}
	if st.id != "" {
		if id, ok := attrOf(n, "id"); !ok || id != st.id {
			return false
		}
	}
	if len(st.classes) > 0 {
		class, _ := attrOf(n, "class")
		have := strings.Fields(strings.ToLower(class))
		for _, c := range st.classes {
			if !slices.Contains(have, c) {
				return false
			}
		}
	}
	for _, a := range st.attrs {
		v, ok := attrOf(n, a.name)
		v = strings.ToLower(v)
		switch {
		case !ok:
			return false
		case a.op == "=" && v != a.value,
			a.op == "~=" && !slices.Contains(strings.Fields(v), a.value),
			a.op == "^=" && (a.value == "" || !strings.HasPrefix(v, a.value)),
			a.op == "$=" && (a.value == "" || !strings.HasSuffix(v, a.value)),
			a.op == "*=" && (a.value == "" || !strings.Contains(v, a.value)):
			return false
		}
	}
	return true
}

// attrOf is n's attribute key (the parser writes keys in lower case).
func attrOf(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// queryHTML answers the text of each element of doc that any of sels
// finds, in the order of doc (textOf), those with none left out, as
// jsoup's eachText does: at most maxQueryLines of them, and
// maxQueryText bytes.
func queryHTML(doc string, sels []selector) ([]string, error) {
	if doc == "" {
		return nil, nil
	}
	root, err := html.Parse(strings.NewReader(doc))
	if err != nil {
		return nil, tempmail.Errorf(tempmail.Invalid, "this email's HTML cannot be queried: %v", err)
	}
	found := map[*html.Node]bool{}
	for _, sel := range sels {
		var marked map[*html.Node]bool
		for i := range sel {
			next := map[*html.Node]bool{}
			mark(root, &sel[i], marked, i == 0, false, next)
			if marked = next; len(marked) == 0 {
				break
			}
		}
		maps.Copy(found, marked)
	}
	var lines []string
	budget := maxQueryText
	for n := range root.Descendants() {
		if len(lines) == maxQueryLines || budget <= 0 {
			break
		}
		if !found[n] {
			continue
		}
		if t := textOf(n, budget); t != "" {
			lines, budget = append(lines, t), budget-len(t)
		}
	}
	return lines, nil
}

// mark puts into next the elements under n that match st and stand where
// st says among those marked by the pass before (anywhere, for a first
// step); within says n or an element above it is marked.
func mark(n *html.Node, st *step, marked map[*html.Node]bool, first, within bool, next map[*html.Node]bool) {
	within = within || marked[n]
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		if k.Type != html.ElementNode {
			continue
		}
		placed := first || st.child && marked[n] || !st.child && within
		if placed && st.matches(k) {
			next[k] = true
		}
		mark(k, st, marked, first, within, next)
	}
}

// apart are the elements jsoup's text() sets apart from the text around
// them, as a browser does blocks and line breaks.
var apart = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true, atom.Br: true, atom.Dd: true,
	atom.Div: true, atom.Dl: true, atom.Dt: true, atom.Footer: true, atom.Form: true, atom.H1: true, atom.H2: true,
	atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true, atom.Header: true, atom.Hr: true, atom.Li: true,
	atom.Main: true, atom.Nav: true, atom.Ol: true, atom.P: true, atom.Pre: true, atom.Section: true, atom.Table: true,
	atom.Tbody: true, atom.Td: true, atom.Tfoot: true, atom.Th: true, atom.Thead: true, atom.Tr: true, atom.Ul: true,
}

// textOf is an element's text as jsoup's text() gives it: its text
// nodes, but those of scripts and styles, blocks set apart, white space
// run into single spaces; at most limit bytes of it are read.
func textOf(n *html.Node, limit int) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for k := n.FirstChild; k != nil && b.Len() < limit; k = k.NextSibling {
			switch {
			case k.Type == html.TextNode:
				b.WriteString(k.Data)
			case k.Type != html.ElementNode || k.DataAtom == atom.Script || k.DataAtom == atom.Style:
			case apart[k.DataAtom]:
				b.WriteByte(' ')
				walk(k)
				b.WriteByte(' ')
			default:
				walk(k)
			}
		}
	}
	walk(n)
	return tempmail.Truncate(strings.Join(strings.Fields(b.String()), " "), limit)
}
