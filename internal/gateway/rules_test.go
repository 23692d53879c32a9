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
)

var update = flag.Bool("update", false, "rewrite the generated table in docs/rules.md")

// ruleConstants finds every constant named Rule… with a string value in
// the module's non-test Go files, wherever it is declared, so a rule
// added in any package is seen here.
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
					if !regexp.MustCompile(`^Rule[A-Z]`).MatchString(name.Name) || i >= len(vs.Values) {
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

// TestRulesComplete: Rules lists every rule constant of the code once,
// and nothing else, each with a decision, a trigger and advice.
func TestRulesComplete(t *testing.T) {
	t.Parallel()
	consts := ruleConstants(t)
	if len(consts) < 20 {
		t.Fatalf("found only %d rule constants; is the walk broken?", len(consts))
	}
	listed := map[string]bool{}
	for _, r := range Rules() {
		if listed[r.Code] {
			t.Errorf("rule %q is listed twice", r.Code)
		}
		listed[r.Code] = true
		if _, ok := consts[r.Code]; !ok {
			t.Errorf("rule %q (%s) is listed but no Rule constant has that value", r.Code, r.Stage)
		}
		if !slices.Contains([]string{"allow", "ask", "deny", "ask or deny", "allow or deny", "allow or ask"}, r.Decision) {
			t.Errorf("rule %q: decision %q is not allow, ask, deny or two of them joined with \" or \"", r.Code, r.Decision)
		}
		if r.Trigger == "" {
			t.Errorf("rule %q has no trigger", r.Code)
		}
		if r.Decision != "allow" && r.Advice == "" {
			t.Errorf("rule %q can %s but gives no advice", r.Code, r.Decision)
		}
	}
	for code, where := range consts {
		if !listed[code] {
			t.Errorf("rule %q (%s) is missing from gateway.Rules: add it to the Rules list of its package "+
				"(with its decision, trigger and advice), then document it in docs/rules.md", code, where)
		}
	}
}

const (
	tableBegin = "<!-- BEGIN rules table: generated from gateway.Rules by `go test ./internal/gateway -run TestRulesDoc -update`; do not edit by hand -->"
	tableEnd   = "<!-- END rules table -->"
)

// rulesTable is the Markdown table of docs/rules.md.
func rulesTable() string {
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	var b strings.Builder
	b.WriteString("| rule | decision | given for | do instead |\n|---|---|---|---|\n")
	for _, r := range Rules() {
		advice := r.Advice
		if advice == "" {
			advice = "—"
		}
		b.WriteString("| [`" + r.Code + "`](#" + r.Code + ") | " + r.Decision + " | " + cell(r.Trigger) + " | " + cell(advice) + " |\n")
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
	for _, r := range Rules() {
		if _, ok := sections[r.Code]; !ok {
			t.Errorf("%s has no section \"### `%s`\": say what triggers the rule, with examples, and what to do instead", path, r.Code)
		}
	}
	known := map[string]bool{}
	for _, r := range Rules() {
		known[r.Code] = true
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
