package specs

import (
	"os"
	"path/filepath"
	"testing"
)

// newFixture builds a project root with the files the examples and tests
// name, and returns a Resolver for it. Layout:
//
//	a.txt b.txt README.md list.txt patterns.txt prog.awk (x: prints lines
//	                          where x is set) evil.awk (calls system())
//	sums.txt outside.sums     (checksum lists; outside.sums names /etc/passwd)
//	dir/a.txt dir/sub/ dir2/ emptydir/ src/a.txt src/sub/b.txt (no links)
//	.git/config .git/hooks/ .clada/commands.toml
//	escape -> /etc            (absolute link out)
//	dangling -> <outside>/nothere  (dangling link out)
//	gitlink -> .git           (link into a protected dir)
//	inlink -> dir             (link inside)
//	uplink -> ..              (the root's parent)
//	sibling: <parent>/proj2   (a sibling sharing the root's name as prefix)
//	hardlink                  (a hard link to .clada/commands.toml)
//	tree/dir/ok.txt tree/dir/link -> ../../.git/config  (a copy into tree
//	                          writes through it)
//	gosrc/ok.go gosrc/in.go -> ok.go gosrc/evil.go -> <outside>/secret
//	                          (gofmt gosrc follows evil.go out)
func newFixture(t testing.TB) (*Resolver, string) {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "proj")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{"dir/sub", "dir2", "emptydir", ".git/hooks", ".clada", "tree/dir", "src/sub", "gosrc"} {
		mustMkdir(t, filepath.Join(root, d))
	}
	mustMkdir(t, outside)
	mustMkdir(t, filepath.Join(base, "proj2"))
	for _, f := range []string{"a.txt", "b.txt", "README.md", "list.txt", "patterns.txt", "dir/a.txt", ".git/config", ".clada/commands.toml", "tree/dir/ok.txt", "src/a.txt", "src/sub/b.txt", "gosrc/ok.go", "prog.awk"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Checksum lists (sha256sum -c): the names inside are paths.
	lists := map[string]string{
		"sums.txt":     "87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7  a.txt\n# comment\n\nSHA256 (dir/a.txt) = 87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7\n\\87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7 *src/a\\\\b.txt\n",
		"outside.sums": "87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7  a.txt\nSHA256 (/etc/passwd) = 00\n",
	}
	for f, body := range lists {
		if err := os.WriteFile(filepath.Join(root, f), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "evil.awk"), []byte("function f() { system(\"id\") }\n{ f() }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"escape":        "/etc",
		"dangling":      filepath.Join(outside, "nothere"),
		"outlink":       outside,
		"gitlink":       ".git",
		"inlink":        "dir",
		"uplink":        "..",
		"hooklink":      ".git/hooks/pre-commit",
		"dir/up":        "../..",
		"loop1":         "loop2",
		"loop2":         "loop1",
		"tree/dir/link": "../../.git/config",
		"gosrc/in.go":   "ok.go",
		"gosrc/evil.go": filepath.Join(outside, "secret"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(root, ".clada/commands.toml"), filepath.Join(root, "hardlink")); err != nil {
		t.Fatal(err)
	}
	r, err := NewResolver(root)
	if err != nil {
		t.Fatal(err)
	}
	return r, filepath.Dir(r.Root())
}

func mustMkdir(t testing.TB, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestDefaultExamples(t *testing.T) {
	t.Parallel()
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	r, _ := newFixture(t)
	if err := s.CheckExamples(r); err != nil {
		t.Fatal(err)
	}
}
