package specs

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkDefaultSpecsParse decodes all of a copy of internal/specs/default.toml,
// as every clada process once did at start: what Default's per-command
// sections, decoded on first use, save (bench/README.md, profile).
func BenchmarkDefaultSpecsParse(b *testing.B) {
	data, err := os.ReadFile("default.toml")
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "default.toml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		set, err := LoadFile(path)
		if err != nil || len(set.Names()) == 0 {
			b.Fatalf("%v", err)
		}
	}
}
