package parser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDocExample parses the example reply at the top of docs/csl.md and
// checks that it means what the page says: three commands, the second in
// parser/, the last two in one TASKS group.
func TestDocExample(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "csl.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "\n```\n")
	example, _, ok2 := strings.Cut(rest, "\n```\n")
	if !ok || !ok2 {
		t.Fatal("docs/csl.md has no ``` example")
	}
	doc, err := Blocks("csl.md", strings.NewReader(example))
	if err != nil {
		t.Fatal(err)
	}
	if !doc.OK() || len(doc.Warnings) > 0 {
		t.Fatalf("the example has errors: fatal %v, block errors %v, warnings %v", doc.Fatal, doc.Errors, doc.Warnings)
	}
	type block struct {
		Argv  []string
		Dir   string
		Group int
	}
	var got []block
	for _, b := range doc.Blocks {
		got = append(got, block{b.Argv, b.Dir, b.Group})
	}
	want := []block{
		{[]string{"git", "status"}, "", 0},
		{[]string{"grep", "-n", "func Blocks", "blocks.go"}, "parser", 0},
		{[]string{"go", "vet", "./parser/"}, "", 1},
		{[]string{"go", "test", "./parser/"}, "", 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("docs/csl.md example (-want +got):\n%s", diff)
	}
}
