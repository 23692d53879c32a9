package specs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	packsBegin = "<!-- BEGIN packs table: generated from the embedded pack files by `go test ./internal/specs -run TestPacksDoc -update`; do not edit by hand -->"
	packsEnd   = "<!-- END packs table -->"
)

// packsTable is the Markdown table of docs/specs.md's Packs section: one
// row per embedded file, in the order they are split, with the programs
// it has a spec for, as `clada specs` groups them.
func packsTable() string {
	l := defaults()
	byFile := map[string][]string{}
	for _, name := range l.names() {
		f := l.sections[name].file
		byFile[f] = append(byFile[f], name)
	}
	var b strings.Builder
	b.WriteString("| pack | file | programs |\n|---|---|---|\n")
	for _, f := range embeddedFiles {
		names := byFile[f.name]
		slices.Sort(names)
		for i, n := range names {
			names[i] = "`" + n + "`"
		}
		b.WriteString("| `" + packOf(f.name) + "` | `internal/specs/" + f.name + "` | " + strings.Join(names, ", ") + " |\n")
	}
	return b.String()
}

// TestPacksDoc: docs/specs.md lists every pack, its file and its
// programs as the embedded files have them, so the list cannot drift
// from the packs; -update rewrites it.
func TestPacksDoc(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "..", "docs", "specs.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, packsBegin), strings.Index(doc, packsEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q … %q markers", path, packsBegin, packsEnd)
	}
	got, want := doc[i+len(packsBegin)+1:j], packsTable()
	if got == want {
		return
	}
	if !*update {
		t.Errorf("%s: the packs table is out of date; run `go test ./internal/specs -run TestPacksDoc -update` (-want +got):\n%s",
			path, cmp.Diff(want, got))
		return
	}
	doc = doc[:i+len(packsBegin)+1] + want + doc[j:]
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPacksTable: the generated table has a row for every embedded file
// and names every program exactly once, under the pack clada specs
// prints for it.
func TestPacksTable(t *testing.T) {
	t.Parallel()
	table := packsTable()
	rows := strings.Split(strings.TrimSuffix(table, "\n"), "\n")[2:]
	if len(rows) != len(embeddedFiles) {
		t.Fatalf("%d rows for %d embedded files:\n%s", len(rows), len(embeddedFiles), table)
	}
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range s.Names() {
		sp, err := s.spec(name)
		if err != nil || sp == nil {
			t.Fatalf("spec %s: %v", name, err)
		}
		cell := "`" + name + "`"
		var in []string
		for _, r := range rows {
			cells := strings.Split(r, " | ")
			if slices.Contains(strings.Split(strings.TrimSuffix(cells[2], " |"), ", "), cell) {
				in = append(in, strings.Trim(cells[0], "| `"))
			}
		}
		if len(in) != 1 || in[0] != sp.pack {
			t.Errorf("%s is in the rows of packs %v; clada specs says pack %q", name, in, sp.pack)
		}
	}
}
