package specs

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// specFields returns the TOML names of a spec's fields, in the order of
// fileSpec: the one list docs/specs.md is checked against.
func specFields() []string {
	var names []string
	t := reflect.TypeFor[fileSpec]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ",")
		names = append(names, name)
	}
	return names
}

func readSpecsDoc(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "specs.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestSpecsDocFields: docs/specs.md has a "### `FIELD`" section for every
// field of the spec format, and its Fields section documents no field the
// format does not have. Adding a field to fileSpec without documenting it
// fails here.
func TestSpecsDocFields(t *testing.T) {
	t.Parallel()
	doc := readSpecsDoc(t)
	heading := regexp.MustCompile("(?m)^### `([a-z_]+)`$")
	documented := map[string]bool{}
	for _, m := range heading.FindAllStringSubmatch(doc, -1) {
		documented[m[1]] = true
	}
	fields := map[string]bool{}
	for _, f := range specFields() {
		fields[f] = true
		if !documented[f] {
			t.Errorf("docs/specs.md has no section \"### `%s`\" for the spec field %s", f, f)
		}
	}
	_, section, ok := strings.Cut(doc, "\n## Fields\n")
	if !ok {
		t.Fatal("docs/specs.md has no \"## Fields\" section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	for _, m := range heading.FindAllStringSubmatch(section, -1) {
		if !fields[m[1]] {
			t.Errorf("docs/specs.md documents a field %q that the spec format does not have", m[1])
		}
	}
}

// TestSpecsDocExamples: every ```toml block of docs/specs.md is valid. A
// block that starts with [commands.NAME] is a whole spec file: it must load,
// and its allow and deny examples must hold in the test project. Any other
// block is a fragment of one spec: its keys must be fields, and it must
// decode.
func TestSpecsDocExamples(t *testing.T) {
	t.Parallel()
	doc := readSpecsDoc(t)
	block := regexp.MustCompile("(?s)```toml\n(.*?)```")
	blocks := block.FindAllStringSubmatch(doc, -1)
	if len(blocks) < 10 {
		t.Fatalf("docs/specs.md has only %d toml blocks", len(blocks))
	}
	fields := map[string]bool{}
	for _, f := range specFields() {
		fields[f] = true
	}
	r, _ := newFixture(t)
	whole := 0
	for _, m := range blocks {
		text := m[1]
		if strings.HasPrefix(text, "[commands.") {
			whole++
			specs, err := parseSpecs("docs/specs.md", []byte(text))
			if err != nil {
				t.Errorf("docs/specs.md: %v\n%s", err, text)
				continue
			}
			for _, sp := range specs {
				if len(sp.allow) == 0 || len(sp.deny) == 0 {
					t.Errorf("docs/specs.md: the %s example has no allow or deny examples", sp.name)
				}
			}
			if err := newSet(specs, nil).CheckExamples(r); err != nil {
				t.Errorf("docs/specs.md: %v", err)
			}
			continue
		}
		var kv map[string]any
		if _, err := toml.Decode(text, &kv); err != nil {
			t.Errorf("docs/specs.md: %q does not decode: %v", text, err)
			continue
		}
		for k := range kv {
			if !fields[k] {
				t.Errorf("docs/specs.md: %q sets %q, which is not a spec field", text, k)
			}
		}
		var fs fileSpec
		if _, err := toml.Decode(text, &fs); err != nil {
			t.Errorf("docs/specs.md: %q: %v", text, err)
		}
	}
	if whole < 3 {
		t.Errorf("docs/specs.md has %d whole example specs, want at least 3", whole)
	}
}
