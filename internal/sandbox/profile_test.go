package sandbox

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestDarwinProfile pins the text of the macOS profile, which only macOS
// CI can run: a change to it shows in review as a change of this file.
func TestDarwinProfile(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		c    Command
	}{
		{"offline", Command{TmpDir: "/private/var/folders/xy/T/clada-1"}},
		{"network-caches", Command{TmpDir: "/private/var/folders/xy/T/clada-1", Network: true,
			Caches: []string{"/Users/u/Library/Caches/go-build", "/Users/u/go/pkg/mod"}, Files: []string{"/dev/ttys003"}}},
		{"repository", Command{TmpDir: "/private/var/folders/xy/T/clada-1", Network: true, Repository: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			profile, params := darwinProfile("/Users/u/src/proj", "/Users/u", nil, tt.c)
			var b strings.Builder
			b.WriteString(profile)
			b.WriteString("\n;; parameters (sandbox-exec -D NAME=VALUE):\n")
			for _, p := range params {
				b.WriteString(";; " + p.Name + "=" + p.Value + "\n")
			}
			golden := filepath.Join("testdata", "darwin-"+tt.name+".sb")
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), b.String()); diff != "" {
				t.Errorf("%s (-want +got):\n%s", golden, diff)
			}
			if strings.Contains(profile, "/Users/") || strings.Contains(profile, "/private/") {
				t.Error("a path is written into the profile text instead of a parameter")
			}
			if open, closed := strings.Count(profile, "("), strings.Count(profile, ")"); open != closed {
				t.Errorf("unbalanced parentheses: %d ( and %d )", open, closed)
			}
		})
	}
}
