package gateway

import (
	"bufio"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clada/clada/internal/rules"
)

var update = flag.Bool("update", false, "rewrite the generated table in docs/rules.md")

// ruleConstants finds every constant with a string value in the module's
// non-test Go files that is of type Rule (rules.Rule) or named Rule…,
// wherever it is declared, so a rule added in any package is seen here.
func ruleConstants(t *testing.T) map[string]string {
	t.Helper()
	found := map[string]string{} // code → where
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != ".." && (strings.HasPrefix(n, ".") || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !isRuleType(vs.Type) && !regexp.MustCompile(`^Rule[A-Z]`).MatchString(name.Name) || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					code, err := strconv.Unquote(lit.Value)
					if err != nil {
						return err
					}
					if prev, ok := found[code]; ok {
						t.Errorf("rule %q is defined twice: %s and %s", code, prev, fset.Position(name.Pos()))
					}
					found[code] = fset.Position(name.Pos()).String()
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// isRuleType reports whether a constant's declared type is Rule or
// rules.Rule.
func isRuleType(e ast.Expr) bool {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name == "Rule"
	case *ast.SelectorExpr:
		return t.Sel.Name == "Rule"
	}
	return false
}

// TestRulesComplete: rules.All lists every rule constant of the code once,
// and nothing else, each with a decision, a trigger and advice.
func TestRulesComplete(t *testing.T) {
	t.Parallel()
	consts := ruleConstants(t)
	if len(consts) < 20 {
		t.Fatalf("found only %d rule constants; is the walk broken?", len(consts))
	}
	listed := map[string]bool{}
	for _, r := range rules.All() {
		if listed[string(r.Rule)] {
			t.Errorf("rule %q is listed twice", r.Rule)
		}
		listed[string(r.Rule)] = true
		if where, ok := consts[string(r.Rule)]; !ok {
			t.Errorf("rule %q (%s) is listed but no Rule constant has that value", r.Rule, r.Stage)
		} else if !strings.HasPrefix(filepath.ToSlash(where), "../rules/") {
			t.Errorf("rule %q is defined in %s, outside internal/rules: clada has one vocabulary of rules", r.Rule, where)
		}
		if !slices.Contains([]string{"allow", "ask", "deny", "ask or deny", "allow or deny", "allow or ask"}, r.Decision) {
			t.Errorf("rule %q: decision %q is not allow, ask, deny or two of them joined with \" or \"", r.Rule, r.Decision)
		}
		if r.Trigger == "" {
			t.Errorf("rule %q has no trigger", r.Rule)
		}
		if r.Decision != "allow" && r.Advice == "" {
			t.Errorf("rule %q can %s but gives no advice", r.Rule, r.Decision)
		}
	}
	for code, where := range consts {
		if !listed[code] {
			t.Errorf("rule %q (%s) is missing from rules.All: define it in internal/rules and add it to All "+
				"(with its decision, trigger and advice), then document it in docs/rules.md", code, where)
		}
	}
}

const (
	tableBegin = "<!-- BEGIN rules table: generated from rules.All by `go test ./internal/gateway -run TestRulesDoc -update`; do not edit by hand -->"
	tableEnd   = "<!-- END rules table -->"
)

// rulesTable is the Markdown table of docs/rules.md.
func rulesTable() string {
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	var b strings.Builder
	b.WriteString("| rule | decision | given for | do instead |\n|---|---|---|---|\n")
	for _, r := range rules.All() {
		advice := r.Advice
		if advice == "" {
			advice = "—"
		}
		b.WriteString("| [`" + string(r.Rule) + "`](#" + string(r.Rule) + ") | " + r.Decision + " | " + cell(r.Trigger) + " | " + cell(advice) + " |\n")
	}
	return b.String()
}

// TestRulesDoc: docs/rules.md holds the table of Rules, and one section
// per rule headed ### `code`; no section names a rule that does not exist.
func TestRulesDoc(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "..", "docs", "rules.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, tableBegin), strings.Index(doc, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q … %q markers", path, tableBegin, tableEnd)
	}
	got, want := doc[i+len(tableBegin)+1:j], rulesTable()
	if got != want {
		if *update {
			doc = doc[:i+len(tableBegin)+1] + want + doc[j:]
			if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
		} else {
			t.Errorf("%s: the rules table is out of date; run `go test ./internal/gateway -run TestRulesDoc -update` (-want +got):\n%s",
				path, cmp.Diff(want, got))
		}
	}
	sections := ruleSections(t, doc)
	for _, r := range rules.All() {
		if _, ok := sections[string(r.Rule)]; !ok {
			t.Errorf("%s has no section \"### `%s`\": say what triggers the rule, with examples, and what to do instead", path, r.Rule)
		}
	}
	known := map[string]bool{}
	for _, r := range rules.All() {
		known[string(r.Rule)] = true
	}
	for code := range sections {
		if !known[code] {
			t.Errorf("%s has a section for %q, which is not a rule", path, code)
		}
	}
}

// ruleSections returns the body of each "### `code`" section of doc.
func ruleSections(t *testing.T, doc string) map[string][]string {
	t.Helper()
	sections := map[string][]string{}
	heading := regexp.MustCompile("^### `([a-z-]+)`")
	cur := ""
	sc := bufio.NewScanner(strings.NewReader(doc))
	for sc.Scan() {
		line := sc.Text()
		if m := heading.FindStringSubmatch(line); m != nil {
			cur = m[1]
			if _, dup := sections[cur]; dup {
				t.Errorf("docs/rules.md has two sections for %q", cur)
			}
			sections[cur] = []string{}
			continue
		}
		if strings.HasPrefix(line, "#") {
			cur = ""
		}
		if cur != "" {
			sections[cur] = append(sections[cur], line)
		}
	}
	return sections
}
